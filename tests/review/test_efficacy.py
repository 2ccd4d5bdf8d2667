"""Efficacy per promoted rule (``review/efficacy.py``, shown by ``stats``): occurrences per session
before and after Promoted-On, sessions seen since, credit marked and measured, on a hand-built store."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from self_improve.review.efficacy import Period, efficacy
from self_improve.store import archive as archive_mod
from self_improve.store.entry import Entry, parse_text
from self_improve.store.store import Store
from tests.helpers import TODAY, day, entry_text, run_cli, write_project

# The rule, promoted 10 days ago: three occurrences before (sessions t1, t2, t2), one after (t3).
RULE = entry_text(
    "ERR-20260201-aaa", "yaml is missing", status="promoted", promoted="CLAUDE.md", pattern_key="deps.module-not-found/python:yaml",
    occurrences=[(30, "1a1a1a1a"), (20, "2b2b2b2b"), (15, "2b2b2b2b"), (5, "3c3c3c3c")],
    meta=[("Promoted-On", day(10)), ("Helpful", "1"), ("Measured-Helpful", "2"), ("Measured-Harmful", "1"), ("Recurred-After-Promotion", "1")],
)
# Other sessions of the project, seen through other entries (an unknown task never counts).
OTHER = entry_text(
    "ERR-20260202-bbb", "make fails", pattern_key="build.make-error/x",
    occurrences=[(25, "4d4d4d4d"), (10, "5e5e5e5e"), (8, "6f6f6f6f"), (2, "7a7a7a7a"), (1, "-")],
)
ARCHIVED = entry_text("LRN-20260203-ccc", "An old lesson", status="resolved", occurrences=[(4, "8b8b8b8b")])
# Promoted before Promoted-On was written: its split is unknown.
LEGACY = entry_text("LRN-20260204-ddd", "Use pnpm", status="promoted", promoted="AGENTS.md", occurrences=[(3, "1a1a1a1a")])
# Promoted today with no occurrence before: before is 0 in 0 sessions, no rate.
FRESH = entry_text("LRN-20260205-eee", "Tabs", status="promoted", promoted="CLAUDE.md", occurrences=[(0, "9c9c9c9c")],
                   meta=[("Promoted-On", day(0))])


def parsed(text: str) -> Entry:
    return parse_text(text).entries[0]


def test_efficacy_numbers() -> None:
    rules = efficacy([parsed(t) for t in (FRESH, RULE, OTHER, LEGACY)], history=[parsed(ARCHIVED)])
    assert [(r.entry.id, r.promoted_on, r.before, r.after, r.sessions_since) for r in rules] == [
        # before: [30 days ago, 10 days ago) holds 1a1a (30), 4d4d (25), 2b2b (20, 15): 3 sessions;
        # after: 5e5e (day 10 counts), 6f6f, 3c3c, 8b8b (archived), 1a1a again (3, LEGACY's),
        # 7a7a, 9c9c (0, FRESH's): 7 sessions; the unknown task "-" is none.
        ("ERR-20260201-aaa", day(10), Period(3, 3), Period(1, 7), 7),
        ("LRN-20260204-ddd", "", None, None, None),
        ("LRN-20260205-eee", day(0), Period(0, 0), Period(1, 1), 1),
    ]
    assert (Period(3, 3).per_session, Period(1, 5).per_session, Period(0, 0).per_session, Period(2, 3).per_session) == (1.0, 0.2, None, 0.67)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [RULE, OTHER, ARCHIVED, LEGACY, FRESH])
    archive_mod.archive(Store(tmp_path), ["LRN-20260203-ccc"], date(2026, 3, 1))
    return tmp_path


def test_stats_json(project: Path) -> None:
    result = run_cli("stats", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["efficacy"] == [
        {
            "id": "ERR-20260201-aaa", "pattern_key": "deps.module-not-found/python:yaml", "summary": "yaml is missing",
            "target": "CLAUDE.md", "promoted_on": day(10),
            "before": {"occurrences": 3, "sessions": 3, "per_session": 1.0},
            "after": {"occurrences": 1, "sessions": 7, "per_session": 0.14},
            "sessions_since": 7, "recurred_after_promotion": 1,
            "helpful": {"marked": 1, "measured": 2}, "harmful": {"marked": 0, "measured": 1},
        },
        {
            "id": "LRN-20260204-ddd", "pattern_key": "", "summary": "Use pnpm", "target": "AGENTS.md", "promoted_on": None,
            "before": None, "after": None, "sessions_since": None, "recurred_after_promotion": 0,
            "helpful": {"marked": 0, "measured": 0}, "harmful": {"marked": 0, "measured": 0},
        },
        {
            "id": "LRN-20260205-eee", "pattern_key": "", "summary": "Tabs", "target": "CLAUDE.md", "promoted_on": day(0),
            "before": {"occurrences": 0, "sessions": 0, "per_session": None},
            "after": {"occurrences": 1, "sessions": 1, "per_session": 1.0},
            "sessions_since": 1, "recurred_after_promotion": 0,
            "helpful": {"marked": 0, "measured": 0}, "harmful": {"marked": 0, "measured": 0},
        },
    ]


def test_stats_text(project: Path) -> None:
    text = run_cli("stats", cwd=project).stdout
    section = text.split("Efficacy per promoted rule\n", 1)[1].split("\n\n", 1)[0]
    assert section == "\n".join([
        f"  ERR-20260201-aaa  [deps.module-not-found/python:yaml]  promoted {day(10)} to CLAUDE.md",
        "      before: 3 in 3 sessions (1.00 per session); after: 1 in 7 sessions (0.14 per session); sessions since: 7",
        "      helpful: marked 1, measured 2; harmful: marked 0, measured 1",
        "  LRN-20260204-ddd  promoted (day unknown) to AGENTS.md",
        "      before/after: unknown (no Promoted-On); sessions since: unknown",
        "      helpful: marked 0, measured 0; harmful: marked 0, measured 0",
        f"  LRN-20260205-eee  promoted {day(0)} to CLAUDE.md",
        "      before: 0 in 0 sessions (n/a per session); after: 1 in 1 session (1.00 per session); sessions since: 1",
        "      helpful: marked 0, measured 0; harmful: marked 0, measured 0",
    ])


def test_stats_without_a_promoted_rule(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [OTHER])
    assert "Efficacy per promoted rule\n  no promoted rule\n\n" in run_cli("stats", cwd=tmp_path).stdout
    assert TODAY == date(2026, 3, 1)  # the days above are counted back from it
