"""``self-improve log {learning,error,feature} SUMMARY``: the delta operation (merge or append)."""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_json_flag, add_scope_flag, cli_writer, store_from
from self_improve.output import print_json
from self_improve.store.entry import KINDS, LEARNING_CATEGORIES, PRIORITIES
from self_improve.store.store import LogRequest


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "log",
        help="record a learning, error or feature request (merges into a matching entry)",
        description="Record one occurrence. If an active entry of that kind has the same Pattern-Key "
        "(or, failing that, a near-identical summary) it gets one more occurrence; otherwise a new entry is appended.",
    )
    parser.add_argument("kind", choices=list(KINDS), help="which file: learning, error or feature")
    parser.add_argument("summary", help="one line")
    parser.add_argument("--pattern-key", default="", help="the fingerprint a nudge printed (deps.module-not-found/python:yaml), or a stable area.topic key")
    parser.add_argument("--category", default="", help=f"learning category ({' | '.join(LEARNING_CATEGORIES)}) or the error's command name")
    parser.add_argument("--priority", default="", choices=[*PRIORITIES, ""], metavar="PRIORITY", help=" | ".join(PRIORITIES))
    parser.add_argument("--area", default="", help="frontend | backend | infra | tests | docs | config")
    parser.add_argument("--details", default="", help="free text")
    parser.add_argument("--action", default="", help="Suggested Action (Suggested Fix for errors)")
    parser.add_argument("--files", default="", help="related files")
    parser.add_argument("--tags", default="", help="comma-separated tags")
    parser.add_argument("--source", default="", help="conversation | error | user_feedback")
    parser.add_argument("--see-also", default="", help="a related entry ID")
    parser.add_argument("--session", default="", help="harness session id (default: the latest one the hooks saw)")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    request = LogRequest(
        kind=args.kind,
        summary=args.summary,
        pattern_key=args.pattern_key,
        category=args.category,
        priority=args.priority,
        area=args.area,
        details=args.details,
        action=args.action,
        files=args.files,
        tags=args.tags,
        source=args.source,
        see_also=args.see_also,
        session=args.session,
        logged_by=cli_writer(),
    )
    result = store.log(request)
    if args.json:
        print_json(result.as_json())
    elif result.created:
        print(f"{result.entry_id} created in {result.file}")
    else:
        print(f"{result.entry_id} merged: seen {result.recurrence_count} times in {result.tasks} task(s)")
    return 0
