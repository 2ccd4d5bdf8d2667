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

# verb -> (module under self_improve.commands, one-line help). Order is the order of `--help`.
# Only the verb being run is imported: every other module would cost start-up time for nothing.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init", "create .learnings/ in the project (never modifies existing files)"),
    "log": ("log", "record a learning, error or feature request (merges into a matching entry)"),
    "list": ("list", "list entries"),
    "show": ("show", "show one entry"),
    "keys": ("keys", "list the Pattern-Keys in use (reuse one before minting a new area.topic)"),
    "resolve": ("resolve", "mark an entry resolved, with a Resolution block"),
    "set-status": ("set_status", "change an entry's status"),
    "lint": ("lint", "report malformed entries (never modifies anything)"),
    "review": ("review", "propose promotions, archiving and retirements; apply the ones chosen"),
    "promote": ("promote", "promote an entry into CLAUDE.md / AGENTS.md as a short prevention rule"),
    "retire": ("retire", "remove a promoted rule from its managed block and mark the entry retired"),
    "restore": ("restore", "move an archived entry back into its learnings file"),
    "mark": ("mark", "count that an entry's rule helped (--helpful) or misled (--harmful)"),
    "supersede": ("supersede", "record that one entry replaces another (Superseded-By / Supersedes)"),
    "merge": ("merge", "merge an entry into another that says the same lesson (every occurrence is kept)"),
    "extract-skill": ("extract_skill", "turn an entry into a skill: DIR/NAME/SKILL.md"),
    "stats": ("stats", "entries by kind and status, top Pattern-Keys, nudges, rules"),
    "export": ("export", "print entries as Markdown or JSON, for `self-improve import`"),
    "import": ("import_", "merge entries exported by `self-improve export` into this store"),
    "merge-driver": ("merge_driver", "git merge driver for .learnings/ and managed rule blocks"),
    "config": ("config", "show or change settings in .learnings/config.toml"),
    "hook": ("hook", "run a hook on stdin (what hooks/prompt-submit and hooks/post-bash do)"),
    "install": ("install", "register the hooks with Claude Code / Codex / OpenClaw (idempotent)"),
    "uninstall": ("uninstall", "remove exactly what install added"),
    "doctor": ("doctor", "check the hooks, the plugin and .learnings/; exit 1 on a problem"),
    "build-plugin": ("build_plugin", "render the Claude Code plugin files from plugin.toml"),
    "sweep": ("sweep", "record failing commands from OpenClaw transcripts (one pass)"),
    "watch": ("watch", "follow OpenClaw transcripts and record failing commands until stopped"),
}


class OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit 2, instead of argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        error_line(f"{message} (see `{self.prog} --help`)")
        raise SystemExit(2)


def _requested_verb(argv: Sequence[str]) -> str | None:
    """The verb in argv, skipping the global options, so only its module needs importing."""
    skip_next = False
    for arg in argv:
        if skip_next:
            skip_next = False
        elif arg == "--root":
            skip_next = True
        elif not arg.startswith("-"):
            return arg
    return None


class _LazySubParsers:
    """Adapts ``register(subparsers)`` so a verb's module can add its parser into our stub."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._parser = parser

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        if kwargs.get("description"):
            self._parser.description = str(kwargs["description"])
        return self._parser


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
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
    wanted = _requested_verb(argv)
    for verb, (module_name, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(verb, help=help_text, description=help_text)
        if verb == wanted or wanted not in COMMANDS:
            module = importlib.import_module(f"self_improve.commands.{module_name}")
            module.register(_LazySubParsers(sub))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments)
    args = parser.parse_args(arguments)
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
