"""``self-improve merge NEW OLD``: one lesson logged twice in other words becomes one entry.

OLD keeps the lesson and takes every occurrence, count, date and fix of NEW; NEW keeps its text
and is marked ``Superseded-By: OLD`` (``store/combine.py``). ``log`` prints this command when a
new entry may repeat an existing one, and ``review`` proposes it for groups of likely duplicates.
NEW and OLD may be unique suffixes of their IDs (``_common.full_id``).
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, add_json_flag, add_scope_flag, full_id, store_from
from self_improve.output import print_json
from self_improve.store.combine import merge_entries, plan_merge


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge",
        help="merge an entry into another that says the same lesson (every occurrence is kept)",
        description="Merge NEW into OLD: OLD takes NEW's occurrences, counts, First/Last-Seen and fixes; "
        "NEW keeps its text and is marked Superseded-By OLD. Both must be of one kind.",
        epilog="examples:\n"
        "  self-improve merge LRN-20260302-new LRN-20260301-old",
    )
    parser.add_argument("new", metavar="NEW", help="the entry to merge away (it is kept, superseded)")
    parser.add_argument("old", metavar="OLD", help="the entry that keeps the lesson")
    add_scope_flag(parser)
    add_json_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    new, old = full_id(store, args.new), full_id(store, args.old)  # unique suffixes too
    if args.dry_run:
        from self_improve.changes import unified_diff

        name, before, after, _ = plan_merge(store, new, old)
        sys.stdout.write(unified_diff(before, after, store.relative(store.dir / name)))
        return 0
    outcome = merge_entries(store, new, old)
    kept, absorbed = outcome.kept, outcome.absorbed
    if args.json:
        print_json(
            {"id": kept.id, "merged": absorbed.id, "recurrence_count": outcome.recurrence_count, "tasks": outcome.tasks, "file": kept.file}
        )
        return 0
    print(f"{absorbed.id} merged into {kept.id}: seen {outcome.recurrence_count} times in {outcome.tasks} task(s)")
    print(f"{absorbed.id} is kept as it was, marked Superseded-By: {kept.id}")
    if absorbed.status == "promoted":
        print(f"its rule is still in {absorbed.promoted or 'its instruction file'}: `self-improve review` proposes retiring it")
    return 0
