"""Fixtures for the end-to-end tests against the real clients, and their end-of-run timing summary.

Claude Code (``claude_client.py`` + ``mock_anthropic.py``):

- ``claude_install`` (session): installs ``@anthropic-ai/claude-code@2.1.328`` once.
- ``mock_anthropic``: a running :class:`MockAnthropic` (stopped after the test).
- ``claude_home``: an isolated HOME for the client, under the test's tmp_path.
- ``claude``: ``claude(project, prompt, **kw)`` runs one headless turn against ``mock_anthropic``
  with ``claude_home``.

Codex (``codex_client.py`` + ``mock_responses.py``):

- ``codex_install`` (session): installs ``@openai/codex@0.171.0`` once.
- ``mock_responses``: a running :class:`MockResponses`.
- ``codex_home``: an isolated HOME (``CODEX_HOME`` is ``codex_home/.codex``).
- ``codex``: ``codex(project, prompt, **kw)`` runs one ``codex exec`` turn against
  ``mock_responses`` with ``codex_home`` (and the venv's bin first on PATH).
- ``trust``: ``trust(project, **kw)`` records the user's consent to the project and its hooks in
  ``codex_home`` (see ``codex_client.trust_project_and_hooks``).

OpenClaw (``openclaw_client.py`` + ``mock_openai.py``):

- ``openclaw_install`` (session): a private Node 24 and ``openclaw@2026.9.6``, installed once.

Every install skips visibly only when npm or its registry is unavailable (see ``npm_client.py``).

Timings: ``e2e_timings`` (session) collects each client's install and how long its turns and other
steps took; the fixtures above record theirs, a test adds its own with
``e2e_timings.timed(section, what)``. One section per client is printed at the end of the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from tests.e2e.claude_client import ClaudeInstall, ClaudeRun, ensure_claude, run_claude
from tests.e2e.codex_client import (
    CodexInstall,
    CodexRun,
    ensure_codex,
    run_codex,
    trust_project_and_hooks,
)
from tests.e2e.mock_anthropic import MockAnthropic
from tests.e2e.mock_responses import MockResponses
from tests.e2e.npm_client import ClientRun, NpmInstall
from tests.e2e.openclaw_client import OpenClawInstall, ensure_openclaw
from tests.e2e.scenario import RunTurn, client_env


class _Describable(Protocol):
    def describe(self) -> str: ...


Install = TypeVar("Install", bound=_Describable)
Run = TypeVar("Run", bound=ClientRun)

CLAUDE = "claude code e2e"
CODEX = "codex e2e"
OPENCLAW = "openclaw e2e"


# --- timings, shown at the end of the run ---------------------------------------------


@dataclass
class _Section:
    install: str | None = None
    steps: dict[str, list[float]] = field(default_factory=dict)


class Timings:
    """Per client (a section of the terminal summary): its install and the durations of its steps."""

    def __init__(self) -> None:
        self._sections: dict[str, _Section] = {}

    def installed(self, section: str, install: Install) -> Install:
        """``install.describe()`` (e.g. "codex 0.171.0: taken from cache (…)") heads the section."""
        self._sections.setdefault(section, _Section()).install = install.describe()
        return install

    def add(self, section: str, what: str, seconds: float) -> None:
        """One more ``what`` (plural, e.g. "codex exec turn(s)") that took ``seconds``."""
        self._sections.setdefault(section, _Section()).steps.setdefault(what, []).append(seconds)

    @contextmanager
    def timed(self, section: str, what: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.add(section, what, time.monotonic() - started)

    def write(self, terminalreporter: Any) -> None:
        for title, section in self._sections.items():
            terminalreporter.section(title)
            if section.install is not None:
                terminalreporter.write_line(section.install)
            for what, seconds in section.steps.items():
                terminalreporter.write_line(
                    f"{len(seconds)} {what}: min {min(seconds):.1f}s, max {max(seconds):.1f}s, "
                    f"total {sum(seconds):.1f}s"
                )


_TIMINGS = Timings()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    _TIMINGS.write(terminalreporter)


@pytest.fixture(scope="session")
def e2e_timings() -> Timings:
    return _TIMINGS


def _isolated_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def _turns(run_turn: Callable[..., Run], mock_url: str, install: NpmInstall, home: Path, timings: Timings,
           section: str, what: str, **defaults: Any) -> RunTurn[Run]:
    """``run(project, prompt, **kw)``: ``run_turn`` against ``mock_url`` with ``install``'s binary in
    ``home`` (``defaults`` for the other keywords), its duration recorded as one ``what``."""

    def run(project_dir: Path, prompt: str, **kwargs: Any) -> Run:
        kwargs = {"home": home, "binary": install.binary, **defaults, **kwargs}
        result = run_turn(project_dir, prompt, kwargs.pop("mock_url", mock_url), **kwargs)
        timings.add(section, what, result.seconds)
        return result

    return run


# --- Claude Code ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def claude_install(e2e_timings: Timings) -> ClaudeInstall:
    return e2e_timings.installed(CLAUDE, ensure_claude())


@pytest.fixture
def mock_anthropic() -> Iterator[MockAnthropic]:
    with MockAnthropic() as mock:
        yield mock


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    return _isolated_home(tmp_path)


@pytest.fixture
def claude(claude_install: ClaudeInstall, mock_anthropic: MockAnthropic, claude_home: Path,
           e2e_timings: Timings) -> RunTurn[ClaudeRun]:
    return _turns(run_claude, mock_anthropic.url, claude_install, claude_home, e2e_timings, CLAUDE,
                  "claude -p turn(s)")


# --- Codex ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def codex_install(e2e_timings: Timings) -> CodexInstall:
    return e2e_timings.installed(CODEX, ensure_codex())


@pytest.fixture
def mock_responses() -> Iterator[MockResponses]:
    with MockResponses() as mock:
        yield mock


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    return _isolated_home(tmp_path)


@pytest.fixture
def codex(codex_install: CodexInstall, mock_responses: MockResponses, codex_home: Path,
          e2e_timings: Timings) -> RunTurn[CodexRun]:
    return _turns(run_codex, mock_responses.base_url, codex_install, codex_home, e2e_timings, CODEX,
                  "codex exec turn(s)", env_extra=client_env())


@pytest.fixture
def trust(codex_install: CodexInstall, codex_home: Path, e2e_timings: Timings) -> Any:
    def grant(project: Path, **kwargs: Any) -> list[dict]:
        with e2e_timings.timed(CODEX, "trust setup(s) via codex app-server"):
            return trust_project_and_hooks(codex_home, project, binary=codex_install.binary, **kwargs)

    return grant


# --- OpenClaw ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def openclaw_install(e2e_timings: Timings) -> OpenClawInstall:
    return e2e_timings.installed(OPENCLAW, ensure_openclaw())
