"""lint reports real problems only, each with a reason and a hint (issue 15); ``--fix``'s rewrite."""

from __future__ import annotations

from self_improve.store.entry import parse_text
from self_improve.store.header_fix import fix_headers
from self_improve.store.lint import lint_file

TOLERATED = (
    "# Learnings\n\n## Status Definitions\n\n"
    "## [LRN-20260320-001] Use pnpm not npm\n\n**Priority**: High\n**Status**: ✅ resolved (2026-03-17 15:05)\n"
    "**Pattern-Key**: tooling.pm\n**Recurrence-Count**: 3+\n\n**What happened**: npm broke the lockfile\n\n---\n\n"
    "## [LRN-20260321-002] correction\n\n**Severity**: HIGH\n**Status**: won't fix (upstream)\n\n### 问题\n配置没有生效\n\n"
    "### Metadata\n- Recurrence-Count: 2 (this is the second occurrence)\n- First-Seen: 2026-03-10T08:12:44Z\n"
    "- Last-Seen: 2026-03-18 09:30:00\n\n---\n\n"
    "## 2026-05-27\n\n## [LRN-20260527-001] insight\n\n### Resumen\nUsar npm ci\n"
)


def reports(text: str, prefix: str | None = "LRN", file: str = "LEARNINGS.md") -> list[str]:
    return [problem.render() for problem in lint_file(parse_text(text, file=file), file, prefix)]


def test_values_the_reader_understands_are_never_reported() -> None:
    assert reports(TOLERATED) == []


def test_each_real_problem_is_reported_once_with_its_hint() -> None:
    text = (
        "## [LRN-YYYYMMDD-XXX] category\n\n**Status**: pending | resolved\n\n### Summary\nOne-line description\n\n"  # 1
        "## [LRN-20260402-001] correction\n\n### Summary\na\n\n"                                                   # 8
        "## [LRN-20260402-001] knowledge_gap\n\n### Summary\nb\n\n"                                                # 13
        "## [2026-04-05] correction\n\n### Summary\nc\n\n"                                                         # 18
        "## [FR-20260409-001] dark_mode\n\n### Summary\nd\n\n"                                                     # 23
        "## LRN-20260410-001 Always lint\n\n"                                                                      # 28
        "### [LRN-20260410-002] Prefer rg\n\n"                                                                     # 30
        "## [LRN-2026\n\n"                                                                                         # 32
        "## 2026-05-27 Fixed the build\n\n"                                                                        # 34
        "## [ERR-20260411-001] x\n\n**Status**: sideways\n**Priority**: whenever\n\n"                              # 36
        "```\nnever closed\n"
    )
    assert reports(text) == [
        "LEARNINGS.md:1: leftover template entry LRN-YYYYMMDD-XXX (the skill's example, not a lesson): delete it",
        "LEARNINGS.md:13: duplicate ID LRN-20260402-001 (first at line 8): give one of the two entries a new ID",
        "LEARNINGS.md:18: [2026-04-05] is a date, not an ID: use TYPE-YYYYMMDD-NNN, e.g. LRN-20260405-001",
        "LEARNINGS.md:23: FR-20260409-001: FR- is not an ID prefix: feature requests are FEAT-: FEAT-20260409-001",
        "LEARNINGS.md:28: header '## LRN-20260410-001 Always lint' is not the reference form ## [ID] title: "
        "write '## [LRN-20260410-001] Always lint' (`self-improve lint --fix` rewrites it)",
        "LEARNINGS.md:30: header '### [LRN-20260410-002] Prefer rg' is not the reference form ## [ID] title: "
        "write '## [LRN-20260410-002] Prefer rg' (`self-improve lint --fix` rewrites it)",
        "LEARNINGS.md:32: cut-off header '## [LRN-2026': the ID is never closed with ']': "
        "complete it as ## [TYPE-YYYYMMDD-NNN] title, or delete the line",
        "LEARNINGS.md:34: dated header '## 2026-05-27 Fixed the build' is not the reference form ## [ID] title (no ID): "
        "give it an ID: ## [LRN-20260527-001] … (`self-improve lint --fix` rewrites it)",
        "LEARNINGS.md:36: ERR-20260411-001 does not belong in this file (expected LRN-…): move it to its kind's file",
        "LEARNINGS.md:38: unknown status 'sideways': use one of pending, in_progress, resolved, wont_fix, promoted, "
        "promoted_to_skill, retired, archived",
        "LEARNINGS.md:39: unknown priority 'whenever': use one of low, medium, high, critical",
        "LEARNINGS.md:36: a code fence opened in this entry is never closed: close it: everything after it, later headers too, "
        "reads as code",
    ]


