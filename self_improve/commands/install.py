"""``self-improve install``: register our hooks with a harness (Claude Code, Codex, ...).

    self-improve install [--harness claude|codex|openclaw|all|none] [--scope user|project|local]
                         [--project DIR] [--workspace DIR] [--dry-run] [--status]

Every harness plans its file changes first; only when all plans succeed is anything written, so
one refusal (say, an invalid settings.json) leaves every file untouched. ``--dry-run`` prints the
unified diff of each change and writes nothing.
"""

from __future__ import annotations

import argparse

from self_improve.commands._common import add_target_arguments, execute, resolve_targets, run_git


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("install", help="register the hooks with Claude Code / Codex (idempotent)")
    add_target_arguments(parser)
    parser.add_argument("--status", action="store_true", help="say what is installed where, change nothing")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.git:
        return run_git(args, install=True)
    if args.status:
        from self_improve.harnesses.registry import select

        harnesses = select(args.harness)
        for harness, target in resolve_targets(args, harnesses):
            for line in harness.status(target):
                print(line)
        return 0
    return execute(args, lambda harness, target: harness.plan_install(target), notes=True)
