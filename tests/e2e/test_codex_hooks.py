"""End to end: our hooks inside the real Codex CLI (``codex exec``, codex-cli 0.171.0).

Each test runs one headless turn of the real client (installed from npm by ``codex_client.py``)
against a loopback mock of the OpenAI Responses API (``mock_responses.py``): the prompt is
answered with one shell call running a chosen command, the call's result with a final message.
The mock logs every request, so the tests assert on what the model was actually shown.

Setup per test, as a user would do it:

1. ``self-improve --root P init`` (creates ``P/.learnings/``);
2. ``self-improve install --harness codex --scope project --project P`` with HOME isolated (writes
   ``P/.codex/hooks.json`` — the real installer, nothing hand-written);
3. the consent Codex asks for before it runs those hooks, recorded in the isolated
   ``HOME/.codex/config.toml`` exactly as the interactive client records it: the project trusted
   (``[projects."P"] trust_level = "trusted"``) and each hook trusted with the hash Codex computed
   (``[hooks.state."P/.codex/hooks.json:<event>:0:0"] trusted_hash``), via ``codex app-server``'s
   ``hooks/list`` + ``config/batchWrite`` like the TUI's /hooks screen (see ``codex_client.py``).
   Without step 3 Codex 0.171.0 skips the hooks silently (``test_untrusted_hooks_are_skipped``).

Where Codex puts hook context (observed, 0.171.0): the ``additionalContext`` text verbatim as a
developer message — after the user's prompt for UserPromptSubmit, and after the model's
``function_call`` but *before* that call's ``function_call_output`` for PostToolUse (both in
the request that follows the tool run). A failing command fires PostToolUse (there is no
PostToolUseFailure), with ``tool_response`` as a plain string and no exit code.

Debugging a failure: the assertion message carries codex's ``--json`` event stream and stderr,
the mock's request list, every input item of the last model request (long ones clipped), and
the tail of our hooks' debug log in the isolated HOME. To see what Codex thinks of the hooks,
run ``codex app-server`` with that HOME and send ``hooks/list`` (``trustStatus`` per hook).

The canary test uses throwaway hooks, so it proves the harness (install, mock, trust, HOME)
independently of our hooks: if it fails, fix the infrastructure first.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex_client import CodexRun
from tests.e2e.mock_responses import (
    MockResponses,
    context_after_prompt,
    context_for_tool_call,
    message_texts,
    tool_outputs,
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
    error_entries,
    one_turn,
    self_improve,
    why,
)

pytestmark = pytest.mark.e2e

RunCodex = RunTurn[CodexRun]


# --- fixtures (the client, its mock, HOME and trust come from conftest.py) ------------


@pytest.fixture
def installed_project(tmp_path: Path, codex_home: Path) -> Path:
    """A project with ``.learnings/`` and our hooks installed by the real installer (not trusted yet)."""
    root = tmp_path / "project"
    root.mkdir()
    self_improve(root, "--root", str(root), "init")
    assert (root / ".learnings").is_dir(), "self-improve init did not create .learnings/"
    self_improve(root, "install", "--harness", "codex", "--scope", "project", "--project", str(root), home=codex_home)
    assert hooks_file(root).is_file(), f"the installer wrote no {hooks_file(root)}"
    return root


@pytest.fixture
def project(installed_project: Path, trust: Any) -> Path:
    """``installed_project`` with the project and our three hooks trusted, as the user would."""
    trusted = trust(installed_project, select=lambda hook: is_ours(hook, installed_project), expect=3)
    events = sorted(hook["eventName"] for hook in trusted if is_ours(hook, installed_project))
    assert events == ["postToolUse", "preToolUse", "userPromptSubmit"], json.dumps(trusted, indent=1)
    return installed_project


# --- helpers ------------------------------------------------------------------------


def hooks_file(project: Path) -> Path:
    return project / ".codex" / "hooks.json"


def is_ours(hook: dict, project: Path) -> bool:
    """A hook from the project's ``.codex/hooks.json`` that runs one of our scripts."""
    return (
        Path(hook.get("sourcePath", "")).resolve() == hooks_file(project).resolve()
        and str(REPO / "hooks") in (hook.get("command") or "")
    )


def executed_commands(run: CodexRun) -> list[dict]:
    """The ``command_execution`` items Codex reported as completed (``--json`` stream)."""
    return [
        event["item"]
        for event in run.events
        if event.get("type") == "item.completed" and (event.get("item") or {}).get("type") == "command_execution"
    ]


# --- the harness itself -------------------------------------------------------------


