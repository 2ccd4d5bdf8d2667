"""``self-improve lint``: report problems as file:line and reason; exit 1 if any. Never writes.

- malformed entries in the learnings files;
- git conflict markers left in any ``.learnings/`` Markdown file (the archive too);
- drift between the managed rule blocks and the store (``review/drift.py``): a block edited by
  hand, a bullet whose entry is unknown or not promoted, a promoted entry without its bullet,
  damaged markers. ``self-improve review`` offers to reconcile all but the last.
"""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_json_flag, store_from
from self_improve.output import print_json
from self_improve.store.archive import archive_files
from self_improve.store.entry import KINDS, parse_text
from self_improve.store.lint import Problem, conflict_markers, lint_file
from self_improve.store.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("lint", help="report malformed entries, conflict markers and rule drift (never modifies anything)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def collect_store(store: Store) -> list[Problem]:
    """Problems of the store's own files: malformed entries and conflict markers."""
    store._require()
    problems: list[Problem] = []
    for kind, (prefix, _) in KINDS.items():
        path = store.file_for(kind)
        if path.exists():
            name = store.relative(path)
            text = store._read_text(path)
            problems.extend(lint_file(parse_text(text, file=name), name, prefix))
            problems.extend(conflict_markers(text, name))
    for archive in archive_files(store):
        path = store.dir / archive
        problems.extend(conflict_markers(store._read_text(path), store.relative(path)))
    return problems


def collect_drift(store: Store) -> list[Problem]:
    """Disagreements between the managed rule blocks and the store."""
    from self_improve.review.drift import (
        find_drift,  # the review layer reads the instruction files
    )

    return [drift.problem() for drift in find_drift(store)]


def collect(store: Store) -> list[Problem]:
    return collect_store(store) + collect_drift(store)


def run(args: argparse.Namespace) -> int:
    problems = collect(store_from(args))
    if args.json:
        print_json([{"file": p.file, "line": p.line, "reason": p.reason} for p in problems])
    else:
        for problem in problems:
            print(problem.render())
        if not problems:
            print("no problems")
    return 1 if problems else 0
