"""The learning curve in a terminal (``self-improve stats --curve``), and the store's side of it.

One row per period, one column per series (``review/curve.py``): a bar scaled to that series'
largest period, then the exact count. Unicode bars (eighth blocks) where ``output.use_colour``
says the stream takes colour and it is UTF-8; plain ASCII (``#``) with ``--color never``,
``NO_COLOR``, ``TERM=dumb``, a pipe, or a stream that cannot print blocks. The legend below the
chart says where each series comes from and what it cannot show (``curve.notes``).
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass
from datetime import date
from typing import TextIO

from self_improve.output import use_colour
from self_improve.review.curve import LABELS, SERIES, Curve, compute, default_since, notes
from self_improve.store import archive as archive_mod
from self_improve.store import counters
from self_improve.store.entry import Entry
from self_improve.store.store import Store

BAR = 8  # characters of the longest bar of a column
COUNT = 4  # characters of a count
EIGHTHS = " ▏▎▍▌▋▊▉█"
# SGR codes, as output.py's: the caller decided on colour (``use_colour``), so they are written as they are.
SERIES_COLOURS = {"recorded": "31", "repeats": "33", "fixed": "32", "promoted": "34", "retired": "2"}
BOLD = "1"
NOTE_WIDTH = 96
HEADERS = {"recorded": "recorded", "repeats": "repeats", "fixed": "fixed in time", "promoted": "promoted", "retired": "retired"}


# ---- from the store ------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoreData:
    entries: list[Entry]
    archived: list[Entry]
    daily: dict[str, dict[str, int]]
    retired_total: int


def load(store: Store) -> StoreData:
    """What the curve is computed from: entries, archived entries, the dated tallies."""
    store._require()
    entries = store.entries()
    items = archive_mod.archived_entries(store)
    archived = [item.entry for item in items]
    # Retired now, or retired when it was archived (the record keeps the status it had).
    retired = sum(1 for entry in entries if entry.status == "retired") + sum(
        1 for item in items if item.record is not None and item.record.status.strip().casefold() == "retired"
    )
    return StoreData(entries, archived, counters.read_daily(store.fs), retired)


def curve_of(data: StoreData, since: date | None, by: str, today: date) -> Curve:
    start = since if since is not None else default_since(today, by)
    return compute(data.entries, data.archived, data.daily, start, today, by, data.retired_total)


# ---- text ----------------------------------------------------------------------------------------


def bar(value: int, largest: int, unicode: bool, width: int = BAR) -> str:
    """``value`` of ``largest`` as ``width`` characters at most; a non-zero value shows at
    least its smallest mark, zero nothing."""
    if value <= 0 or largest <= 0:
        return ""
    if not unicode:
        return "#" * max(1, round(width * value / largest))
    eighths = max(1, round(width * 8 * value / largest))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def _cell(name: str, value: int, largest: int, unicode: bool, coloured: bool) -> str:
    chart = bar(value, largest, unicode)
    padded = f"{chart:<{BAR}}"
    if coloured and chart:
        padded = _paint(chart, SERIES_COLOURS[name]) + " " * (BAR - len(chart))
    return f"{padded} {value:>{COUNT}}"


def _paint(text: str, code: str) -> str:
    return f"\033[{code}m{text}\033[0m"


def render(curve: Curve, unicode: bool, coloured: bool = False) -> str:
    """The chart: a title, a header, one row per period, the totals, the legend."""
    width = max([len(p.label) for p in curve.periods] + [len("total")])
    cell = BAR + 1 + COUNT
    title = f"Learning curve by {curve.by}, {curve.since.isoformat()} to {curve.today.isoformat()}"
    lines = [_paint(title, BOLD) if coloured else title]
    head = f"{curve.by:<{width}}" + "".join(f"  {HEADERS[name]:>{cell}}" for name in SERIES)
    lines.append(head.rstrip())
    largest = {name: max(curve.series[name], default=0) for name in SERIES}
    for index, period in enumerate(curve.periods):
        row = f"{period.label:<{width}}" + "".join(
            f"  {_cell(name, curve.series[name][index], largest[name], unicode, coloured)}" for name in SERIES
        )
        lines.append(row.rstrip())
    totals = f"{'total':<{width}}" + "".join(f"  {curve.total(name):>{cell}}" for name in SERIES)
    lines.append(totals.rstrip())
    lines.append("")
    for note in notes(curve):
        lines += textwrap.wrap(note, NOTE_WIDTH, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def takes_blocks(stream: TextIO) -> bool:
    encoding = (getattr(stream, "encoding", "") or "").lower().replace("-", "").replace("_", "")
    return encoding in ("utf8", "utf8mb4")


def curve_main(store: Store, since: date | None, by: str, today: date, stream: TextIO = sys.stdout) -> str:
    """``stats --curve``'s text for ``stream``: Unicode and colour where output.py allows colour."""
    coloured = use_colour(stream)
    return render(curve_of(load(store), since, by, today), unicode=coloured and takes_blocks(stream), coloured=coloured)


def curve_json(store: Store, since: date | None, by: str, today: date) -> dict[str, object]:
    """``stats --curve --json``: the same numbers, with the legend's notes (``Curve.as_json``)."""
    return curve_of(load(store), since, by, today).as_json()


__all__ = ["LABELS", "StoreData", "bar", "curve_json", "curve_main", "curve_of", "load", "render", "takes_blocks"]
