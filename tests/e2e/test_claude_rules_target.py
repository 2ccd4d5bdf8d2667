"""End-to-end: a rule that ``self-improve promote`` wrote into ``.claude/rules/`` reaches the real
Claude Code client's model (issue 16).

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_rules_target.py -rs

The project's store holds the entries; ``self-improve promote ID --yes`` (the CLI, as a user runs
it) writes the rules files; then one ``claude -p`` turn against the loopback mock, whose request
log is read (the fixtures and readers of ``tests/e2e/test_claude_rules.py``):

- the default target ``.claude/rules/self-improve.md``: the rule is in the FIRST request, in the
  first user message's instructions reminder, labelled as project instructions, without our
  marker lines; CLAUDE.md was never created;
- a rule confined to ``app/`` goes to ``.claude/rules/self-improve-app.md`` (``paths:``
  frontmatter): absent from the first request, carried right after the tool_result of a Read of
  ``app/models.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import MockAnthropicCalls, ToolCall
from tests.e2e.scenario import RunTurn, turn_requests, why
from tests.e2e.test_claude_rules import INSTRUCTIONS_HEADER, message_blocks, texts_after_last_result
from tests.helpers import entry_text, run_cli, write_project

pytestmark = pytest.mark.e2e

PNPM, PNPM_RULE = "LRN-20261201-aaa", "RULE-PROMOTED: use `pnpm install`, never npm."
LOAD, LOAD_RULE = "ERR-20261201-bbb", "RULE-SCOPED: in models.py, read optional keys with `.get()`."
PROJECT_LABEL = "(project instructions, checked into the codebase):"
SCOPED_TEXT = f"## Learned rules\n- {LOAD_RULE} <!-- {LOAD} -->\n"


@pytest.fixture
def mock_anthropic() -> Iterator[MockAnthropicCalls]:
    """Overrides conftest's: the ``claude`` fixture then talks to a mock that can call any tool."""
    with MockAnthropicCalls() as mock:
        yield mock


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose store holds a plain rule and one confined to ``app/``, both promoted."""
    root = tmp_path / "project"
    (root / "app").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "app" / "models.py").write_text("CONFIG = {}\n", encoding="utf-8")
    write_project(root, [
        entry_text(PNPM, "npm breaks the lockfile", category="correction", action=PNPM_RULE),
        entry_text(LOAD, "KeyError in load()", action=LOAD_RULE, pattern_key="python.traceback/KeyError@app/models.py:load"),
    ])
    for entry_id, target in ((PNPM, ".claude/rules/self-improve.md"), (LOAD, ".claude/rules/self-improve-app.md")):
        rule = PNPM_RULE if entry_id == PNPM else LOAD_RULE  # as given: the entry's section would be distilled
        result = run_cli("promote", entry_id, "--yes", "--rule", rule, cwd=root)
        assert (result.returncode, result.stdout, result.stderr) == (0, f"promoted {entry_id} to {target}\n", "")
    assert not (root / "CLAUDE.md").exists()
    return root


def test_a_promoted_rule_reaches_the_first_request(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """The rules file of ours is loaded like CLAUDE.md: the bullet (with its ``<!-- ID -->``) is in
    the first user message's first system-reminder, our marker lines are not; the scoped rule is not."""
    mock_anthropic.calls = []
    run = claude(project, "hello", extra_args=["--allowedTools", "Bash"])
    (first,) = turn_requests(run, mock_anthropic)
    index, role, block = message_blocks(first)[0]
    assert (index, role) == (0, "user"), why(run, mock_anthropic)
    reminder = block["text"]
    label = f"Contents of {project / '.claude' / 'rules' / 'self-improve.md'} {PROJECT_LABEL}"
    assert reminder.startswith(f"<system-reminder>\n{INSTRUCTIONS_HEADER}"), reminder
    assert f"{label}\n\n## Learned rules\n- {PNPM_RULE} <!-- {PNPM} -->\n" in reminder, reminder
    context = json.dumps(first.body, ensure_ascii=False)
    assert "self-improve:begin" not in context and "self-improve:end" not in context, reminder
    assert "RULE-SCOPED" not in context, why(run, mock_anthropic)


def test_a_path_scoped_rule_arrives_after_reading_a_file_of_its_subtree(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """Absent at first; after ``Read app/models.py`` the next request carries the scoped file's
    rule right after the tool_result (its frontmatter stripped)."""
    mock_anthropic.calls = [ToolCall("Read", {"file_path": str(project / "app" / "models.py")})]
    run = claude(project, "look at the models", extra_args=["--allowedTools", "Bash"])
    first, second = turn_requests(run, mock_anthropic)
    assert "RULE-SCOPED" not in first.text, why(run, mock_anthropic)
    (after,) = texts_after_last_result(second)
    scoped = project / ".claude" / "rules" / "self-improve-app.md"
    # the frontmatter and our marker lines stripped, the blank line after the frontmatter too
    assert after == f"<system-reminder>\nContents of {scoped}:\n\n{SCOPED_TEXT}\n</system-reminder>", after
