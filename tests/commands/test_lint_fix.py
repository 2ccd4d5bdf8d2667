"""``lint --fix`` (issue 15): the diff first, then only the near-miss header lines change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli, tree_hash

NEAR_MISS = b"\xef\xbb\xbf## LRN-20260410-001 \xe2\x80\x94 Always lint\r\n\r\nbody\r\n### [LRN-20260410-002] Prefer rg\r\nx"
FIXED = b"\xef\xbb\xbf## [LRN-20260410-001] Always lint\r\n\r\nbody\r\n## [LRN-20260410-002] Prefer rg\r\nx"
# As ``run_cli`` reads it (text mode reads CRLF as LF); the bytes written are checked as bytes.
DIFF = (
    "--- a/.learnings/LEARNINGS.md\n+++ b/.learnings/LEARNINGS.md\n@@ -1,5 +1,5 @@\n"
    "-\ufeff## LRN-20260410-001 — Always lint\n+\ufeff## [LRN-20260410-001] Always lint\n \n body\n"
    "-### [LRN-20260410-002] Prefer rg\n+## [LRN-20260410-002] Prefer rg\n x\n\\ No newline at end of file\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    (tmp_path / ".learnings/LEARNINGS.md").write_bytes(NEAR_MISS)
    return tmp_path


def test_dry_run_prints_the_diff_and_writes_nothing(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("lint", "--fix", "--dry-run", cwd=project)
    assert (result.returncode, result.stdout) == (0, DIFF + "(dry run: nothing was written)\n")
    assert tree_hash(project) == before


def test_off_a_terminal_it_shows_the_diff_and_asks_for_yes(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("lint", "--fix", cwd=project)
    assert (result.returncode, result.stdout) == (1, DIFF)
    assert result.stderr == ("self-improve: error: lint --fix changes files: read the diff above, then run "
                             "`self-improve lint --fix --yes` (nothing changed)\n")
    assert tree_hash(project) == before


def test_yes_rewrites_the_headers_and_nothing_else(project: Path) -> None:
    result = run_cli("lint", "--fix", "--yes", cwd=project)
    assert result.stdout == DIFF + "rewrote 2 headers in .learnings/LEARNINGS.md\nno problems\n"
    assert result.returncode == 0
    assert (project / ".learnings/LEARNINGS.md").read_bytes() == FIXED
    assert run_cli("lint", "--fix", "--yes", cwd=project).stdout == "no header to fix\nno problems\n"


def test_a_terminal_yes_applies_it(project: Path) -> None:
    result = run_cli("lint", "--fix", "--interactive", cwd=project, input="y\n")
    assert result.stdout.endswith("Rewrite these headers? [y/N] y\nrewrote 2 headers in .learnings/LEARNINGS.md\nno problems\n")
    assert (project / ".learnings/LEARNINGS.md").read_bytes() == FIXED


def test_lint_json_reports_reason_hint_and_code(project: Path) -> None:
    reports = json.loads(run_cli("lint", "--json", cwd=project).stdout)
    assert [(r["line"], r["code"]) for r in reports] == [(1, "near-miss-header"), (4, "near-miss-header")]
    assert reports[1]["reason"] == "header '### [LRN-20260410-002] Prefer rg' is not the reference form ## [ID] title"
    assert reports[1]["hint"] == "write '## [LRN-20260410-002] Prefer rg' (`self-improve lint --fix` rewrites it)"


def test_the_fix_flags_go_together(project: Path) -> None:
    assert run_cli("lint", "--yes", cwd=project).stderr == "self-improve: error: --dry-run and --yes go with --fix\n"
    assert run_cli("lint", "--fix", "--json", cwd=project).stderr == "self-improve: error: --fix shows a diff: run it without --json\n"
