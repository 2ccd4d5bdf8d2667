"""End-to-end: ``self-improve scan --harness codex`` (issue 16) learns from real Codex (codex-cli
0.171.0) sessions that ran before anything was installed, then the live hooks carry on from there.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_codex_scan.py -rs

1. three ``codex exec`` sessions (``MockResponses(commands=[...])``) in a project with no
   ``.learnings/`` and no hooks (no ``.codex/hooks.json``, nothing trusted): each runs
   ``python3 app.py`` (a real ModuleNotFoundError: ``helpers`` only exists as
   ``helpers.example.py``), ``cp helpers.example.py helpers.py``, ``python3 app.py`` (passes); the
   test removes ``helpers.py`` after each, so the next session makes the same mistake. Codex writes
   one rollout a session under ``$CODEX_HOME/sessions/YYYY/MM/DD/``;
2. ``self-improve init`` and ``self-improve scan --harness codex`` with HOME at the client's;
3. one entry, 3 occurrences in 3 sessions, the fix the sessions showed as its ``- Observed-Fix:``
   (the rollouts carry exit codes, which Codex's hooks never get);
4. ``review --json`` proposes it;
5. a second ``scan`` changes nothing (the project's and the scan state's bytes);
6. the hooks installed for the project and trusted (as ``test_codex_hooks.py`` does), one live
   session making the mistake again: the scanned fix is recalled and the entry has 4 occurrences
   in 4 sessions; a ``scan`` after it leaves that session to the hooks (still 4): the thread id of
   the rollout is the ``session_id`` the hooks got.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.codex_client import CodexRun
from tests.e2e.mock_responses import MockResponses, contexts_for_tool_call
from tests.e2e.scenario import (
    COPY_HELPERS,
    CREDIT_APP,
    CREDIT_HELPERS,
    HELPERS_MISTAKE,
    OBSERVED_FIX,
    PROMPT,
    RUN_APP,
    VENV_BIN,
    REPO,
    RunTurn,
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


def session(codex: RunTurn[CodexRun], mock: MockResponses, project: Path, commands: list[str]) -> CodexRun:
    mock.clear()
    mock.commands = commands
    run = codex(project, PROMPT)
    turn_requests(run, mock)
    return run


def is_ours(hook: dict, project: Path) -> bool:
    """A hook from the project's ``.codex/hooks.json`` that runs one of our scripts."""
    return (Path(hook.get("sourcePath", "")).resolve() == (project / ".codex" / "hooks.json").resolve()
            and str(REPO / "hooks") in (hook.get("command") or ""))


def test_scan_learns_from_codex_sessions_before_install_then_the_hooks_carry_on(
    tmp_path: Path, codex: RunTurn[CodexRun], mock_responses: MockResponses, codex_home: Path, trust: Any
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text(CREDIT_APP)
    (project / "helpers.example.py").write_text(CREDIT_HELPERS)

    # 1. before install: no .learnings/, no hooks anywhere
    for _ in range(3):
        run = session(codex, mock_responses, project, [RUN_APP, COPY_HELPERS, RUN_APP])
        assert (project / "helpers.py").is_file(), why(run, mock_responses)
        (project / "helpers.py").unlink()
    assert not (project / ".learnings").exists() and not (project / ".codex").exists()
    rollouts = sorted((codex_home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
    assert len(rollouts) == 3, rollouts

    # 2. init, then scan
    cli(project, codex_home, "--root", str(project), "init")
    assert cli(project, codex_home, "scan", "--harness", "codex") == SCANNED

    # 3. one entry: 3 occurrences in 3 sessions, the fix the sessions showed
    entry = helpers_entry(project)
    assert entry.recurrence_count == 3, errors_md(project)
    assert len({occurrence.task for occurrence in entry.occurrences}) == 3, errors_md(project)
    assert f"\n- Observed-Fix: {OBSERVED_FIX}\n" in entry.text, errors_md(project)

    # 4. review proposes it
    (proposed,) = json.loads(cli(project, codex_home, "--root", str(project), "review", "--json"))["promote"]
    assert (proposed["id"], proposed["tasks"]) == (entry.id, 3), json.dumps(proposed, indent=1)
    assert proposed["rule"] == f"{HELPERS_MISTAKE}: {OBSERVED_FIX}", json.dumps(proposed, indent=1)

    # 5. a second scan changes nothing
    state = codex_home / ".local" / "state" / "self-improve" / "scan"
    before = (tree_hash(project), tree_hash(state))
    assert cli(project, codex_home, "scan", "--harness", "codex") == NOTHING
    assert (tree_hash(project), tree_hash(state)) == before

    # 6. the hooks installed and trusted; a live session makes the mistake again and is told the scanned fix
    cli(project, codex_home, "install", "--harness", "codex", "--scope", "project", "--project", str(project))
    trusted = trust(project, select=lambda hook: is_ours(hook, project), expect=3)
    assert sorted(hook["eventName"] for hook in trusted if is_ours(hook, project)) == [
        "postToolUse", "preToolUse", "userPromptSubmit"], json.dumps(trusted, indent=1)
    mock_responses.clear()
    mock_responses.commands = [RUN_APP]
    run = codex(project, PROMPT)
    requests = turn_requests(run, mock_responses)
    entry = helpers_entry(project)
    assert (entry.recurrence_count, len({o.task for o in entry.occurrences})) == (4, 4), errors_md(project)
    assert contexts_for_tool_call(requests[1]) == [recalled_nudge(entry, 4, 4)], why(run, mock_responses)
    # ... and a scan after it leaves that session to the hooks
    assert cli(project, codex_home, "scan", "--harness", "codex") == f"{NOTHING[:-1]}; 1 session left to the live hooks\n"
    assert helpers_entry(project).recurrence_count == 4, errors_md(project)
