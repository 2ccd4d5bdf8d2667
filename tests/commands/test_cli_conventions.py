"""The conventions of git, gh, uv and ruff (issue 14, items 16-21 and 27): -V, "Did you mean",
usage errors that name the verb's help, global options after the verb, a grouped --help with
examples, --color with NO_COLOR / FORCE_COLOR / TERM=dumb, and `install --status --json`."""

from __future__ import annotations

import io
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from self_improve import __version__, output
from self_improve.main import COMMANDS, HELP_GROUPS, build_parser
from tests.helpers import run_cli, tree_hash

WIDE = {"COLUMNS": "100"}  # argparse wraps help to the terminal's width: fix it

NOW = "2026-12-01T12:00:00+00:00"  # a fixed clock for the tests that print dates


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    return tmp_path


def refused(result_args: tuple[str, ...], cwd: Path, stderr: str) -> None:
    """The call exits 2 with exactly this one line, prints nothing else and writes nothing."""
    before = tree_hash(cwd)
    result = run_cli(*result_args, cwd=cwd)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", stderr)
    assert tree_hash(cwd) == before


# ---- 16: -V --------------------------------------------------------------------------------------


def test_dash_v_and_version_print_the_version(tmp_path: Path) -> None:
    for flag in ("-V", "--version"):
        result = run_cli(flag, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (0, f"self-improve {__version__}\n", "")


# ---- 17: Did you mean ----------------------------------------------------------------------------


def test_a_mistyped_verb_gets_the_closest_verb(project: Path) -> None:
    refused(("reveiw",), project, "self-improve: error: unknown command 'reveiw'. Did you mean 'review'? (see `self-improve --help`)\n")
    refused(("--root", str(project), "lsit"), project,
            "self-improve: error: unknown command 'lsit'. Did you mean 'list'? (see `self-improve --help`)\n")
    refused(("frobnicate",), project, "self-improve: error: unknown command 'frobnicate' (see `self-improve --help`)\n")


def test_a_mistyped_option_gets_the_closest_option_of_that_verb(project: Path) -> None:
    refused(("list", "--stauts", "pending"), project,
            "self-improve: error: unknown option '--stauts'. Did you mean '--status'? (see `self-improve list --help`)\n")
    refused(("log", "error", "x", "--pattern-kye=a.b"), project,
            "self-improve: error: unknown option '--pattern-kye'. Did you mean '--pattern-key'? (see `self-improve log --help`)\n")
    refused(("list", "--frobnicate"), project, "self-improve: error: unknown option '--frobnicate' (see `self-improve list --help`)\n")


# ---- 18: usage errors point to the verb's help ---------------------------------------------------


def test_usage_errors_name_the_help_of_the_parser_that_refused(project: Path) -> None:
    refused(("merge", "LRN-20260301-abc", "LRN-20260301-xyz", "extra"), project,
            "self-improve: error: unrecognized arguments: extra (see `self-improve merge --help`)\n")
    refused(("log", "bogus", "x"), project,
            "self-improve: error: argument kind: invalid choice: 'bogus' (choose from 'learning', 'error', 'feature') "
            "(see `self-improve log --help`)\n")
    refused(("config", "set", "log.max_occurrences"), project,
            "self-improve: error: the following arguments are required: value (see `self-improve config set --help`)\n")
    # Before the verb, an option is the top level's: so is the help to read.
    refused(("--rot", str(project), "list"), project,
            "self-improve: error: unknown option '--rot'. Did you mean '--root'? (see `self-improve --help`)\n")


# ---- 19: --root after the verb -------------------------------------------------------------------


def test_root_and_color_are_accepted_after_the_verb(project: Path, tmp_path_factory: pytest.TempPathFactory,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELF_IMPROVE_NOW", NOW)  # the dates the listing shows
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    logged = run_cli("log", "learning", "Use pnpm, not npm", "--root", str(project), "--json", cwd=elsewhere)
    assert logged.returncode == 0, logged.stderr
    entry_id = json.loads(logged.stdout)["id"]
    before = run_cli("--root", str(project), "list", cwd=elsewhere)
    after = run_cli("list", "--root", str(project), "--color", "never", cwd=elsewhere)
    assert before.stdout == after.stdout == f"{entry_id:<22} pending     x1   2026-12-01 2026-12-01 Use pnpm, not npm\n"
    assert list(elsewhere.iterdir()) == []
    # Given on both sides, the one after the verb wins, as a verb's own option would.
    both = run_cli("--root", str(elsewhere), "list", "--root", str(project), cwd=elsewhere)
    assert both.stdout == before.stdout


# ---- 20: --help groups the verbs; every verb has examples ----------------------------------------


def help_sections(text: str) -> list[tuple[str, list[str]]]:
    """The sections of a help text and the first word of each of their entries."""
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if re.fullmatch(r"\S.*:", line):
            sections.append((line[:-1], []))
        elif sections and re.match(r"  \S", line):
            sections[-1][1].append(line.split()[0])
    return sections


def test_help_groups_every_verb_once_daily_first_internal_last(tmp_path: Path) -> None:
    result = run_cli("--help", cwd=tmp_path, env=WIDE)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith(
        "usage: self-improve [-h] [-V] [--root DIR] [--color WHEN] COMMAND ...\n\n"
        "Learn from an agent's own mistakes: record, count, promote, retire.\n\n"
    )
    assert result.stdout.endswith("\n\nRun `self-improve COMMAND --help` for a command's options and examples.\n")
    assert help_sections(result.stdout) == [
        ("options", ["-h,", "-V,", "--root", "--color"]),
        ("daily", ["log", "list", "show", "keys", "review", "stats", "report"]),
        ("entries and rules", ["resolve", "set-status", "promote", "retire", "archive", "restore", "mark", "supersede", "merge",
                               "extract-skill", "lint"]),
        ("sharing", ["export", "import"]),
        ("set-up", ["init", "install", "uninstall", "doctor", "config", "completion", "scan", "sweep", "watch"]),
        ("internal (run by the hooks, git and the build)", ["hook", "merge-driver", "build-plugin"]),
    ]
    listed = [verb for _, verbs in help_sections(result.stdout)[1:] for verb in verbs]
    assert sorted(listed) == sorted(COMMANDS)  # every registered verb, exactly once
    assert "  log            record a learning, error or feature request (merges into a matching entry)\n" in result.stdout


def test_every_verb_is_in_exactly_one_help_group() -> None:
    grouped = [verb for _, verbs in HELP_GROUPS for verb in verbs]
    assert sorted(grouped) == sorted(COMMANDS)


def verb_examples() -> Iterator[tuple[str, list[str]]]:
    parser = build_parser()
    for verb in COMMANDS:
        text = parser.verb_parsers[verb].format_help()
        assert "\nexamples:\n" in text, f"{verb} --help has no examples"
        yield verb, text.split("\nexamples:\n", 1)[1].splitlines()


def test_every_verb_has_one_or_two_examples_and_each_parses() -> None:
    for verb, lines in verb_examples():
        assert 1 <= len(lines) <= 2, (verb, lines)
        assert any(line.startswith(f"  self-improve {verb} ") or line == f"  self-improve {verb}" for line in lines)
        for line in lines:
            assert line.startswith("  self-improve "), (verb, line)
            words = shlex.split(line, comments=True)[1:]
            for redirection in ("<", ">", "|"):  # the shell's, not ours
                words = words[: words.index(redirection)] if redirection in words else words
            args = build_parser(words).parse_args(words)  # an example that stops parsing exits the test
            assert args.command in COMMANDS


def test_a_verbs_help_shows_its_examples_as_written(tmp_path: Path) -> None:
    result = run_cli("init", "--help", cwd=tmp_path, env=WIDE)
    assert result.stdout.endswith("\nexamples:\n  self-improve init\n  self-improve --root ~/src/app init\n")


# ---- 21: colour ----------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture()
def colour_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch
    output.set_colour_choice("auto")


@pytest.mark.parametrize(
    ("choice", "env", "on_terminal", "on_pipe"),
    [
        ("auto", {}, True, False),
        ("auto", {"TERM": "xterm-256color"}, True, False),
        ("auto", {"TERM": "dumb"}, False, False),
        ("auto", {"NO_COLOR": "1"}, False, False),
        ("auto", {"NO_COLOR": ""}, True, False),  # no-color.org: an empty value does not count
        ("auto", {"FORCE_COLOR": "1"}, True, True),
        ("auto", {"FORCE_COLOR": "1", "TERM": "dumb"}, True, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),  # NO_COLOR wins, as in uv
        ("always", {"NO_COLOR": "1", "TERM": "dumb"}, True, True),  # the flag beats the environment
        ("never", {"FORCE_COLOR": "1"}, False, False),
    ],
)
def test_colour_choice_and_environment(colour_env: pytest.MonkeyPatch, choice: str, env: dict[str, str],
                                       on_terminal: bool, on_pipe: bool) -> None:
    for name, value in env.items():
        colour_env.setenv(name, value)
    output.set_colour_choice(choice)
    assert (output.use_colour(Terminal()), output.use_colour(io.StringIO())) == (on_terminal, on_pipe)
    assert output.colour("x", "red", Terminal()) == ("\033[31mx\033[0m" if on_terminal else "x")


def test_color_flag_before_or_after_the_verb_and_force_color(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SELF_IMPROVE_NOW", NOW)  # the dates the listing shows
    entry_id = json.loads(run_cli("log", "learning", "Use pnpm", "--json", cwd=project).stdout)["id"]
    coloured = f"{entry_id:<22} \033[33mpending    \033[0m x1   2026-12-01 2026-12-01 Use pnpm\n"
    assert run_cli("--color", "always", "list", cwd=project).stdout == coloured  # run_cli sets NO_COLOR
    assert run_cli("list", "--color=always", cwd=project).stdout == coloured
    assert run_cli("list", cwd=project, env={"NO_COLOR": "", "FORCE_COLOR": "1"}).stdout == coloured
    assert run_cli("list", cwd=project, env={"NO_COLOR": ""}).stdout == f"{entry_id:<22} pending     x1   2026-12-01 2026-12-01 Use pnpm\n"
    refused(("list", "--color", "sometimes"), project,
            "self-improve: error: argument --color: invalid choice: 'sometimes' (choose from 'auto', 'always', 'never') "
            "(see `self-improve list --help`)\n")


# ---- 27: install --status --json -----------------------------------------------------------------


def test_install_status_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    settings, hooks = home / ".claude/settings.json", home / ".codex/hooks.json"
    skill = home / ".claude/skills/self-improve"

    def status() -> list[dict[str, object]]:
        result = run_cli("install", "--status", "--json", "--harness", "claude,codex", cwd=tmp_path, env=env)
        assert result.returncode == 0, result.stderr
        parsed: list[dict[str, object]] = json.loads(result.stdout)
        return parsed

    assert status() == [
        {"harness": "claude", "scope": "user", "up_to_date": False, "would_change": [str(settings), str(skill)], "refusal": None,
         "status": [f"claude (user): not installed in {settings}", f"claude (user): skill not installed in {skill}"]},
        {"harness": "codex", "scope": "user", "up_to_date": False, "would_change": [str(hooks)], "refusal": None,
         "status": [f"codex (user): not installed (or out of date) in {hooks}"]},
    ]
    assert sorted(p.name for p in home.rglob("*")) == []  # a status writes nothing
    assert run_cli("install", "--harness", "claude,codex", cwd=tmp_path, env=env).returncode == 0
    assert status() == [
        {"harness": "claude", "scope": "user", "up_to_date": True, "would_change": [], "refusal": None,
         "status": [f"claude (user): installed in {settings}", f"claude (user): skill installed in {skill} (self-improve 0.1.0)"]},
        {"harness": "codex", "scope": "user", "up_to_date": True, "would_change": [], "refusal": None,
         "status": [f"codex (user): installed in {hooks}"]},
    ]
    refused(("install", "--json"), tmp_path,
            "self-improve: error: --json goes with --status (see `self-improve install --help`)\n")