def test_an_entry_with_no_summary_anywhere_is_reported() -> None:
    assert reports("## [LRN-20260406-001] correction\n\n**Priority**: high\n\n```\nTraceback\n```\n") == [
        "LEARNINGS.md:1: no summary: add a ### Summary section: one line saying what happened"]


def test_text_that_is_not_utf8_is_one_report_per_file() -> None:
    gbk = "# 学习记录\n\n## [LRN-20260311-001] correction\n\n### 问题\n修改配置后没有重启服务\n".encode("gbk")
    assert reports(gbk.decode("utf-8", "surrogateescape")) == [
        "LEARNINGS.md:1: not valid UTF-8: the file is GBK/GB18030 text: convert it once with `iconv -f GB18030 -t UTF-8` "
        "(it is read as GB18030 meanwhile)"]
    stray = b"## [ERR-20260420-001] locale\n\n### Summary\nSnapshot tests\n\nCaf\xe9 au lait\n"
    assert reports(stray.decode("utf-8", "surrogateescape"), "ERR", "ERRORS.md") == [
        "ERRORS.md:6: not valid UTF-8: a byte of another encoding (Latin-1?) in this line: "
        "retype the character in UTF-8 (it is shown as U+FFFD meanwhile)"]


def test_problems_carry_a_stable_code() -> None:
    text = "## LRN-20260410-001 a\n\n## [LRN-2026\n\n## 2026-05-27 b\n"
    assert [p.code for p in lint_file(parse_text(text), "L.md", "LRN")] == ["near-miss-header", "cut-off-header", "dated-header"]


def test_fix_rewrites_only_the_near_miss_header_lines() -> None:
    text = (
        "\ufeff## LRN-20260410-001 — Always lint\r\n\r\nbody \udce9\r\n"
        "### [LRN-20260410-002] Prefer rg\r\n"
        "## 2026-05-27\r\n\r\n"                                   # a heading: left alone
        "### [LRN-20260527-001] under the heading\r\n"
        "## 2026-05-27 Fixed the build\r\nprose\r\n"
        "## 2026-05-27: Again\r\nprose\r\n"
        "## [LRN-2026\r\n"                                        # cut off: its ID cannot be known
        "## [LRN-20260101-001] ok"                                # no final newline
    )
    fixed, fixes = fix_headers(parse_text(text), "LRN")
    assert [(f.line, f.after) for f in fixes] == [
        (1, "## [LRN-20260410-001] Always lint"),
        (4, "## [LRN-20260410-002] Prefer rg"),
        (7, "## [LRN-20260527-001] under the heading"),
        (8, "## [LRN-20260527-002] Fixed the build"),
        (10, "## [LRN-20260527-003] Again"),
    ]
    assert fixed.render() == (
        "\ufeff## [LRN-20260410-001] Always lint\r\n\r\nbody \udce9\r\n"
        "## [LRN-20260410-002] Prefer rg\r\n"
        "## 2026-05-27\r\n\r\n"
        "## [LRN-20260527-001] under the heading\r\n"
        "## [LRN-20260527-002] Fixed the build\r\nprose\r\n"
        "## [LRN-20260527-003] Again\r\nprose\r\n"
        "## [LRN-2026\r\n"
        "## [LRN-20260101-001] ok"
    )
    assert fix_headers(fixed, "LRN")[1] == []  # a second run has nothing left to do


def test_without_a_kind_dated_headers_stay() -> None:
    fixed, fixes = fix_headers(parse_text("## 2026-05-27 a\nx\n"), None)
    assert (fixed.render(), fixes) == ("## 2026-05-27 a\nx\n", [])


def test_an_id_we_drew_ending_in_xxx_is_a_lesson_not_the_template() -> None:
    # Older releases could draw the suffix "xxx" (one in 36**3): "delete it" would lose a lesson.
    ours = "## [LRN-20261202-xxx] insight\n\n**Status**: pending\n\n### Summary\nentry 0047dcfe48b8\n"
    assert reports(ours) == []
    half_filled = "## [LRN-20261202-XXX] category\n\n**Status**: pending\n\n### Summary\nOne-line description\n"
    assert reports(half_filled) == [
        "LEARNINGS.md:1: leftover template entry LRN-20261202-XXX (the skill's example, not a lesson): delete it",
    ]
