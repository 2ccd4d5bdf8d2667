"""End-to-end: the pre-bash hook (PreToolUse) of issue 12 in the real Codex CLI (``codex exec``,
codex-cli 0.171.0): its ``<known-fix>`` context reaches the model.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_codex_credit.py -rs

Codex 0.171.0 runs PreToolUse hooks for its shell tool (``exec_command``, matched and reported as
``tool_name: "Bash"``, ``tool_input.command``, the same payload shape as Claude Code's) and hands
their ``additionalContext`` to the model verbatim, as a developer message between the model's
``function_call`` and that call's ``function_call_output``; the PostToolUse hook's message
follows it (observed with a canary hook; the source: openai/codex
``codex-rs/hooks/src/events/pre_tool_use.rs``, ``PreToolUseOutcome.additional_contexts``).

Setup as in ``test_codex_hooks.py``: ``self-improve install --harness codex --scope project``, the
project and our hooks trusted through ``codex app-server`` (``conftest.trust``). The scripted model
(``MockResponses(commands=[...])``) runs one shell call per command, then answers.

The project is the credit scenario of ``scenario.py`` (``app.py`` needs ``helpers.py``). The user
recorded the fix beforehand (``self-improve log error --pattern-key ... --action ...``): Codex
reports no exit code to hooks, so this test does not depend on how the ring reads a pass there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex_client import CodexRun
from tests.e2e.mock_responses import (
    TOOL_OUTPUT_TYPES,
    LoggedRequest,
    MockResponses,
    contexts_for_tool_call,
    input_items,
    item_text,
)
from tests.e2e.scenario import (
    ERROR_TAG,
    HELPERS_ERROR,
    HELPERS_KEY,
    PROMPT,
    REPO,
    RUN_APP,
    RunTurn,
    credit_project,
    errors_md,
    helpers_entry,
    known_fix_block,
    known_fix_line,
    self_improve,
    turn_requests,
    why,
)

pytestmark = pytest.mark.e2e

FIX_ACTION = "Copy helpers.example.py to helpers.py before running app.py"


def hooks_file(project: Path) -> Path:
    return project / ".codex" / "hooks.json"


def is_ours(hook: dict, project: Path) -> bool:
    return (Path(hook.get("sourcePath", "")).resolve() == hooks_file(project).resolve()
            and str(REPO / "hooks") in (hook.get("command") or ""))


def items_after_last_call(request: LoggedRequest) -> list[tuple[str, str]]:
    """``(type/role, text)`` of the input items after the model's last ``function_call``."""
    items = input_items(request)
    last = max(i for i, item in enumerate(items) if item.get("type") == "function_call")
    return [(item.get("type") if item.get("type") in TOOL_OUTPUT_TYPES else f"message/{item.get('role')}",
             item_text(item)) for item in items[last + 1:]]


@pytest.fixture
def project(tmp_path: Path, codex_home: Path, trust: Any) -> Path:
    """The credit project with our hooks installed for it (PreToolUse included) and trusted."""
    root = credit_project(tmp_path / "project")
    self_improve(root, "install", "--harness", "codex", "--scope", "project", "--project", str(root), home=codex_home)
    registered = json.loads(hooks_file(root).read_text())["hooks"]
    pre = [handler["command"] for group in registered.get("PreToolUse", []) if group.get("matcher") == "Bash"
           for handler in group["hooks"]]
    assert len(pre) == 1 and pre[0].endswith(f"{REPO}/hooks/pre-bash"), (
        f"the codex install registers no PreToolUse (Bash) hook for hooks/pre-bash: {registered}")
    trusted = trust(root, select=lambda hook: is_ours(hook, root), expect=3)
    events = sorted(hook["eventName"] for hook in trusted if is_ours(hook, root))
    assert events == ["postToolUse", "preToolUse", "userPromptSubmit"], json.dumps(trusted, indent=1)
    return root


def test_known_fix_reaches_the_model_from_pre_tool_use(
    project: Path, codex: RunTurn[CodexRun], mock_responses: MockResponses
) -> None:
    self_improve(project, "--root", str(project), "log", "error", "--pattern-key", HELPERS_KEY, "--action", FIX_ACTION,
                 "app.py needs helpers.py")
    mock_responses.commands = [RUN_APP]

    # session 1: `python3 app.py` never failed here, so pre-bash is silent; post-bash recalls the fix
    run = codex(project, PROMPT)
    requests = turn_requests(run, mock_responses)
    entry = helpers_entry(project)
    assert FIX_ACTION in entry.suggested_action, errors_md(project)
    first = contexts_for_tool_call(requests[1])
    assert len(first) == 1 and first[0].startswith(ERROR_TAG), why(run, mock_responses)
    assert known_fix_line(entry, FIX_ACTION) in first[0], why(run, mock_responses)

    # session 2 (a new thread): it failed here with a known fix and has not passed since, so
    # pre-bash speaks: a developer message right after the model's call, before the PostToolUse
    # nudge and before the call's output; the command still runs
    mock_responses.clear()
    run = codex(project, PROMPT)
    requests = turn_requests(run, mock_responses)
    after = items_after_last_call(requests[1])
    assert [kind for kind, _ in after] == ["message/developer", "message/developer", "function_call_output"], (
        why(run, mock_responses))
    assert after[0][1] == known_fix_block(entry, FIX_ACTION), why(run, mock_responses)
    assert after[1][1].startswith(ERROR_TAG) and known_fix_line(entry, FIX_ACTION) in after[1][1], (
        why(run, mock_responses))
    assert HELPERS_ERROR in after[2][1], why(run, mock_responses)
