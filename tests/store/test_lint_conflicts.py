"""Committed git conflict markers in ``.learnings/`` files are lint problems (issue 9, finding 10)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.store.lint import Problem, conflict_markers
from tests.helpers import run_cli, tree_hash

REASON = "(a merge left unresolved): keep the right text, remove the markers"


def reasons(text: str) -> list[str]:
    return [problem.render() for problem in conflict_markers(text, "ERRORS.md")]


def test_each_marker_line_is_reported_with_its_line() -> None:
    text = "# Errors\n<<<<<<< ours\na\n||||||| base\nb\n=======\nc\n>>>>>>> theirs\n"
    assert reasons(text) == [
        f"ERRORS.md:2: git conflict marker <<<<<<< {REASON}",
        f"ERRORS.md:4: git conflict marker ||||||| {REASON}",
        f"ERRORS.md:6: git conflict marker ======= {REASON}",
        f"ERRORS.md:8: git conflict marker >>>>>>> {REASON}",
    ]


def test_crlf_and_bare_markers_count() -> None:
    assert [p.line for p in conflict_markers("<<<<<<<\r\nx\r\n=======\r\ny\r\n>>>>>>>\r\n", "f")] == [1, 3, 5]


def test_lookalikes_are_not_markers() -> None:
    text = (
        "Title\n=======\n"  # a setext heading, outside any conflict
        "<<<<<<<< eight\n>>>>>>>x\n <<<<<<< indented\n"
        "```\n<<<<<<< ours\n=======\n>>>>>>> theirs\n```\n"  # fenced: an example, not a conflict
        "~~~~\n<<<<<<< ours\n~~~\n=======\n~~~~\n"
    )
    assert reasons(text) == []


def test_a_lone_closing_marker_is_reported() -> None:
    assert conflict_markers("x\n>>>>>>> theirs\n=======\n", "f") == [Problem("f", 2, f"git conflict marker >>>>>>> {REASON}")]


_line = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n<>|="), max_size=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(_line, max_size=20), st.lists(_line, max_size=5), st.lists(_line, max_size=5), st.integers(0, 20))
def test_a_conflict_inserted_anywhere_is_found_exactly(before: list[str], ours: list[str], theirs: list[str], at: int) -> None:
    # Texts without marker characters never report; one conflict region reports its 3 lines.
    assert conflict_markers("\n".join(before), "f") == []
    at = min(at, len(before))
    lines = [*before[:at], "<<<<<<< ours", *ours, "=======", *theirs, ">>>>>>> theirs", *before[at:]]
    if any(line.lstrip(" ").startswith(("```", "~~~")) for line in lines):
        return  # a fence in the user's lines may legitimately hide the markers
    start = at + 1
    assert [p.line for p in conflict_markers("\n".join(lines), "f")] == [start, start + len(ours) + 1, start + len(ours) + len(theirs) + 2]


def test_lint_reports_committed_markers_in_every_learnings_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    conflict = "<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n"
    errors = tmp_path / ".learnings/ERRORS.md"
    errors.write_text(errors.read_text() + conflict)
    (tmp_path / ".learnings/archive").mkdir()
    (tmp_path / ".learnings/archive/2025.md").write_text("# Archive 2025\n\n" + conflict)
    before = tree_hash(tmp_path)
    result = run_cli("lint", cwd=tmp_path)
    assert result.returncode == 1
    first = len(errors.read_text().splitlines()) - 4
    assert result.stdout.splitlines() == [
        f".learnings/ERRORS.md:{first}: git conflict marker <<<<<<< {REASON}",
        f".learnings/ERRORS.md:{first + 2}: git conflict marker ======= {REASON}",
        f".learnings/ERRORS.md:{first + 4}: git conflict marker >>>>>>> {REASON}",
        f".learnings/archive/2025.md:3: git conflict marker <<<<<<< {REASON}",
        f".learnings/archive/2025.md:5: git conflict marker ======= {REASON}",
        f".learnings/archive/2025.md:7: git conflict marker >>>>>>> {REASON}",
    ]
    assert tree_hash(tmp_path) == before
