"""``self-improve supersede OLD --by NEW``: NEW replaces OLD.

Records ``- Superseded-By: NEW`` on OLD and adds OLD to ``- Supersedes:`` on NEW. A superseded
entry is no longer proposed for promotion, and if its rule was promoted ``review`` proposes
retiring it. OLD and NEW may be unique suffixes of their IDs (``_common.full_id``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from self_improve.commands._common import add_dry_run_flag, add_scope_flag, full_id, store_from
from self_improve.errors import UsageError
from self_improve.review.plan import EntryEdit, apply, simulate
from self_improve.store.entry import Entry


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "supersede", help="record that one entry replaces another (Superseded-By / Supersedes)",
        epilog="examples:\n"
        "  self-improve supersede LRN-20260301-old --by LRN-20260302-new\n"
        "  self-improve supersede LRN-20260301-old --by LRN-20260302-new --dry-run",
    )
    parser.add_argument("old", metavar="OLD")
    parser.add_argument("--by", required=True, metavar="NEW", help="the entry that replaces OLD")
    add_scope_flag(parser)  # `review --scope user` proposes supersedes in the user store too
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def _add_supersedes(old_id: str) -> Callable[[Entry], Entry]:
    def edit(entry: Entry) -> Entry:
        current = [item.strip() for item in entry.meta("Supersedes").split(",") if item.strip()]
        if old_id.upper() in (item.upper() for item in current):
            return entry
        return entry.with_metadata("Supersedes", ", ".join([*current, old_id]))

    return edit


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    old = store.get(full_id(store, args.old))  # each may be a unique suffix (one ID each, never several)
    new = store.get(full_id(store, args.by))
    if old.id.upper() == new.id.upper():
        raise UsageError("an entry cannot supersede itself")
    if new.meta("Superseded-By").strip().upper() == old.id.upper():
        raise UsageError(f"{new.id} is itself superseded by {old.id}: that would be a cycle")
    new_id = new.id
    steps = [
        EntryEdit(old.id, lambda e: e.with_metadata("Superseded-By", new_id)),
        EntryEdit(new.id, _add_supersedes(old.id)),
    ]
    simulation = simulate(store, steps)  # every refusal above and here comes before the diff
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    print(f"{old.id} superseded by {new.id}")
    if old.status == "promoted":
        print(f"its rule is still in {old.promoted or 'its instruction file'}: `self-improve review` proposes retiring it (`self-improve retire {old.id}`)")
    return 0

