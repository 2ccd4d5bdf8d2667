"""OpenClaw before its first run: install into a workspace without AGENTS.md puts the skill in and
says, in one line, that the next ``watch``/``sweep`` pass adds the block once OpenClaw has seeded
AGENTS.md; that pass adds it and changes no other byte; doctor reports the missing block until
then; uninstall before that leaves nothing waiting."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from self_improve.harnesses.openclaw import pending
from self_improve.harnesses.openclaw.block import install_text
from self_improve.harnesses.openclaw.skill import STAMP_NAME, skill_sources
from self_improve.harnesses.openclaw.transcripts import Offsets
from self_improve.harnesses.openclaw.watch import WatchOptions, watch
from tests.helpers import REPO, run_cli, tree_hash

SOURCES = skill_sources(REPO / "skill")
# What OpenClaw 2026.9.6 seeds on its first run starts like this (the full template is longer).
TEMPLATE = b"# AGENTS.md - Your Workspace\n\nThis folder is home. Treat it that way.\n\n## First Run\n\nIf `BOOTSTRAP.md` exists, follow it.\n"


class Env:
    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.state = tmp_path / "openclaw-state"
        self.ws = tmp_path / "ws"
        self.xdg = tmp_path / "xdg-state"
        for folder in (self.home, self.state, self.ws):
            folder.mkdir()
        self.vars = {"HOME": str(self.home), "OPENCLAW_STATE_DIR": str(self.state), "OPENCLAW_WORKSPACE_DIR": str(self.ws),
                     "XDG_STATE_HOME": str(self.xdg)}

    def cli(self, *args: str) -> tuple[int, str, str]:
        result = run_cli(*args, cwd=self.home, env=self.vars)
        return result.returncode, result.stdout, result.stderr

    def sweep(self) -> list[str]:
        code, out, err = self.cli("sweep", "--state-dir", str(self.state), "--offsets", str(self.home / "offsets.json"), "--json")
        assert (code, err) == (0, ""), err
        notes: list[str] = json.loads(out)["notes"]
        return notes

    def doctor_openclaw(self) -> list[dict[str, object]]:
        _, out, _ = self.cli("doctor", "--project", str(self.home), "--json")
        return [check for check in json.loads(out) if check["harness"] == "openclaw"]


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    made = Env(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(made.xdg))  # the pending record of in-process calls
    return made


def waiting_line(ws: Path) -> str:
    return (
        f"openclaw: {ws}/AGENTS.md does not exist yet: OpenClaw seeds it on its first run, and the next "
        "`self-improve watch` or `sweep` pass after that adds the reminder block (so does `self-improve install --harness openclaw`)"
    )


def install_before_first_run(env: Env) -> None:
    code, out, err = env.cli("install", "--harness", "openclaw")
    assert (code, err) == (0, "")
    assert out == (
        f"openclaw: install the skill into {env.ws}/skills/self-improvement ({len(SOURCES)} files)\n"
        f"{waiting_line(env.ws)}\n"
        "note: openclaw: run `self-improve watch` (or `self-improve sweep` now and then) to record failing commands "
        "from OpenClaw's transcripts and keep the block's Pending triage line current\n"
    )


def skill_folder(ws: Path) -> dict[str, bytes]:
    folder = ws / "skills/self-improvement"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_install_puts_the_skill_in_then_sweep_adds_the_block(env: Env) -> None:
    install_before_first_run(env)
    files = skill_folder(env.ws)
    assert set(files) == {*SOURCES, STAMP_NAME} and all(files[rel] == data for rel, data in SOURCES.items())
    assert not (env.ws / "AGENTS.md").exists()  # never created by us

    code, out, _ = env.cli("install", "--harness", "openclaw", "--status")
    assert out.splitlines() == [
        f"✓ openclaw: skill {env.ws}/skills/self-improvement (self-improve 0.1.0)",
        f"✗ openclaw: {env.ws} has no AGENTS.md yet (run OpenClaw once: it seeds one; "
        "the next `self-improve watch` or `sweep` pass then adds the reminder block)",
    ]
    assert env.doctor_openclaw() == [
        {"harness": "openclaw", "ok": False,
         "check": f"reminder block missing: {env.ws} has no AGENTS.md yet (OpenClaw seeds it on its first run)",
         "fix": "run OpenClaw once; the next `self-improve watch` or `sweep` pass then adds the reminder block"},
        {"harness": "openclaw", "ok": True, "check": f"skill installed in {env.ws}/skills/self-improvement",
         "fix": "self-improve install --harness openclaw"},
    ]
    assert env.sweep() == []  # not seeded yet: nothing written
    assert not (env.ws / "AGENTS.md").exists()

    (env.ws / "AGENTS.md").write_bytes(TEMPLATE)  # OpenClaw's first run
    assert env.sweep() == [f"openclaw: added the reminder block to {env.ws}/AGENTS.md (OpenClaw has seeded it)"]
    after = (env.ws / "AGENTS.md").read_bytes()
    assert after == install_text(TEMPLATE.decode()).encode()
    assert after.startswith(TEMPLATE)  # the template byte for byte, our block after it
    assert [c["ok"] for c in env.doctor_openclaw()] == [True, True]

    before = tree_hash(env.ws)
    assert env.sweep() == []  # settled: the next pass touches nothing
    assert tree_hash(env.ws) == before
    assert pending.waiting() == []


def test_a_single_watch_pass_adds_it_too(env: Env) -> None:
    install_before_first_run(env)
    (env.ws / "AGENTS.md").write_bytes(TEMPLATE)
    stop = threading.Event()
    stop.set()  # one pass, then return
    reports = []
    watch(env.state, offsets=Offsets(env.home / "offsets.json"), stop=stop, on_pass=reports.append, options=WatchOptions())
    assert [r.notes for r in reports] == [(f"openclaw: added the reminder block to {env.ws}/AGENTS.md (OpenClaw has seeded it)",)]
    assert (env.ws / "AGENTS.md").read_bytes() == install_text(TEMPLATE.decode()).encode()


def test_the_next_install_adds_it_and_nothing_waits_after(env: Env) -> None:
    install_before_first_run(env)
    (env.ws / "AGENTS.md").write_bytes(TEMPLATE)
    code, out, _ = env.cli("install", "--harness", "openclaw")
    assert code == 0 and out.splitlines()[1] == f"openclaw: add the reminder block to {env.ws}/AGENTS.md"
    assert pending.waiting() == []
    before = tree_hash(env.ws)
    assert env.sweep() == []
    assert tree_hash(env.ws) == before


def test_uninstall_before_the_first_run_leaves_nothing_waiting(env: Env) -> None:
    before = tree_hash(env.ws), sorted(p.name for p in env.ws.iterdir())
    install_before_first_run(env)
    code, out, _ = env.cli("uninstall", "--harness", "openclaw")
    assert code == 0
    assert out.splitlines()[-1] == f"openclaw: no longer waiting to add the reminder block to {env.ws}/AGENTS.md"
    assert (tree_hash(env.ws), sorted(p.name for p in env.ws.iterdir())) == before
    (env.ws / "AGENTS.md").write_bytes(TEMPLATE)
    assert env.sweep() == []
    assert (env.ws / "AGENTS.md").read_bytes() == TEMPLATE  # a block nobody wants any more: never added


def test_a_workspace_we_never_installed_into_is_never_touched(env: Env, tmp_path: Path) -> None:
    install_before_first_run(env)
    other = tmp_path / "other-ws"
    other.mkdir()
    (other / "AGENTS.md").write_bytes(TEMPLATE)
    (env.ws / "AGENTS.md").write_bytes(TEMPLATE)
    env.sweep()
    assert (other / "AGENTS.md").read_bytes() == TEMPLATE


def test_a_user_reminder_seeded_later_is_reported_once_and_never_overwritten(env: Env) -> None:
    install_before_first_run(env)
    text = TEMPLATE + b"\n## Self-improvement\nMy own reminder.\n"
    (env.ws / "AGENTS.md").write_bytes(text)
    notes = env.sweep()
    assert len(notes) == 1 and notes[0].startswith(f"openclaw: did not add the reminder block to {env.ws}/AGENTS.md: ")
    assert (env.ws / "AGENTS.md").read_bytes() == text
    assert env.sweep() == []  # reported once; `install` explains it again
