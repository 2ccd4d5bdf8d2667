"""End-to-end: our hooks inside the real Claude Code client (the issue's acceptance tests).

Run-book
========

    .venv/bin/python -m pytest -m e2e tests/e2e -rs

What happens:

1. The first test of the run installs ``@anthropic-ai/claude-code@2.1.328`` with npm into
   ``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/claude-code-2.1.328`` (about 5 s
   on a fresh machine, then cached; delete that folder to force a reinstall). No npm or no
   registry → the tests are SKIPPED with the reason (``-rs`` shows it); export
   ``SELF_IMPROVE_E2E_REQUIRED=1`` to make that a failure instead. Any other install problem fails.
2. Each test starts a loopback mock of the Anthropic Messages API (``mock_anthropic.py``) and a
   throwaway project with ``.learnings/`` (``self-improve --root P init``) whose
   ``.claude/settings.json`` registers ``hooks/prompt-submit`` (UserPromptSubmit) and
   ``hooks/post-bash`` (PostToolUse + PostToolUseFailure, matcher Bash) from this checkout.
3. ``claude -p "run the command" --allowedTools Bash`` runs in that project with an isolated HOME.
   The mock answers the first request with one Bash ``tool_use`` (the test's command) and the
   second with text, so one turn = two model requests; the tests then read what reached the
   model from the mock's request log. One turn takes about 1 s.

Debugging a failure: the assertion message shows the client's stdout/stderr, the mock's request
list, every message block of the last model request (long ones clipped), and the tail of our hooks'
debug log (``HOME/.local/state/self-improve/debug.log`` in the isolated HOME: a hook that crashes
stays silent to the model but leaves its traceback summary there). To watch the client itself, pass
``extra_args=["--debug-file", "/tmp/claude-debug.log"]`` to ``claude(...)`` and grep it for
``Hooks:``.

The canary test uses throwaway hooks written into tmp_path, so it proves the harness (install,
mock, settings, HOME) independently of our hooks: if it fails, fix the infrastructure first.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import (
    LoggedRequest,
    MockAnthropic,
    hook_context,
    message_text,
    tool_results,
)
from tests.e2e.scenario import (
    CANARY_HOOK,
    ERROR_TAG,
    FAILING,
    PASSING,
    MISTAKE,
    PATTERN_KEY,
    PROMPT,
    REMINDER,
    REPO,
    RunTurn,
    client_env,
    error_entries,
    one_turn,
    self_improve,
    why,
)

pytestmark = pytest.mark.e2e

PROMPT_HOOK = REPO / "hooks" / "prompt-submit"
POST_BASH_HOOK = REPO / "hooks" / "post-bash"
FIX_ACTION = "Install the missing module with pip before importing it"


# --- helpers ------------------------------------------------------------------------


def hook_settings(prompt_hook: Path, post_hook: Path) -> dict[str, Any]:
    return {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(prompt_hook)}]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(post_hook)}]}],
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(post_hook)}]}],
        }
    }


def write_settings(project: Path, settings: dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")


def sessions_seen(entry: Any) -> int:
    """In how many distinct harness sessions (tasks) the entry occurred."""
    from self_improve.store.occurrences import distinct_tasks

    return distinct_tasks(entry.occurrences)


def describe_entries(entries: list[Any]) -> str:
    return "; ".join(
        f"{e.id} status={e.status} count={e.recurrence_count} sessions={sessions_seen(e)} "
        f"action={e.suggested_action!r}"
        for e in entries
    ) or "(none)"


def tool_output(request: LoggedRequest) -> str:
    return "\n".join(json.dumps(block.get("content")) for block in tool_results(request))


# --- fixtures -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with ``.learnings/`` and our hooks registered in ``.claude/settings.json``."""
    for hook in (PROMPT_HOOK, POST_BASH_HOOK):
        assert hook.is_file() and os.access(hook, os.X_OK), f"{hook} is missing or not executable"
    root = tmp_path / "project"
    root.mkdir()
    self_improve(root, "--root", str(root), "init")
    assert (root / ".learnings").is_dir(), "self-improve init did not create .learnings/"
    write_settings(root, hook_settings(PROMPT_HOOK, POST_BASH_HOOK))
    return root


# --- the harness itself -------------------------------------------------------------


CANARY_PROMPT_HOOK = """#!/bin/sh
cat > "$(dirname "$0")/prompt.stdin.json"
echo "<self-improvement-reminder>canary prompt context</self-improvement-reminder>"
"""


