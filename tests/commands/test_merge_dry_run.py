"""``merge --dry-run`` (proposed with the combine.plan_merge change)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli, tree_hash

NOW = {"SELF_IMPROVE_NOW": "2026-12-01T10:00:00+00:00", "SELF_IMPROVE_TODAY": "2026-12-01"}


def test_merge_dry_run_shows_both_entries_change_and_writes_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    env = {**NOW, "XDG_STATE_HOME": str(state)}
    assert run_cli("init", cwd=project, env=env).returncode == 0
    ids = [run_cli("log", "learning", text, "--json", cwd=project, env=env).stdout.split('"id": "')[1].split('"')[0]
           for text in ("Use pnpm in this repo", "Never run npm install here")]
    before = (tree_hash(project), tree_hash(state))
    result = run_cli("merge", ids[1], ids[0], "--dry-run", cwd=project, env=env)
    assert (result.returncode, result.stderr) == (0, "")
    changed = [line for line in result.stdout.splitlines() if line.startswith(("---", "+++", "-", "+"))]
    assert changed == [
        "--- a/.learnings/LEARNINGS.md", "+++ b/.learnings/LEARNINGS.md",
        "-- Recurrence-Count: 1", "+- Recurrence-Count: 2",
        "-- Occurrences: 2026-12-01/-", "+- Occurrences: 2026-12-01/-, 2026-12-01/-", f"+- Supersedes: {ids[1]}",
        f"+- Superseded-By: {ids[0]}",
    ]
    assert (tree_hash(project), tree_hash(state)) == before
    refused = run_cli("merge", ids[0], ids[0], "--dry-run", cwd=project, env=env)
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        2, "", f"self-improve: error: cannot merge {ids[0]} into itself: name two entries\n")
