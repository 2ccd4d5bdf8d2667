"""``self-improve init [--dry-run]``: create ``.learnings/`` and only the files that are missing.

``--dry-run`` prints the diff of every file it would create (from ``/dev/null``) and writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys

from self_improve.commands._common import add_dry_run_flag, store_from
from self_improve.store.store import GITIGNORE, HEADERS, Store
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
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def in_home(store: Store) -> bool:
    return store.scope == "project" and os.path.abspath(store.root) == os.path.abspath(os.path.expanduser("~"))


def planned_files(store: Store) -> list[tuple[str, str]]:
    """(name in the store, content) of every file ``init`` would create now, in its order."""
    from self_improve.store.entry import KINDS

    if store.dir.is_dir() or store.dir.is_symlink():
        store.check_trusted()  # a link where the store should be is refused, as init refuses it
    wanted = [(store.file_for(kind).name, HEADERS[kind]) for kind in KINDS] + [(".gitignore", GITIGNORE)]
    if in_home(store):
        wanted.append((HOME_OPT_IN, HOME_OPT_IN_TEXT))
    return [(name, text) for name, text in wanted if not os.path.lexists(store.dir / name)]  # init's O_EXCL: any name taken stays


def dry_run(store: Store) -> int:
    from self_improve.changes import unified_diff

    planned = planned_files(store)
    if not planned:
        print(f"{store.relative(store.dir)}/ already initialised in {store.root}")
        return 0
    for name, text in planned:
        sys.stdout.write(unified_diff(None, text, store.relative(store.dir / name)))
    return 0


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    if args.dry_run:
        return dry_run(store)
    created = store.init()
    if in_home(store):
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
