"""The real OpenClaw, offline, against a loopback model mock: the only proof the loop closes.

``self-improve install --harness openclaw --workspace W`` puts our skill and the reminder block
into the workspace; one ``openclaw agent --local`` turn in which the (mock) model runs a failing
``exec`` inside a project that has ``.learnings/``; then the block and the skill must have reached
the system prompt, ``self-improve sweep`` must record that failure in the project's ERRORS.md and
refresh the block's "Pending triage" line, and ``self-improve uninstall`` must give AGENTS.md back
byte for byte.  Heavy (a private Node 24 and OpenClaw from npm, cached after the first run):
marked ``openclaw``.

How the exec cwd is chosen: OpenClaw runs ``exec`` in the agent workspace whatever the
process cwd is (verified: launching from the project still gives ``details.cwd`` = workspace);
the tool's ``workdir`` argument moves it, so the mock passes ``workdir=<project>``, as a real
model does when it works in a repo.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.mock_openai import MockOpenAI, MockScript
from tests.e2e.openclaw_client import OpenClawInstall
from tests.helpers import CLI

if TYPE_CHECKING:
    from tests.e2e.conftest import Timings

pytestmark = pytest.mark.openclaw

REPO = Path(__file__).resolve().parents[2]
TURN_TIMEOUT_S = 300.0
FAILING_COMMAND = "ls /nonexistent-self-improve-e2e"
# The user's own AGENTS.md, before install: the installer appends our block after it.
AGENTS_MD = """# AGENTS.md

