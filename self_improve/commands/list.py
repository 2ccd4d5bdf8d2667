"""``self-improve list``: one line per entry, or a JSON array.

Every entry the reader sees is listed: reference headers and near-misses (``store/headers.py``).
An entry without an ID (a dated header) shows ``FILE:LINE`` where the ID would be, and
``self-improve show FILE:LINE`` shows it; in JSON its ``id`` is "" and ``form`` says ``dated``.
A heading (a dated header with nothing under it) and a cut-off header are not entries.
Archived entries (in ``.learnings/archive/``) are listed by ``--archived`` or ``--status archived``
only, with the archive file as their ``file``.
Text of a file that is not UTF-8 is decoded for display; the JSON is always valid UTF-8.
"""

from __future__ import annotations

import argparse
from typing import Any

from self_improve.commands._common import (
    add_json_flag,
    add_scope_flag,
    entry_json,
    selected_entries,
    store_from,
)
from self_improve.errors import UsageError
from self_improve.output import colour, display_text, print_json
from self_improve.store import archive as archive_mod
from self_improve.store.entry import KINDS, STATUSES, Entry
from self_improve.store.store import Store

STATUS_COLOURS = {"pending": "yellow", "in_progress": "blue", "resolved": "green", "promoted": "bold"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "list", help="list entries",
        epilog="examples:\n"
        "  self-improve list --status pending\n"
        "  self-improve list --kind error --json",
    )
    parser.add_argument("--kind", choices=list(KINDS))
    parser.add_argument("--status", choices=list(STATUSES))
    parser.add_argument("--archived", action="store_true", help="list the archived entries (as --status archived)")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def listed_json(entry: Entry) -> dict[str, Any]:
    """``entry_json`` plus how its header is written (``reference``, ``bare-id``, ``level-3``, ``dated``)."""
    return {**entry_json(entry), "form": entry.form}


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
    entries = with_archived(args, store_from(args))
    if args.json:
        print_json([listed_json(e) for e in entries])
        return 0
    for entry in entries:
        status = colour(f"{entry.status:<11}", STATUS_COLOURS.get(entry.status, "dim"))
        key = f" [{entry.pattern_key}]" if entry.pattern_key else ""
        print(display_text(f"{label(entry):<22} {status} x{entry.recurrence_count:<3} {entry.summary}{key}"))
    if not entries:
        print("no entries")
    return 0
