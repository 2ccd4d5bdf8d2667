"""``self-improve completion bash|zsh|fish`` (issue 14, item 22): the script is generated from the
CLI's argparse parser, so it offers exactly the verbs, options and choices of this version."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest

from self_improve.commands.completion import describe, script
from self_improve.main import COMMANDS, build_parser
from tests.e2e.debian import ensure_debian_package
from tests.helpers import run_cli


def small_parser() -> argparse.ArgumentParser:
    """A CLI of one verb with every kind of thing the scripts complete."""
    parser = argparse.ArgumentParser(prog="self-improve")
    parser.add_argument("-V", "--version", action="version", version="x")
    parser.add_argument("--root", metavar="DIR", help="project root")
    verbs = parser.add_subparsers(dest="command")
    log = verbs.add_parser("log", help="record what's [new]")
    log.add_argument("kind", choices=["learning", "error"])
    log.add_argument("--priority", choices=["low", "high"], help="how much it matters")
    log.add_argument("--json", action="store_true", help="print JSON")
    return parser


BASH = (
    '# bash completion for self-improve, generated from its parser by `self-improve completion bash`.\n'
    '# Load it with: source <(self-improve completion bash)\n'
    '_self_improve() {\n'
    '    local cur prev verb i\n'
    '    cur="${COMP_WORDS[COMP_CWORD]}"\n'
    '    prev="${COMP_WORDS[COMP_CWORD-1]}"\n'
    '    verb=""\n'
    '    for ((i = 1; i < COMP_CWORD; i++)); do  # the verb: the first word that is no global option\n'
    '        case "${COMP_WORDS[i]}" in\n'
    '            --root) ((i++)) ;;\n'
    '            -*) ;;\n'
    '            *) verb="${COMP_WORDS[i]}"; break ;;\n'
    '        esac\n'
    '    done\n'
    '    case "$verb" in\n'
    '        "")\n'
    '            case "$prev" in\n'
    '                --root) COMPREPLY=($(compgen -d -- "$cur")); return ;;\n'
    '            esac\n'
    '            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "-h --help -V --version --root" -- "$cur"))\n'
    '            else COMPREPLY=($(compgen -W "log" -- "$cur"))\n'
    '            fi ;;\n'
    '        log)\n'
    '            case "$prev" in\n'
    '                --priority) COMPREPLY=($(compgen -W "low high" -- "$cur")); return ;;\n'
    '            esac\n'
    '            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "-h --help --priority --json" -- "$cur"))\n'
    '            else COMPREPLY=($(compgen -W "learning error" -- "$cur"))\n'
    '            fi ;;\n'
    '    esac\n'
    '}\n'
    'complete -o default -F _self_improve self-improve\n'
)

ZSH = (
    '#compdef self-improve\n'
    '# zsh completion for self-improve, generated from its parser by `self-improve completion zsh`.\n'
    '# Load it with: source <(self-improve completion zsh)   (after compinit), or save it as _self-improve on $fpath\n'
    '_self_improve() {\n'
    '    local curcontext="$curcontext" state line\n'
    '    local -a verbs\n'
    '    verbs=(\n'
    "        'log:record what'\\''s [new]'\n"
    '    )\n'
    '    _arguments -C \\\n'
    "        '-h[show this help message and exit]' \\\n"
    "        '--help[show this help message and exit]' \\\n"
    "        '-V[show program'\\''s version number and exit]' \\\n"
    "        '--version[show program'\\''s version number and exit]' \\\n"
    "        '--root=[project root]: :_files -/' \\\n"
    "        '1: :->verb' \\\n"
    "        '*:: :->args'\n"
    '    case $state in\n'
    "        verb) _describe -t commands 'self-improve command' verbs ;;\n"
    '        args)\n'
    '            case $words[1] in\n'
    "                log) _arguments '-h[show this help message and exit]' '--help[show this help message and exit]' '--priority=[how much it matters]: :(low high)' '--json[print JSON]' '1: :(learning error)' '*: :_files' ;;\n"
    '            esac ;;\n'
    '    esac\n'
    '}\n'
    '# Autoloaded from $fpath: complete now; sourced: register the function.\n'
    'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _self_improve "$@"; else compdef _self_improve self-improve; fi\n'
)

FISH = (
    '# fish completion for self-improve, generated from its parser by `self-improve completion fish`.\n'
    '# Load it with: self-improve completion fish | source\n'
    "function __self_improve_verb --description 'the verb: the first word that is no global option'\n"
    '    set -l words (commandline -opc)\n'
    '    set -e words[1]\n'
    '    while set -q words[1]\n'
    '        switch $words[1]\n'
    '            case --root\n'
    '                set -e words[1]\n'
    "            case '-*'\n"
    "            case '*'\n"
    '                echo $words[1]\n'
    '                return\n'
    '        end\n'
    '        set -e words[1]\n'
    '    end\n'
    'end\n'
    'function __self_improve_using --argument-names verb\n'
    '    set -l seen (__self_improve_verb)\n'
    '    test "$seen" = "$verb"\n'
    'end\n'
    'complete -c self-improve -n \'__self_improve_using ""\' -f\n'
    'complete -c self-improve -n \'__self_improve_using ""\' -s h -l help -d \'show this help message and exit\'\n'
    'complete -c self-improve -n \'__self_improve_using ""\' -s V -l version -d \'show program\\\'s version number and exit\'\n'
    'complete -c self-improve -n \'__self_improve_using ""\' -l root -x -a \'(__fish_complete_directories)\' -d \'project root\'\n'
    'complete -c self-improve -n \'__self_improve_using ""\' -a log -d \'record what\\\'s [new]\'\n'
    "complete -c self-improve -n '__self_improve_using log' -s h -l help -d 'show this help message and exit'\n"
    "complete -c self-improve -n '__self_improve_using log' -l priority -x -a 'low high' -d 'how much it matters'\n"
    "complete -c self-improve -n '__self_improve_using log' -l json -d 'print JSON'\n"
    "complete -c self-improve -n '__self_improve_using log' -f -a 'learning error'\n"
)

@pytest.mark.parametrize(("shell", "expected"), [("bash", BASH), ("zsh", ZSH), ("fish", FISH)])
def test_the_script_of_a_small_parser(shell: str, expected: tuple[str, ...]) -> None:
    assert script(shell, describe(small_parser())) == "".join(expected)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_printed_script_is_the_one_of_the_real_parser(tmp_path: Path, shell: str) -> None:
    result = run_cli("completion", shell, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == script(shell, describe(build_parser(["completion"])))
    described = describe(build_parser(["completion"]))
    assert [verb.name for verb in described.subcommands] == list(COMMANDS)  # every verb, none twice
    assert {"--root", "--color"} <= {s for option in described.subcommands[0].options for s in option.strings}


def test_an_unknown_shell_is_refused(tmp_path: Path) -> None:
    result = run_cli("completion", "tcsh", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "self-improve: error: argument shell: invalid choice: 'tcsh' (choose from 'bash', 'zsh', 'fish') "
        "(see `self-improve completion --help`)\n"
    )


def bash_completions(script_path: Path, *words: str) -> str:
    """What bash offers for the last word, through the generated function, as the shell calls it."""
    program = (
        f"source {script_path}\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()\n'
        '_self_improve; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    return subprocess.run(["bash", "-c", program, "bash", "self-improve", *words], capture_output=True, text=True,
                          check=True, timeout=30).stdout


def test_bash_completes_verbs_options_and_choices(tmp_path: Path) -> None:
    path = tmp_path / "self-improve.bash"
    path.write_text(run_cli("completion", "bash", cwd=tmp_path).stdout)
    assert bash_completions(path, "rev") == "review\n"
    assert bash_completions(path, "--root", "/tmp", "li") == "list\nlint\n"  # the global option's value skipped
    assert bash_completions(path, "--color", "a") == "auto\nalways\n"
    assert bash_completions(path, "log", "--pri") == "--priority\n"
    assert bash_completions(path, "log", "--priority", "h") == "high\n"
    assert bash_completions(path, "log", "e") == "error\n"
    assert bash_completions(path, "config", "s") == "set\n"
    assert bash_completions(path, "config", "set", "--u") == "--user\n"  # config set's own option
    assert bash_completions(path, "completion", "") == "bash\nzsh\nfish\n"


def test_fish_completes_verbs_options_and_choices(tmp_path: Path) -> None:
    ensure_debian_package("fish", "fish")  # installed when missing (as root); a skip only when the archive is unreachable
    path = tmp_path / "self-improve.fish"
    path.write_text(run_cli("completion", "fish", cwd=tmp_path).stdout)

    def complete(line: str) -> str:
        return subprocess.run(["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"], capture_output=True,
                              text=True, check=True, timeout=30).stdout

    assert complete("self-improve rev") == "review\tpropose promotions, archiving and retirements; apply the ones chosen\n"
    assert complete("self-improve --root /tmp comp") == "completion\tprint a shell completion script: bash, zsh or fish\n"
    assert complete("self-improve completion ") == "bash\nfish\nzsh\n"
    assert complete("self-improve log --priority h") == "high\tlow | medium | high | critical\n"


def test_zsh_parses_the_script_and_registers_it(tmp_path: Path) -> None:
    ensure_debian_package("zsh", "zsh")
    path = tmp_path / "_self-improve"
    path.write_text(run_cli("completion", "zsh", cwd=tmp_path).stdout)
    program = f"autoload -U compinit; compinit -u -d {tmp_path}/zcompdump; source {path}; print -- $_comps[self-improve]"
    result = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (0, "_self_improve\n", "")
