"""The entry grammar: lossless parsing and rendering, field access, one-line edits."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.store.entry import Entry, NewEntry, parse_text, render_new
from tests.helpers import FIXTURES

REFERENCE = FIXTURES / "reference"


def read(name: str) -> str:
    return (REFERENCE / name).read_bytes().decode("utf-8")


def test_reference_files_round_trip_byte_for_byte() -> None:
    for name in ("LEARNINGS.md", "ERRORS.md", "FEATURE_REQUESTS.md"):
        text = read(name)
        assert parse_text(text).render() == text
        crlf = text.replace("\n", "\r\n")
        assert parse_text(crlf).render() == crlf


def test_reference_learnings_fields() -> None:
    parsed = parse_text(read("LEARNINGS.md"))
    assert [e.id for e in parsed.entries] == ["LRN-20250115-001", "LRN-20250116-A7B", "LRN-20250117-002"]
    first, second, third = parsed.entries
    assert first.category == "correction"
    assert first.priority == "high"
    assert first.status == "pending"
    assert first.area == "backend"
    assert first.summary == "Use pnpm, not npm: this repo is a pnpm workspace"
    assert first.suggested_action == "Run `pnpm install`; never `npm install`."
    assert first.pattern_key == "tooling.package-manager"
    assert first.see_also == ("LRN-20250110-001",)
    assert (first.recurrence_count, first.first_seen, first.last_seen) == (2, "2025-01-15", "2025-01-20")
    assert second.see_also == ("LRN-20250115-001",)  # the bold **See Also**: form
    assert second.status == "resolved"
    assert second.priority == ""  # missing optional field
    assert second.field("Reviewer") == "someone (an unknown field)"
    assert "## [NOT-AN-ENTRY]" in second.text  # a header inside a fence stays inside its entry
    assert third.promoted == "CLAUDE.md"
    assert third.summary == "Keep commits small — one concern per commit (日本語のメモ)"
    assert third.meta("Custom-Thing") == "whatever"
    assert third.recurrence_count == 1  # no count recorded: one occurrence
    assert parsed.preamble[0] == "# Learnings\n"


def test_reference_errors_and_features() -> None:
    errors = parse_text(read("ERRORS.md")).entries
    assert [e.id for e in errors] == ["ERR-20250115-001", "ERR-20250118-X9Z"]
    assert errors[0].kind == "error"
    assert errors[0].suggested_action == "Run `python -m pytest` so the root is on sys.path."
    assert errors[0].details == "Ran `pytest tests/` from the root."
    assert errors[1].status == "wont_fix"
    features = parse_text(read("FEATURE_REQUESTS.md")).entries
    assert features[0].kind == "feature"
    assert features[0].summary == "Export the report as CSV"
    assert features[0].suggested_action == "Add a --format csv flag."
    assert not features[0].text.endswith("\n")


def one_line_diff(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_changing_one_field_changes_only_that_line() -> None:
    for newline in ("\n", "\r\n"):
        text = read("LEARNINGS.md").replace("\n", newline)
        parsed = parse_text(text)
        entry = parsed.entries[0]
        new = entry.with_status("resolved")
        rendered = parsed.render().replace(entry.text, new.text)
        assert one_line_diff(text, rendered) == [f"-**Status**: pending{newline}", f"+**Status**: resolved{newline}"]
        changed = entry.with_metadata("Recurrence-Count", "3")
        assert one_line_diff(entry.text, changed.text) == [
            f"-- Recurrence-Count: 2{newline}",
            f"+- Recurrence-Count: 3{newline}",
        ]


def test_new_metadata_goes_at_the_end_of_the_metadata_section() -> None:
    entry = parse_text(read("LEARNINGS.md")).entries[2]
    changed = entry.with_metadata("Helpful", "1")
    assert one_line_diff(entry.text, changed.text) == ["+- Helpful: 1\n"]
    assert changed.text.index("- Helpful: 1") > changed.text.index("- Custom-Thing")
    assert changed.helpful == 1


def test_edit_of_last_entry_without_final_newline() -> None:
    text = read("FEATURE_REQUESTS.md")
    parsed = parse_text(text)
    entry = parsed.entries[0]
    new = entry.with_status("resolved").with_section("Resolution", ["- **Notes**: done"])
    assert new.text.endswith("---")  # still no final newline
    assert parse_text(text.replace(entry.text, new.text)).entries[0].status == "resolved"
    assert "### Resolution\n- **Notes**: done\n" in new.text


def test_missing_metadata_section_is_created() -> None:
    entry = parse_text("## [LRN-20250101-001] insight\n\n### Summary\nx\n\n---\n").entries[0]
    changed = entry.with_metadata("Pattern-Key", "a.b")
    assert changed.text == "## [LRN-20250101-001] insight\n\n### Summary\nx\n\n### Metadata\n- Pattern-Key: a.b\n\n---\n"
    assert changed.pattern_key == "a.b"


# ---- hypothesis ------------------------------------------------------------------------------

MARKDOWNISH = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "## [LRN-20250101-001] correction",
                "## [ERR-20250101-abc] x",
                "## [garbage",
                "## []",
                "### Summary",
                "### Metadata",
                "- Pattern-Key: a.b",
                "- Recurrence-Count: x",
                "**Status**: pending",
                "**Status**:",
                "```",
                "~~~",
                "````python",
                "---",
                "",
                " ",
                "\t",
            ]
        ),
        st.text(max_size=30),
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH, st.sampled_from(["\n", "\r\n", "\r", ""]), st.booleans())
def test_render_parse_is_identity_on_markdownish_text(lines: list[str], newline: str, final: bool) -> None:
    text = newline.join(lines) + (newline if final else "")
    assert parse_text(text).render() == text


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_render_parse_is_identity_on_arbitrary_text(text: str) -> None:
    assert parse_text(text).render() == text


ONE_LINE = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="`~#*"),
    min_size=1,
    max_size=40,
).map(str.strip).filter(bool)


@st.composite
def new_entries(draw: st.DrawFn) -> NewEntry:
    prefix = draw(st.sampled_from(["LRN", "ERR", "FEAT"]))
    suffix = draw(st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyzABC", min_size=3, max_size=4))
    return NewEntry(
        id=f"{prefix}-20261129-{suffix}",
        category=draw(st.sampled_from(["correction", "insight", "python3", "export_csv"])),
        logged="2026-11-29T10:00:00Z",
        priority=draw(st.sampled_from(["low", "medium", "high", "critical"])),
        status=draw(st.sampled_from(["pending", "resolved", "promoted"])),
        area=draw(st.sampled_from(["", "backend", "infra"])),
        summary=draw(ONE_LINE),
        details=draw(st.one_of(st.just(""), ONE_LINE)),
        action=draw(st.one_of(st.just(""), ONE_LINE)),
        error_excerpt=draw(st.one_of(st.just(""), ONE_LINE, st.just("```\nnested fence\n```"))),
        metadata=tuple(
            draw(
                st.lists(
                    st.tuples(st.sampled_from(["Pattern-Key", "Tags", "See Also", "Source"]), ONE_LINE),
                    max_size=4,
                    unique_by=lambda kv: kv[0],
                )
            )
        ),
    )


@settings(max_examples=300, deadline=None)
@given(new_entries(), st.sampled_from(["\n", "\r\n"]))
def test_parse_of_render_gives_the_entry_back(new: NewEntry, newline: str) -> None:
    text = render_new(new, newline)
    parsed = parse_text(text)
    assert parsed.render() == text
    (entry,) = parsed.entries
    assert entry.id == new.id
    assert entry.category == new.category
    assert entry.kind == new.kind
    assert entry.priority == new.priority
    assert entry.status == new.status
    assert entry.area == new.area
    assert entry.summary == new.summary
    assert entry.details == new.details
    assert entry.suggested_action == new.action
    for key, value in new.metadata:
        assert entry.meta(key) == value


def test_an_entry_is_an_immutable_value_of_its_lines() -> None:
    lines = ("## [ERR-20260101-abc] x\n", "\n", "### Summary\n", "boom\n")
    a, b = Entry(lines, file="ERRORS.md", line=3), Entry(lines)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1  # where it was read is no part of it
    assert a != Entry(lines[:-1]) and a != lines
    assert (a.file, a.line, b.file, b.line) == ("ERRORS.md", 3, "", 0)
    assert repr(b) == f"Entry(lines={lines!r}, file='', line=0)"
    assert a.summary == "boom" and a.summary == "boom"  # derived once, then kept
    with pytest.raises(AttributeError):
        a.lines = ()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del a.file
