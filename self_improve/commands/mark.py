"""``self-improve mark ID... --helpful | --harmful``: count whether rules helped or misled (as in ACE).

Keeps ``- Helpful: n`` and ``- Harmful: n`` in the entry's Metadata. ``review`` proposes retiring
a promoted rule once it has misled more often than it helped. Only a rule can help or mislead:
an entry that is not ``promoted`` (or ``promoted_to_skill``) is refused, naming ``promote``.

Several IDs (or unique suffixes, ``_common.full_id``) are all or nothing: every refusal comes
before any write; then one line per entry (``--json``: one object for one ID, an array for several).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from self_improve.commands._common import add_dry_run_flag, add_json_flag, add_scope_flag, live_entries, scope_suffix, store_from
from self_improve.errors import SelfImproveError
from self_improve.output import print_json
from self_improve.review.drift import RULE_STATUSES
from self_improve.review.plan import EntryEdit, apply, simulate
from self_improve.store.entry import Entry



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mark", help="count that entries' rules helped (--helpful) or misled (--harmful)",
        epilog="examples:\n"
        "  self-improve mark LRN-20260301-abc --helpful\n"
        "  self-improve mark abc xyz --harmful",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="entry IDs (or unique suffixes of them)")
    add_scope_flag(parser)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--helpful", action="store_true", help="the rule helped")
    which.add_argument("--harmful", action="store_true", help="the rule misled or got in the way")
    add_json_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def counter_edit(name: str) -> Callable[[Entry], Entry]:
    def edit(entry: Entry) -> Entry:
        current = entry.meta(name).strip()
        if current and not current.isdigit():
            raise SelfImproveError(f"{entry.id}: {name} is {current!r}, not a whole number: fix it by hand (see `self-improve lint`)")
        updated = entry.with_metadata(name, str(int(current or "0") + 1))
        if name == "Helpful":
            # A rule that prevents its mistake is never "seen" again; its last helpful mark
            # is what tells review it is still in use (see review.policy's stale rule).
            from self_improve.store.store import utcnow

            updated = updated.with_metadata("Last-Helpful", utcnow().strftime("%Y-%m-%d"))
        return updated

    return edit


def markable(entry: Entry) -> Entry:
    """The entry, or a one-line refusal: no rule to count for."""
    if entry.status not in RULE_STATUSES:
        status = entry.status or "no status"
        raise SelfImproveError(f"{entry.id} has no rule to mark (it is {status}): run `self-improve promote {entry.id}` first")
    return entry


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entry_ids = [markable(entry).id for entry in live_entries(store, args.ids)]
    steps = [EntryEdit(entry_id, counter_edit("Helpful" if args.helpful else "Harmful")) for entry_id in entry_ids]
    simulation = simulate(store, steps)  # a counter that is not a number is refused here
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    entries = [store.get(entry_id) for entry_id in entry_ids]
    if args.json:
        shapes = [{"id": e.id, "helpful": e.helpful, "harmful": e.harmful, "status": e.status} for e in entries]
        print_json(shapes[0] if len(args.ids) == 1 else shapes)
        return 0
    for entry in entries:
        print(f"{entry.id}: helpful {entry.helpful}, harmful {entry.harmful}")
        if entry.status == "promoted" and entry.harmful > entry.helpful:
            print(f"it misled more often than it helped: `self-improve review` proposes retiring it (`self-improve retire {entry.id}{scope_suffix(store)}`)")
    return 0
