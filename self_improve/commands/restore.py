"""``self-improve restore ID [--dry-run]``: move an archived entry back where it was.

The entry returns to its learnings file at its old place, byte for byte as it was before it was
archived (its old status included). See ``store/archive.py`` for how the place is remembered.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, bump_actions, store_from
from self_improve.review.plan import RestoreStep, apply, simulate
from self_improve.store import archive as archive_mod


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "restore", help="move an archived entry back into its learnings file",
        epilog="examples:\n"
        "  self-improve restore ERR-20260301-xyz --dry-run\n"
        "  self-improve restore ERR-20260301-xyz",
    )
    parser.add_argument("id")
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    steps = [RestoreStep(args.id)]
    simulation = simulate(store, steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    _, move = archive_mod.restore_changes(archive_mod.reader(store), archive_mod.archive_files(store), args.id)
    apply(store, steps)
    bump_actions(store, entries_restored=1)
    print(f"restored {move.entry_id} to .learnings/{move.file} (status {move.status})")
    return 0
