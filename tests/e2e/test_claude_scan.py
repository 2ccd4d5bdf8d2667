"""End-to-end: ``self-improve scan`` (issue 16) learns from real Claude Code (2.1.328) sessions that
ran before anything was installed, then the live hooks carry on from there.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_scan.py -rs

1. three ``claude -p`` sessions in a project with no ``.learnings/`` and no hooks registered in the
   isolated HOME: each runs ``python3 app.py`` (a real ModuleNotFoundError: ``helpers`` only exists
   as ``helpers.example.py``), ``cp helpers.example.py helpers.py``, ``python3 app.py`` (passes);
   the test removes ``helpers.py`` after each, so the next session makes the same mistake;
2. ``self-improve init`` and ``self-improve scan`` with HOME at the client's;
3. one entry, 3 occurrences in 3 sessions, the fix the sessions showed as its ``- Observed-Fix:``;
4. ``review --json`` proposes it;
5. a second ``scan`` changes nothing (the project's and the scan state's bytes);
6. the hooks installed (``self-improve install --harness claude``, the product's default), one live
   session making the mistake again: the scanned fix is recalled and the entry has 4 occurrences
   in 4 sessions; a ``scan`` after it leaves that session to the hooks (still 4).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.claude_client import ClaudeRun
from tests.e2e.mock_anthropic import MockAnthropic, last_call_context
from tests.e2e.scenario import (
    COPY_HELPERS,
    CREDIT_APP,
    CREDIT_HELPERS,
    HELPERS_MISTAKE,
    OBSERVED_FIX,
    PROMPT,
    RUN_APP,
    VENV_BIN,
    RunTurn,
    client_env,
    errors_md,
    helpers_entry,
    recalled_nudge,
    turn_requests,
    why,
)
from tests.helpers import tree_hash

pytestmark = pytest.mark.e2e

SCANNED = ("3 sessions in 1 project: 3 mistakes, 1 recurring, 1 observed fix; "
           "run `self-improve review`\n")
NOTHING = "0 sessions in 0 projects: 0 mistakes, 0 recurring, 0 observed fixes\n"


def cli(cwd: Path, home: Path, *args: str) -> str:
    """Our CLI as the user runs it, HOME at the client's (and nothing pointing elsewhere); its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CLAUDE_", "CODEX_", "SELF_IMPROVE_"))}
    proc = subprocess.run([str(VENV_BIN / "self-improve"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, env={**env, "HOME": str(home)}, check=False)
    assert proc.returncode == 0, f"self-improve {' '.join(args)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc.stdout


def session(claude: RunTurn[ClaudeRun], mock: MockAnthropic, project: Path, commands: list[str]) -> ClaudeRun:
    mock.clear()
    mock.commands = commands
    run = claude(project, PROMPT, env_extra=client_env())
    turn_requests(run, mock)
    return run


def test_scan_learns_from_sessions_before_install_then_the_hooks_carry_on(
    tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic, claude_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(CREDIT_APP)
    (project / "helpers.example.py").write_text(CREDIT_HELPERS)

    # 1. before install: no .learnings/, no hooks anywhere
    for _ in range(3):
        run = session(claude, mock_anthropic, project, [RUN_APP, COPY_HELPERS, RUN_APP])
        assert (project / "helpers.py").is_file(), why(run, mock_anthropic)
        (project / "helpers.py").unlink()
    assert not (project / ".learnings").exists()
    assert not (claude_home / ".claude" / "settings.json").exists()
    transcripts = sorted((claude_home / ".claude" / "projects").glob("*/*.jsonl"))
    assert len(transcripts) == 3, transcripts

    # 2. init, then scan
    cli(project, claude_home, "--root", str(project), "init")
    assert cli(project, claude_home, "scan", "--harness", "claude") == SCANNED

    # 3. one entry: 3 occurrences in 3 sessions, the fix the sessions showed
    entry = helpers_entry(project)
    assert entry.recurrence_count == 3, errors_md(project)
    assert len({occurrence.task for occurrence in entry.occurrences}) == 3, errors_md(project)
    assert f"\n- Observed-Fix: {OBSERVED_FIX}\n" in entry.text, errors_md(project)

    # 4. review proposes it
    (proposed,) = json.loads(cli(project, claude_home, "--root", str(project), "review", "--json"))["promote"]
    assert (proposed["id"], proposed["tasks"]) == (entry.id, 3), json.dumps(proposed, indent=1)
    assert proposed["rule"] == f"{HELPERS_MISTAKE}: {OBSERVED_FIX}", json.dumps(proposed, indent=1)

    # 5. a second scan changes nothing
    state = claude_home / ".local" / "state" / "self-improve" / "scan"
    before = (tree_hash(project), tree_hash(state))
    assert cli(project, claude_home, "scan", "--harness", "claude") == NOTHING
    assert (tree_hash(project), tree_hash(state)) == before

    # 6. the hooks installed; a live session makes the mistake again and is told the scanned fix
    cli(tmp_path, claude_home, "install", "--harness", "claude")
    mock_anthropic.clear()
    mock_anthropic.commands = [RUN_APP]
    run = claude(project, PROMPT, env_extra=client_env())
    requests = turn_requests(run, mock_anthropic)
    entry = helpers_entry(project)
    assert (entry.recurrence_count, len({o.task for o in entry.occurrences})) == (4, 4), errors_md(project)
    assert last_call_context(requests[1]).get("PostToolUseFailure") == recalled_nudge(entry, 4, 4), why(run, mock_anthropic)
    # ... and a scan after it leaves that session to the hooks
    assert cli(project, claude_home, "scan", "--harness", "claude") == f"{NOTHING[:-1]}; 1 session left to the live hooks\n"
    assert helpers_entry(project).recurrence_count == 4, errors_md(project)
