"""The reminder and the correction nudge, byte for byte: both teach reuse-before-mint (look the key
up with ``self-improve keys`` before minting a new ``area.topic``), within their token budget, and
both print commands that run as printed, ``self-improve keys`` included."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from self_improve.hooks.run import CORRECTION_NUDGE, REMINDER
from tests.helpers import REPO, context_of, payload, run_hook

EXPECTED_REMINDER = (
    "<self-improvement-reminder>\n"
    "Before finishing: non-obvious solution discovered? Workaround for unexpected behaviour? "
    "Project-specific pattern learned? Error that needed debugging?\n"
    'If so: self-improve log learning --pattern-key <self-improve keys, or new> --action "<do X, not Y>" "<summary>"\n'
    "</self-improvement-reminder>"
)
EXPECTED_CORRECTION = (
    "<correction-detected>\n"
    "The user seems to be correcting you. Once you have it right, record it in the user's own words "
    "(reuse a fitting key: `self-improve keys`):\n"
    'self-improve log learning --category correction --pattern-key <area.topic> --action "<do X, not Y>" "<what the user said>"\n'
    "</correction-detected>"
)
# Before reuse-before-mint (len / 4, as the bench and the README count tokens): 286 and 263 characters.
# Each nudge may grow by about 10 tokens, no more.
BEFORE = {"reminder": 286, "correction": 263}


def prompt(project: Path, text: str, env: dict[str, str] | None = None) -> str:
    result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project), prompt=text, session_id="s1"), env=env)
    assert result.returncode == 0
    return context_of(result, "UserPromptSubmit") if result.stdout.lstrip().startswith(b"{") else result.stdout.decode()


def test_the_reminder_and_the_correction_nudge_are_pinned() -> None:
    assert REMINDER == EXPECTED_REMINDER
    assert CORRECTION_NUDGE == EXPECTED_CORRECTION
    assert (len(REMINDER) - BEFORE["reminder"]) / 4 <= 10
    assert (len(CORRECTION_NUDGE) - BEFORE["correction"]) / 4 <= 11


def test_the_hooks_print_them_as_pinned(project: Path) -> None:
    assert prompt(project, "run the command") == EXPECTED_REMINDER + "\n"
    assert prompt(project, "No, that's wrong. Don't use npm here, use pnpm.") == EXPECTED_CORRECTION + "\n"


def test_without_our_cli_on_path_keys_is_printed_as_a_command_that_runs(project: Path) -> None:
    env = {"PATH": "/usr/bin:/bin"}
    cli = str(REPO / "bin" / "self-improve")
    printed = prompt(project, "No, that's wrong. Don't use npm here, use pnpm.", env=env)
    assert printed == EXPECTED_CORRECTION.replace("self-improve log ", f"{cli} log ").replace("self-improve keys", f"{cli} keys") + "\n"
    ran = subprocess.run([cli, "keys"], cwd=project, env={**os.environ, **env, "HOME": str(project)},
                         capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "no Pattern-Keys yet\n", "")
