"""``self-improve show ID``: the entry exactly as stored, or its fields as JSON (the one entry
shape of ``list`` and ``export``, ``store/entry_json.py``).

``ID`` may also be ``FILE:LINE`` (``LEARNINGS.md:12``, as ``list`` names an entry without an ID).
Text of a file that is not UTF-8 is decoded for display (``output.display_text``).
An archived entry is found in ``.learnings/archive/``: shown as it is stored there (status
``archived``), without the record line that follows it.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_json_flag, store_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import print_json, write_text
from self_improve.store import archive as archive_mod
from self_improve.store.entry import Entry
from self_improve.store.entry_json import entry_json
from self_improve.store.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show", help="show one entry",
        epilog="examples:\n"
        "  self-improve show LRN-20260301-abc\n"
        "  self-improve show ERR-20260301-xyz --json",
    )
    parser.add_argument("id", help="an entry ID, or FILE:LINE for an entry without one")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def find_entry(store: Store, wanted: str) -> Entry:
    """By ID; else by ``FILE:LINE`` (the file's name, with or without ``.learnings/``)."""
    if not wanted.strip():
        raise UsageError("an entry ID is needed (or FILE:LINE, as `self-improve list` shows an entry without one)")
    file_part, _, line_part = wanted.strip().rpartition(":")
    if file_part and line_part.isdigit() and store.find(wanted) is None:
        name = file_part.replace("\\", "/").rsplit("/", 1)[-1].casefold()
        for entry in store.entries():
            if entry.line == int(line_part) and entry.file.replace("\\", "/").rsplit("/", 1)[-1].casefold() == name:
                return entry
        raise SelfImproveError(f"no entry starts at {wanted} (see `self-improve list`)")
    if store.find(wanted) is None:
        archived = archive_mod.find_archived(store, wanted)
        if archived is not None:
            return archived.entry
    return store.get(wanted)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entry = find_entry(store, args.id)
    if args.json:
        print_json(entry_json(entry))
    else:
        write_text(entry.text if entry.text.endswith("\n") else entry.text + "\n", sys.stdout)
    return 0
