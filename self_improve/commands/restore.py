"""``self-improve restore ID... [--dry-run]``: move archived entries back where they were.

Each entry returns to its learnings file at its old place, byte for byte as it was before it was
archived (its old status included). See ``store/archive.py`` for how the place is remembered.
Several IDs (or unique suffixes of them, ``_common.full_id``) are all or nothing: every one is
planned, and every refusal made, before any file is written; then one line per entry.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, add_scope_flag, bump_actions, full_ids, shown_store_file, store_from
from self_improve.review.plan import RestoreStep, apply, simulate
from self_improve.store import archive as archive_mod


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "restore", help="move archived entries back into their learnings files",
        epilog="examples:\n"
        "  self-improve restore ERR-20260301-xyz --dry-run\n"
        "  self-improve restore xyz abc",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="archived entry IDs (or unique suffixes of them)")
    add_scope_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entry_ids = full_ids(store, args.ids)
    # What each one restores, read before any write: each entry's place and status are its own.
    read, files = archive_mod.reader(store), archive_mod.archive_files(store)
    moves = {move.entry_id.upper(): move for move in (archive_mod.restore_changes(read, files, e)[1] for e in entry_ids)}
    steps = [RestoreStep(move.entry_id) for move in moves.values()]
    simulation = simulate(store, steps)  # the moves one after another: every refusal before any write
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    bump_actions(store, entries_restored=len(moves))
    for move in moves.values():
        print(f"restored {move.entry_id} to {shown_store_file(store, move.file)} (status {move.status})")
    return 0
