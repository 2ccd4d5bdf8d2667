"""Issue 14, item 28: ``review`` at a terminal. Ctrl-C ends the prompt's line (exit 130, no
traceback); ``review | cat`` says why there is no menu and lists; ``[e]dit`` starts from the rule."""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from self_improve.review.prompt import ask_prefilled
from tests.helpers import CLI, REPO, entry_text, record_here, tree_hash, write_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX ttys and signals")

ENV = {"NO_COLOR": "1", "PYTHONPATH": str(REPO), "SELF_IMPROVE_TODAY": "2026-03-01", "TERM": "dumb", "INPUTRC": "/dev/null"}
CANDIDATE = (
    "  LRN-20260201-aaa  Use pnpm, not npm\n"
    "      seen 3 times in 2 tasks within 30 days (3 in total), last 2026-02-27\n"
    "      rule:   {rule}\n"
    "      target: CLAUDE.md\n"
    "      provenance: logged by the hook on this machine; 3 of 3 occurrences recorded here (3 by the hook)\n"
)
MENU = "  [p]romote, [e]dit rule, change [t]arget, [a]rchive, [s]kip, [q]uit? "
RULE = "Use `pnpm install`, not npm."


# These tests are about the interactive review on a terminal, in the user's own CLAUDE.md: the project's config chooses it,
# since the default target is now .claude/rules/self-improve.md (tests/review/test_rules_target.py).
PIN_CLAUDE_MD = '[targets]\nlearning = "CLAUDE.md"\nerror = "CLAUDE.md"\nfeature = "CLAUDE.md"\n'


def pin_claude_md(root: Path) -> None:
    (root / ".learnings" / "config.toml").write_text(PIN_CLAUDE_MD, encoding="utf-8")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        entry_text("LRN-20260201-aaa", "Use pnpm, not npm", category="correction", action=RULE,
                   occurrences=[(20, "1a2b3c4d"), (10, "5e6f7a8b"), (2, "1a2b3c4d")]),
    ])
    pin_claude_md(tmp_path)
    record_here(tmp_path)
    return tmp_path


def env(**more: str) -> dict[str, str]:
    return {**os.environ, **ENV, **more}


def read_until(fd: int, marker: bytes, timeout: float = 20) -> bytes:
    out, deadline = b"", time.monotonic() + timeout
    while marker not in out and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the pty closed: the process ended
                break
            if not chunk:
                break
            out += chunk
    return out


def test_ctrl_c_at_a_question_ends_the_line_and_exits_130(project: Path) -> None:
    process = subprocess.Popen([*CLI, "review"], cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env(SELF_IMPROVE_INTERACTIVE="1"))
    assert process.stdout is not None
    shown = read_until(process.stdout.fileno(), MENU.encode())
    before = tree_hash(project)
    process.send_signal(signal.SIGINT)
    rest, err = process.communicate(timeout=20)
    assert (process.returncode, err) == (130, b"")  # no traceback
    assert (shown + rest).decode() == "Promote 1/1\n" + CANDIDATE.format(rule=RULE) + MENU + "\n"
    assert tree_hash(project) == before


def test_piped_review_says_the_menu_needs_a_terminal_and_lists(project: Path) -> None:
    import pty

    before = tree_hash(project)
    terminal, tty = pty.openpty()  # `self-improve review | cat`: input at a terminal, output to a pipe
    try:
        result = subprocess.run([*CLI, "review"], cwd=project, stdin=tty, capture_output=True, text=True, env=env(), timeout=60)
    finally:
        os.close(tty)
        os.close(terminal)
    assert (result.returncode, result.stderr) == (
        0,
        "self-improve: note: the review menu needs a terminal for its input and output, and the output is not one: "
        "listing the proposals instead\n",
    )
    assert result.stdout == (
        "Promote (1)\n" + CANDIDATE.format(rule=RULE) + "\n"
        "Run `self-improve review --yes` to apply them (it promotes only what was recorded on this machine), "
        "or run it in a terminal to choose one by one.\n"
    )
    assert tree_hash(project) == before


def test_edit_starts_from_the_current_rule(project: Path) -> None:
    import pty

    terminal, tty = pty.openpty()
    process = subprocess.Popen([*CLI, "review"], cwd=project, stdin=tty, stdout=tty, stderr=tty, env=env())
    os.close(tty)
    try:
        shown = read_until(terminal, MENU.encode())
        os.write(terminal, b"e\r")
        shown += read_until(terminal, RULE.encode())  # the line starts as the rule, ready to edit
        os.write(terminal, b" Always.\r")  # typed at its end
        shown += read_until(terminal, MENU.encode())  # the candidate again, with the new rule
        os.write(terminal, b"q\r")
        shown += read_until(terminal, b"skipped\r\n")
        assert process.wait(timeout=20) == 0
    finally:
        os.close(terminal)
    edited = f"{RULE} Always."
    assert shown.decode().replace("\r\n", "\n") == (
        "Promote 1/1\n" + CANDIDATE.format(rule=RULE) + MENU + "e\n"
        f"  rule: {edited}\n"
        "Promote 1/1\n" + CANDIDATE.format(rule=edited) + MENU + "q\n"
        "quit\n"
        "Reviewed: 0 promoted, 0 archived, 0 retired, 0 skipped\n"
    )


def test_edit_without_readline_shows_the_rule_and_an_empty_answer_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setitem(sys.modules, "readline", None)  # as on Windows: `import readline` fails
    asked: list[str] = []
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", Terminal("\n"))
    monkeypatch.setattr(sys, "stdout", out)

    def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return sys.stdin.readline().strip()

    assert ask_prefilled(ask, "  rule: ", RULE) == RULE
    assert (out.getvalue(), asked) == (f"  current: {RULE}\n", ["  rule: (empty keeps it) "])
