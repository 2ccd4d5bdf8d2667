"""The real OpenClaw, offline, against a loopback model mock: the only proof the loop closes.

One ``openclaw agent --local`` turn in which the (mock) model runs a failing ``exec`` inside a
project that has ``.learnings/``; then ``self-improve sweep`` must record that failure in the
project's ERRORS.md, and the workspace AGENTS.md block and our skill must have reached the
system prompt.  Heavy (a private Node 24 and OpenClaw from npm, cached after the first run):
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
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.mock_openai import MockScript, serve
from tests.e2e.openclaw_client import OpenClawInstall, OpenClawUnavailable, ensure_openclaw

pytestmark = pytest.mark.openclaw

REPO = Path(__file__).resolve().parents[2]
TURN_TIMEOUT_S = 300.0
FAILING_COMMAND = "ls /nonexistent-self-improve-e2e"
BLOCK_TEXT = "SELF-IMPROVE-E2E: check .learnings/ before repeating a failing command."
AGENTS_MD = f"""# AGENTS.md

## Tools
- Use exec for shell commands.

<!-- self-improve:begin v1 -->
## Learned rules (self-improve)
{BLOCK_TEXT}
<!-- self-improve:end -->
"""
SKILL_NAME = "self-improvement"
SKILL_MD = f"""---
name: {SKILL_NAME}
description: Record errors and corrections in .learnings/ and review them before retrying.
---
# Self-improvement

Run `self-improve list` to see what went wrong before.
"""
# Runs a verb through main.py once main lists it; until then through the verb module itself.
_CLI_DRIVER = """
import argparse, importlib, sys
from self_improve import main as m
verb = sys.argv[1]
if verb in getattr(m, "COMMANDS", getattr(m, "COMMAND_MODULES", ())):
    sys.exit(m.main(sys.argv[1:]))
module = importlib.import_module("self_improve.commands." + verb)
parser = argparse.ArgumentParser(prog="self-improve")
module.register(parser.add_subparsers())
args = parser.parse_args(sys.argv[1:])
sys.exit(args.func(args))
"""


@dataclass(frozen=True)
class Sandbox:
    home: Path
    state: Path
    config: Path
    workspace: Path
    project: Path
    xdg_state: Path

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


@pytest.fixture(scope="module")
def openclaw_install() -> Iterator[OpenClawInstall]:
    started = time.monotonic()
    try:
        install = ensure_openclaw()
    except OpenClawUnavailable as exc:
        pytest.skip(f"OpenClaw cannot be installed: {exc}")
    took = time.monotonic() - started
    print(f"\n[openclaw e2e] install: {install.install_seconds:.1f}s (cached check {took:.1f}s)")
    yield install


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
    skill = box.workspace / "skills" / SKILL_NAME / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL_MD)
    _init_learnings(box.project)
    return box


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


def run_turn(install: OpenClawInstall, box: Sandbox, session: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
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
    )
    return proc, time.monotonic() - started


def self_improve(box: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**box.env(), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", _CLI_DRIVER, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_failing_exec_in_openclaw_lands_in_the_projects_errors(
    openclaw_install: OpenClawInstall, sandbox: Sandbox
) -> None:
    session = f"si-e2e-{uuid.uuid4().hex[:8]}"
    script = MockScript(command=FAILING_COMMAND, extra_arguments={"workdir": str(sandbox.project)})
    with serve(script) as mock:
        write_config(sandbox, mock.base_url)
        proc, turn_seconds = run_turn(openclaw_install, sandbox, session)
    print(f"[openclaw e2e] one turn: {turn_seconds:.1f}s, {len(mock.requests)} model requests")
    assert proc.returncode == 0, proc.stderr[-3000:]

    # The turn really went through the mock: a tool call, then the final answer.
    assert len(mock.requests) == 2, [r.get("path") for r in mock.requests]
    assert "MOCK-REPLY-OK" in proc.stdout

    # What reached the model: our AGENTS.md block (markers kept) and the skill's listing.
    system = "\n".join(mock.system_prompts())
    assert BLOCK_TEXT in system
    assert "<!-- self-improve:begin v1 -->" in system
    assert f"<name>{SKILL_NAME}</name>" in system
    assert str(sandbox.workspace / "skills" / SKILL_NAME / "SKILL.md") in system

    # The watcher's side: one sweep records exactly this failure, a second records nothing.
    started = time.monotonic()
    sweep = self_improve(sandbox, "sweep", "--state-dir", str(sandbox.state), "--json")
    sweep_seconds = time.monotonic() - started
    assert sweep.returncode == 0, sweep.stderr
    counts = json.loads(sweep.stdout)
    print(f"[openclaw e2e] sweep: {sweep_seconds:.1f}s, {counts}")
    assert (counts["tool_results"], counts["errors_recorded"]) == (1, 1), json.dumps(counts)
    assert counts["projects"] == [str(sandbox.project)]
    errors_md = (sandbox.project / ".learnings" / "ERRORS.md").read_text()
    assert "nonexistent-self-improve-e2e" in errors_md, errors_md
    assert errors_md.count("## [ERR-") == 1 and "Recurrence-Count: 1" in errors_md, errors_md
    assert f"OpenClaw exec: `{FAILING_COMMAND}` (exit 2)" in errors_md  # the joined command
    assert (sandbox.xdg_state / "self-improve" / "openclaw-offsets.json").is_file()

    again = self_improve(sandbox, "sweep", "--state-dir", str(sandbox.state), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["errors_recorded"] == 0
    assert (sandbox.project / ".learnings" / "ERRORS.md").read_text() == errors_md


def test_watch_records_while_openclaw_runs(openclaw_install: OpenClawInstall, sandbox: Sandbox) -> None:
    """The live path: `self-improve watch` sees OpenClaw's own WAL writes and records at once."""
    env = {**sandbox.env(), "PYTHONPATH": str(REPO)}
    watcher = subprocess.Popen(
        [sys.executable, "-c", _CLI_DRIVER, "watch", "--state-dir", str(sandbox.state), "--debounce", "0.2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    errors_md = sandbox.project / ".learnings" / "ERRORS.md"
    try:
        session = f"si-e2e-watch-{uuid.uuid4().hex[:8]}"
        script = MockScript(command=FAILING_COMMAND, extra_arguments={"workdir": str(sandbox.project)})
        with serve(script) as mock:
            write_config(sandbox, mock.base_url)
            proc, turn_seconds = run_turn(openclaw_install, sandbox, session)
        assert proc.returncode == 0, proc.stderr[-3000:]
        finished = time.monotonic()
        deadline = finished + 30.0
        while time.monotonic() < deadline and "nonexistent-self-improve-e2e" not in errors_md.read_text():
            time.sleep(0.1)
        lag = time.monotonic() - finished
        assert "nonexistent-self-improve-e2e" in errors_md.read_text(), "watch never recorded the failure"
        print(f"[openclaw e2e] watch: turn {turn_seconds:.1f}s, recorded {lag:.1f}s after the turn ended")
        watcher.send_signal(signal.SIGTERM)
        out, err = watcher.communicate(timeout=15)
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.communicate()
    assert watcher.returncode == 0, err
    assert "recorded 1 error(s)" in out, out
    text = errors_md.read_text()
    assert text.count("## [ERR-") == 1 and "Recurrence-Count: 1" in text, text  # once, not twice
