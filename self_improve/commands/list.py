"""``self-improve list``: one line per entry, or a JSON array."""

from __future__ import annotations

import argparse

from self_improve.commands._common import (
    add_json_flag,
    add_scope_flag,
    entry_json,
    selected_entries,
    store_from,
)
from self_improve.output import colour, print_json
from self_improve.store.entry import KINDS, STATUSES

STATUS_COLOURS = {"pending": "yellow", "in_progress": "blue", "resolved": "green", "promoted": "bold"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("list", help="list entries")
    parser.add_argument("--kind", choices=list(KINDS))
    parser.add_argument("--status", choices=list(STATUSES))
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    entries = selected_entries(args, store_from(args))
    if args.json:
        print_json([entry_json(e) for e in entries])
        return 0
    for entry in entries:
        status = colour(f"{entry.status:<11}", STATUS_COLOURS.get(entry.status, "dim"))
        key = f" [{entry.pattern_key}]" if entry.pattern_key else ""
        print(f"{entry.id:<22} {status} x{entry.recurrence_count:<3} {entry.summary}{key}")
    if not entries:
        print("no entries")
    return 0