def test_canary_client_delivers_hook_context_to_the_model(
    tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic
) -> None:
    """Throwaway hooks (not ours) prove install + mock + settings + HOME work end to end."""
    hooks = tmp_path / "canary-hooks"
    hooks.mkdir()
    for name, body in (("prompt", CANARY_PROMPT_HOOK), ("post", CANARY_HOOK)):
        (hooks / name).write_text(body)
        (hooks / name).chmod((hooks / name).stat().st_mode | stat.S_IXUSR)
    project = tmp_path / "project"
    project.mkdir()
    write_settings(project, hook_settings(hooks / "prompt", hooks / "post"))
    mock_anthropic.command = FAILING

    run = claude(project, PROMPT)
    first, second = one_turn(run, mock_anthropic)

    assert "canary prompt context" in hook_context(first, "UserPromptSubmit"), why(run, mock_anthropic)
    assert "<canary>" not in first.text, why(run, mock_anthropic)
    assert "No module named 'nosuchmod'" in tool_output(second), why(run, mock_anthropic)
    assert "<canary>PostToolUseFailure saw it</canary>" in hook_context(second, "PostToolUseFailure"), why(
        run, mock_anthropic
    )
    payload = json.loads((hooks / "PostToolUseFailure.stdin.json").read_text())
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == FAILING
    assert Path(payload["cwd"]).resolve() == project.resolve()
    assert not (hooks / "PostToolUse.stdin.json").exists(), "PostToolUse fired for a failing command"


# --- the acceptance tests ----------------------------------------------------


def test_failing_command_is_nudged_and_recorded(project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic) -> None:
    mock_anthropic.command = FAILING
    run = claude(project, PROMPT, env_extra=client_env())
    first, second = one_turn(run, mock_anthropic)

    # (i) the reminder reached the model together with the prompt
    assert PROMPT in message_text(first), why(run, mock_anthropic)
    assert REMINDER in hook_context(first, "UserPromptSubmit"), why(run, mock_anthropic)
    assert ERROR_TAG not in first.text, why(run, mock_anthropic)
    # (ii) after the failing tool_result, the post-bash hook's nudge names the pattern
    assert "No module named 'nosuchmod'" in tool_output(second), why(run, mock_anthropic)
    nudge = hook_context(second, "PostToolUseFailure")
    assert ERROR_TAG in nudge and MISTAKE in nudge, why(run, mock_anthropic)
    # (iii) and it was recorded
    errors_md = project / ".learnings" / "ERRORS.md"
    assert errors_md.is_file(), f"no {errors_md}{why(run, mock_anthropic)}"
    assert f"- Pattern-Key: {PATTERN_KEY}" in errors_md.read_text(), errors_md.read_text()


def test_passing_command_is_not_nudged(project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic) -> None:
    mock_anthropic.command = PASSING
    run = claude(project, PROMPT, env_extra=client_env())
    first, second = one_turn(run, mock_anthropic)

    assert "hello" in tool_output(second), why(run, mock_anthropic)
    # our hooks are live in this session (so the absence below means something)
    assert REMINDER in hook_context(first, "UserPromptSubmit"), why(run, mock_anthropic)
    for request in mock_anthropic.messages_requests():
        assert ERROR_TAG not in request.text, why(run, mock_anthropic)
    assert error_entries(project) == [], describe_entries(error_entries(project))


def test_second_session_gets_the_known_fix(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic
) -> None:
    mock_anthropic.command = FAILING
    first_run = claude(project, PROMPT, env_extra=client_env())
    one_turn(first_run, mock_anthropic)
    recorded = error_entries(project)
    assert len(recorded) == 1, f"{describe_entries(recorded)}{why(first_run, mock_anthropic)}"

    # between sessions the user resolves the entry and records the fix for the pattern
    self_improve(project, "--root", str(project), "resolve", recorded[0].id, "--note", "installed nosuchmod with pip")
    self_improve(project, "--root", str(project), "log", "error", "--pattern-key", PATTERN_KEY, "--action", FIX_ACTION,
                 "Python module not found")

    with_fix = [e for e in error_entries(project) if FIX_ACTION in (e.suggested_action or "")]
    assert len(with_fix) == 1, describe_entries(error_entries(project))
    count_before = with_fix[0].recurrence_count

    mock_anthropic.clear()
    run = claude(project, PROMPT, env_extra=client_env())  # same HOME: the same user's next session
    _, second = one_turn(run, mock_anthropic)

    nudge = hook_context(second, "PostToolUseFailure")
    assert ERROR_TAG in nudge and MISTAKE in nudge, why(run, mock_anthropic)
    assert FIX_ACTION in nudge, f"the known fix did not reach the model{why(run, mock_anthropic)}"
    entries = error_entries(project)
    with_fix = [e for e in entries if FIX_ACTION in (e.suggested_action or "")]
    assert len(with_fix) == 1, describe_entries(entries)
    # Two occurrences in two sessions: recording the fix for session 1's failure by hand (same
    # task, same day) added the fix without counting that failure twice.
    assert sessions_seen(with_fix[0]) == 2, describe_entries(entries)
    assert count_before == 1, describe_entries(entries)
    assert with_fix[0].recurrence_count == 2, describe_entries(entries)
