"""``self-improve list``: one line per entry, or a JSON array.

Every entry the reader sees is listed: reference headers and near-misses (``store/headers.py``).
An entry without an ID (a dated header) shows ``FILE:LINE`` where the ID would be, and
``self-improve show FILE:LINE`` shows it; in JSON its ``id`` is "" and ``form`` says ``dated``.
A heading (a dated header with nothing under it) and a cut-off header are not entries.
Archived entries (in ``.learnings/archive/``) are listed by ``--archived`` or ``--status archived``
only, with the archive file as their ``file``.
Text of a file that is not UTF-8 is decoded for display; the JSON is always valid UTF-8, one
object per entry in the shape ``show`` and ``export`` print (``store/entry_json.py``).

A table row: ID, status, count, first seen, last seen, summary [pattern key]; an unknown day is
``-``. ``--since`` keeps entries last seen on or after a day (the day ``review`` ages an entry
by), ``--pattern-key`` a fingerprint or every fingerprint of a class, ``--grep`` text anywhere in
the summary, details or suggested action, case-insensitive. Filters combine (all must hold).
"""

from __future__ import annotations

import argparse

from self_improve.commands._common import (
    add_json_flag,
    add_scope_flag,
    selected_entries,
    since_day,
    store_from,
)
from self_improve.detect import subjects
from self_improve.errors import UsageError
from self_improve.output import colour, display_text, print_json
from self_improve.store import archive as archive_mod
from self_improve.store.archive_record import last_seen_day
from self_improve.store.entry import KINDS, STATUSES, Entry
from self_improve.store.entry_json import entry_json, last_seen
from self_improve.store.store import Store

STATUS_COLOURS = {"pending": "yellow", "in_progress": "blue", "resolved": "green", "promoted": "bold"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "list", help="list entries",
        epilog="examples:\n"
        "  self-improve list --status pending\n"
        "  self-improve list --since 2026-03-01 --grep pytest",
    )
    parser.add_argument("--kind", choices=list(KINDS))
    parser.add_argument("--status", choices=list(STATUSES))
    parser.add_argument("--archived", action="store_true", help="list the archived entries (as --status archived)")
    parser.add_argument("--since", metavar="YYYY-MM-DD", type=since_day,
                        help="only entries last seen on or after this day")
    parser.add_argument("--pattern-key", metavar="KEY",
                        help="only this fingerprint, or every fingerprint of this class "
                        "(deps.module-not-found matches deps.module-not-found/python:yaml)")
    parser.add_argument("--grep", metavar="TEXT", help="only entries whose summary, details or action holds TEXT (any case)")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def matches(args: argparse.Namespace, entry: Entry) -> bool:
    """``--since``, ``--pattern-key`` and ``--grep``, all of those given."""
    if args.since is not None:
        day = last_seen_day(entry)
        if day is None or day < args.since:  # an entry never dated cannot be shown to be recent
            return False
    if args.pattern_key is not None:
        key = entry.pattern_key
        if args.pattern_key not in (key, subjects.split(key)[0]):
            return False
    if args.grep is not None:
        wanted = args.grep.casefold()
        if not any(wanted in text.casefold() for text in (entry.summary, entry.details, entry.suggested_action)):
            return False
    return True


def label(entry: Entry) -> str:
    """The entry's ID, or where it is for one without (``LEARNINGS.md:12``)."""
    return entry.id or f"{entry.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{entry.line}"


def with_archived(args: argparse.Namespace, store: Store) -> list[Entry]:
    """``selected_entries``, plus the archive's entries when archived ones are asked for."""
    if args.archived:
        if args.status not in (None, "archived"):
            raise UsageError(f"--archived lists archived entries: drop --status {args.status}")
        args.status = "archived"
    entries = selected_entries(args, store)  # with status archived: any left in place by an old set-status
    if args.status == "archived":
        archived = [item.entry for item in archive_mod.archived_entries(store)]
        entries += [e for e in archived if e.is_listed and (args.kind is None or e.kind == args.kind)]
    return entries


def run(args: argparse.Namespace) -> int:
    entries = [e for e in with_archived(args, store_from(args)) if matches(args, e)]
    if args.json:
        print_json([entry_json(e) for e in entries])
        return 0
    for entry in entries:
        status = colour(f"{entry.status:<11}", STATUS_COLOURS.get(entry.status, "dim"))
        key = f" [{entry.pattern_key}]" if entry.pattern_key else ""
        days = f"{entry.first_seen[:10] or '-':<10} {last_seen(entry) or '-':<10}"
        print(display_text(f"{label(entry):<22} {status} x{entry.recurrence_count:<3} {days} {entry.summary}{key}"))
    if not entries:
        print("no entries")
    return 0
