"""``self-improve resolve ID``: status resolved, plus the reference skill's Resolution block."""

from __future__ import annotations

import argparse

from self_improve.commands._common import store_from
from self_improve.store.entry import Entry
from self_improve.store.store import iso, utcnow


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "resolve", help="mark an entry resolved, with a Resolution block",
        epilog="examples:\n"
        "  self-improve resolve ERR-20260301-xyz --note \"pinned pyyaml in requirements.txt\" --commit 1a2b3c4",
    )
    parser.add_argument("id")
    parser.add_argument("--note", default="", help="what fixed it")
    parser.add_argument("--commit", default="", help="commit or PR reference")
    parser.set_defaults(func=run)


def resolution_lines(note: str, commit: str, when: str) -> list[str]:
    return [
        f"- **Resolved**: {when}",
        f"- **Commit/PR**: {commit or 'n/a'}",
        f"- **Notes**: {' '.join(note.split()) or 'n/a'}",
    ]


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    when = iso(utcnow())

    def edit(entry: Entry) -> Entry:
        return entry.with_status("resolved").with_section("Resolution", resolution_lines(args.note, args.commit, when))

    entry = store.update(args.id, edit)
    print(f"{entry.id} resolved")
    return 0
