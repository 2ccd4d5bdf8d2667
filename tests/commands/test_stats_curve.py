"""``self-improve stats --curve [--since DAY] [--by week|day] [--json]``: the learning curve
(``review/curve.py``, drawn by ``review/curve_text.py``) reached through the verb, and the
options that go with one view only refused elsewhere, changing nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli, tree_hash

PLAIN = {"NO_COLOR": "1", "SELF_IMPROVE_TODAY": "2026-12-01"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    errors = tmp_path / ".learnings" / "ERRORS.md"
    errors.write_text(errors.read_text(encoding="utf-8") + (
        "## [ERR-20261128-abc] make\n\n**Logged**: 2026-11-28T10:00:00Z\n**Priority**: high\n**Status**: pending\n\n"
        "### Summary\nmake test fails without deps\n\n### Metadata\n- Pattern-Key: build.make\n- Recurrence-Count: 3\n"
        "- Occurrences: 2026-11-28/aaaa1111, 2026-11-30/bbbb2222, 2026-12-01/cccc3333\n\n---\n"
    ), encoding="utf-8")
    return tmp_path


def test_the_curve_by_day_counts_each_dated_occurrence_on_its_day(project: Path) -> None:
    result = run_cli("stats", "--curve", "--by", "day", "--since", "2026-11-28", cwd=project, env=PLAIN)
    assert (result.returncode, result.stderr) == (0, "")
    rows = result.stdout.splitlines()
    assert rows[0] == "Learning curve by day, 2026-11-28 to 2026-12-01"
    assert [row.split()[0] for row in rows[2:7]] == ["2026-11-28", "2026-11-29", "2026-11-30", "2026-12-01", "total"]
    numbers = [[int(word) for word in row.split()[1:] if word.isdigit()] for row in rows[2:7]]
    # recorded, repeats, fixed in time, promoted, retired
    assert numbers == [[1, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [3, 2, 0, 0, 0]]


def test_the_curve_as_json_has_the_same_numbers(project: Path) -> None:
    result = run_cli("stats", "--curve", "--by", "day", "--since", "2026-11-30", "--json", cwd=project, env=PLAIN)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [period["label"] for period in data["periods"]] == ["2026-11-30", "2026-12-01"]
    assert data["series"] == {"recorded": [1, 1], "repeats": [1, 1], "fixed": [0, 0], "promoted": [0, 0], "retired": [0, 0]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "2026-11-01"), "--since goes with --injected or --curve"),
        (("--by", "day"), "--by goes with --curve"),
        (("--curve", "--injected"), "--injected and --curve are two views: choose one"),
        (("--curve", "--since", "soon"), "--since must be a day YYYY-MM-DD, not 'soon'"),
        (("--curve", "--since", "2026-12-02"), "--since 2026-12-02 is after today (2026-12-01)"),
    ],
)
def test_an_option_of_another_view_is_refused_and_nothing_is_written(project: Path, args: tuple[str, ...], message: str) -> None:
    before = tree_hash(project)
    result = run_cli("stats", *args, cwd=project, env=PLAIN)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"self-improve: error: {message}")
    assert tree_hash(project) == before


def test_promote_and_retire_are_tallied_for_their_day_and_drawn(tmp_path: Path) -> None:
    """The store keeps no retirement date: the per-day tally (``.state/daily.json``) that promote
    and retire write from now on is what the curve's "retired" column counts."""
    (tmp_path / ".git").mkdir()
    env = {**PLAIN, "SELF_IMPROVE_NOW": "2026-12-01T09:00:00Z"}
    assert run_cli("init", cwd=tmp_path, env=env).returncode == 0
    logged = run_cli("log", "learning", "--category", "correction", "Use pnpm, not npm", "--action", "Use pnpm, not npm.",
                     "--json", cwd=tmp_path, env=env)
    entry_id = json.loads(logged.stdout)["id"]
    assert run_cli("promote", entry_id, "--yes", cwd=tmp_path, env=env).returncode == 0
    assert run_cli("retire", entry_id, "--yes", cwd=tmp_path, env=env).returncode == 0
    daily = json.loads((tmp_path / ".learnings" / ".state" / "daily.json").read_text())
    assert daily == {"rules_promoted.2026-12-01": 1, "rules_retired.2026-12-01": 1}
    rows = run_cli("stats", "--curve", "--by", "day", "--since", "2026-12-01", cwd=tmp_path, env=env).stdout.splitlines()
    assert rows[2].split()[0] == "2026-12-01"
    assert [int(word) for word in rows[2].split()[1:] if word.isdigit()][-2:] == [1, 1]  # promoted, retired
