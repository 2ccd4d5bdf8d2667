"""The real Claude Code client, installed once from npm, and a helper that runs one headless turn.

Install: ``npm install @anthropic-ai/claude-code@2.1.328`` into
``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/claude-code-2.1.328`` by the shared scheme of
``npm_client.py`` (lock, staging directory, ``.installed`` stamp, ``claude --version`` re-checked on a
cached install; skips only when npm or its registry is unreachable, ``SELF_IMPROVE_E2E_REQUIRED=1``
turns those skips into failures).

Running (``run_claude``): ``claude -p PROMPT --allowedTools Bash`` in the project directory, with a
scrubbed environment (no ``CLAUDE_*`` / ``ANTHROPIC_*`` variables leak from the caller:
``CLAUDE_CODE_SIMPLE=1`` would switch hooks off, ``CLAUDE_CONFIG_DIR`` would point at a real
config), an isolated HOME seeded by :func:`prepare_home`, ``TMPDIR`` / ``CLAUDE_CODE_TMPDIR``
inside that HOME, and a hard timeout that kills the client's whole process group.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from tests.e2e.npm_client import (
    ClientRun,
    NpmBinary,
    NpmInstall,
    run_client,
    scrubbed_env,
)

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.328"
DEFAULT_TIMEOUT = 120.0

ClaudeInstall = NpmInstall


@dataclass(frozen=True)
class ClaudeRun(ClientRun):
    label: ClassVar[str] = "claude -p"


# --- install ------------------------------------------------------------------------


def _package(version: str = CLAUDE_CODE_VERSION) -> NpmBinary:
    return NpmBinary(CLAUDE_CODE_PACKAGE, version, bin="claude", name="claude-code", label="Claude Code")


def install_dir(version: str = CLAUDE_CODE_VERSION) -> Path:
    return _package(version).install_dir()


def ensure_claude(version: str = CLAUDE_CODE_VERSION) -> ClaudeInstall:
    """The ``claude`` binary of ``@anthropic-ai/claude-code@VERSION``, installing it once if needed."""
    return _package(version).ensure()


# --- running --------------------------------------------------------------------------


def prepare_home(home: Path, project_dir: Path | None = None) -> Path:
    """Seed an isolated HOME so a headless run needs no onboarding and trusts the project.

    Observed on 2.1.328: ``claude -p`` runs with an empty HOME (it writes ``~/.claude.json`` and
    ``~/.claude/`` itself) and honours ``PROJECT/.claude/settings.json`` hooks without any trust
    entry. We still mark onboarding done and the project trusted, so a version that starts asking
    does not silently drop our hooks. Merges into an existing ``~/.claude.json`` (second sessions).
    """
    home.mkdir(parents=True, exist_ok=True)
    config_path = home / ".claude.json"
    config: dict = {}
    if config_path.is_file():
        try:
            config = json.loads(config_path.read_text())
        except ValueError:
            config = {}
    config.setdefault("hasCompletedOnboarding", True)
    if project_dir is not None:
        projects = config.setdefault("projects", {})
        for key in {str(Path(project_dir).absolute()), str(Path(project_dir).resolve())}:
            entry = projects.setdefault(key, {})
            entry["hasTrustDialogAccepted"] = True
            entry.setdefault("hasCompletedProjectOnboarding", True)
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    (home / "tmp").mkdir(exist_ok=True)
    return home


def claude_env(home: Path, mock_url: str, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = scrubbed_env(home)
    tmp = home / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "ANTHROPIC_BASE_URL": mock_url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "TMPDIR": str(tmp),
            "CLAUDE_CODE_TMPDIR": str(tmp),
        }
    )
    if env_extra:
        env.update(env_extra)
    return env


def run_claude(
    project_dir: Path | str,
    prompt: str,
    mock_url: str,
    *,
    env_extra: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    home: Path | str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    binary: Path | str | None = None,
) -> ClaudeRun:
    """Run one headless turn: ``claude -p PROMPT --allowedTools Bash [extra_args]`` in ``project_dir``.

    ``home`` defaults to a fresh temporary directory; pass the same one for a "second session"
    of the same user. ``env_extra`` is applied last (e.g. ``PATH`` with the venv's bin first).
    The run is killed (its whole process group) after ``timeout`` seconds, which fails the test.
    """
    project = Path(project_dir).absolute()
    home_path = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="claude-home-"))
    prepare_home(home_path, project)
    claude = Path(binary) if binary is not None else ensure_claude().binary
    args = [str(claude), "-p", prompt, "--allowedTools", "Bash", *extra_args]
    env = claude_env(home_path, mock_url, env_extra)
    return run_client(ClaudeRun, args, cwd=project, env=env, home=home_path, timeout=timeout)
