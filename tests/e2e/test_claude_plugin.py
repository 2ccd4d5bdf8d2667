"""End-to-end: this checkout as a Claude Code plugin, in the real client (2.1.328).

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_plugin.py -rs

- ``claude plugin validate <checkout>`` passes.
- ``claude -p --plugin-dir <checkout>``: the plugin's hooks fire; the reminder and the error
  nudge reach the model (nothing in ``.claude/settings.json``).
- Marketplace install into an isolated HOME, from a copy of the checkout WITHOUT ``.venv`` (what a
  git marketplace gives): ``claude plugin marketplace add <copy>``, ``claude plugin install
  self-improve@self-improve``; then a turn fires the hooks, the SessionStart hook bootstraps the
  venv into ``${CLAUDE_PLUGIN_DATA}`` and the plugin's ``bin/self-improve`` is on the Bash PATH.
- The settings install (what ``self-improve install --harness claude --project P`` does: pinned
  interpreter, settings.local.json) fires too, and uninstall gives the file back byte for byte.

The client, the mock and the isolated HOME come from ``conftest.py`` / ``claude_client.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from self_improve.harnesses.claude.install import installer as claude_installer
from self_improve.harnesses.installer import Target
from tests.e2e.claude_client import ClaudeInstall, ClaudeRun, claude_env, prepare_home
from tests.e2e.mock_anthropic import MockAnthropic, hook_context, tool_results
from tests.e2e.scenario import (
    ERROR_TAG,
    FAILING,
    PROMPT,
    REMINDER,
    REPO,
    VENV_BIN,
    RunTurn,
    one_turn,
    self_improve,
    why,
)

pytestmark = pytest.mark.e2e

MARKETPLACE = "self-improve"
PLUGIN = "self-improve"
# Not copied into the marketplace folder: what a fresh git clone would not have either.
NOT_SHIPPED = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".hypothesis",
                                     "*.egg-info", "node_modules", "bench")


def claude_cmd(install: ClaudeInstall, home: Path, mock: MockAnthropic, *args: str) -> subprocess.CompletedProcess[str]:
    """A non-turn `claude` subcommand (plugin validate / marketplace / install) in the isolated HOME."""
    prepare_home(home)
    proc = subprocess.run([str(install.binary), *args], cwd=home, env=claude_env(home, mock.url), capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0, f"claude {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def learning_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    self_improve(project, "--root", str(project), "init")
    assert (project / ".learnings").is_dir()
    return project


def assert_hooks_reached_the_model(run: ClaudeRun, mock: MockAnthropic) -> str:
    """The reminder came with the prompt, the nudge after the failing Bash call; returns the tool output."""
    first, second = one_turn(run, mock)
    assert REMINDER in hook_context(first, "UserPromptSubmit"), f"no reminder{why(run, mock)}"
    output = "\n".join(json.dumps(block.get("content")) for block in tool_results(second))
    assert "No module named 'nosuchmod'" in output, why(run, mock)
    assert ERROR_TAG in hook_context(second, "PostToolUseFailure"), f"no error nudge{why(run, mock)}"
    return output


def wait_for(path: Path, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    return path.exists()


# --- the tests -------------------------------------------------------------------------------


def test_plugin_validates(claude_install: ClaudeInstall, claude_home: Path, mock_anthropic: MockAnthropic) -> None:
    proc = claude_cmd(claude_install, claude_home, mock_anthropic, "plugin", "validate", str(REPO))
    out = proc.stdout + proc.stderr
    assert "Validation passed" in out, out
    for hook in ("UserPromptSubmit", "PostToolUse Bash", "PostToolUseFailure Bash", "SessionStart"):
        assert f"hooks: {hook} command" in out, out
    assert "bin: self-improve" in out, out
    if (REPO / "skill" / "SKILL.md").is_file():
        assert f"skills: {PLUGIN}:" in out, out


def test_plugin_dir_turn_fires_our_hooks(tmp_path: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropic) -> None:
    project = learning_project(tmp_path)
    mock_anthropic.command = FAILING
    run = claude(project, PROMPT, extra_args=["--plugin-dir", str(REPO)])
    assert_hooks_reached_the_model(run, mock_anthropic)
    # The checkout has its .venv: the SessionStart hook leaves the plugin data folder alone.
    data = run.home / ".claude" / "plugins" / "data" / f"{PLUGIN}-inline"
    assert not (data / "venv").exists()


def test_marketplace_install_without_venv_fires_our_hooks(
    tmp_path: Path, claude: RunTurn[ClaudeRun], claude_install: ClaudeInstall, claude_home: Path, mock_anthropic: MockAnthropic
) -> None:
    source = tmp_path / "marketplace" / "self-improve"
    shutil.copytree(REPO, source, ignore=NOT_SHIPPED, symlinks=True)
    assert not (source / ".venv").exists()
    claude_cmd(claude_install, claude_home, mock_anthropic, "plugin", "marketplace", "add", str(source))
    installed = claude_cmd(claude_install, claude_home, mock_anthropic, "plugin", "install", f"{PLUGIN}@{MARKETPLACE}")
    assert "Successfully installed" in installed.stdout + installed.stderr
    settings = json.loads((claude_home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {f"{PLUGIN}@{MARKETPLACE}": True}

    project = learning_project(tmp_path)
    # `self-improve` resolves through the plugin's bin/ (appended to the Bash tool's PATH).
    mock_anthropic.command = f"command -v self-improve; self-improve --version; {FAILING}"
    env = {"SELF_IMPROVE_BOOTSTRAP_REQUIREMENTS": ""}  # bootstrap the venv only: no network in tests
    run = claude(project, PROMPT, env_extra=env)
    output = assert_hooks_reached_the_model(run, mock_anthropic)
    assert "/bin/self-improve" in output and "self-improve 0.1.0" in output, output
    assert str(VENV_BIN) not in output, output

    data = claude_home / ".claude" / "plugins" / "data" / f"{PLUGIN}-{MARKETPLACE}"
    assert wait_for(data / "venv" / ".self-improve-stamp"), (
        f"SessionStart did not bootstrap {data}: {sorted(p.name for p in data.iterdir()) if data.is_dir() else 'no dir'}"
        f"{why(run, mock_anthropic)}"
    )


def test_settings_install_fires_and_uninstall_restores(
    tmp_path: Path, claude: RunTurn[ClaudeRun], claude_home: Path, mock_anthropic: MockAnthropic
) -> None:
    project = learning_project(tmp_path)
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    original = '{\n    "permissions": {"allow": []}\n}\n'
    settings.write_text(original)
    claude_settings = claude_installer(REPO)
    target = Target("local", project, claude_home)
    for change in claude_settings.plan_install(target):
        change.apply()
    command = json.loads(settings.read_text())["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    assert command == f"SELF_IMPROVE_PYTHON={sys.executable} {REPO}/hooks/post-bash"

    mock_anthropic.command = FAILING
    run = claude(project, PROMPT)
    assert_hooks_reached_the_model(run, mock_anthropic)

    for change in claude_settings.plan_uninstall(target):
        change.apply()
    assert settings.read_text() == original
