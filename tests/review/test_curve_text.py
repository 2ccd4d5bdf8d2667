"""``stats --curve``'s text (``review/curve_text.py``): the exact chart in Unicode and in ASCII,
the bars' scaling, and which of the two a stream gets (``output.use_colour``'s rules)."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest

from self_improve import output
from self_improve.review.curve import compute
from self_improve.review.curve_text import bar, curve_main, render
from self_improve.store import counters
from tests.helpers import TODAY, day, entry_text, write_project
from tests.review.test_curve import A, ARCHIVED, B, C, DAILY

LEGEND = """
  mistakes recorded: dated occurrences of error and learning entries, archived ones included
  repeats: those that were not their entry's first occurrence
  fixed in time: a fix the hooks gave before the command or right after it failed, then the same
    command passed (measured helpful); dated on this machine since 2026-02-10
  rules promoted: on each rule's Promoted-On day (a rewritten rule on its rewrite day)
  rules retired: retire actions, dated on this machine since 2026-03-01
  not shown, no day known: mistakes recorded 5, repeats 4, fixed in time 1, rules retired 1
"""

UNICODE = """\
Learning curve by day, 2026-02-20 to 2026-02-24
day              recorded        repeats  fixed in time       promoted        retired
2026-02-20  ████        1              0              0              0              0
2026-02-21  ████████    2  ████████    2              0              0              0
2026-02-22              0              0              0              0              0
2026-02-23              0              0              0  ████████    1              0
2026-02-24              0              0  ████████    2              0              0
total                   3              2              2              1              0
""" + LEGEND

ASCII = UNICODE.replace("████████", "########").replace("████", "####")


def curve():  # type: ignore[no-untyped-def]
    return compute([A, B, C], [ARCHIVED], DAILY, date(2026, 2, 20), date(2026, 2, 24), "day", retired_total=2)


def test_exact_unicode_and_ascii() -> None:
    assert render(curve(), unicode=True) == UNICODE
    assert render(curve(), unicode=False) == ASCII
    assert ASCII.isascii()


def test_colour_paints_the_bars_and_the_title_only() -> None:
    text = render(curve(), unicode=True, coloured=True)
    lines = text.splitlines()
    assert lines[0] == "\x1b[1mLearning curve by day, 2026-02-20 to 2026-02-24\x1b[0m"
    assert lines[3] == "2026-02-21  \x1b[31m████████\x1b[0m    2  \x1b[33m████████\x1b[0m    2              0              0              0"
    assert lines[6] == "2026-02-24              0              0  \x1b[32m████████\x1b[0m    2              0              0"
    # Without the escapes, the same chart: colour never moves a column.
    assert text.replace("\x1b[31m", "").replace("\x1b[33m", "").replace("\x1b[32m", "").replace("\x1b[34m", "") \
        .replace("\x1b[1m", "").replace("\x1b[0m", "") == UNICODE


@pytest.mark.parametrize(
    "value, largest, unicode, expected",
    [
        (0, 5, True, ""), (0, 0, False, ""),
        (5, 5, True, "████████"), (5, 5, False, "########"),
        (1, 3, True, "██▋"),  # 21.33 eighths: 2 blocks and 5/8
        (1, 3, False, "###"),
        (1, 100, True, "▏"), (1, 100, False, "#"),  # a non-zero count always shows
        (99, 100, True, "███████▉"),
    ],
)
def test_bar(value: int, largest: int, unicode: bool, expected: str) -> None:
    assert bar(value, largest, unicode) == expected


class Tty(io.StringIO):
    def __init__(self, encoding: str = "utf-8") -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def isatty(self) -> bool:
        return True


class Pipe(Tty):
    def isatty(self) -> bool:
        return False


@pytest.fixture()
def store_dir(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    store = write_project(tmp_path, [entry_text("ERR-20260201-aaa", "yaml", occurrences=[(8, "1a"), (1, "2b")])])
    counters.bump_daily(store.fs, {"measured_helpful": 1}, day(1))
    return tmp_path


@pytest.fixture(autouse=True)
def clean_colour_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    output.set_colour_choice("auto")


def test_curve_main_follows_output_rules(store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from self_improve.store.store import Store

    store = Store(store_dir)
    since = date(2026, 2, 16)
    tty = curve_main(store, since, "week", TODAY, Tty())
    assert "\x1b[31m████████\x1b[0m" in tty and "#" not in tty
    assert tty.splitlines()[2] == "2026-W08  \x1b[31m████████\x1b[0m    1              0              0              0              0"
    piped = curve_main(store, since, "week", TODAY, Pipe())
    assert piped.splitlines()[3] == "2026-W09  ########    1  ########    1  ########    1              0              0"
    assert "\x1b" not in piped and piped.isascii()
    monkeypatch.setenv("TERM", "dumb")
    assert curve_main(store, since, "week", TODAY, Tty()) == piped
    monkeypatch.delenv("TERM")
    monkeypatch.setenv("NO_COLOR", "1")
    assert curve_main(store, since, "week", TODAY, Tty()) == piped
    monkeypatch.delenv("NO_COLOR")
    output.set_colour_choice("never")
    assert curve_main(store, since, "week", TODAY, Tty()) == piped
    output.set_colour_choice("always")
    assert curve_main(store, since, "week", TODAY, Pipe()) == tty  # --color always: a pipe gets it too
    # A terminal that cannot print blocks: colour, ASCII bars.
    latin = curve_main(store, since, "week", TODAY, Tty("latin-1"))
    assert "\x1b[31m########\x1b[0m" in latin and "█" not in latin
    output.set_colour_choice("auto")


def test_curve_json(store_dir: Path) -> None:
    from self_improve.review.curve_text import curve_json
    from self_improve.store.store import Store

    found = curve_json(Store(store_dir), date(2026, 2, 16), "week", TODAY)
    assert {key: found[key] for key in ("by", "since", "today", "periods", "series", "undated")} == {
        "by": "week", "since": "2026-02-16", "today": "2026-03-01",
        "periods": [{"label": "2026-W08", "start": "2026-02-16", "end": "2026-02-22"},
                    {"label": "2026-W09", "start": "2026-02-23", "end": "2026-03-01"}],
        "series": {"recorded": [1, 1], "repeats": [0, 1], "fixed": [0, 1], "promoted": [0, 0], "retired": [0, 0]},
        "undated": {"recorded": 0, "repeats": 0, "fixed": 0, "promoted": 0, "retired": 0},
    }
