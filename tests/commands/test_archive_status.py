"""Issue 14, items 10, 11, 12 and 26 (for resolve, set-status, mark, archive, restore): archiving
is one concept, a status never claims what the files do not hold, resolve keeps its history, and
--dry-run prints the exact diff and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import entry_text, run_cli, tree_hash, write_project

PNPM = "LRN-20260201-aaa"  # pending, with occurrences (the store's own format)
PYTEST = "ERR-20260202-bbb"  # resolved
ENV = {"SELF_IMPROVE_TODAY": "2026-03-01", "SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"}
PNPM_TEXT = entry_text(PNPM, "Use pnpm, not npm", category="correction", action="Use `pnpm install`, not npm.",
                       occurrences=[(30, "1a2b3c4d"), (20, "5e6f7a8b")])
PYTEST_TEXT = entry_text(PYTEST, "pytest fails from the root", status="resolved", action="Run `python -m pytest`.")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [PNPM_TEXT, PYTEST_TEXT])
    return tmp_path


def cli(project: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli(*args, cwd=project, env=ENV)
    return result.returncode, result.stdout, result.stderr


def refused(project: Path, *args: str, message: str, code: int = 1) -> None:
    """Exactly this one line on stderr, this exit code, and nothing written at all."""
    before = tree_hash(project)
    assert cli(project, *args) == (code, "", f"self-improve: error: {message}\n")
    assert tree_hash(project) == before


def learnings(project: Path) -> bytes:
    return (project / ".learnings" / "LEARNINGS.md").read_bytes()


# ---- item 10: archiving is one concept -------------------------------------------------------------


def test_archive_is_listed_shown_and_restored_with_its_previous_status(project: Path) -> None:
    before = learnings(project)
    refused(project, "set-status", PNPM, "archived", message=f"archiving moves the entry into .learnings/archive/: run `self-improve archive {PNPM}`")
    assert cli(project, "archive", PNPM) == (
        0, f"archived {PNPM} to .learnings/archive/2026.md (`self-improve restore {PNPM}` gives back status pending)\n", "",
    )
    assert cli(project, "list", "--kind", "learning") == (0, "no entries\n", "")
    listed = f"{PNPM}       archived    x2   2026-01-30 2026-02-09 Use pnpm, not npm\n"
    assert cli(project, "list", "--archived") == (0, listed, "")
    assert cli(project, "list", "--status", "archived") == (0, listed, "")
    code, out, _ = cli(project, "list", "--archived", "--json")
    assert (code, [(e["id"], e["status"], e["file"]) for e in json.loads(out)]) == (0, [(PNPM, "archived", ".learnings/archive/2026.md")])
    assert cli(project, "show", PNPM) == (0, PNPM_TEXT.replace("**Status**: pending", "**Status**: archived"), "")
    refused(project, "archive", PNPM, message=f"{PNPM} is archived in .learnings/archive/2026.md: run `self-improve restore {PNPM}` first")
    refused(project, "resolve", PNPM, message=f"{PNPM} is archived in .learnings/archive/2026.md: run `self-improve restore {PNPM}` first")
    assert cli(project, "restore", PNPM) == (0, f"restored {PNPM} to .learnings/LEARNINGS.md (status pending)\n", "")
    assert learnings(project) == before  # byte for byte, status pending again
    assert not (project / ".learnings" / "archive").exists()


def test_an_entry_archived_in_place_comes_back_pending(project: Path) -> None:
    """The contradictory state an old `set-status ID archived` left: `archive` moves it, and
    `restore` does not bring back "archived" (the next review would archive it again)."""
    path = project / ".learnings" / "LEARNINGS.md"
    path.write_bytes(learnings(project).replace(b"**Status**: pending", b"**Status**: archived"))
    assert cli(project, "archive", PNPM)[0] == 0
    assert cli(project, "restore", PNPM) == (0, f"restored {PNPM} to .learnings/LEARNINGS.md (status pending)\n", "")
    assert b"**Status**: pending" in learnings(project)


def test_a_promoted_entry_is_not_archived_while_its_rule_is_in_use(project: Path) -> None:
    assert cli(project, "promote", PNPM, "--yes")[0] == 0
    refused(project, "archive", PNPM, message=f"{PNPM} is promoted: its rule is still in use; run `self-improve retire {PNPM}` first")


# ---- item 11: no status without its substance ------------------------------------------------------


def test_promoted_and_marks_need_a_rule(project: Path) -> None:
    refused(project, "set-status", PNPM, "promoted", message=f"{PNPM} has no rule in any instruction file: run `self-improve promote {PNPM}`")
    refused(project, "set-status", PNPM, "promoted_to_skill", message=f"{PNPM} has no skill: run `self-improve extract-skill {PNPM}`")
    refused(project, "mark", PNPM, "--helpful", message=f"{PNPM} has no rule to mark (it is pending): run `self-improve promote {PNPM}` first")
    refused(project, "mark", PYTEST, "--harmful", message=f"{PYTEST} has no rule to mark (it is resolved): run `self-improve promote {PYTEST}` first")
    assert cli(project, "promote", PNPM, "--yes")[0] == 0
    assert cli(project, "mark", PNPM, "--helpful") == (0, f"{PNPM}: helpful 1, harmful 0\n", "")
    refused(project, "set-status", PNPM, "pending", message=f"{PNPM}'s rule is in .claude/rules/self-improve.md: run `self-improve retire {PNPM}` to take it out")
    assert cli(project, "set-status", PNPM, "promoted") == (0, f"{PNPM} is now promoted\n", "")  # the rule is there


def test_import_writes_a_promotion_without_its_rule_as_pending(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    export = tmp_path_factory.mktemp("export") / "learnings.md"
    promoted = entry_text("LRN-20260205-eee", "Indent with tabs", status="promoted", action="Indent with tabs.", occurrences=[(10, "1a2b3c4d")])
    export.write_text(promoted, encoding="utf-8")
    assert cli(project, "import", str(export)) == (0, (
        "LRN-20260205-eee appended\n"
        "note: LRN-20260205-eee was promoted with no rule in this project: imported as pending "
        "(`self-improve promote LRN-20260205-eee` writes its rule)\n"
        "1 entries: 1 appended, 0 merged, 0 unchanged\n"
    ), "")
    expected = promoted.replace("**Status**: promoted", "**Status**: pending").replace(
        "- Occurrences: 2026-02-19/1a2b3c4d\n", "- Occurrences: 2026-02-19/1a2b3c4d\n- Imported-Status: promoted\n"
    )
    assert cli(project, "show", "LRN-20260205-eee") == (0, expected, "")
    before = tree_hash(project)
    assert cli(project, "import", str(export)) == (0, "LRN-20260205-eee unchanged (same content)\n1 entries: 0 appended, 0 merged, 1 unchanged\n", "")
    assert tree_hash(project) == before


def test_lint_reports_a_promotion_without_its_rule(project: Path) -> None:
    path = project / ".learnings" / "LEARNINGS.md"
    path.write_bytes(learnings(project).replace(b"**Status**: pending", b"**Status**: promoted\n**Promoted**: CLAUDE.md"))
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PNPM in text)
    before = tree_hash(project)
    assert cli(project, "lint") == (1, f".learnings/LEARNINGS.md:{line}: {PNPM} is promoted to CLAUDE.md but no instruction file holds its rule\n", "")
    assert tree_hash(project) == before


# ---- item 12: resolve keeps its history --------------------------------------------------------------


def test_resolve_again_appends_and_keeps_the_earlier_note(project: Path) -> None:
    assert cli(project, "resolve", PNPM, "--note", "pinned pnpm", "--commit", "1a2b3c4") == (0, f"{PNPM} resolved\n", "")
    later = {**ENV, "SELF_IMPROVE_NOW": "2026-03-02T08:00:00Z"}
    assert run_cli("resolve", PNPM, "--note", "it came back: pinned corepack", cwd=project, env=later).stdout == f"{PNPM} resolved\n"
    resolution = (
        "### Resolution\n"
        "- **Resolved**: 2026-03-01T12:00:00Z\n- **Commit/PR**: 1a2b3c4\n- **Notes**: pinned pnpm\n\n"
        "- **Resolved**: 2026-03-02T08:00:00Z\n- **Commit/PR**: n/a\n- **Notes**: it came back: pinned corepack\n\n"
    )
    expected = PNPM_TEXT.replace("**Status**: pending", "**Status**: resolved").replace("### Metadata\n", resolution + "### Metadata\n")
    assert cli(project, "show", PNPM) == (0, expected, "")


# ---- item 26: --dry-run on resolve, set-status, mark, archive, restore ------------------------------

HEADER = (
    "# Archive 2026\n\nEntries archived by `self-improve review`, verbatim but for their status line.\n"
    "`self-improve restore ID` moves one back; the comment after each entry records how.\n\n---\n\n"
)


def record(entry_id: str, file: str, status: str) -> str:
    undo = f'"undo":{{"at":4,"new":["**Status**: archived\\n"],"old":["**Status**: {status}\\n"]}}'
    return (f'<!-- self-improve:archived {{"after":"","eol_added":false,"file":"{file}","id":"{entry_id}","index":0,'
            f'"on":"2026-03-01","status":"{status}",{undo}}} -->\n\n')


def prefixed(sign: str, text: str) -> str:
    return "".join(f"{sign}{line}\n" for line in text.split("\n")[:-1])


def status_hunk(status: str, lines: str = "-10,7 +10,7") -> str:
    return (
        f"--- a/.learnings/LEARNINGS.md\n+++ b/.learnings/LEARNINGS.md\n@@ {lines} @@\n"
        f" \n **Logged**: 2026-01-30T10:00:00Z\n **Priority**: medium\n-**Status**: pending\n+**Status**: {status}\n"
        " \n ### Summary\n Use pnpm, not npm\n"
    )


def test_dry_run_prints_the_exact_diff_and_writes_nothing(project: Path) -> None:
    def dry(*args: str) -> str:
        before = tree_hash(project)
        code, out, err = cli(project, *args, "--dry-run")
        assert (code, err, tree_hash(project)) == (0, "", before)
        return out

    assert dry("set-status", PNPM, "in_progress") == status_hunk("in_progress")
    assert dry("resolve", PNPM, "--note", "pinned") == status_hunk("resolved", "-10,13 +10,18") + (
        " \n ### Suggested Action\n Use `pnpm install`, not npm.\n+\n+### Resolution\n"
        "+- **Resolved**: 2026-03-01T12:00:00Z\n+- **Commit/PR**: n/a\n+- **Notes**: pinned\n \n ### Metadata\n - Recurrence-Count: 2\n"
    )
    archived = PNPM_TEXT.replace("**Status**: pending", "**Status**: archived")
    assert dry("archive", PNPM) == (
        "--- a/.learnings/LEARNINGS.md\n+++ b/.learnings/LEARNINGS.md\n@@ -6,22 +6,3 @@\n \n ---\n \n" + prefixed("-", PNPM_TEXT)
        + "--- /dev/null\n+++ b/.learnings/archive/2026.md\n@@ -0,0 +1,28 @@\n"
        + prefixed("+", HEADER + archived + record(PNPM, "LEARNINGS.md", "pending"))
    )
    assert cli(project, "promote", PNPM, "--yes")[0] == 0
    assert dry("mark", PNPM, "--harmful") == (
        "--- a/.learnings/LEARNINGS.md\n+++ b/.learnings/LEARNINGS.md\n@@ -25,5 +25,6 @@\n - Last-Seen: 2026-02-09\n"
        " - Occurrences: 2026-01-30/1a2b3c4d, 2026-02-09/5e6f7a8b\n - Promoted-On: 2026-03-01\n+- Harmful: 1\n \n ---\n"
    )
    assert cli(project, "archive", PYTEST)[0] == 0
    assert dry("restore", PYTEST) == (
        "--- a/.learnings/ERRORS.md\n+++ b/.learnings/ERRORS.md\n@@ -4,3 +4,21 @@\n \n ---\n \n" + prefixed("+", PYTEST_TEXT)
        + "--- a/.learnings/archive/2026.md\n+++ /dev/null\n@@ -1,27 +0,0 @@\n"
        + prefixed("-", HEADER + PYTEST_TEXT.replace("**Status**: resolved", "**Status**: archived") + record(PYTEST, "ERRORS.md", "resolved"))
    )
