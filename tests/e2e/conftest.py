"""Fixtures for the end-to-end tests against the real Claude Code client.

- ``claude_install`` (session): installs ``@anthropic-ai/claude-code@2.1.328`` once (see
  ``claude_client.py``); skips visibly only when npm or its registry is unavailable.
- ``mock_anthropic``: a running :class:`MockAnthropic` (stopped after the test).
- ``claude_home``: an isolated HOME for the client, under the test's tmp_path.
- ``claude``: ``claude(project, prompt, **kw)`` runs one headless turn against ``mock_anthropic``
  with ``claude_home``, and records its duration for the end-of-run summary.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.e2e.claude_client import ClaudeInstall, ClaudeRun, ensure_claude, install_dir, run_claude
from tests.e2e.mock_anthropic import MockAnthropic

_SUMMARY: dict[str, Any] = {"install": None, "turns": []}


@pytest.fixture(scope="session")
def claude_install() -> ClaudeInstall:
    install = ensure_claude()
    _SUMMARY["install"] = install
    return install


@pytest.fixture
def mock_anthropic() -> Iterator[MockAnthropic]:
    with MockAnthropic() as mock:
        yield mock


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


class RunClaude(Protocol):
    def __call__(self, project_dir: Path, prompt: str, **kwargs: Any) -> ClaudeRun: ...


@pytest.fixture
def claude(claude_install: ClaudeInstall, mock_anthropic: MockAnthropic, claude_home: Path,
           request: pytest.FixtureRequest) -> RunClaude:
    def run(project_dir: Path, prompt: str, **kwargs: Any) -> ClaudeRun:
        kwargs.setdefault("home", claude_home)
        kwargs.setdefault("binary", claude_install.binary)
        result = run_claude(project_dir, prompt, kwargs.pop("mock_url", mock_anthropic.url), **kwargs)
        _SUMMARY["turns"].append((request.node.nodeid, result.seconds))
        return result

    return run


def pytest_terminal_summary(terminalreporter: Any) -> None:
    install: ClaudeInstall | None = _SUMMARY["install"]
    turns: list[tuple[str, float]] = _SUMMARY["turns"]
    if install is None and not turns:
        return
    terminalreporter.section("claude code e2e")
    if install is not None:
        how = "taken from cache" if install.cached else f"installed by npm in {install.install_seconds:.1f}s"
        terminalreporter.write_line(f"claude-code {install.version}: {how} ({install_dir(install.version)})")
    if turns:
        seconds = [s for _, s in turns]
        terminalreporter.write_line(
            f"{len(turns)} claude -p turn(s): min {min(seconds):.1f}s, max {max(seconds):.1f}s, "
            f"total {sum(seconds):.1f}s"
        )
