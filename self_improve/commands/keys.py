"""``self-improve keys [--kind K] [--grep TEXT] [--json]``: the Pattern-Keys the store already has.

Reuse before mint: before the agent invents an ``area.topic`` for a lesson, it looks here for the
key the same lesson already has, so the lesson counts as a recurrence instead of starting over.

One row per key and kind (``log`` merges within one kind's file): the key as its newest entry
spells it, how many entries carry it, their occurrences added up, and the newest entry's summary.
Keys are one key in all their spellings (``detect/pattern_keys.py``: NFKC and case folding), and
sorted by fingerprint class then subject, so ``deps.module-not-found/python:yaml`` and
``deps.module-not-found/node:esbuild`` sit together. Entries in ``.learnings/archive/`` are not
listed.

What this prints reaches the model's context, and a store is data from strangers: a key is shown
only when it is one ``log`` would write (a malformed one is counted, not shown), and a summary
goes through the hooks' sanitiser (``detect/sanitise.py``: one line, no ``<`` or ``>``, at most
120 characters).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from self_improve.commands._common import add_json_flag, add_scope_flag, store_from
from self_improve.detect import sanitise
from self_improve.detect.pattern_keys import folded, is_valid_key
from self_improve.detect.subjects import split
from self_improve.output import print_json
from self_improve.store.entry import KINDS, Entry

SUMMARY_CHARS = 120
HELP = "list the Pattern-Keys in use (reuse one before minting a new area.topic)"


@dataclass(frozen=True)
class KeyRow:
    pattern_key: str  # as the newest entry spells it
    kind: str
    entries: int
    occurrences: int
    newest: Entry

    @property
    def key_class(self) -> str:
        return split(self.pattern_key)[0]

    @property
    def subject(self) -> str:
        return split(self.pattern_key)[1]

    @property
    def summary(self) -> str:
        return sanitise.inline(self.newest.summary, SUMMARY_CHARS)

    def as_json(self) -> dict[str, Any]:
        return {
            "pattern_key": self.pattern_key,
            "class": self.key_class,
            "subject": self.subject,
            "kind": self.kind,
            "entries": self.entries,
            "occurrences": self.occurrences,
            "last_seen": self.newest.last_seen,
            "newest_id": self.newest.id,
            "summary": self.summary,
        }


def _newness(item: tuple[int, Entry]) -> tuple[str, str, int]:
    position, entry = item
    return (entry.last_seen or entry.first_seen, entry.first_seen, position)


def key_rows(entries: Iterable[Entry], grep: str = "") -> tuple[list[KeyRow], int]:
    """The rows (sorted by class, subject and kind), and how many entries (of those ``grep``
    selects) have a Pattern-Key that is not shown because ``log`` would refuse it. ``grep``: only
    keys whose spelling, or the summary of one of their entries, contains it (NFKC, case folded)."""
    wanted = folded(grep) if grep.strip() else ""

    def selected(entry: Entry) -> bool:
        return not wanted or wanted in folded(entry.pattern_key) or wanted in folded(entry.summary)

    groups: dict[tuple[str, str], list[tuple[int, Entry]]] = {}
    malformed = 0
    for position, entry in enumerate(entries):
        key = entry.pattern_key
        if not key:
            continue
        if not is_valid_key(key):
            malformed += selected(entry)
            continue
        groups.setdefault((entry.kind, folded(key)), []).append((position, entry))
    rows = []
    for (kind, _), found in groups.items():
        if not any(selected(entry) for _, entry in found):
            continue
        newest = max(found, key=_newness)[1]
        rows.append(KeyRow(newest.pattern_key, kind, len(found), sum(entry.recurrence_count for _, entry in found), newest))
    order = {kind: n for n, kind in enumerate(KINDS)}
    rows.sort(key=lambda row: (folded(row.key_class), folded(row.subject), order.get(row.kind, len(order))))
    return rows, malformed


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide and full-width characters take two."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, columns: int) -> str:
    return text + " " * max(0, columns - width(text))


def render(rows: Sequence[KeyRow], malformed: int, filtered: bool = False) -> str:
    """One line per key, in aligned columns: key, kind, entries, occurrences, newest summary."""
    table = [
        (row.pattern_key, row.kind, f"{row.entries} {'entry' if row.entries == 1 else 'entries'}", f"x{row.occurrences}", row.summary)
        for row in rows
    ]
    widths = [max((width(cells[n]) for cells in table), default=0) for n in range(4)]
    lines = ["  ".join([*(_pad(cell, columns) for cell, columns in zip(cells[:4], widths, strict=True)), cells[4]]).rstrip()
             for cells in table]
    if not rows:
        lines.append("no Pattern-Key matches" if filtered else "no Pattern-Keys yet" if not malformed else "no Pattern-Key to show")
    if malformed:
        lines.append(f"({malformed} {'entry has' if malformed == 1 else 'entries have'} a malformed Pattern-Key, not shown)")
    return "\n".join(lines) + "\n"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "keys", help=HELP,
        description="The Pattern-Keys of the store, one per key and kind: entries, occurrences, the newest summary. "
        "Check them before minting a new key for a lesson: the same key makes it count as a recurrence.",
        epilog="examples:\n"
        "  self-improve keys\n"
        "  self-improve keys --grep pnpm --kind error",
    )
    parser.add_argument("--kind", choices=list(KINDS))
    parser.add_argument("--grep", default="", metavar="TEXT", help="only keys whose name or entry summaries contain TEXT (case-insensitive)")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    rows, malformed = key_rows(store.entries(args.kind), args.grep)
    if args.json:
        print_json({"keys": [row.as_json() for row in rows], "malformed": malformed})
    else:
        sys.stdout.write(render(rows, malformed, filtered=bool(args.kind or args.grep.strip())))
    return 0
