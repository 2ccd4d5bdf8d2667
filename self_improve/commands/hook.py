"""``self-improve hook prompt-submit|post-bash``: the same hooks the shell scripts run."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("hook", help="run a hook on stdin (what hooks/prompt-submit and hooks/post-bash do)")
    parser.add_argument("name", choices=["prompt-submit", "post-bash"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from self_improve.hooks import run as hooks

    return hooks.run(args.name)
