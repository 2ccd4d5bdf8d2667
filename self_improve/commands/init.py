"""``self-improve init``: create ``.learnings/`` and only the files that are missing."""

from __future__ import annotations

import argparse
import os

from self_improve.commands._common import store_from
from self_improve.store.trust import HOME_OPT_IN

HOME_OPT_IN_TEXT = (
    "# self-improve: `init` ran in your home folder, so the hooks record in every folder under it\n"
    "# that has no .learnings/ or .git of its own. Delete this file to stop that.\n"
)


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
    if store.scope == "project" and os.path.abspath(store.root) == os.path.abspath(os.path.expanduser("~")):
        # The user asked for ~ itself: the hooks take the home's store only with this mark
        # (store/trust.py HOME_OPT_IN), so a ~/.learnings/ made any other way stays inert.
        if store._guarded(store.fs.create, HOME_OPT_IN, HOME_OPT_IN_TEXT.encode("utf-8")):
            created.append(store.dir / HOME_OPT_IN)
    if not created:
        print(f"{store.relative(store.dir)}/ already initialised in {store.root}")
        return 0
    for path in created:
        print(f"created {store.relative(path)}{'/' if path.is_dir() else ''}")
    return 0
