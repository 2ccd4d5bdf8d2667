"""End to end: what the real Claude Code (2.1.328) puts in its Bash tool's environment, and that
``self-improve promote`` run by the model there only proposes.

One ``claude -p`` turn against the loopback Anthropic mock (about a second with the client
cached): the model runs ``env`` and then ``self-improve promote ID --yes`` in a project with one
proven entry; the tool result, as the mock received it, shows the variables and our proposal.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from self_improve.harnesses import agent_env
from self_improve.harnesses import claude as claude_adapter
from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import MockAnthropic, tool_results
from tests.e2e.scenario import VENV_BIN, RunTurn, one_turn, why
from tests.helpers import entry_text, tree_hash, write_project

pytestmark = pytest.mark.e2e

ENTRY = "LRN-20260201-aaa"


def result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def test_claude_bash_marks_its_environment_and_promote_only_proposes(
    tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    write_project(project, [entry_text(ENTRY, "Use pnpm, not npm", action="Use `pnpm install`, not npm.",
                                       occurrences=[(3, "1a2b3c4d"), (2, "5e6f7a8b"), (1, "1a2b3c4d")])])
    (project / "CLAUDE.md").write_text("# Project\n", encoding="utf-8")
    before = tree_hash(project)
    cli = shlex.quote(str(VENV_BIN / "self-improve"))
    mock_anthropic.command = f"env; echo ===; {cli} promote {ENTRY} --yes"

    run = claude(project, "run the command")
    _, second = one_turn(run, mock_anthropic)
    output = "\n".join(result_text(block) for block in tool_results(second))
    env_part, _, promote_part = output.partition("===\n")

    seen = dict(line.partition("=")[::2] for line in env_part.splitlines() if "=" in line)
    assert seen.get("CLAUDECODE") == "1", why(run, mock_anthropic)
    assert seen.get("AI_AGENT", "").startswith("claude-code_") and seen["AI_AGENT"].endswith("_agent"), json.dumps(sorted(seen))
    assert claude_adapter.agent_session(seen) and agent_env.agent_harness(seen) == "Claude Code"
    assert (
        f"proposed: promote {ENTRY} to .claude/rules/self-improve.md\n"
        "rule:   Use `pnpm install`, not npm.\n"
        "target: .claude/rules/self-improve.md\n"
        "Nothing changed: inside Claude Code this only proposes; a person approves every change to instruction files.\n"
        f"Ask the user to run, in their own terminal: self-improve promote {ENTRY}"
    ) in promote_part, why(run, mock_anthropic)
    assert tree_hash(project) == before
