"""End to end: what the real Codex (codex-cli 0.171.0) puts in its shell tool's environment, and
that ``self-improve promote`` run by the model there only proposes.

One ``codex exec`` turn against the loopback Responses mock: the model runs ``env`` and then
``self-improve promote ID --yes`` in a project with one proven entry. The tool output, as the
mock received it in the next request, shows the variables and our proposal; CLAUDE.md is
unchanged. No hooks are needed, so no trust step (about a second with the client cached).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from self_improve.harnesses import agent_env
from self_improve.harnesses import codex as codex_adapter
from tests.e2e.codex_client import CodexRun
from tests.e2e.mock_responses import MockResponses, tool_outputs
from tests.e2e.scenario import VENV_BIN, RunTurn, one_turn, why
from tests.helpers import entry_text, tree_hash, write_project

pytestmark = pytest.mark.e2e

ENTRY = "LRN-20260201-aaa"


def environment(output: str) -> dict[str, str]:
    """NAME=value lines of ``env`` in the tool output (Codex prefixes its own header lines)."""
    found = {}
    for line in output.splitlines():
        name, sep, value = line.partition("=")
        if sep and name.isidentifier() and name.upper() == name:
            found[name] = value
    return found


def test_codex_shell_marks_its_environment_and_promote_only_proposes(
    tmp_path: Path, codex: RunTurn[CodexRun], mock_responses: MockResponses
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    write_project(project, [entry_text(ENTRY, "Use pnpm, not npm", action="Use `pnpm install`, not npm.",
                                       occurrences=[(3, "1a2b3c4d"), (2, "5e6f7a8b"), (1, "1a2b3c4d")])])
    (project / "CLAUDE.md").write_text("# Project\n", encoding="utf-8")
    before = tree_hash(project)
    # By absolute path: the login shell Codex runs (bash -lc) resets PATH.
    mock_responses.command = f"env; echo ===; {shlex.quote(str(VENV_BIN / 'self-improve'))} promote {ENTRY} --yes"

    run = codex(project, "run the command")
    _, second = one_turn(run, mock_responses)
    output = "\n".join(tool_outputs(second))
    env_part, _, promote_part = output.partition("===\n")

    seen = environment(env_part)
    # Verified on 0.171.0: the thread and call identifiers and CODEX_CI are set for the model's commands.
    assert seen.get("CODEX_THREAD_ID") and seen.get("CODEX_TOOL_CALL_ID") and seen.get("CODEX_CI") == "1", why(run, mock_responses)
    assert codex_adapter.agent_session(seen) and agent_env.agent_harness(seen) == "Codex"
    assert "CLAUDECODE" not in seen and "OPENCLAW_SHELL" not in seen
    assert f"proposed: promote {ENTRY} to .claude/rules/self-improve.md\n" in promote_part, why(run, mock_responses)
    assert (
        "Nothing changed: inside Codex this only proposes; a person approves every change to instruction files.\n"
        f"Ask the user to run, in their own terminal: self-improve promote {ENTRY}\n"
    ) in promote_part, why(run, mock_responses)
    assert tree_hash(project) == before
