"""``self-improve hook prompt-submit|pre-bash|post-bash|session-ready``: the same hooks the shell scripts run."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hook", help="run a hook on stdin (what the scripts in hooks/ do: prompt-submit, pre-bash, post-bash, session-ready)",
        epilog="examples:\n"
        "  self-improve hook post-bash < payload.json",
    )
    parser.add_argument("name", choices=["prompt-submit", "pre-bash", "post-bash", "session-ready"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from self_improve.hooks import run as hooks

    return hooks.run(args.name)
