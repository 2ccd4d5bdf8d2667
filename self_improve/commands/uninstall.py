"""``self-improve uninstall``: remove exactly our hooks; leave every other byte of the file alone.

    self-improve uninstall [--harness claude|codex|openclaw|all|none] [--scope user|project|local]
                           [--project DIR] [--workspace DIR] [--dry-run]

A settings file that self-improve created and that holds nothing else is deleted; one that existed
before gets its original bytes back (and the now-redundant ``.self-improve.bak`` goes away).
"""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_target_arguments, execute, run_git


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "uninstall", help="remove our hooks from Claude Code / Codex settings",
        epilog="examples:\n"
        "  self-improve uninstall --dry-run\n"
        "  self-improve uninstall --harness all",
    )
    add_target_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.git:
        return run_git(args, install=False)
    return execute(args, lambda harness, target: harness.plan_uninstall(target), notes=False)
