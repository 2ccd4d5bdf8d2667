"""Short IDs and several IDs at once (issue 14, item 23).

A unique suffix of at least three characters names an entry wherever an ID is taken (the rule is
``store.match_id``); an exact ID always wins; an ambiguous suffix is refused naming the candidates.
The verbs that act on entries take several IDs, all or nothing: one bad ID, one error line, no
file changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.errors import SelfImproveError
from self_improve.store.store import match_id
from tests.helpers import entry_text, run_cli, tree_hash, write_project

R1W = "LRN-20261201-r1w"
ERR_R1W = "ERR-20261130-r1w"
ABC = "LRN-20261201-abc"
XYZ = "ERR-20261201-xyz"
NOW = {"SELF_IMPROVE_NOW": "2026-12-01T10:00:00+00:00", "SELF_IMPROVE_TODAY": "2026-12-01"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        entry_text(R1W, "Use pnpm, not npm", action="Run pnpm, never npm."),
        entry_text(ABC, "Tabs in Makefiles", action="Use tabs to indent Makefile recipes."),
        entry_text(ERR_R1W, "make fails"),
        entry_text(XYZ, "docker needs sudo"),
    ])
    return tmp_path


def cli(project: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli(*args, cwd=project, env=NOW)
    return result.returncode, result.stdout, result.stderr


def refused(project: Path, *args: str, code: int, message: str) -> None:
    before = tree_hash(project)
    assert cli(project, *args) == (code, "", f"self-improve: error: {message}\n")
    assert tree_hash(project) == before


# ---- the rule ------------------------------------------------------------------------------------


def test_the_rule_exact_first_then_a_unique_suffix_of_three_or_more() -> None:
    ids = ["LRN-20261201-ab1", "X-LRN-20261201-ab1", "ERR-20261201-q9z"]
    assert match_id("lrn-20261201-AB1", ids) == "LRN-20261201-ab1"  # exact (any case) wins over its suffix
    assert match_id("q9z", ids) == "ERR-20261201-q9z"
    assert match_id("20261201-Q9Z", ids) == "ERR-20261201-q9z"
    assert match_id("9z", ids) is None  # two characters never match
    assert match_id("nope", ids) is None
    with pytest.raises(SelfImproveError, match=r"^ambiguous ID 'ab1': LRN-20261201-ab1, X-LRN-20261201-ab1 \(give more of it\)$"):
        match_id("ab1", ids)


# ---- suffixes in the verbs -----------------------------------------------------------------------


@pytest.mark.parametrize("wanted", ["abc", "ABC", "20261201-abc", "1201-abc"])
def test_show_takes_a_unique_suffix(project: Path, wanted: str) -> None:
    code, out, err = cli(project, "show", wanted, "--json")
    assert (code, err, json.loads(out)["id"]) == (0, "", ABC)


def test_an_ambiguous_suffix_is_refused_naming_the_candidates(project: Path) -> None:
    message = f"ambiguous ID 'r1w': {R1W}, {ERR_R1W} (give more of it)"
    for verb in (("show", "r1w"), ("resolve", "r1w"), ("set-status", "r1w", "in_progress"), ("archive", "r1w"),
                 ("supersede", "r1w", "--by", "abc"), ("merge", "r1w", "abc"), ("promote", "r1w", "--yes")):
        refused(project, *verb, code=1, message=message)


def test_a_short_piece_is_no_id(project: Path) -> None:
    refused(project, "show", "1w", code=1, message="unknown ID '1w' (see `self-improve list`; a short ID needs at least 3 characters)")
    refused(project, "resolve", "z", code=1, message="unknown ID 'z' (see `self-improve list`; a short ID needs at least 3 characters)")


def test_suffixes_reach_archived_entries(project: Path) -> None:
    assert cli(project, "archive", "xyz")[0] == 0
    code, out, _ = cli(project, "show", "xyz", "--json")
    assert (code, json.loads(out)["id"], json.loads(out)["status"]) == (0, XYZ, "archived")
    refused(project, "resolve", "xyz", code=1,
            message=f"{XYZ} is archived in .learnings/archive/2026.md: run `self-improve restore {XYZ}` first")
    assert cli(project, "restore", "xyz") == (0, f"restored {XYZ} to .learnings/ERRORS.md (status pending)\n", "")


def test_supersede_and_merge_take_suffixes(project: Path) -> None:
    assert cli(project, "supersede", "abc", "--by", "lrn-20261201-r1w") == (0, f"{ABC} superseded by {R1W}\n", "")
    assert cli(project, "merge", "ERR-20261130-R1W", "xyz")[1].startswith(f"{ERR_R1W} merged into {XYZ}: ")


# ---- several IDs at once -------------------------------------------------------------------------


def test_resolve_several_one_line_each(project: Path) -> None:
    assert cli(project, "resolve", "abc", XYZ, "abc", "--note", "done") == (0, f"{ABC} resolved\n{XYZ} resolved\n", "")
    text = (project / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8") + (project / ".learnings" / "ERRORS.md").read_text(encoding="utf-8")
    assert text.count("**Status**: resolved") == 2
    assert text.count("- **Notes**: done") == 2  # the ID given twice is resolved once


def test_one_bad_id_changes_nothing(project: Path) -> None:
    refused(project, "resolve", "abc", "nope", code=1, message="unknown ID 'nope' (see `self-improve list`)")
    refused(project, "set-status", "abc", "xyz", "promoted", code=1,
            message=f"{ABC} has no rule in any instruction file: run `self-improve promote {ABC}`")
    refused(project, "mark", "abc", "--helpful", code=1,
            message=f"{ABC} has no rule to mark (it is pending): run `self-improve promote {ABC}` first")
    refused(project, "show", "abc", "nope", code=1, message="unknown ID 'nope' (see `self-improve list`)")
    refused(project, "restore", "abc", code=1, message=f"{ABC} is not in .learnings/archive/ (see `self-improve list`)")


def test_set_status_takes_the_last_positional_as_the_status(project: Path) -> None:
    assert cli(project, "set-status", "abc", "in_progress") == (0, f"{ABC} is now in_progress\n", "")
    assert cli(project, "set-status", "abc", "xyz", "wont_fix", "--reason", "gone") == (
        0, f"{ABC} is now wont_fix\n{XYZ} is now wont_fix\n", "")
    assert "set-status [-h] [--reason REASON]" in cli(project, "set-status", "--help")[1]
    assert "ID [ID ...] STATUS" in cli(project, "set-status", "--help")[1]


def test_dry_run_of_several_shows_every_diff(project: Path) -> None:
    before = tree_hash(project)
    code, out, err = cli(project, "set-status", "abc", "xyz", "in_progress", "--dry-run")
    assert (code, err) == (0, "")
    assert [line for line in out.splitlines() if line.startswith(("---", "+++", "-**", "+**"))] == [
        "--- a/.learnings/LEARNINGS.md", "+++ b/.learnings/LEARNINGS.md", "-**Status**: pending", "+**Status**: in_progress",
        "--- a/.learnings/ERRORS.md", "+++ b/.learnings/ERRORS.md", "-**Status**: pending", "+**Status**: in_progress",
    ]
    assert tree_hash(project) == before


def test_show_several_prints_them_in_order(project: Path) -> None:
    code, out, _ = cli(project, "show", "xyz", "abc", "--json")
    assert (code, [row["id"] for row in json.loads(out)]) == (0, [XYZ, ABC])
    one, two = cli(project, "show", "xyz")[1], cli(project, "show", "abc")[1]
    assert cli(project, "show", "xyz", "abc") == (0, one + two, "")


def test_promote_mark_retire_restore_several(project: Path) -> None:
    assert cli(project, "promote", "1201-r1w", "--yes")[0] == 0
    assert cli(project, "promote", "abc", "--yes")[0] == 0
    assert cli(project, "mark", "1201-r1w", "abc", "--helpful") == (0, f"{R1W}: helpful 1, harmful 0\n{ABC}: helpful 1, harmful 0\n", "")
    assert cli(project, "retire", "LRN-20261201-r1w", "abc", "--yes") == (
        0, f"retired {R1W}: its rule is gone from .claude/rules/self-improve.md\nretired {ABC}: its rule is gone from .claude/rules/self-improve.md\n", "")
    assert not (project / "CLAUDE.md").exists() and not (project / ".claude").exists()
    assert cli(project, "archive", "1201-r1w", "abc")[0] == 0
    before = tree_hash(project)
    refused(project, "restore", "1201-r1w", "nope", code=1, message="nope is not in .learnings/archive/ (see `self-improve list`)")
    assert tree_hash(project) == before
    assert cli(project, "restore", "1201-r1w", "abc") == (
        0, f"restored {R1W} to .learnings/LEARNINGS.md (status retired)\nrestored {ABC} to .learnings/LEARNINGS.md (status retired)\n", "")