def test_canary_client_delivers_hook_context_to_the_model(
    tmp_path: Path, codex: RunCodex, trust: Any, mock_responses: MockResponses
) -> None:
    """Throwaway hooks (not ours) prove install + mock + trust + HOME work end to end."""
    hooks = tmp_path / "canary-hooks"
    hooks.mkdir()
    script = hooks / "canary"
    script.write_text(CANARY_HOOK)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    registration = [{"hooks": [{"type": "command", "command": str(script), "timeout": 30}]}]
    hooks_file(project).write_text(json.dumps({"hooks": {
        "UserPromptSubmit": registration,
        "PostToolUse": [dict(registration[0], matcher="Bash")],
    }}, indent=2))
    trust(project, expect=2)
    mock_responses.command = FAILING

    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    assert context_after_prompt(first, PROMPT) == "<canary>UserPromptSubmit saw it</canary>", why(run, mock_responses)
    assert "<canary>PostToolUse" not in first.text, why(run, mock_responses)
    assert "No module named 'nosuchmod'" in "\n".join(tool_outputs(second)), why(run, mock_responses)
    assert context_for_tool_call(second) == "<canary>PostToolUse saw it</canary>", why(run, mock_responses)
    # the hook payload, as our post-bash hook parses it
    payload = json.loads((hooks / "PostToolUse.stdin.json").read_text())
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == FAILING, payload
    assert isinstance(payload["tool_response"], str) and "No module named 'nosuchmod'" in payload["tool_response"]
    assert Path(payload["cwd"]).resolve() == project.resolve(), payload
    assert payload.get("turn_id") and payload.get("model") == "gpt-mock", payload
    prompt_payload = json.loads((hooks / "UserPromptSubmit.stdin.json").read_text())
    assert prompt_payload["prompt"] == PROMPT, prompt_payload


def test_untrusted_hooks_are_skipped(
    installed_project: Path, codex: RunCodex, trust: Any, mock_responses: MockResponses
) -> None:
    """Why the trust step exists: in a trusted project, installed but unreviewed hooks do not run,
    and Codex says nothing about it (the installer's note warns the user)."""
    listed = trust(installed_project, select=lambda hook: False)  # the project only
    ours = [hook for hook in listed if is_ours(hook, installed_project)]
    assert sorted(hook["trustStatus"] for hook in ours) == ["untrusted", "untrusted", "untrusted"], json.dumps(listed, indent=1)
    mock_responses.command = FAILING

    run = codex(installed_project, PROMPT)
    one_turn(run, mock_responses)

    for request in mock_responses.responses_requests():
        assert REMINDER not in request.text and ERROR_TAG not in request.text, why(run, mock_responses)
    assert error_entries(installed_project) == [], why(run, mock_responses)
    stderr = run.stderr.replace(str(run.home.parent), "TMP")  # the test's tmp path has "hooks" in its name
    assert "hook" not in stderr.lower(), f"codex did warn about the hooks after all{why(run, mock_responses)}"


# --- the acceptance tests ------------------------------------------------------------


def test_failing_command_is_nudged_and_recorded(
    project: Path, codex: RunCodex, mock_responses: MockResponses
) -> None:
    mock_responses.command = FAILING
    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    # Codex really ran the command, and it failed
    commands = executed_commands(run)
    assert len(commands) == 1 and FAILING in commands[0]["command"], why(run, mock_responses)
    assert commands[0].get("exit_code") == 1, why(run, mock_responses)
    # (i) the reminder reached the model together with the prompt
    assert PROMPT in message_texts(first, "user"), why(run, mock_responses)
    assert REMINDER in context_after_prompt(first, PROMPT), why(run, mock_responses)
    assert ERROR_TAG not in first.text, why(run, mock_responses)
    # (ii) with the failing tool result, the post-bash hook's nudge names the pattern
    assert "No module named 'nosuchmod'" in "\n".join(tool_outputs(second)), why(run, mock_responses)
    nudge = context_for_tool_call(second)
    assert ERROR_TAG in nudge and MISTAKE in nudge, why(run, mock_responses)
    assert second.text.count(ERROR_TAG) == 1, why(run, mock_responses)
    # (iii) and it was recorded
    errors_md = project / ".learnings" / "ERRORS.md"
    assert errors_md.is_file(), f"no {errors_md}{why(run, mock_responses)}"
    assert f"- Pattern-Key: {PATTERN_KEY}" in errors_md.read_text(), errors_md.read_text()
    assert len(error_entries(project)) == 1, errors_md.read_text()


def test_passing_command_is_not_nudged(project: Path, codex: RunCodex, mock_responses: MockResponses) -> None:
    mock_responses.command = PASSING
    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    assert any(output.rstrip().endswith("hello") for output in tool_outputs(second)), why(run, mock_responses)
    # our hooks are live in this session (so the absence below means something)
    assert REMINDER in context_after_prompt(first, PROMPT), why(run, mock_responses)
    for request in mock_responses.responses_requests():
        assert ERROR_TAG not in request.text, why(run, mock_responses)
    assert context_for_tool_call(second) == "", why(run, mock_responses)
    assert error_entries(project) == [], why(run, mock_responses)
