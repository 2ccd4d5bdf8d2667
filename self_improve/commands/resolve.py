"""``self-improve resolve ID... [--dry-run]``: status resolved, plus the reference skill's Resolution block.

Several IDs are all or nothing: every one is found (an ID may be a unique suffix, ``_common.full_id``)
and every refusal made before any file is written; then one line per entry.

Run again, it keeps the history: the new Resolved / Commit/PR / Notes lines are appended to the
Resolution section, after a blank line, and the earlier ones stay as they were.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_dry_run_flag, add_scope_flag, live_entries, store_from
from self_improve.review.plan import EntryEdit, apply, simulate
from self_improve.store.entry import Entry
from self_improve.store.store import iso, utcnow


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "resolve", help="mark entries resolved, with a Resolution block",
        epilog="examples:\n"
        "  self-improve resolve ERR-20260301-xyz --note \"pinned pyyaml in requirements.txt\" --commit 1a2b3c4\n"
        "  self-improve resolve xyz abc --note \"it came back: pinned pip too\" --dry-run",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="entry IDs (or unique suffixes of them)")
    add_scope_flag(parser)
    parser.add_argument("--note", default="", help="what fixed it")
    parser.add_argument("--commit", default="", help="commit or PR reference")
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def resolution_lines(note: str, commit: str, when: str) -> list[str]:
    return [
        f"- **Resolved**: {when}",
        f"- **Commit/PR**: {commit or 'n/a'}",
        f"- **Notes**: {' '.join(note.split()) or 'n/a'}",
    ]


def with_resolution(entry: Entry, lines: list[str]) -> Entry:
    """The Resolution section with ``lines`` added: a new section, or appended to the one there
    (every earlier line kept byte for byte, so a second resolve never erases the first)."""
    section = entry.section("Resolution")
    if section is None:
        return entry.with_section("Resolution", lines)
    kept = list(entry.lines)
    eol = entry.eol
    if section.end == len(kept) and kept and not kept[-1].endswith(("\n", "\r")):
        kept[-1] += eol  # the entry ended the file without a final newline, right here
    kept[section.end : section.end] = [line + eol for line in ["", *lines]]
    return Entry(tuple(kept), file=entry.file, line=entry.line)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entry_ids = [entry.id for entry in live_entries(store, args.ids)]
    lines = resolution_lines(args.note, args.commit, iso(utcnow()))

    def edit(entry: Entry) -> Entry:
        return with_resolution(entry.with_status("resolved"), lines)

    steps = [EntryEdit(entry_id, edit) for entry_id in entry_ids]
    simulation = simulate(store, steps)  # every refusal before any write
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    apply(store, steps)
    for entry_id in entry_ids:
        print(f"{entry_id} resolved")
    return 0
