"""``self-improve lint``: report problems as file:line and reason; exit 1 if any. Never writes.

What it reports is ``review/problems.py``:

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


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("lint", help="report malformed entries, conflict markers and rule drift (never modifies anything)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from self_improve.review.problems import drift_problems, store_problems

    store = store_from(args)
    problems = store_problems(store) + drift_problems(store)
    if args.json:
        print_json([{"file": p.file, "line": p.line, "reason": p.reason} for p in problems])
    else:
        for problem in problems:
            print(problem.render())
        if not problems:
            print("no problems")
    return 1 if problems else 0
