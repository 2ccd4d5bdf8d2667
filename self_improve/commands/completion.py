"""``self-improve completion bash|zsh|fish``: a shell completion script, generated from the CLI's
own argparse parser each time it is printed, so it offers exactly the verbs, options and choices
of the installed version and never drifts from them.

The script is static (no call back into Python on each Tab): completing must not cost a Python
start-up. Re-run the command after an upgrade, or load it from the shell's start-up file.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

SHELLS = ("bash", "zsh", "fish")
PROG = "self-improve"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "completion",
        help="print a shell completion script: bash, zsh or fish",
        epilog="examples:\n"
        "  self-improve completion bash > ~/.local/share/bash-completion/completions/self-improve\n"
        "  self-improve completion fish > ~/.config/fish/completions/self-improve.fish",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # main hands the whole parser down (commands/ may not import main).
    print(script(args.shell, describe(args.cli_parser)), end="")
    return 0


# ---- the parser, as the completion scripts need it -------------------------------------------------


@dataclass(frozen=True)
class Option:
    strings: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...]
    value_kind: str  # "dir", "file" or "" (free text): from the metavar, e.g. --root DIR


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    options: tuple[Option, ...]
    words: tuple[str, ...]  # what its positionals accept: choices, or the verbs under it
    subcommands: tuple[Command, ...] = ()

    def value_options(self) -> list[Option]:
        return [option for option in self.options if option.takes_value]


def describe(parser: argparse.ArgumentParser, name: str = PROG, help_text: str = "") -> Command:
    """The parser's options, positional choices and sub-commands, one level of verbs deep.

    argparse has no public introspection; ``_actions`` and ``_SubParsersAction`` are what its own
    help formatter reads, and what shtab and argcomplete read too.
    """
    options: list[Option] = []
    words: list[str] = []
    subcommands: list[Command] = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for verb, sub in action.choices.items():
                if name == PROG:
                    subcommands.append(describe(sub, verb, summaries.get(verb, "")))
                else:  # config list|get|set: its words, and their options as the verb's own
                    words.append(verb)
                    known = {option.strings for option in options}
                    options += [option for option in describe(sub, verb).options if option.strings not in known]
        elif action.option_strings:
            metavar = str(action.metavar or "")
            kind = "dir" if "DIR" in metavar else "file" if "FILE" in metavar else ""
            options.append(Option(tuple(action.option_strings), _one_line(action.help), action.nargs != 0,
                                  tuple(str(c) for c in action.choices or ()), kind))
        elif action.choices:
            words += [str(choice) for choice in action.choices]
    return Command(name, help_text, tuple(options), tuple(words), tuple(subcommands))


def _one_line(text: str | None) -> str:
    return " ".join((text or "").replace("%%", "%").split())


def script(shell: str, command: Command) -> str:
    return {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}[shell](command)


# ---- bash ------------------------------------------------------------------------------------------


def bash_script(top: Command) -> str:
    skip = "|".join(o for option in top.value_options() for o in option.strings)
    lines = [
        f"# bash completion for {PROG}, generated from its parser by `{PROG} completion bash`.",
        f"# Load it with: source <({PROG} completion bash)",
        "_self_improve() {",
        "    local cur prev verb i",
        '    cur="${COMP_WORDS[COMP_CWORD]}"',
        '    prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    verb=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do  # the verb: the first word that is no global option",
        '        case "${COMP_WORDS[i]}" in',
        *([f"            {skip}) ((i++)) ;;"] if skip else []),
        "            -*) ;;",
        '            *) verb="${COMP_WORDS[i]}"; break ;;',
        "        esac",
        "    done",
        '    case "$verb" in',
        *_bash_case('""', top, words=tuple(sub.name for sub in top.subcommands)),
        *(line for sub in top.subcommands for line in _bash_case(sub.name, sub, sub.words)),
        "    esac",
        "}",
        f"complete -o default -F _self_improve {PROG}",
    ]
    return "\n".join(lines) + "\n"


def _bash_case(pattern: str, command: Command, words: tuple[str, ...]) -> Iterator[str]:
    yield f"        {pattern})"
    if command.value_options():
        yield '            case "$prev" in'
        for option in command.value_options():
            yield f"                {'|'.join(option.strings)}) {_bash_value(option)}; return ;;"
        yield "            esac"
    options = " ".join(o for option in command.options for o in option.strings)
    yield f'            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "{options}" -- "$cur"))'
    if words:
        yield f'            else COMPREPLY=($(compgen -W "{" ".join(words)}" -- "$cur"))'
    yield "            fi ;;"


def _bash_value(option: Option) -> str:
    if option.choices:
        return f'COMPREPLY=($(compgen -W "{" ".join(option.choices)}" -- "$cur"))'
    if option.value_kind == "dir":
        return 'COMPREPLY=($(compgen -d -- "$cur"))'
    return "COMPREPLY=()"  # a file or free text: -o default offers file names


# ---- zsh -------------------------------------------------------------------------------------------


def zsh_script(top: Command) -> str:
    lines = [
        f"#compdef {PROG}",
        f"# zsh completion for {PROG}, generated from its parser by `{PROG} completion zsh`.",
        f"# Load it with: source <({PROG} completion zsh)   (after compinit), or save it as _{PROG} on $fpath",
        "_self_improve() {",
        '    local curcontext="$curcontext" state line',
        "    local -a verbs",
        "    verbs=(",
        *(f"        {_zsh_quote(sub.name + ':' + sub.help)}" for sub in top.subcommands),
        "    )",
        "    _arguments -C \\",
        *(f"        {spec} \\" for spec in _zsh_option_specs(top)),
        "        '1: :->verb' \\",
        "        '*:: :->args'",
        "    case $state in",
        "        verb) _describe -t commands 'self-improve command' verbs ;;",
        "        args)",
        "            case $words[1] in",
    ]
    for sub in top.subcommands:
        specs = [*_zsh_option_specs(sub), _zsh_quote(f"1: :({' '.join(sub.words)})") if sub.words else "", "'*: :_files'"]
        lines.append(f"                {sub.name}) _arguments {' '.join(spec for spec in specs if spec)} ;;")
    lines += [
        "            esac ;;",
        "    esac",
        "}",
        "# Autoloaded from $fpath: complete now; sourced: register the function.",
        'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _self_improve "$@"; else compdef _self_improve self-improve; fi',
    ]
    return "\n".join(lines) + "\n"


def _zsh_option_specs(command: Command) -> Iterator[str]:
    for option in command.options:
        description = option.help.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
        for string in option.strings:
            if not option.takes_value:
                yield _zsh_quote(f"{string}[{description}]")
                continue
            if option.choices:
                action = f"({' '.join(option.choices)})"
            else:
                action = {"dir": "_files -/", "file": "_files"}.get(option.value_kind, " ")
            equals = "=" if string.startswith("--") else ""
            yield _zsh_quote(f"{string}{equals}[{description}]: :{action}")


def _zsh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# ---- fish ------------------------------------------------------------------------------------------


def fish_script(top: Command) -> str:
    skip = " ".join(o for option in top.value_options() for o in option.strings)
    lines = [
        f"# fish completion for {PROG}, generated from its parser by `{PROG} completion fish`.",
        f"# Load it with: {PROG} completion fish | source",
        "function __self_improve_verb --description 'the verb: the first word that is no global option'",
        "    set -l words (commandline -opc)",
        "    set -e words[1]",
        "    while set -q words[1]",
        "        switch $words[1]",
        *([f"            case {skip}", "                set -e words[1]"] if skip else []),
        "            case '-*'",
        "            case '*'",
        "                echo $words[1]",
        "                return",
        "        end",
        "        set -e words[1]",
        "    end",
        "end",
        "function __self_improve_using --argument-names verb",
        "    set -l seen (__self_improve_verb)",
        '    test "$seen" = "$verb"',
        "end",
        f"complete -c {PROG} -n '__self_improve_using \"\"' -f",
        *_fish_options("", top),
        *(f"complete -c {PROG} -n '__self_improve_using \"\"' -a {sub.name} -d {_fish_quote(sub.help)}" for sub in top.subcommands),
    ]
    for sub in top.subcommands:
        lines += _fish_options(sub.name, sub)
        if sub.words:
            lines.append(f"complete -c {PROG} -n '__self_improve_using {sub.name}' -f -a {_fish_quote(' '.join(sub.words))}")
    return "\n".join(lines) + "\n"


def _fish_options(verb: str, command: Command) -> Iterator[str]:
    condition = f"'__self_improve_using {verb or chr(34) * 2}'"
    for option in command.options:
        names = " ".join(f"-l {s[2:]}" if s.startswith("--") else f"-s {s[1:]}" for s in option.strings)
        value = ""
        if option.takes_value:
            if option.choices:
                value = f" -x -a {_fish_quote(' '.join(option.choices))}"
            elif option.value_kind == "dir":
                value = " -x -a '(__fish_complete_directories)'"
            else:
                value = " -r"
        yield f"complete -c {PROG} -n {condition} {names}{value} -d {_fish_quote(option.help)}"


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
