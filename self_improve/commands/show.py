"""``self-improve show ID...``: the entries exactly as stored, one after another, or their fields
as JSON (the one entry shape of ``list`` and ``export``, ``store/entry_json.py``): one object for
one ID, an array of them for several.

An ``ID`` may be a unique suffix of one (``show r1w``, ``_common.full_id``), or ``FILE:LINE`` (``LEARNINGS.md:12``, as ``list`` names an entry without an ID).
Text of a file that is not UTF-8 is decoded for display (``output.display_text``).
An archived entry is found in ``.learnings/archive/``: shown as it is stored there (status
``archived``), without the record line that follows it.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_json_flag, add_scope_flag, full_id, store_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import print_json, write_text
from self_improve.store import archive as archive_mod
from self_improve.store.entry import Entry
from self_improve.store.entry_json import entry_json
from self_improve.store.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show", help="show entries",
        epilog="examples:\n"
        "  self-improve show LRN-20260301-abc\n"
        "  self-improve show abc xyz --json",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="an entry ID (or a unique suffix of one, 3 characters at least), "
                        "or FILE:LINE for an entry without one")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def find_entry(store: Store, wanted: str) -> Entry:
    """By ID (or a unique suffix of one); else by ``FILE:LINE`` (the file's name, with or
    without ``.learnings/``)."""
    if not wanted.strip():
        raise UsageError("an entry ID is needed (or FILE:LINE, as `self-improve list` shows an entry without one)")
    file_part, _, line_part = wanted.strip().rpartition(":")
    if file_part and line_part.isdigit() and store.find(wanted) is None:
        name = file_part.replace("\\", "/").rsplit("/", 1)[-1].casefold()
        for entry in store.entries():
            if entry.line == int(line_part) and entry.file.replace("\\", "/").rsplit("/", 1)[-1].casefold() == name:
                return entry
        raise SelfImproveError(f"no entry starts at {wanted} (see `self-improve list`)")
    wanted = full_id(store, wanted)
    if store.find(wanted) is None:
        archived = archive_mod.find_archived(store, wanted)
        if archived is not None:
            return archived.entry
    return store.get(wanted)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entries = [find_entry(store, wanted) for wanted in args.ids]  # every ID is found before anything is printed
    if args.json:
        shapes = [entry_json(entry) for entry in entries]
        print_json(shapes[0] if len(args.ids) == 1 else shapes)
        return 0
    for entry in entries:
        write_text(entry.text if entry.text.endswith("\n") else entry.text + "\n", sys.stdout)
    return 0
