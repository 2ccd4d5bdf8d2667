"""``self-improve log {learning,error,feature} SUMMARY``: the delta operation (merge or append).

A ``learning --category correction`` also confirms the correction the hooks queued in that
session (``store/correction_queue.confirm``, the rule in ``sessions_for_log``).

``--dry-run`` prints the diff of the one file that would change (the new entry appended, with an
ID that is free now, or the entry that takes the occurrence) and writes nothing: no provenance
ledger, no project registry, no correction queue, nothing under ``.learnings/.state/``.
"""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_dry_run_flag, add_json_flag, add_scope_flag, cli_writer, shown_path, store_from, user_command
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import print_json
from self_improve.store.entry import KINDS, LEARNING_CATEGORIES, PRIORITIES
from self_improve.store.store import LogRequest, Store

# The reference skill's areas (skill/references/formats.md); log.extra_areas adds a user's own.
REFERENCE_AREAS = ("frontend", "backend", "infra", "tests", "docs", "config")

TYPE_CHECKING = False
if TYPE_CHECKING:
    from self_improve.store.correction_queue import QueuedCorrection


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "log",
        help="record a learning, error or feature request (merges into a matching entry)",
        description="Record one occurrence. If an active entry of that kind has the same Pattern-Key "
        "(or, failing that, a near-identical summary, or another wording of its lesson it is nearly sure of) it gets one "
        "more occurrence; otherwise a new entry is appended, and the entries it may repeat are named, each with the "
        "`self-improve merge NEW OLD` that merges it.",
        epilog="examples:\n"
        "  self-improve log error \"pytest: No module named yaml\" --pattern-key deps.module-not-found/python:yaml\n"
        "  self-improve log learning \"Use pnpm, not npm, in this repo\" --area config --priority high",
    )
    parser.add_argument("kind", choices=list(KINDS), help="which file: learning, error or feature")
    parser.add_argument("summary", help="one line")
    parser.add_argument("--pattern-key", default="", help="the fingerprint a nudge printed (deps.module-not-found/python:yaml), or a stable area.topic key")
    parser.add_argument("--category", default="", help=f"learning category ({' | '.join(LEARNING_CATEGORIES)}) or the error's command name")
    parser.add_argument("--priority", default="", choices=[*PRIORITIES, ""], metavar="PRIORITY", help=" | ".join(PRIORITIES))
    parser.add_argument("--area", default="", help=f"{' | '.join(REFERENCE_AREAS)}, or one added to log.extra_areas")
    parser.add_argument("--details", default="", help="free text")
    parser.add_argument("--action", default="", help="Suggested Action (Suggested Fix for errors)")
    parser.add_argument("--files", default="", help="related files")
    parser.add_argument("--tags", default="", help="comma-separated tags")
    parser.add_argument("--source", default="", help="conversation | error | user_feedback")
    parser.add_argument("--see-also", default="", help="a related entry ID")
    parser.add_argument("--session", default="", help="harness session id (default: the latest one the hooks saw)")
    add_scope_flag(parser)
    add_json_flag(parser)
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    check_area(args.area, store)
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
    if args.dry_run:
        return dry_run(store, request)
    result = store.log(request)
    confirmed = confirm_correction(args, store) if args.kind == "learning" and args.category == "correction" else None
    if args.json:
        print_json({**result.as_json(), **({"confirmed_correction": confirmed.id} if confirmed else {})})
        return 0
    if result.created:
        print(f"{result.entry_id} created in {shown_path(store, store.root / result.file)}")
        if result.candidates:
            print("It may repeat a lesson already here. If one of these says the same, merge it (every occurrence is kept):")
            for other_id, summary, score in result.candidates:
                print(f"  {user_command(args, store, 'merge', result.entry_id, other_id)}    # {score:.2f} {summary}")
    else:
        print(f"{result.entry_id} merged: seen {result.recurrence_count} times in {result.tasks} task(s)")
    if confirmed is not None:
        print(f"confirmed the correction caught on {confirmed.date} in session {confirmed.session}: no longer queued")
    return 0


def dry_run(store: Store, request: LogRequest) -> int:
    from self_improve.changes import unified_diff
    from self_improve.output import write_text

    store._require()
    result, before, after = store.log_preview(request)
    write_text(unified_diff(before, after, store.relative(store.root / result.file)))
    return 0


def check_area(area: str, store: Store) -> None:
    """Refuse an area outside the reference ones and the config's, before anything is written:
    a typo would otherwise file the lesson where ``targets.workflow_areas`` never sees it."""
    if not area:
        return
    extra = store.setting("log.extra_areas")
    # A hand-written config may hold anything in the list: only words count, each once.
    allowed = list(dict.fromkeys([*REFERENCE_AREAS, *(a.strip() for a in extra if isinstance(a, str) and a.strip())]))
    if area in allowed:
        return
    raise UsageError(
        f"--area takes {', '.join(allowed[:-1])} or {allowed[-1]}, not {area!r} "
        "(add your own with `self-improve config set log.extra_areas AREA,...`)"
    )


def confirm_correction(args: argparse.Namespace, store: Store) -> QueuedCorrection | None:
    """Take the correction the hooks queued in this session out of the project's queue (with
    ``--scope user`` too: the hooks queue in the project). A queue we cannot update costs the
    logged lesson nothing: one line on stderr."""
    import sys

    from self_improve.harnesses.agent_env import agent_session_ids
    from self_improve.store import correction_queue as queue
    from self_improve.store.location import find_root
    from self_improve.store.trust import UntrustedStore

    try:
        project = store if store.scope == "project" else Store(find_root(explicit=getattr(args, "root", None)))
        if not project.exists():
            return None
        project.check_trusted()
        sessions = queue.sessions_for_log(args.session, agent_session_ids(), project.last_session())
        with queue.lock(project.fs):
            return queue.confirm(project.fs, sessions)
    except (OSError, UntrustedStore, SelfImproveError) as exc:
        sys.stderr.write(f"self-improve: note: the correction queue was not updated: {exc}\n")
        return None
