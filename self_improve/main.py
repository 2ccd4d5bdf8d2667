"""The ``self-improve`` CLI: argparse wiring only; each verb lives in ``commands/<verb>.py``.

Every command module exposes ``register(subparsers) -> None``, which adds its parser and sets
``func`` to a ``run(args: argparse.Namespace) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from self_improve import __version__
from self_improve.errors import SelfImproveError
from self_improve.output import error_line

# Order is the order of `self-improve --help`.
COMMAND_MODULES: tuple[str, ...] = (
    "init",
    "log",
    "list",
    "show",
    "resolve",
    "set_status",
    "lint",
    "config",
    "hook",
)


class OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit 2, instead of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        error_line(f"{message} (see `{self.prog} --help`)")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="self-improve",
        description="Learn from an agent's own mistakes: record, count, promote, retire.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--root",
        metavar="DIR",
        help="project root (default: nearest ancestor holding .learnings/ or .git)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"self_improve.commands.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SelfImproveError as exc:
        error_line(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # Read-only dirs, full disks and the like: one line, never a traceback.
        error_line(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc))
        return 1


if __name__ == "__main__":
    sys.exit(main())
