"""``self-improve set-status ID STATUS``: change one status line (``wont_fix`` needs a reason)."""

from __future__ import annotations

import argparse

from self_improve.commands._common import store_from
from self_improve.errors import UsageError
from self_improve.store.entry import STATUSES, Entry


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "set-status", help="change an entry's status",
        epilog="examples:\n"
        "  self-improve set-status LRN-20260301-abc wont_fix --reason \"the tool is gone\"\n"
        "  self-improve set-status ERR-20260301-xyz in_progress",
    )
    parser.add_argument("id")
    parser.add_argument("status", help=" | ".join(STATUSES))
    parser.add_argument("--reason", default="", help="why (required for wont_fix)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.status not in STATUSES:
        raise UsageError(f"invalid status {args.status!r}: choose {', '.join(STATUSES)}")
    if args.status == "wont_fix" and not args.reason.strip():
        raise UsageError("wont_fix needs --reason")
    if "\n" in args.reason:
        raise UsageError("--reason must be one line")
    store = store_from(args)

    def edit(entry: Entry) -> Entry:
        updated = entry.with_status(args.status)
        if args.reason.strip():
            updated = updated.with_metadata("Status-Reason", args.reason.strip())
        return updated

    entry = store.update(args.id, edit)
    print(f"{entry.id} is now {args.status}")
    return 0
