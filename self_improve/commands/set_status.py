"""``self-improve set-status ID... STATUS [--dry-run]``: change status lines (``wont_fix`` needs a reason).

The last positional is the status, every one before it an ID (or a unique suffix of one,
``_common.full_id``): ``set-status ID STATUS`` as before, ``set-status ID ID STATUS`` for two.
All or nothing: every ID is checked against the rules below before any file is written.

A status is refused when it would say something the files do not (each refusal names the verb
that does the real thing, and writes nothing):

- ``archived``: archiving moves the entry into ``.learnings/archive/``: ``self-improve archive``;
- ``promoted`` with no rule for the entry in any instruction file: ``self-improve promote``;
  accepted when a rule is there (the status catches up with the file);
- ``promoted_to_skill``: only ``self-improve extract-skill`` writes the skill;
- any other status while the entry's rule is still in an instruction file: ``self-improve retire``;
- an archived entry: ``self-improve restore`` first.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, add_scope_flag, live_entries, store_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.review.drift import RULE_STATUSES, rule_files_by_id
from self_improve.review.plan import EntryEdit, apply, simulate
from self_improve.store.entry import STATUSES, Entry
from self_improve.store.store import Store



def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "set-status", help="change entries' status (the last argument is the status)",
        description="Set STATUS on every entry named: the last positional argument is the status, the ones before it IDs.",
        epilog="examples:\n"
        "  self-improve set-status LRN-20260301-abc wont_fix --reason \"the tool is gone\"\n"
        "  self-improve set-status xyz abc in_progress --dry-run",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="entry IDs (or unique suffixes of them)")
    parser.add_argument("status", metavar="STATUS", help=" | ".join(STATUSES))
    parser.add_argument("--reason", default="", help="why (required for wont_fix)")
    add_scope_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def rule_files(store: Store, entry_id: str) -> list[str]:
    """The instruction files whose rules blocks hold a bullet for ``entry_id``."""
    return rule_files_by_id(store).get(entry_id.upper(), [])


def check_substance(store: Store, entry: Entry, status: str) -> None:
    """Refuse a status the files would contradict (see the module docstring)."""
    if status == "archived":
        raise SelfImproveError(f"archiving moves the entry into .learnings/archive/: run `self-improve archive {entry.id}`")
    if status == "promoted_to_skill" and entry.status != status:
        raise SelfImproveError(f"{entry.id} has no skill: run `self-improve extract-skill {entry.id}`")
    if status == "promoted" and not rule_files(store, entry.id):
        raise SelfImproveError(f"{entry.id} has no rule in any instruction file: run `self-improve promote {entry.id}`")
    if status not in RULE_STATUSES and entry.status in RULE_STATUSES:
        files = rule_files(store, entry.id)
        if files:
            raise SelfImproveError(f"{entry.id}'s rule is in {', '.join(files)}: run `self-improve retire {entry.id}` to take it out")


def run(args: argparse.Namespace) -> int:
    if args.status not in STATUSES:
        raise UsageError(f"invalid status {args.status!r}: choose {', '.join(STATUSES)}")
    if args.status == "wont_fix" and not args.reason.strip():
        raise UsageError("wont_fix needs --reason")
    if "\n" in args.reason:
        raise UsageError("--reason must be one line")
    store = store_from(args)
    store._require()
    entries = live_entries(store, args.ids)
    for entry in entries:
        check_substance(store, entry, args.status)

    def edit(current: Entry) -> Entry:
        updated = current.with_status(args.status)
        if args.reason.strip():
            updated = updated.with_metadata("Status-Reason", args.reason.strip())
        return updated

    steps = [EntryEdit(entry.id, edit) for entry in entries]
    simulation = simulate(store, steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    for entry in entries:
        print(f"{entry.id} is now {args.status}")
    return 0
