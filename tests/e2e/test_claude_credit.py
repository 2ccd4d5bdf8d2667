"""End-to-end: the credit loop of issue 12 (observed fix, recall, PreToolUse known fix, measured
credit) in the real Claude Code client (2.1.328), with an agent that never calls ``self-improve``.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_credit.py -rs

Our hooks come in the product's default way: ``self-improve install --harness claude`` (what
``./install.sh`` runs), i.e. the user's ``~/.claude/settings.json`` in the isolated HOME, pointing
at this checkout's ``hooks/`` with the interpreter pinned. The mock model is scripted
(``MockAnthropic(commands=[...])``): one Bash ``tool_use`` per command, then a text. The project
is the credit scenario of ``scenario.py`` (``app.py`` imports ``helpers``, which only exists as
``helpers.example.py``: a real ModuleNotFoundError until ``cp helpers.example.py helpers.py``).

Both tests start with session 1: ``python3 app.py`` fails, ``cp helpers.example.py helpers.py``,
``python3 app.py`` passes; the ring in post-bash writes ``- Observed-Fix:`` on the entry. Then
``helpers.py`` is removed and:

- ``test_observed_fix_is_recalled_after_the_failure_and_credited``: session 2 runs
  ``python3 app.py`` (fails; post-bash recalls the observed fix), ``python3 app.py`` again (fails
  again: ``- Measured-Harmful: 1``; pre-bash stays silent, the session was given that fix and
  its outcome was not in), the fix, ``python3 app.py`` (passes): ``- Measured-Helpful: 1``.
- ``test_open_failure_gets_the_known_fix_before_the_command_in_a_new_session``: session 2 only
  fails; session 3's first prompt carries ``<known-mistakes>`` (before any command), and pre-bash
  gives ``<known-fix>`` with ``python3 app.py``.

Where the PreToolUse context lands (observed, see ``mock_anthropic.last_call_context``): in a
``role: "system"`` message right after that command's ``tool_result``, together with (before) the
PostToolUse[Failure] context of the same call. The model never sees it before the command ran.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import LoggedRequest, MockAnthropic, hook_context, last_call_context, tool_results
from tests.e2e.scenario import (
    COPY_HELPERS,
    ERROR_TAG,
    GREETING,
    HELPERS_ERROR,
    HELPERS_MISTAKE,
    HELPERS_TITLE,
    OBSERVED_FIX,
    PROMPT,
    REPO,
    RUN_APP,
    VENV_BIN,
    RunTurn,
    client_env,
    credit_project,
    errors_md,
    helpers_entry,
    known_fix_block,
    known_fix_line,
    recalled_nudge,
    self_improve,
    turn_requests,
    why,
)

pytestmark = pytest.mark.e2e


# --- helpers ------------------------------------------------------------------------


def results(request: LoggedRequest) -> list[tuple[bool, str]]:
    """``(is_error, content)`` of every tool_result in the request, in order."""
    return [(bool(block.get("is_error")), json.dumps(block.get("content"))) for block in tool_results(request)]


def session(claude: RunTurn[ClaudeRun], mock: MockAnthropic, project: Path, commands: list[str]) -> tuple[
        ClaudeRun, list[LoggedRequest]]:
    """One ``claude -p`` session whose agent runs ``commands``; its model requests (the prompt,
    then one after each command, carrying that command's result)."""
    mock.clear()
    mock.commands = commands
    run = claude(project, PROMPT, env_extra=client_env())
    return run, turn_requests(run, mock)


# --- fixtures -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, claude_home: Path) -> Path:
    """A project with ``.learnings/`` and the broken app; our hooks installed for the user, the
    product's default (``self-improve install --harness claude``, user scope)."""
    self_improve(tmp_path, "install", "--harness", "claude", home=claude_home)
    settings = json.loads((claude_home / ".claude" / "settings.json").read_text())
    pre = [handler["command"] for group in settings["hooks"].get("PreToolUse", []) if group.get("matcher") == "Bash"
           for handler in group["hooks"]]
    # the interpreter pinned is the CLI's own (its shebang: the venv's python)
    assert pre == [f"SELF_IMPROVE_PYTHON={VENV_BIN / 'python'} {REPO}/hooks/pre-bash"], (
        f"the settings install registers no PreToolUse (Bash) hook for hooks/pre-bash: {settings}")
    return credit_project(tmp_path / "project")


# --- the tests ----------------------------------------------------------------------


def fail_fix_pass(claude: RunTurn[ClaudeRun], mock: MockAnthropic, project: Path) -> None:
    """Session 1: ``python3 app.py`` fails, the agent copies the helpers, ``python3 app.py`` passes.
    The ring turns that into the entry's observed fix; nothing is recalled or credited yet."""
    run, requests = session(claude, mock, project, [RUN_APP, COPY_HELPERS, RUN_APP])
    assert [r[0] for r in results(requests[-1])] == [True, False, False], why(run, mock)
    assert HELPERS_ERROR in results(requests[-1])[0][1], why(run, mock)
    assert GREETING in results(requests[-1])[2][1], why(run, mock)
    # a first failure: post-bash nudges (no fix known yet), pre-bash says nothing at all
    first_failure = last_call_context(requests[1])
    assert list(first_failure) == ["PostToolUseFailure"], why(run, mock)
    assert first_failure["PostToolUseFailure"].startswith(
        f"{ERROR_TAG}\n{HELPERS_MISTAKE}: {HELPERS_TITLE}. First time here.\n"), why(run, mock)
    assert last_call_context(requests[2]) == {}, why(run, mock)
    assert last_call_context(requests[3]) == {}, why(run, mock)
    entry = helpers_entry(project)
    assert f"- Observed-Fix: {OBSERVED_FIX}\n" in entry.text, errors_md(project)
    assert entry.observed_fix == OBSERVED_FIX, errors_md(project)
    assert (entry.measured_helpful, entry.measured_harmful) == (0, 0), errors_md(project)
    assert "Measured-" not in entry.text, errors_md(project)
    (project / "helpers.py").unlink()  # the mistake can happen again


def test_observed_fix_is_recalled_after_the_failure_and_credited(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic, claude_home: Path
) -> None:
    mock = mock_anthropic
    fail_fix_pass(claude, mock, project)

    # session 2 (a new session id): the mistake again, its fix recalled, credit measured
    run, requests = session(claude, mock, project, [RUN_APP, RUN_APP, COPY_HELPERS, RUN_APP])
    transcripts = list((claude_home / ".claude" / "projects").glob("*/*.jsonl"))
    assert len(transcripts) == 2, f"expected two sessions (two transcripts): {transcripts}"
    assert [r[0] for r in results(requests[-1])] == [True, True, False, False], why(run, mock)
    assert HELPERS_ERROR in results(requests[-1])[1][1], why(run, mock)
    assert GREETING in results(requests[-1])[3][1], why(run, mock)
    entry = helpers_entry(project)

    # session 1 ended with `python3 app.py` passing: nothing open at the first prompt
    assert "<known-mistakes>" not in hook_context(requests[0], "UserPromptSubmit"), why(run, mock)
    # 1st `python3 app.py`: pre-bash is silent; the failure gets the observed fix from post-bash
    assert last_call_context(requests[1]) == {"PostToolUseFailure": recalled_nudge(entry, 2, 2)}, why(run, mock)
    # 2nd `python3 app.py`: this session was just given the fix and its outcome is not in, so
    # pre-bash does not say it again; the failure is that outcome (harmful) and gets it again
    assert last_call_context(requests[2]) == {"PostToolUseFailure": recalled_nudge(entry, 3, 2)}, why(run, mock)
    # the fix itself, then the passing retry: nothing to say
    assert last_call_context(requests[3]) == {}, why(run, mock)
    assert last_call_context(requests[4]) == {}, why(run, mock)

    # the recalled fix was followed by the same intent passing: measured helpful, once (today)
    assert "- Measured-Helpful: 1\n" in entry.text, errors_md(project)
    assert entry.measured_helpful == 1, errors_md(project)
    assert f"- Last-Measured-Helpful: {entry.logged[:10]}\n" in entry.text, errors_md(project)
    # ... and before that, the same fingerprint failed again right after the recall: harmful, once
    assert "- Measured-Harmful: 1\n" in entry.text, errors_md(project)
    assert entry.measured_harmful == 1, errors_md(project)
    # self-reported marks stay apart (the agent never called self-improve)
    assert (entry.helpful, entry.harmful) == (0, 0), errors_md(project)
    assert entry.observed_fix == OBSERVED_FIX, errors_md(project)


def test_open_failure_gets_the_known_fix_before_the_command_in_a_new_session(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic
) -> None:
    mock = mock_anthropic
    fail_fix_pass(claude, mock, project)

    # session 2 ends with the mistake made again and not fixed: post-bash recalls the fix, and
    # nothing comes before the command (session 1 ended with `python3 app.py` passing)
    run, requests = session(claude, mock, project, [RUN_APP])
    entry = helpers_entry(project)
    assert last_call_context(requests[1]) == {"PostToolUseFailure": recalled_nudge(entry, 2, 2)}, why(run, mock)

    # session 3: `python3 app.py` failed here and has not passed since: the first prompt lists
    # it with its fix, before any command (the one place Claude Code shows hook text before a
    # command); pre-bash gives the fix again with the command (the model sees it with the
    # result); the command still runs
    run, requests = session(claude, mock, project, [RUN_APP])
    assert [r[0] for r in results(requests[-1])] == [True], why(run, mock)
    assert HELPERS_ERROR in results(requests[-1])[0][1], why(run, mock)
    entry = helpers_entry(project)
    assert hook_context(requests[0], "UserPromptSubmit").startswith(
        "<known-mistakes>\nCommands that failed in this project before and have not passed since:\n"
        f"- {HELPERS_MISTAKE}: {known_fix_line(entry)}\n</known-mistakes>\n"), why(run, mock)
    assert last_call_context(requests[1]) == {
        "PreToolUse": known_fix_block(entry),
        "PostToolUseFailure": recalled_nudge(entry, 3, 3),
    }, why(run, mock)
    # no credit either way: the fix listed at the first prompt was not applied (the agent ran the
    # command as it was), pre-bash's came while the command ran, and session 2's recall never saw
    # an outcome
    assert (entry.measured_helpful, entry.measured_harmful) == (0, 0), errors_md(project)
    assert "Measured-" not in entry.text, errors_md(project)
