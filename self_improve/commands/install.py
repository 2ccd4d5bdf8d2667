"""``self-improve install``: register our hooks with a harness (Claude Code, Codex, ...).

    self-improve install [--harness claude|codex|openclaw|all|none] [--scope user|project|local]
                         [--project DIR] [--workspace DIR] [--dry-run] [--status]

Every harness plans its file changes first; only when all plans succeed is anything written, so
one refusal (say, an invalid settings.json) leaves every file untouched. ``--dry-run`` prints the
unified diff of each change and writes nothing.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.installer import (
    FileChange,
    Harness,
    Target,
    apply,
    home_dir,
    select,
)

HARNESS_HELP = "claude (default), codex, openclaw, a comma list, all (every harness with an installer) or none"
SCOPES = ("user", "project", "local")


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--harness", default="claude", metavar="NAME", help=HARNESS_HELP)
    parser.add_argument(
        "--scope",
        choices=SCOPES,
        help="user (default), project (shared settings in the repo) or local (this project, this machine; "
        "the default when --project is given)",
    )
    parser.add_argument("--project", metavar="DIR", help="the project for project/local scopes (default: --root or .)")
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        help="the OpenClaw workspace (default: $OPENCLAW_WORKSPACE_DIR, else ~/.openclaw/workspace)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every change and write nothing")
    parser.add_argument(
        "--git",
        action="store_true",
        help="instead of hooks: (un)register the merge driver for .learnings/ and managed blocks in this git repository",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("install", help="register the hooks with Claude Code / Codex (idempotent)")
    add_target_arguments(parser)
    parser.add_argument("--status", action="store_true", help="say what is installed where, change nothing")
    parser.set_defaults(func=run)


PlanFn = Callable[[Harness, Target], list[FileChange]]


def resolve_targets(args: argparse.Namespace, harnesses: list[Harness]) -> list[tuple[Harness, Target]]:
    project_given = args.project is not None
    project = Path(args.project or getattr(args, "root", None) or os.getcwd()).expanduser().absolute()
    if not project.is_dir():
        raise SelfImproveError(f"--project {project} is not a directory")
    home = home_dir()
    use_workspace(getattr(args, "workspace", None), harnesses)
    return [(h, Target(h.scope_for(args.scope, project_given), project, home)) for h in harnesses]


def use_workspace(workspace: str | None, harnesses: list[Harness]) -> None:
    """Hand ``--workspace`` to the harnesses that have one (OpenClaw's ``workspace`` attribute)."""
    if workspace is None:
        return
    takers = [h for h in harnesses if hasattr(h, "workspace")]
    if not takers:
        raise UsageError("--workspace applies to --harness openclaw only")
    path = Path(workspace).expanduser().absolute()
    if not path.is_dir():
        raise SelfImproveError(f"--workspace {path} is not a directory")
    for harness in takers:
        harness.workspace = path  # hasattr above: not part of the Harness protocol


def execute(args: argparse.Namespace, plan: PlanFn, *, notes: bool) -> int:
    """Plan every harness, then print (dry run) or write; shared by install and uninstall."""
    harnesses = select(args.harness)
    if not harnesses:
        print("no harness selected (--harness none): nothing to do")
        return 0
    targets = resolve_targets(args, harnesses)
    plans = [(harness, target, plan(harness, target)) for harness, target in targets]  # may refuse: nothing written yet
    changes = [change for _, _, planned in plans for change in planned]
    if args.dry_run:
        for change in changes:
            print(change.diff() if change.changed else change.summary, end="" if change.changed else "\n")
        print("(dry run: nothing was written)")
        return 0
    lines = [summary_line(change) for change in changes]  # before apply: it decides the backup note
    apply(changes)
    for line in lines:
        print(line)
    if notes:
        for harness, target, _ in plans:
            for note in harness.notes(target):
                print(f"note: {note}")
    return 0


def summary_line(change: FileChange) -> str:
    if change.changed and change.backup is not None and change.before is not None and not change.backup.exists():
        return f"{change.summary} (backup of the original: {change.backup})"
    return change.summary


def run_git(args: argparse.Namespace, *, install: bool) -> int:
    """``--git``: the merge driver in this clone's git config and our lines in .gitattributes."""
    from self_improve.store.git_setup import install_git, uninstall_git
    from self_improve.store.location import find_root

    root = find_root(explicit=args.project or getattr(args, "root", None))
    setup = install_git(root, dry_run=args.dry_run) if install else uninstall_git(root, dry_run=args.dry_run)
    prefix = "would: " if args.dry_run else ""
    for change in setup.changes:
        print(f"{prefix}{change}")
    if not setup.changes:
        print(f"git merge driver: {'already installed' if install else 'not installed'} in {root}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.git:
        return run_git(args, install=True)
    if args.status:
        harnesses = select(args.harness)
        for harness, target in resolve_targets(args, harnesses):
            for line in harness.status(target):
                print(line)
        return 0
    return execute(args, lambda harness, target: harness.plan_install(target), notes=True)
