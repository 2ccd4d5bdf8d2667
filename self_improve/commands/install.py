"""``self-improve install``: register our hooks with a harness (Claude Code, Codex, ...).

    self-improve install [--harness claude|codex|openclaw|all|none] [--scope user|project|local]
                         [--project DIR] [--workspace DIR] [--dry-run] [--status [--json]]

Every harness plans its file changes first; only when all plans succeed is anything written, so
one refusal (say, an invalid settings.json) leaves every file untouched. ``--dry-run`` prints the
unified diff of each change and writes nothing.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from self_improve.commands._common import add_target_arguments, execute, resolve_targets, run_git
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import print_json

if TYPE_CHECKING:
    from self_improve.harnesses.base import Installer as Harness
    from self_improve.harnesses.installer import Target


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "install", help="register the hooks with Claude Code / Codex (idempotent)",
        epilog="examples:\n"
        "  self-improve install --harness claude,codex\n"
        "  self-improve install --status --json",
    )
    add_target_arguments(parser)
    parser.add_argument("--status", action="store_true", help="say what is installed where, change nothing")
    parser.add_argument("--json", action="store_true", help="with --status: print it as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json and not args.status:
        raise UsageError("--json goes with --status (see `self-improve install --help`)")
    if args.git:
        return run_git(args, install=True)
    if args.status:
        from self_improve.harnesses.registry import select

        targets = resolve_targets(args, select(args.harness))
        if args.json:
            print_json([status_json(harness, target) for harness, target in targets])
            return 0
        for harness, target in targets:
            for line in harness.status(target):
                print(line)
        return 0
    code = execute(args, lambda harness, target: harness.plan_install(target), notes=True)
    if not args.dry_run:
        for line in scan_offers(args.harness):
            print(line)
    return code


def scan_offers(names: str) -> list[str]:
    """``Found 412 past sessions of Claude Code; run `self-improve scan` to learn from them.``:
    one line per chosen harness that kept transcripts before the hooks were there."""
    from self_improve.harnesses.claude import history as claude_history
    from self_improve.harnesses.codex import history as codex_history
    from self_improve.harnesses.registry import select
    from self_improve.output import plural

    chosen = {harness.name for harness in select(names)}
    lines = []
    for name, label, history in (("claude", "Claude Code", claude_history), ("codex", "Codex", codex_history)):
        if name not in chosen:
            continue
        try:
            count = history.session_count(history.history_dir())
        except OSError:
            continue
        if count:
            lines.append(f"Found {plural(count, 'past session')} of {label}; run `self-improve scan` to learn from them.")
    return lines


def status_json(harness: Harness, target: Target) -> dict[str, Any]:
    """One harness's status for scripts: up to date means `install` would write nothing and the
    status names no problem (a ✗ line: say, OpenClaw's workspace does not exist yet)."""
    try:
        would_change = [str(change.path) for change in harness.plan_install(target) if change.changed]
        refusal = None
    except SelfImproveError as exc:  # install would refuse, and say why: so does the status
        would_change, refusal = [], str(exc)
    lines = harness.status(target)
    return {
        "harness": harness.name,
        "scope": target.scope,
        "up_to_date": not would_change and refusal is None and not any(line.startswith("✗") for line in lines),
        "would_change": would_change,
        "refusal": refusal,
        "status": lines,
    }
