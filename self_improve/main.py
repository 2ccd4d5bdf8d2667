"""The ``self-improve`` CLI: argparse wiring only; each verb lives in ``commands/<verb>.py``.

Every command module exposes ``register(subparsers) -> None``, which adds its parser and sets
``func`` to a ``run(args: argparse.Namespace) -> int``.

The conventions of git, gh, uv and ruff: ``-V``, the global options (``--root``, ``--color``)
before or after the verb, "Did you mean …?" for a mistyped verb or option, usage errors that
point to the verb's own ``--help``, and a ``--help`` that groups the verbs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from self_improve import __version__
from self_improve.errors import SelfImproveError
from self_improve.output import COLOUR_CHOICES, error_line, set_colour_choice

# verb -> (module under self_improve.commands, one-line help).
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
    "promote": ("promote", "promote an entry into the rules the agent reads (.claude/rules/self-improve.md, AGENTS.md, …) as a short prevention rule"),
    "retire": ("retire", "remove a promoted rule from its managed block and mark the entry retired"),
    "archive": ("archive", "move entries into .learnings/archive/ (`restore` brings one back)"),
    "restore": ("restore", "move an archived entry back into its learnings file"),
    "scan": ("scan", "learn from past sessions' transcripts, as the hooks would have"),
    "report": ("report", "write the learning curve, top recurring mistakes and rule efficacy as one HTML page"),
    "mark": ("mark", "count that an entry's rule helped (--helpful) or misled (--harmful)"),
    "supersede": ("supersede", "record that one entry replaces another (Superseded-By / Supersedes)"),
    "merge": ("merge", "merge an entry into another that says the same lesson (every occurrence is kept)"),
    "extract-skill": ("extract_skill", "turn an entry into a skill: DIR/NAME/SKILL.md"),
    "stats": ("stats", "entries by kind and status, top Pattern-Keys, nudges, rules"),
    "export": ("export", "print entries as Markdown or JSON, for `self-improve import`"),
    "import": ("import_", "merge entries exported by `self-improve export` into this store"),
    "merge-driver": ("merge_driver", "git merge driver for .learnings/ and managed rule blocks"),
    "config": ("config", "show or change settings in .learnings/config.toml"),
    "hook": ("hook", "run a hook on stdin (what hooks/prompt-submit, hooks/pre-bash and hooks/post-bash do)"),
    "install": ("install", "register the hooks with Claude Code / Codex / OpenClaw (idempotent)"),
    "uninstall": ("uninstall", "remove exactly what install added"),
    "doctor": ("doctor", "check the hooks, the plugin and .learnings/; exit 1 on a problem"),
    "build-plugin": ("build_plugin", "render the Claude Code plugin files from plugin.toml"),
    "sweep": ("sweep", "record failing commands from OpenClaw transcripts (one pass)"),
    "watch": ("watch", "follow OpenClaw transcripts and record failing commands until stopped"),
    "completion": ("completion", "print a shell completion script: bash, zsh or fish"),
}

# The sections of `--help`, in order: what a person runs every day first, what the hooks, git
# and the build run for them last. A verb missing here is still listed, under OTHER_GROUP.
HELP_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("daily", ("log", "list", "show", "keys", "review", "stats", "report")),
    ("entries and rules", (
        "resolve", "set-status", "promote", "retire", "archive", "restore", "mark", "supersede", "merge",
        "extract-skill", "lint",
    )),
    ("sharing", ("export", "import")),
    ("set-up", ("init", "install", "uninstall", "doctor", "config", "completion", "scan", "sweep", "watch")),
    ("internal (run by the hooks, git and the build)", ("hook", "merge-driver", "build-plugin")),
)
OTHER_GROUP = "other"

# Global options that take a value: the verb is the first word that is neither one nor its value.
VALUE_OPTIONS = ("--root", "--color")


def grouped_verbs() -> list[tuple[str, list[str]]]:
    """HELP_GROUPS restricted to the registered verbs, plus any verb no group names."""
    groups = [(title, [verb for verb in verbs if verb in COMMANDS]) for title, verbs in HELP_GROUPS]
    named = {verb for _, verbs in groups for verb in verbs}
    ungrouped = [verb for verb in COMMANDS if verb not in named]
    if ungrouped:
        groups.insert(-1, (OTHER_GROUP, ungrouped))  # before "internal": that one stays last
    return [(title, verbs) for title, verbs in groups if verbs]


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """". Did you mean 'x'?" for the closest candidate, or "" when none is close."""
    import difflib  # only on a usage error: not worth its import on every run

    matches = difflib.get_close_matches(word, list(candidates), n=1)
    return f". Did you mean {matches[0]!r}?" if matches else ""


class ExamplesHelpFormatter(argparse.HelpFormatter):
    """Reflows prose as argparse does, but keeps indented lines (the examples) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in text.split("\n\n"):
            if any(line.startswith(" ") for line in block.splitlines()):
                blocks.append("\n".join(indent + line for line in block.splitlines()))
            else:
                blocks.append(super()._fill_text(block, width, indent))
        return "\n\n".join(blocks)


class OneLineErrorParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr and exit 2, instead of argparse's usage block; the
    line names this parser's own help (`self-improve log --help`, not the top level's)."""

    def error(self, message: str) -> NoReturn:
        error_line(f"{message} (see `{self.prog} --help`)")
        raise SystemExit(2)

    def option_strings(self) -> list[str]:
        # argparse has no public list of a parser's options; _actions is what its own help reads.
        return [option for action in self._actions for option in action.option_strings]


class TopLevelParser(OneLineErrorParser):
    """The ``self-improve`` parser: its help lists the verbs by HELP_GROUPS, not in one block."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.verb_parsers: dict[str, OneLineErrorParser] = {}
        self.verbs_action: argparse.Action | None = None

    def format_help(self) -> str:
        # argparse.ArgumentParser.format_help, with the verbs' block replaced by one section per group.
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        for action_group in self._action_groups:
            actions = [action for action in action_group._group_actions if action is not self.verbs_action]
            if actions:
                formatter.start_section(action_group.title)
                formatter.add_arguments(actions)
                formatter.end_section()
        for title, verbs in grouped_verbs():
            formatter.start_section(title)
            formatter.add_arguments([argparse.Action([], verb, metavar=verb, help=COMMANDS[verb][1]) for verb in verbs])
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def add_global_options(parser: argparse.ArgumentParser, *, after_verb: bool) -> None:
    """``--root`` and ``--color``, accepted before the verb and after it."""
    # After the verb the defaults are SUPPRESS: argparse copies a verb's defaults over the values
    # parsed before it, so `self-improve --root X log …` would otherwise lose X.
    group = parser.add_argument_group("global options") if after_verb else parser
    group.add_argument(
        "--root",
        metavar="DIR",
        default=argparse.SUPPRESS if after_verb else None,
        help="project root (default: nearest ancestor holding .learnings/ or .git)",
    )
    group.add_argument(
        "--color",
        choices=COLOUR_CHOICES,
        metavar="WHEN",
        default=argparse.SUPPRESS if after_verb else "auto",
        help="always, never or auto (the default: colour on a terminal, unless NO_COLOR is set or "
        "TERM=dumb; FORCE_COLOR forces it)",
    )


def scan_global_part(argv: Sequence[str]) -> tuple[list[str], int | None]:
    """The options before the verb (their values skipped), and where the verb is in argv."""
    options: list[str] = []
    skip_next = False
    for position, arg in enumerate(argv):
        if skip_next:
            skip_next = False
        elif arg == "--":
            return options, (position + 1 if position + 1 < len(argv) else None)
        elif arg.startswith("-"):
            options.append(arg)
            skip_next = arg in VALUE_OPTIONS
        else:
            return options, position
    return options, None


def _requested_verb(argv: Sequence[str]) -> str | None:
    """The verb, found without parsing, so that only its module needs importing."""
    position = scan_global_part(argv)[1]
    return None if position is None else argv[position]


class _LazySubParsers:
    """Adapts ``register(subparsers)`` so a verb's module can add its parser into our stub."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._parser = parser

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        if kwargs.get("description"):
            self._parser.description = str(kwargs["description"])
        if kwargs.get("epilog"):
            self._parser.epilog = str(kwargs["epilog"])
        return self._parser


def build_parser(argv: Sequence[str] = ()) -> TopLevelParser:
    parser = TopLevelParser(
        prog="self-improve",
        description="Learn from an agent's own mistakes: record, count, promote, retire.",
        epilog="Run `self-improve COMMAND --help` for a command's options and examples.",
        formatter_class=ExamplesHelpFormatter,
        # No abbreviations of the global options: `--ro X` would hide the verb from scan_global_part.
        allow_abbrev=False,
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    add_global_options(parser, after_verb=False)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineErrorParser)
    subparsers.required = True
    parser.verbs_action = subparsers
    wanted = _requested_verb(argv)
    # The completion script describes every verb, so `completion` needs them all, like `--help`.
    load_all = wanted not in COMMANDS or wanted == "completion"
    for verb, (module_name, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(verb, help=help_text, description=help_text, formatter_class=ExamplesHelpFormatter)
        parser.verb_parsers[verb] = sub
        if verb == wanted or load_all:
            module = importlib.import_module(f"self_improve.commands.{module_name}")
            module.register(_LazySubParsers(sub))
            add_global_options(sub, after_verb=True)
    if wanted == "completion":
        # Handed down, not imported: commands/ sits below main in the layers.
        parser.verb_parsers["completion"].set_defaults(cli_parser=parser)
    return parser


def refuse_bad_global_part(parser: TopLevelParser, argv: Sequence[str]) -> None:
    """Before the verb: an unknown option, or a word that is no verb, with a suggestion each.

    Checked before argparse parses: it would take the value of a mistyped `--rot DIR` for the verb.
    """
    options, verb_at = scan_global_part(argv)
    known = parser.option_strings()
    for option in options:
        name = option.partition("=")[0]
        if name not in known:
            parser.error(f"unknown option {name!r}{did_you_mean(name, known)}")
    if verb_at is not None and argv[verb_at] not in COMMANDS:
        parser.error(f"unknown command {argv[verb_at]!r}{did_you_mean(argv[verb_at], COMMANDS)}")


def refuse_unknown(verb_parser: OneLineErrorParser, unknown: Sequence[str]) -> NoReturn:
    """What the verb's parser did not take: the first unknown option, with a suggestion."""
    options = [arg for arg in unknown if arg.startswith("-")]
    if not options:
        verb_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    option = options[0].partition("=")[0]
    verb_parser.error(f"unknown option {option!r}{did_you_mean(option, verb_parser.option_strings())}")


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments)
    refuse_bad_global_part(parser, arguments)
    args, unknown = parser.parse_known_args(arguments)
    if unknown:
        refuse_unknown(parser.verb_parsers[args.command], unknown)
    set_colour_choice(args.color)
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
