"""What the hooks end-to-end tests of every client share: the scripted turn, our CLI, the store,
and the context an assertion message carries.

One turn, whatever the client: the prompt ``PROMPT`` goes to the mock, which answers with one shell
call running its ``command`` (``FAILING`` / ``PASSING``), then with a final text. :func:`one_turn`
checks that shape and returns the turn's two model requests; :func:`why` is the message every
assertion about a turn carries (the client's output, the mock's request log, the last model
request, and the tail of our hooks' debug log in the isolated HOME: a hook that crashes stays
silent to the model but leaves its traceback summary there).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tests.e2e.npm_client import ClientRun

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent  # not resolved: a venv's python is a symlink

PROMPT = "run the command"
FAILING = 'python3 -c "import nosuchmod"'
PASSING = "echo hello"
PATTERN_KEY = "deps.module-not-found/python:nosuchmod"  # the fingerprint: class/subject
MISTAKE = "deps.module-not-found (python:nosuchmod)"  # how a nudge names it
REMINDER = "<self-improvement-reminder>"
ERROR_TAG = "<error-detected>"

# A throwaway hook (not ours) for the canary tests: saves its stdin as <event>.stdin.json next to
# itself and answers with "<canary><event> saw it</canary>" as additionalContext.
CANARY_HOOK = """#!/bin/sh
payload=$(cat)
event=$(printf '%s' "$payload" | sed -n 's/.*"hook_event_name": *"\\([A-Za-z]*\\)".*/\\1/p')
printf '%s' "$payload" > "$(dirname "$0")/$event.stdin.json"
printf '{"hookSpecificOutput": {"hookEventName": "%s", "additionalContext": "<canary>%s saw it</canary>"}}\\n' \\
    "$event" "$event"
"""


class TurnRequest(Protocol):
    @property
    def response_kind(self) -> str: ...

    @property
    def carries_tool_result(self) -> bool: ...


T_co = TypeVar("T_co", bound=TurnRequest, covariant=True)
Request = TypeVar("Request", bound=TurnRequest)
Run_co = TypeVar("Run_co", bound=ClientRun, covariant=True)


class RunTurn(Protocol[Run_co]):
    """The ``claude`` / ``codex`` fixtures: one headless turn of the client in ``project_dir``."""

    def __call__(self, project_dir: Path, prompt: str, **kwargs: Any) -> Run_co: ...


class ScriptedMock(Protocol[T_co]):
    """What :func:`one_turn` and :func:`why` need of a mock (``MockAnthropic``, ``MockResponses``)."""

    errors: list[str]

    @property
    def turn(self) -> tuple[str, ...]:
        """The response kinds of one scripted turn, in order."""
        ...

    def conversation_requests(self) -> Sequence[T_co]: ...

    def describe(self) -> str: ...

    def summarize_last(self) -> str: ...


def client_env() -> dict[str, str]:
    """The venv's bin first on PATH, so ``self-improve`` also runs from the model's shell."""
    return {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', os.defpath)}"}


def self_improve(cwd: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run our CLI as the user would, in ``cwd`` (HOME replaced when given); fail the test on a
    non-zero exit."""
    cmd = [str(VENV_BIN / "self-improve"), *args]
    env = dict(os.environ, HOME=str(home)) if home is not None else None
    proc = subprocess.run(cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env=env)
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc


def error_entries(project: Path, pattern_key: str = PATTERN_KEY) -> list[Any]:
    """Error entries with ``pattern_key``, read through the store's public API."""
    # lazy: the store may not exist while hooks are written
    from self_improve.store.store import Store

    return [e for e in Store(project).entries(kind="error") if e.pattern_key == pattern_key]


def why(run: ClientRun, mock: ScriptedMock[Any]) -> str:
    """Context for an assertion message: the client's output, the request log, the last request."""
    text = (f"\n{run.describe()}\n--- requests ---\n{mock.describe()}"
            f"\n--- last model request ---\n{mock.summarize_last()}")
    # our hooks never fail the session; they log what went wrong under the (isolated) HOME
    hook_log = run.home / ".local" / "state" / "self-improve" / "debug.log"
    if hook_log.is_file():
        text += f"\n--- {hook_log} (tail) ---\n{hook_log.read_text(errors='replace')[-3000:]}"
    return text


