"""The tolerant reader (issue 15): real files read as their authors meant, written back losslessly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.store import headers
from self_improve.store.entry import Entry, parse_text
from self_improve.store.fences import FenceTracker
from self_improve.store.occurrences import Occurrence
from self_improve.store.record import LogRequest, merge_occurrence
from self_improve.store.scan import FileScan, IdsIn
from self_improve.store.tolerant import count_of, day_of, priority_of, raised_count, status_of

BOM = "\ufeff"
MIXED = (
    "# Learnings\n\n## Status Definitions\n| a | b |\n\n"          # a ## heading in the preamble: no entry
    "## [LRN-20260408-001] insight\n\n### Summary\nFlags are read once\n\n---\n\n"
    "## LRN-20260410-001 — Always run the linter\n\n**Status**: pending\n\n"
    "### [LRN-20260410-002] Prefer rg\n\n**Status**: ✅ resolved (2026-04-11)\n\n"
    "## [LRN-2026\n\n"
    "## 2026-05-27\n\n"
    "### [ERR-20260527-001] npm ci fails\n\n**Priority**: P1\n\n"
    "## 2026-05-28 14:30 | Deploy needs AWS_PROFILE\n\nSome prose.\n"
)


def entry_of(text: str, file: str = ".learnings/LEARNINGS.md") -> Entry:
    (entry,) = parse_text(text, file=file).entries
    return entry


def test_every_header_form_starts_an_entry_and_the_file_renders_back() -> None:
    parsed = parse_text(MIXED, file=".learnings/LEARNINGS.md")
    assert parsed.render() == MIXED
    assert parsed.preamble == ("# Learnings\n", "\n", "## Status Definitions\n", "| a | b |\n", "\n")
    seen = [(e.line, e.form, e.id, e.kind, e.is_listed, e.summary) for e in parsed.entries]
    assert seen == [
        (6, "reference", "LRN-20260408-001", "learning", True, "Flags are read once"),
        (13, "bare-id", "LRN-20260410-001", "learning", True, "Always run the linter"),
        (17, "level-3", "LRN-20260410-002", "learning", True, "Prefer rg"),
        (21, "cut-off", "", "learning", False, ""),
        (23, "dated", "", "learning", False, ""),  # a heading over the entry below it
        (25, "level-3", "ERR-20260527-001", "error", True, "npm ci fails"),
        (29, "dated", "", "learning", True, "Deploy needs AWS_PROFILE"),
    ]
    assert parsed.entries[2].status == "resolved"
    assert parsed.entries[5].priority == "high"
    assert parsed.entries[6].first_seen == "2026-05-28"  # the day its header names


def test_a_bom_stays_in_the_preamble_and_the_first_entry_is_seen() -> None:
    for eol in ("\n", "\r\n"):
        text = BOM + f"## [LRN-20260302-001] best_practice{eol}{eol}### Summary{eol}Run pnpm dev{eol}"
        parsed = parse_text(text)
        assert parsed.preamble == (BOM,)
        assert [e.id for e in parsed.entries] == ["LRN-20260302-001"]
        assert parsed.entries[0].summary == "Run pnpm dev"
        assert parsed.entries[0].line == 1
        assert parsed.render() == text
        edited = parsed.entries[0].with_status("resolved")
        assert (parsed.preamble[0] + edited.text).startswith(BOM + "## [LRN-20260302-001] best_practice" + eol)


def test_a_cut_off_header_is_never_folded_into_the_entry_before_it() -> None:
    text = "## [LRN-20260101-001] insight\n\n### Summary\nx\n\n## [LRN-2026\n**Status**: resolved\n"
    first, cut = parse_text(text).entries
    assert first.text == "## [LRN-20260101-001] insight\n\n### Summary\nx\n\n"
    assert first.status == "pending"  # the cut-off entry's status is not the first one's
    assert (cut.form, cut.id, cut.is_listed) == ("cut-off", "", False)
    # A write to the first entry lands before the cut-off line, inside the first entry.
    assert first.with_section("Resolution", ["- done"]).text.endswith("### Resolution\n- done\n\n")


@pytest.mark.parametrize(("line", "expected"), [
    ("## [LRN-20260101-001] correction", ("reference", "LRN-20260101-001", "correction")),
    ("## [FR-20260409-001] dark_mode", ("reference", "FR-20260409-001", "dark_mode")),
    ("## [2026-04-05] correction", ("reference", "2026-04-05", "correction")),
    ("## ERR-20261003-000001 — validate reports", ("bare-id", "ERR-20261003-000001", "— validate reports")),
    ("## LRN-20260410-001: title", ("bare-id", "LRN-20260410-001", ": title")),
    ("### [LRN-20260410-002] Prefer rg", ("level-3", "LRN-20260410-002", "Prefer rg")),
    ("### LRN-YYYYMMDD-XXX", ("level-3", "LRN-YYYYMMDD-XXX", "")),
    ("## 2026-05-27 Fixed the build", ("dated", "", "Fixed the build")),
    ("## 2026-05-27T09:00:00Z: Fixed", ("dated", "", ": Fixed")),
    ("## [LRN-2026", ("cut-off", "", "")),
    ("## Status Definitions", None),
    ("### Summary", None),
    ("### See LRN-20260101-001", None),
    ("## 20260527 note", None),
    ("# [LRN-20260101-001] h1", None),
])
def test_header_forms(line: str, expected: tuple[str, str, str] | None) -> None:
    assert headers.parse_header(line) == expected


def test_the_reference_header_of_a_near_miss() -> None:
    assert headers.reference_header("LRN-20260410-001", " — Always lint") == "## [LRN-20260410-001] Always lint"
    assert headers.reference_header("LRN-20260410-001", "") == "## [LRN-20260410-001]"


@pytest.mark.parametrize(("body", "summary"), [
    ("### Summary\nOne line\n", "One line"),
    ("### 📝 Summary:\nEmoji and colon\n", "Emoji and colon"),
    ("### 问题\n修改配置后没有重启服务\n\n### 原因\nx\n", "修改配置后没有重启服务"),
    ("### Resumen\nUsar npm ci\n", "Usar npm ci"),
    ("### Zusammenfassung\nGradle schlägt fehl\n", "Gradle schlägt fehl"),
    ("**What happened**: I ran the migration\n", "I ran the migration"),
    ("- **Learning**: defaults hide missing work\n", "defaults hide missing work"),
    ("**Priority**: high\n\n### Details\nThe prose under a section.\n", "The prose under a section."),
    ("```\n### Summary\nfenced\n```\n", ""),
])
def test_the_summary_is_found_where_the_author_put_it(body: str, summary: str) -> None:
    assert entry_of(f"## [LRN-20260101-001] correction\n\n{body}").summary == summary


def test_a_title_is_the_summary_unless_it_is_the_name_slot() -> None:
    assert entry_of("## [LRN-20260320-001] Use pnpm not npm\n\n**What happened**: long story\n").summary == "Use pnpm not npm"
    assert entry_of("## [LRN-20260325-003] correction\n\n**What happened**: asked for a dry run\n").summary == "asked for a dry run"
    assert entry_of("## [ERR-20260406-001] build_failure\n\n```\nTraceback\n```\n").summary == "build_failure"
    assert entry_of("## [LRN-20260406-001] correction\n\n```\nTraceback\n```\n").summary == ""
    assert entry_of("## [LRN-20260406-001] 不要泄露日程\n").summary == "不要泄露日程"


@pytest.mark.parametrize(("value", "status"), [
    ("pending", "pending"), ("✅ resolved (2026-03-17 15:05)", "resolved"), ("Resolved ✓", "resolved"),
    ("pending (waiting on CI)", "pending"), ("🔄 in progress", "in_progress"), ("won't fix (upstream limit)", "wont_fix"),
    ("WONTFIX", "wont_fix"), ("not fixed", "pending"), ("open (was resolved)", "pending"), ("Fixed in PR #3", "resolved"),
    ("已解决", "resolved"), ("✅", "resolved"), ("pending → resolved", "resolved"), ("open -> in progress", "in_progress"), ("Promoted to skill", "promoted_to_skill"), ("sideways", "sideways"), ("", ""),
])
def test_decorated_statuses_name_their_status(value: str, status: str) -> None:
    assert status_of(value) == status


@pytest.mark.parametrize(("value", "priority"), [
    ("HIGH", "high"), ("Medium", "medium"), ("P0", "critical"), ("P2", "medium"), ("🔴 High", "high"), ("高", "high"),
    ("中等", "medium"), ("whatever", ""), ("urgent", ""), ("", ""),
])
def test_priorities_and_severities(value: str, priority: str) -> None:
    assert priority_of(value) == priority


def test_severity_is_the_priority_when_there_is_none() -> None:
    assert entry_of("## [ERR-20260317-001] docker\n\n**Severity**: HIGH\n").priority == "high"
    assert entry_of("## [ERR-20260317-001] docker\n\n**Severity**: HIGH\n**Priority**: low\n").priority == "low"
    assert entry_of("## [ERR-20260317-001] docker\n\n**Severity**: S9\n").priority == ""
    assert entry_of("## [ERR-20260317-001] docker\n\n**Priority**: whenever\n").priority == "whenever"  # lint reports it


@pytest.mark.parametrize(("value", "count", "raised"), [
    ("3", 3, "4"), ("3+", 3, "4+"), ("8+", 8, "9+"), ("2 (this is the second occurrence)", 2, "3"),
    ("5 (flaky CI)", 5, "6 (flaky CI)"), ("3 times", 3, "4 times"), ("2 次", 2, "3 次"), ("8+ (see logs)", 8, "9+ (see logs)"), ("~4", 4, "~5"), ("many", None, "1"),
])
def test_annotated_counts(value: str, count: int | None, raised: str) -> None:
    assert count_of(value) == count
    assert raised_count(value, (count or 0) + 1) == raised


def test_days_of_timestamps() -> None:
    assert [day_of(v) for v in ("2026-03-17 15:05", "2026-03-10T08:12:44Z", "2026/3/7", "March", "")] == [
        "2026-03-17", "2026-03-10", "2026-03-07", "", ""]
    entry = entry_of("## [ERR-1] x\n\n### Metadata\n- First-Seen: 2026-03-10T08:12:44Z\n- Last-Seen: 2026-03-18 09:30:00\n")
    assert (entry.first_seen, entry.last_seen) == ("2026-03-10", "2026-03-18")


def test_bold_and_list_forms_of_a_field_read_alike() -> None:
    bold = entry_of("## [LRN-20260320-001] t\n\n**Pattern-Key**: tooling.pm\n**Recurrence-Count**: 3+\n")
    listed = entry_of("## [LRN-20260320-001] t\n- Pattern-Key: tooling.pm\n- Recurrence-Count: 3+\n- Status: resolved\n")
    bold_list = entry_of("## [LRN-20260320-001] t\n- **Pattern-Key**: `tooling.pm`\n- **Recurrence-Count**: 3\n")
    full_width = entry_of("## [LRN-20260320-001] t\n**Pattern-Key**：tooling.pm\n- **状态**：已解决\n")
    for entry in (bold, listed, bold_list, full_width):
        assert entry.pattern_key == "tooling.pm"
    assert [e.recurrence_count for e in (bold, listed, bold_list)] == [3, 3, 3]
    assert (listed.status, full_width.status) == ("resolved", "resolved")


def test_other_spellings_of_a_field_name_and_of_a_section_title() -> None:
    entry = entry_of("## [LRN-20260101-001] correction\n\n**Pattern Key**: a.b\n**Recurrence count**: 2\n\n### Summary / 摘要\nhello\n")
    assert (entry.pattern_key, entry.recurrence_count, entry.summary) == ("a.b", 2, "hello")
    assert "**Recurrence count**: 3\n" in entry.with_metadata("Recurrence-Count", "3").text


def test_an_edit_rewrites_the_field_in_the_form_it_has() -> None:
    bold = entry_of("## [LRN-20260320-001] t\n\n**Recurrence-Count**: 3+\n\n### Summary\nx\n")
    assert bold.with_metadata("Recurrence-Count", "4+").text == "## [LRN-20260320-001] t\n\n**Recurrence-Count**: 4+\n\n### Summary\nx\n"
    listed = entry_of("## [LRN-20260320-001] t\n- Status: open\n\n### Summary\nx\n")
    assert listed.with_status("resolved").text == "## [LRN-20260320-001] t\n- Status: resolved\n\n### Summary\nx\n"


def log_into(text: str, day: str = "2026-03-20") -> Entry:
    request = LogRequest(kind="learning", summary="x", now=datetime.fromisoformat(day).replace(tzinfo=UTC))
    return merge_occurrence(entry_of(text), request, Occurrence(day, "abcd"), keep=20)


def test_a_log_raises_an_annotated_count_and_keeps_the_annotation() -> None:
    plus = log_into("## [LRN-20260320-001] t\n\n**Recurrence-Count**: 3+\n\n### Summary\nx\n")
    assert "**Recurrence-Count**: 4+\n" in plus.text and plus.recurrence_count == 4
    note = log_into("## [LRN-20260322-002] t\n- Recurrence-Count: 2 (this is the second occurrence)\n\n### Summary\nx\n")
    assert "- Recurrence-Count: 3\n" in note.text
    stamped = log_into("## [ERR-20260317-001] t\n\n### Metadata\n- First-Seen: 2026-03-10T08:12:44Z\n- Last-Seen: 2026-03-20 09:00\n")
    assert "- First-Seen: 2026-03-10T08:12:44Z\n- Last-Seen: 2026-03-20 09:00\n" in stamped.text  # the same days: untouched


def test_a_log_never_merges_into_an_entry_without_an_id() -> None:
    text = "## 2026-05-27 Fixed the build\n- Pattern-Key: build.x\n\nprose\n"
    scan = FileScan(text, frozenset({"fixed", "build"}))
    assert [entry.form for _, entry in scan.keyed("build.x")] == ["dated"]
    assert scan.active_keyed("build.x") is None


def test_ids_of_near_miss_headers_are_taken() -> None:
    text = BOM + "## LRN-20260410-001 a\n\n### [LRN-20260410-002] b\n"
    assert "LRN-20260410-001" in IdsIn(text) and "LRN-20260410-002" in IdsIn(text)
    assert "LRN-20260410-00" not in IdsIn(text) and "LRN-20260410-003" not in IdsIn(text)


# ---- hypothesis: any mix of header forms, a BOM, any line ending ---------------------------------

LINES = st.lists(
    st.one_of(
        st.sampled_from([
            "## [LRN-20250101-001] correction", "## LRN-20250101-002 title", "### [ERR-20250101-abc] x",
            "### FEAT-20250101-001", "## 2026-05-27 dated", "## 2026-05-27", "## [LRN-2026", "## [garbage", "## []",
            "## Heading", "### Summary", "### 问题", "**Status**: ✅ resolved (2026-03-17)", "- Recurrence-Count: 3+",
            "**Pattern-Key**: a.b", "```", "~~~", "---", "", " ", BOM, "\udce9",
        ]),
        st.text(max_size=20),
    ),
    max_size=30,
)


def header_lines_outside_fences(text: str) -> list[int]:
    tracker, found, offset = FenceTracker(), [], 0
    for number, line in enumerate(text.split("\n"), 1):
        bare = line[:-1] if line.endswith("\r") else line
        if number == 1 and bare.startswith(BOM):
            bare = bare[1:]
        if not tracker.inside_after(bare) and headers.parse_header(bare) is not None:
            found.append(number)
        offset += len(line) + 1
    return found


@settings(max_examples=400, deadline=None)
@given(LINES, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_any_mix_of_forms_renders_back_and_every_header_starts_an_entry(lines: list[str], eol: str, bom: bool, final: bool) -> None:
    text = (BOM if bom else "") + eol.join(lines) + (eol if final else "")
    parsed = parse_text(text)
    assert parsed.render() == text
    assert [entry.line for entry in parsed.entries] == header_lines_outside_fences(text)
    for entry in parsed.entries:  # reading every derived value never raises
        assert isinstance((entry.summary, entry.status, entry.priority, entry.recurrence_count, entry.first_seen), tuple)
