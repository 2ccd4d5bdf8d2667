"""``self-improve init``: create ``.learnings/`` and only the files that are missing."""

from __future__ import annotations

import argparse

from self_improve.commands._common import store_from


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init", help="create .learnings/ in the project (never modifies existing files)",
        epilog="examples:\n"
        "  self-improve init\n"
        "  self-improve --root ~/src/app init",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    created = store.init()
    if not created:
        print(f"{store.relative(store.dir)}/ already initialised in {store.root}")
        return 0
    for path in created:
        print(f"created {store.relative(path)}{'/' if path.is_dir() else ''}")
    return 0
