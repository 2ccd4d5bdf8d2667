"""``self-improve watch``: follow OpenClaw's transcripts and record failing commands as they happen.

One pass at start, then one per (debounced) change of an agent database; SIGINT/SIGTERM stop
it cleanly (exit 0) once the pass in progress has saved its offsets.
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from self_improve.commands._common import add_transcript_arguments, transcript_paths
from self_improve.errors import SelfImproveError

if TYPE_CHECKING:
    from self_improve.harnesses.openclaw.watch import SweepReport


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="follow OpenClaw transcripts and record failing commands (runs until stopped)",
        description="Follow OpenClaw's transcript databases and record each failing command "
        "whose cwd is inside a project with .learnings/. Stop with Ctrl-C or SIGTERM.",
        epilog="examples:\n"
        "  self-improve watch\n"
        "  self-improve watch --debounce 2 --quiet",
    )
    add_transcript_arguments(parser)
    parser.add_argument(
        "--debounce",
        metavar="SECONDS",
        type=float,
        default=0.5,
        help="wait this long after a change before reading (default: 0.5)",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from self_improve.harnesses.openclaw.watch import Offsets, OffsetsError, WatchOptions, watch

    state, offsets_path = transcript_paths(args)
    stop = threading.Event()
    say = _printer(args.quiet)
    say(f"self-improve: watching {state / 'agents'} (stop with Ctrl-C)")
    try:
        with _stop_on_signals(stop):
            watch(
                state,
                offsets=Offsets(offsets_path),
                stop=stop,
                on_recorded=_ProjectsSeen(),
                on_pass=lambda report: _report_pass(report, say),
                options=WatchOptions(debounce_s=args.debounce),
            )
    except OffsetsError as exc:
        raise SelfImproveError(str(exc)) from exc
    say("self-improve: watch stopped")
    return 0


def on_recorded(projects: frozenset[Path]) -> None:
    """Called after each pass that recorded something, with the projects it touched: show their
    summed pending-triage count in the workspace AGENTS.md block (no block: nothing happens)."""
    from self_improve.harnesses.openclaw.block import refresh_for_projects

    refresh_for_projects(projects)


@dataclass
class _ProjectsSeen:
    """Every project the watcher recorded into so far: a pass that touched only project B must not
    drop project A's pending errors from the count."""

    projects: set[Path] = field(default_factory=set)

    def __call__(self, projects: frozenset[Path]) -> None:
        self.projects |= projects
        on_recorded(frozenset(self.projects))


def _report_pass(report: SweepReport, say: Callable[[str], None]) -> None:
    if report.errors_recorded:
        where = ", ".join(report.projects)
        say(f"self-improve: recorded {report.errors_recorded} error(s) in {where}")
    for note in report.notes:
        say(f"self-improve: {note}")
    for warning in report.warnings:
        say(f"self-improve: warning: {warning}")


def _printer(quiet: bool) -> Callable[[str], None]:
    def say(line: str) -> None:
        if not quiet:
            # Flushed per line: the watcher usually runs under a service manager or a pipe.
            print(line, flush=True)

    return say


@contextmanager
def _stop_on_signals(stop: threading.Event) -> Iterator[None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)

