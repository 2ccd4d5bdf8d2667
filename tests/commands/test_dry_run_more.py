"""``--dry-run`` on ``log`` and ``init`` (issue 14, item 26): the diff of every file that would
change, nothing written (not the provenance ledger, the project registry or ``.learnings/.state/``
either), exit 0.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from self_improve.store.store import HEADERS
from tests.helpers import run_cli, tree_hash

NOW = "2026-12-01T10:00:00+00:00"

NEW_ENTRY_DIFF = """\
--- a/.learnings/LEARNINGS.md
+++ b/.learnings/LEARNINGS.md
@@ -5,3 +5,27 @@
 **Categories**: correction | insight | knowledge_gap | best_practice
 
 ---
+
+## [LRN-20261201-ID] insight
+
+**Logged**: 2026-12-01T10:00:00Z
+**Priority**: medium
+**Status**: pending
+
+### Summary
+Use pnpm, not npm
+
+### Details
+
+
+### Suggested Action
+Run pnpm, never npm.
+
+### Metadata
+- Source: conversation
+- Recurrence-Count: 1
+- First-Seen: 2026-12-01
+- Last-Seen: 2026-12-01
+- Occurrences: 2026-12-01/-
+
+---
"""

MERGE_DIFF = """\
--- a/.learnings/LEARNINGS.md
+++ b/.learnings/LEARNINGS.md
@@ -23,9 +23,9 @@
 
 ### Metadata
 - Source: conversation
-- Recurrence-Count: 1
+- Recurrence-Count: 2
 - First-Seen: 2026-12-01
 - Last-Seen: 2026-12-01
-- Occurrences: 2026-12-01/-
+- Occurrences: 2026-12-01/-, 2026-12-01/-
 
 ---
"""


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    """A state dir of this test's own, so the ledger and the registry can be watched."""
    state = tmp_path / "state"
    state.mkdir()
    return {"XDG_STATE_HOME": str(state), "SELF_IMPROVE_NOW": NOW, "SELF_IMPROVE_TODAY": "2026-12-01"}


@pytest.fixture()
def project(tmp_path: Path, env: dict[str, str]) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    assert run_cli("init", cwd=root, env=env).returncode == 0
    return root


def snapshot(tmp_path: Path) -> dict[str, str]:
    """Every file of the test (project, state dir), the lock file included."""
    return {str(path.relative_to(tmp_path)): path.read_bytes().hex() for path in sorted(tmp_path.rglob("*")) if path.is_file()}


def test_log_dry_run_shows_the_new_entry_and_writes_nothing(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    before = snapshot(tmp_path)
    result = run_cli("log", "learning", "Use pnpm, not npm", "--action", "Run pnpm, never npm.", "--dry-run", cwd=project, env=env)
    assert (result.returncode, result.stderr) == (0, "")
    # The ID is the one that would be free now: three random base-36 characters.
    assert re.sub(r"LRN-20261201-[0-9a-z]{3}\]", "LRN-20261201-ID]", result.stdout) == NEW_ENTRY_DIFF
    assert snapshot(tmp_path) == before
    assert not (project / ".learnings" / ".state").exists()
    assert list((tmp_path / "state").iterdir()) == []  # no provenance ledger, no project registry


def test_log_dry_run_of_a_recurrence_shows_the_merged_occurrence(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    assert run_cli("log", "learning", "Use pnpm, not npm", cwd=project, env=env).returncode == 0
    before = snapshot(tmp_path)
    result = run_cli("log", "learning", "use pnpm, not npm", "--dry-run", cwd=project, env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, MERGE_DIFF, "")
    assert snapshot(tmp_path) == before


def test_log_dry_run_refuses_as_log_does(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    before = snapshot(tmp_path)
    result = run_cli("log", "learning", "x", "--area", "kitchen", "--dry-run", cwd=project, env=env)
    assert result.returncode == 2
    assert result.stderr.startswith("self-improve: error: --area takes frontend, ")
    assert snapshot(tmp_path) == before


def test_log_dry_run_in_a_user_scope_that_does_not_exist_creates_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = run_cli("log", "learning", "x", "--scope", "user", "--dry-run", cwd=tmp_path, env={**env, "HOME": str(home), "XDG_DATA_HOME": ""})
    store = home / ".local" / "share" / "self-improve"
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", f"self-improve: error: no user store in {store} yet: the first command that is not a dry run creates it\n")
    assert list(home.iterdir()) == []


def test_init_dry_run_shows_the_files_it_would_create(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    (root / ".git").mkdir()
    result = run_cli("init", "--dry-run", cwd=root, env=env)
    assert (result.returncode, result.stderr) == (0, "")
    headers = [line for line in result.stdout.splitlines() if line.startswith(("---", "+++"))]
    assert headers == [
        "--- /dev/null", "+++ b/.learnings/LEARNINGS.md",
        "--- /dev/null", "+++ b/.learnings/ERRORS.md",
        "--- /dev/null", "+++ b/.learnings/FEATURE_REQUESTS.md",
        "--- /dev/null", "+++ b/.learnings/.gitignore",
    ]
    assert "".join(f"+{line}\n" for line in HEADERS["error"].splitlines()) in result.stdout
    assert list(root.iterdir()) == [root / ".git"]


def test_init_dry_run_names_only_the_missing_files(tmp_path: Path, project: Path, env: dict[str, str]) -> None:
    (project / ".learnings" / "ERRORS.md").unlink()
    before = tree_hash(project)
    result = run_cli("init", "--dry-run", cwd=project, env=env)
    assert result.stdout == "--- /dev/null\n+++ b/.learnings/ERRORS.md\n@@ -0,0 +1,5 @@\n" + "".join(
        f"+{line}\n" for line in HEADERS["error"].splitlines()
    )
    assert tree_hash(project) == before
    (project / ".learnings" / "ERRORS.md").write_text(HEADERS["error"], encoding="utf-8")
    assert run_cli("init", "--dry-run", cwd=project, env=env).stdout == f".learnings/ already initialised in {project}\n"
