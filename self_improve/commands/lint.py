"""``self-improve lint``: report malformed entries as file:line and reason; exit 1 if any."""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_json_flag, store_from
from self_improve.output import print_json
from self_improve.store.entry import KINDS
from self_improve.store.lint import Problem, lint_file
from self_improve.store.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("lint", help="report malformed entries (never modifies anything)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def collect(store: Store) -> list[Problem]:
    store._require()
    problems: list[Problem] = []
    for kind, (prefix, _) in KINDS.items():
        path = store.file_for(kind)
        if path.exists():
            problems.extend(lint_file(store.parse(kind), store.relative(path), prefix))
    return problems


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
