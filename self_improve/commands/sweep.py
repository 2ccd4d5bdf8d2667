"""``self-improve sweep``: one pass over OpenClaw's transcripts, recording failing commands.

Reads every agent database under the OpenClaw state dir from where the last pass stopped,
records each failing ``exec`` whose cwd is inside a project with ``.learnings/``, and prints
what it did.  Safe to run while ``self-improve watch`` runs: they share the offsets (locked).
"""

from __future__ import annotations

import argparse
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from self_improve.commands._common import add_transcript_arguments, transcript_paths
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import print_json

if TYPE_CHECKING:
    from self_improve.harnesses.openclaw.sweep import SweepReport

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sweep",
        help="record failing commands from OpenClaw transcripts (one pass)",
        description="One pass over OpenClaw's transcripts: record each new failing command "
        "whose cwd is inside a project with .learnings/.",
        epilog="examples:\n"
        "  self-improve sweep\n"
        "  self-improve sweep --since 2h --json",
    )
    add_transcript_arguments(parser)
    parser.add_argument(
        "--since",
        metavar="DURATION|ISO",
        help="ignore rows older than this (e.g. 2h, 7d, 2026-11-01); they are marked as read",
    )
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.set_defaults(func=run)


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``"7d"`` -> now minus 7 days; ``"2026-11-01"`` / ISO datetime -> that moment (local if naive)."""
    match = _DURATION.match(text)
    if match:
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
        return (now or datetime.now().astimezone()) - timedelta(seconds=seconds)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since: expected a duration like 2h or 7d, or an ISO date; got {text!r}") from None
    return moment if moment.tzinfo else moment.astimezone()


def run(args: argparse.Namespace) -> int:
    from self_improve.harnesses import openclaw as openclaw
    from self_improve.harnesses.openclaw.block import refresh_for_projects
    from self_improve.harnesses.openclaw.sweep import sweep
    from self_improve.harnesses.openclaw.transcripts import Offsets, OffsetsError, zstd_backend

    since = parse_since(args.since) if args.since else None
    state, offsets_path = transcript_paths(args)
    try:
        report = sweep(
            openclaw.transcript_databases(state),
            offsets=Offsets(offsets_path),
            since=since,
            on_recorded=refresh_for_projects,  # the "Pending triage" line of the workspace block
        )
    except OffsetsError as exc:
        raise SelfImproveError(str(exc)) from exc
    if args.json:
        print_json({"state_dir": str(state), "zstd_decoder": zstd_backend(), **report.as_dict()})
    else:
        print(summary_line(report, state))
        for note in report.notes:  # e.g. the reminder block added once OpenClaw seeded AGENTS.md
            print(note)
        for warning in report.warnings:
            print(f"warning: {warning}")
    return 0


def summary_line(report: SweepReport, state: Path) -> str:
    if report.databases == 0:
        return f"no OpenClaw transcripts under {state}"
    parts = [
        f"{report.rows_read} rows read",
        f"{report.tool_results} tool results",
        f"{report.errors_recorded} errors recorded",
        f"{len(report.projects)} projects touched",
        f"{report.zstd_skipped} zstd rows skipped",
    ]
    if report.busy:
        parts.append(f"{report.busy} busy databases skipped (retried next pass)")
    return "openclaw: " + ", ".join(parts)
