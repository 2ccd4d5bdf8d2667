"""``self-improve export [--kind K] [--json]``: the entries, for another store to ``import``.

Without ``--json``: the raw Markdown of each entry, byte for byte, one after another (a valid
learnings file body). With ``--json``: an array of entries in the one shape ``list`` and ``show`` print
(``store/entry_json.py``); ``text`` is the entry's raw Markdown, the part ``import`` reads, and
``history`` its ``DATE/TASK`` occurrences.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_json_flag, add_scope_flag, selected_entries, store_from
from self_improve.output import print_json
from self_improve.store.entry import KINDS, STATUSES, Entry
from self_improve.store.entry_json import entry_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="print entries as Markdown or JSON, for `self-improve import`",
        epilog="examples:\n"
        "  self-improve export --json > learnings.json\n"
        "  self-improve export --status promoted --scope user",
    )
    parser.add_argument("--kind", choices=list(KINDS))
    parser.add_argument("--status", choices=list(STATUSES), help="only entries with this status")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def export_markdown(entries: list[Entry]) -> str:
    """Entry texts one after another; one missing final newline (a file's last entry) is added."""
    out = []
    for entry in entries:
        text = entry.text
        out.append(text if text.endswith("\n") else text + entry.eol)
    return "".join(out)


def run(args: argparse.Namespace) -> int:
    entries = selected_entries(args, store_from(args))
    if args.json:
        print_json([entry_json(entry) for entry in entries])
        return 0
    # Raw bytes: the entries' own line endings (CRLF stays CRLF), no newline translation.
    sys.stdout.flush()
    sys.stdout.buffer.write(export_markdown(entries).encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
    return 0
