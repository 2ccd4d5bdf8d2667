"""``self-improve archive ID... [--dry-run]``: move entries into ``.learnings/archive/<year>.md``.

The same move ``review`` makes (one ``ArchiveStep``, ``store/archive.py``): the entry goes
verbatim but for its status line, and the record line after it keeps the status it had, so
``self-improve restore ID`` gives that status back. A promoted entry is refused: its rule is
still in an instruction file, and ``retire`` is what takes it out. An ID may be a unique suffix
of one (``_common.full_id``).
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, add_scope_flag, bump_actions, live_entries, scope_suffix, shown_store_file, store_from, today_from
from self_improve.errors import SelfImproveError
from self_improve.review.drift import RULE_STATUSES
from self_improve.review.plan import ArchiveStep, apply, simulate
from self_improve.store import archive as archive_mod
from self_improve.store.entry import Entry


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "archive", help="move entries into .learnings/archive/ (`restore` brings one back)",
        epilog="examples:\n"
        "  self-improve archive ERR-20260301-xyz --dry-run\n"
        "  self-improve archive ERR-20260301-xyz LRN-20260301-abc",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="entry IDs (or unique suffixes of them)")
    add_scope_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def archivable(entry: Entry) -> Entry:
    """The entry, or a one-line refusal: a live rule."""
    if entry.status in RULE_STATUSES:
        raise SelfImproveError(f"{entry.id} is {entry.status}: its rule is still in use; run `self-improve retire {entry.id}` first")
    return entry


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entries = [archivable(entry) for entry in live_entries(store, args.ids)]  # the same ID twice: once
    ids = [entry.id for entry in entries]
    today = today_from(args)
    steps = [ArchiveStep(tuple(ids), today)]
    simulation = simulate(store, steps)  # every refusal (an unclosed fence...) before any write
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    bump_actions(store, entries_archived=len(ids))
    statuses = {entry.id: entry.status or "pending" for entry in entries}
    years = {entry.id: archive_mod.archive_year(entry, today) for entry in entries}
    for entry_id in ids:
        where = shown_store_file(store, archive_mod.archive_name(years[entry_id]))
        print(f"archived {entry_id} to {where} (`self-improve restore {entry_id}{scope_suffix(store)}` gives back status {statuses[entry_id]})")
    return 0