## Tools
- Use exec for shell commands.
"""
SKILL_NAME = "self-improvement"
BLOCK_BEGIN = "<!-- self-improve:openclaw:begin (managed by `self-improve install`) -->"
BLOCK_END = "<!-- self-improve:openclaw:end -->"
PENDING_NONE = "Pending triage: 0 errors recorded since last review"
PENDING_ONE = "Pending triage: 1 error recorded since last review"
TIMINGS = "openclaw e2e"  # the section of the end-of-run summary (conftest.py)


@dataclass(frozen=True)
class Sandbox:
    home: Path
    state: Path
    config: Path
    workspace: Path
    project: Path
    xdg_state: Path

    @property
    def skill_dir(self) -> Path:
        return self.workspace / "skills" / SKILL_NAME

    def agents_md(self) -> str:
        return (self.workspace / "AGENTS.md").read_text()

    def env(self) -> dict[str, str]:
        # A clean environment: nothing of the developer's ~/.openclaw or proxies leaks in.
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "OPENCLAW_STATE_DIR": str(self.state),
            "OPENCLAW_CONFIG_PATH": str(self.config),
            "OPENCLAW_WORKSPACE_DIR": str(self.workspace),
            "XDG_STATE_HOME": str(self.xdg_state),
            "NO_COLOR": "1",
        }


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    box = Sandbox(
        home=tmp_path / "home",
        state=tmp_path / "openclaw-state",
        config=tmp_path / "openclaw.json",
        workspace=tmp_path / "workspace",
        project=tmp_path / "project",
        xdg_state=tmp_path / "xdg-state",
    )
    for directory in (box.home, box.state, box.workspace, box.project):
        directory.mkdir(parents=True)
    (box.workspace / "AGENTS.md").write_text(AGENTS_MD)
    _init_learnings(box.project)
    installed = self_improve(box, "install", "--harness", "openclaw", "--workspace", str(box.workspace))
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.splitlines()[:2] == [
        f"openclaw: install the skill into {box.skill_dir} ({len(list(_skill_files()))} files)",
        f"openclaw: add the reminder block to {box.workspace / 'AGENTS.md'}",
    ], installed.stdout
    return box


def _skill_files() -> list[Path]:
    skill = REPO / "skill"
    return [skill / "SKILL.md", *(p for p in sorted((skill / "references").rglob("*")) if p.is_file())]


def _init_learnings(project: Path) -> None:
    from self_improve.store.store import Store

    Store(project).init()


def write_config(box: Sandbox, base_url: str) -> None:
    model = {
        "id": "mock-model",
        "name": "Mock",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 4096,
    }
    config = {
        "models": {
            "mode": "merge",
            "catalogRefresh": {"enabled": False},
            "providers": {
                "mock": {"baseUrl": base_url, "apiKey": "x", "api": "openai-completions", "models": [model]}
            },
        },
        "agents": {"defaults": {"model": {"primary": "mock/mock-model"}, "workspace": str(box.workspace)}},
        "update": {"checkOnStart": False},
        "telemetry": {"enabled": False},
        "discovery": {"mdns": {"mode": "off"}},
    }
    box.config.write_text(json.dumps(config, indent=2))


def run_turn(
    install: OpenClawInstall, box: Sandbox, session: str, timings: Timings
) -> tuple[subprocess.CompletedProcess[str], MockOpenAI]:
    """One ``openclaw agent --local`` turn in which the mock runs ``FAILING_COMMAND`` in the project;
    the mock comes back stopped, with its request log."""
    script = MockScript(command=FAILING_COMMAND, extra_arguments={"workdir": str(box.project)})
    with MockOpenAI(script) as mock, timings.timed(TIMINGS, "openclaw agent turn(s)"):
        write_config(box, mock.base_url)
        proc = subprocess.run(
            install.command(
                "agent", "--local", "--agent", "main", "--session-id", session, "--message", "run the check", "--json"
            ),
            env=install.env(box.env()),
            cwd=box.workspace,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TURN_TIMEOUT_S,
            check=False,
        )
    return proc, mock


def self_improve(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**box.env(), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [*CLI, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_failing_exec_in_openclaw_lands_in_the_projects_errors(
    openclaw_install: OpenClawInstall, sandbox: Sandbox, e2e_timings: Timings
) -> None:
    proc, mock = run_turn(openclaw_install, sandbox, f"si-e2e-{uuid.uuid4().hex[:8]}", e2e_timings)
    assert proc.returncode == 0, proc.stderr[-3000:]

    # The turn really went through the mock: a tool call, then the final answer.
    assert len(mock.post_requests()) == 2, mock.describe()
    assert "MOCK-REPLY-OK" in proc.stdout

    # What reached the model: the installed AGENTS.md, user text and our block verbatim (markers
    # kept), and the installed skill's listing (name from its frontmatter, and its location).
    system = "\n".join(mock.system_prompts())
    installed_agents = sandbox.agents_md()
    assert installed_agents.startswith(AGENTS_MD + "\n" + BLOCK_BEGIN + "\n")
    block = installed_agents[len(AGENTS_MD) + 1 :]
    assert block.rstrip("\n") in system
    assert PENDING_NONE in system and BLOCK_END in system
    assert f"<name>{SKILL_NAME}</name>" in system
    assert str(sandbox.skill_dir / "SKILL.md") in system

    # The watcher's side: one sweep records exactly this failure, a second records nothing.
    with e2e_timings.timed(TIMINGS, "self-improve sweep(s) recording the turn"):
        sweep = self_improve(sandbox, "sweep", "--state-dir", str(sandbox.state), "--json")
    assert sweep.returncode == 0, sweep.stderr
    counts = json.loads(sweep.stdout)
    assert (counts["tool_results"], counts["errors_recorded"]) == (1, 1), json.dumps(counts)
    assert counts["projects"] == [str(sandbox.project)]
    errors_md = (sandbox.project / ".learnings" / "ERRORS.md").read_text()
    assert "nonexistent-self-improve-e2e" in errors_md, errors_md
    assert errors_md.count("## [ERR-") == 1 and "Recurrence-Count: 1" in errors_md, errors_md
    assert f"Command: `{FAILING_COMMAND}` (exit 2)" in errors_md  # the joined command, as the hooks record it
    assert (sandbox.xdg_state / "self-improve" / "openclaw-offsets.json").is_file()

    # The sweep that recorded refreshed the block's pending line, and only that line.
    assert sandbox.agents_md() == installed_agents.replace(PENDING_NONE, PENDING_ONE)

    again = self_improve(sandbox, "sweep", "--state-dir", str(sandbox.state), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["errors_recorded"] == 0
    assert (sandbox.project / ".learnings" / "ERRORS.md").read_text() == errors_md

    # OpenClaw ran in this workspace (it added SOUL.md and friends), and uninstall still gives the
    # user's AGENTS.md back byte for byte and takes the skill folder with it.
    removed = self_improve(sandbox, "uninstall", "--harness", "openclaw", "--workspace", str(sandbox.workspace))
    assert removed.returncode == 0, removed.stderr
    assert sandbox.agents_md() == AGENTS_MD
    assert not (sandbox.workspace / "skills").exists()


def test_watch_records_while_openclaw_runs(
    openclaw_install: OpenClawInstall, sandbox: Sandbox, e2e_timings: Timings
) -> None:
    """The live path: `self-improve watch` sees OpenClaw's own WAL writes and records at once."""
    env = {**sandbox.env(), "PYTHONPATH": str(REPO)}
    watcher = subprocess.Popen(
        [*CLI, "watch", "--state-dir", str(sandbox.state), "--debounce", "0.2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    errors_md = sandbox.project / ".learnings" / "ERRORS.md"
    try:
        proc, _ = run_turn(openclaw_install, sandbox, f"si-e2e-watch-{uuid.uuid4().hex[:8]}", e2e_timings)
        assert proc.returncode == 0, proc.stderr[-3000:]
        finished = time.monotonic()
        deadline = finished + 30.0
        while time.monotonic() < deadline and "nonexistent-self-improve-e2e" not in errors_md.read_text():
            time.sleep(0.1)
        assert "nonexistent-self-improve-e2e" in errors_md.read_text(), "watch never recorded the failure"
        e2e_timings.add(TIMINGS, "self-improve watch record(s), after the turn ended", time.monotonic() - finished)
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=15)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.communicate()
    assert watcher.returncode == 0, err
    assert "recorded 1 error(s)" in out, out
    assert "warning" not in out + err, out + err
    text = errors_md.read_text()
    assert text.count("## [ERR-") == 1 and "Recurrence-Count: 1" in text, text  # once, not twice
    assert PENDING_ONE in sandbox.agents_md()  # the watcher's on_recorded refreshed the block