def turn_requests(run: ClientRun, mock: ScriptedMock[Request]) -> list[Request]:
    """The turn's model requests, checked against the mock's script (``mock.turn``): the prompt,
    then one request after each shell call (carrying its result), the last one answered with text."""
    requests = list(mock.conversation_requests())
    assert run.returncode == 0, f"{run.label} failed{why(run, mock)}"
    assert not mock.errors, f"the mock itself failed{why(run, mock)}"
    assert [r.response_kind for r in requests] == list(mock.turn), f"unexpected conversation{why(run, mock)}"
    return requests


def one_turn(run: ClientRun, mock: ScriptedMock[Request]) -> tuple[Request, Request]:
    """The turn's two model requests: the prompt (answered with a shell call), then its result."""
    first, second = turn_requests(run, mock)
    assert second.carries_tool_result, f"second request carries no tool result{why(run, mock)}"
    return first, second


# --- the credit scenario (issue 12): fail, fix, pass; then the same mistake in a new session ---
#
# ``app.py`` imports a local module that only exists as ``helpers.example.py``: ``python3 app.py``
# fails with a real ModuleNotFoundError until ``cp helpers.example.py helpers.py``. The scripted
# agent never calls self-improve; what it learns comes from exit codes through our hooks.

CREDIT_APP = "import helpers\n\nprint(helpers.greeting())\n"
CREDIT_HELPERS = 'def greeting():\n    return "hello from helpers"\n'
RUN_APP = "python3 app.py"
COPY_HELPERS = "cp helpers.example.py helpers.py"
HELPERS_KEY = "deps.module-not-found/python:helpers"  # the fingerprint (subjects.toml: python:<module>)
HELPERS_MISTAKE = "deps.module-not-found (python:helpers)"
HELPERS_TITLE = "Module or package not found"
HELPERS_ERROR = "ModuleNotFoundError: No module named 'helpers'"
GREETING = "hello from helpers"
OBSERVED_FIX = "Last time: `cp helpers.example.py helpers.py`, then `python3 app.py` passed."


def credit_project(root: Path) -> Path:
    """``root`` with ``.learnings/`` (``self-improve init``) and the broken app."""
    root.mkdir(parents=True, exist_ok=True)
    self_improve(root, "--root", str(root), "init")
    assert (root / ".learnings").is_dir(), "self-improve init did not create .learnings/"
    (root / "app.py").write_text(CREDIT_APP)
    (root / "helpers.example.py").write_text(CREDIT_HELPERS)
    return root


def errors_md(project: Path) -> str:
    path = project / ".learnings" / "ERRORS.md"
    return path.read_text() if path.is_file() else "(no ERRORS.md)"


def helpers_entry(project: Path) -> Any:
    """The one error entry of the credit scenario's fingerprint."""
    entries = error_entries(project, HELPERS_KEY)
    assert len(entries) == 1, f"expected one entry for {HELPERS_KEY}: {[e.id for e in entries]}\n{errors_md(project)}"
    return entries[0]


def known_fix_line(entry: Any, fix: str = OBSERVED_FIX) -> str:
    """The recall line post-bash and pre-bash share (the spec: ``Known fix (from ID logged DAY in this repo): TEXT``)."""
    return f"Known fix (from {entry.id} logged {entry.logged[:10]} in this repo): {fix}"


def recalled_nudge(entry: Any, seen: int, sessions: int, fix: str = OBSERVED_FIX) -> str:
    """post-bash's ``<error-detected>`` block for a failure of the scenario with a known fix."""
    return (f"{ERROR_TAG}\n{HELPERS_MISTAKE}: {HELPERS_TITLE}. Seen {seen}x in {sessions} session(s).\n"
            f"{known_fix_line(entry, fix)}\n</error-detected>")


def known_fix_block(entry: Any, fix: str = OBSERVED_FIX) -> str:
    """pre-bash's ``<known-fix>`` block (PreToolUse additionalContext) before ``RUN_APP`` runs again."""
    return f"<known-fix>\nThis command failed here before: {HELPERS_MISTAKE}.\n{known_fix_line(entry, fix)}\n</known-fix>"
