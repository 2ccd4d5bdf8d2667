"""``self-improve show ID``: the entry exactly as stored, or its fields as JSON."""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import add_json_flag, entry_json, store_from
from self_improve.output import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("show", help="show one entry")
    parser.add_argument("id")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    store._require()
    entry = store.get(args.id)
    if args.json:
        data = entry_json(entry)
        data.update(details=entry.details, suggested_action=entry.suggested_action, text=entry.text)
        print_json(data)
    else:
        sys.stdout.write(entry.text if entry.text.endswith("\n") else entry.text + "\n")
    return 0
