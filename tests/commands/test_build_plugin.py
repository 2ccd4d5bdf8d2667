"""build-plugin renders the committed plugin files; the plugin's own scripts (session-start, bin/)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import self_improve
from self_improve.commands import build_plugin
from self_improve.harnesses import installer as inst
from tests.helpers import REPO

SESSION_START = REPO / "hooks" / "session-start"
SHIM = REPO / "bin" / "self-improve"


def run_build(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    build_plugin.register(sub)
    args = parser.parse_args(["build-plugin", *argv])
    return int(args.func(args))


def test_committed_plugin_files_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_build("--check") == 0, capsys.readouterr().err


def test_rendering_is_deterministic_and_newline_terminated() -> None:
    manifest = inst.load_manifest(REPO)
    first, second = build_plugin.render(manifest), build_plugin.render(manifest)
    assert first == second
    assert set(first) == {".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json"}
    for data in first.values():
        assert data.endswith(b"}\n") and not data.endswith(b"\n\n")


def test_plugin_files_say_what_we_verified() -> None:
    manifest = inst.load_manifest(REPO)
    plugin = build_plugin.plugin_json(manifest)
    assert plugin["name"] == "self-improve" and plugin["skills"] == ["./skill"]
    assert plugin["version"] == self_improve.__version__
    market = build_plugin.marketplace_json(manifest)
    assert market["plugins"][0]["source"] == "./" and market["plugins"][0]["name"] == plugin["name"]
    hooks = build_plugin.hooks_json(manifest)["hooks"]
    assert list(hooks) == sorted(hooks) == ["PostToolUse", "PostToolUseFailure", "PreToolUse", "SessionStart", "UserPromptSubmit"]
    assert hooks["PostToolUse"][0]["matcher"] == hooks["PostToolUseFailure"][0]["matcher"] == "Bash"
    assert hooks["PreToolUse"][0]["matcher"] == "Bash"
    assert "matcher" not in hooks["UserPromptSubmit"][0]
    commands = {event: groups[0]["hooks"][0]["command"] for event, groups in hooks.items()}
    assert commands["PostToolUseFailure"] == '"${CLAUDE_PLUGIN_ROOT}/hooks/post-bash"'
    assert commands["PreToolUse"] == '"${CLAUDE_PLUGIN_ROOT}/hooks/pre-bash"'
    assert commands["SessionStart"] == '"${CLAUDE_PLUGIN_ROOT}/hooks/session-start"'


def test_manifest_hooks_per_harness() -> None:
    manifest = inst.load_manifest(REPO)
    claude = [(h.event, h.script) for h in manifest.hooks_for("claude")]
    assert claude == [("UserPromptSubmit", "prompt-submit"), ("PostToolUse", "post-bash"), ("PreToolUse", "pre-bash"),
                      ("PostToolUseFailure", "post-bash"), ("SessionStart", "session-ready")]
    assert [h.event for h in manifest.hooks_for("codex")] == ["UserPromptSubmit", "PostToolUse", "PreToolUse"]
    assert manifest.option("openclaw", "skill_dir") == "self-improvement"


def test_check_lists_drifted_files_and_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for relative in ("plugin.toml", "hooks", ".claude-plugin", "bin", "commands"):
        source = REPO / relative
        if source.is_dir():
            shutil.copytree(source, tmp_path / relative)
        else:
            shutil.copy2(source, tmp_path / relative)
    monkeypatch.setattr(build_plugin, "checkout_root", lambda: tmp_path)
    assert run_build("--check") == 0
    (tmp_path / "hooks" / "hooks.json").write_text("{}\n")
    (tmp_path / ".claude-plugin" / "marketplace.json").unlink()
    (tmp_path / "hooks" / "session-start").chmod(0o644)
    assert run_build("--check") == 1
    err = capsys.readouterr().err
    assert "hooks/hooks.json is out of date" in err and ".claude-plugin/marketplace.json is out of date" in err
    assert "hooks/session-start is not executable" in err
    assert (tmp_path / "hooks" / "hooks.json").read_text() == "{}\n"  # --check writes nothing
    assert run_build() == 0
    assert "wrote hooks/hooks.json" in capsys.readouterr().out
    (tmp_path / "hooks" / "session-start").chmod(0o755)
    assert run_build("--check") == 0


def test_missing_manifest_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_plugin, "checkout_root", lambda: tmp_path)
    with pytest.raises(self_improve.errors.SelfImproveError, match="plugin.toml not found"):
        run_build("--check")


# --- hooks/session-start: the background bootstrap -------------------------------------------


def plugin_copy(tmp_path: Path) -> Path:
    """The plugin as a marketplace install sees it: no .venv."""
    root = tmp_path / "plugin"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for relative in ("self_improve", "hooks", "bin"):
        shutil.copytree(REPO / relative, root / relative, ignore=ignore)
    return root


def sh(script: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ["PATH"], "HOME": env.get("HOME", "/nonexistent")}
    return subprocess.run([str(script), *args], env={**base, **env}, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False)


def wait_for(path: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {seconds}s")
        time.sleep(0.1)


def test_session_start_without_plugin_data_does_nothing(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    proc = sh(root / "hooks" / "session-start", {"HOME": str(tmp_path)})
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


def test_session_start_bootstraps_in_the_background_once(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    data = tmp_path / "data"
    env = {"HOME": str(tmp_path), "CLAUDE_PLUGIN_DATA": str(data), "SELF_IMPROVE_BOOTSTRAP_REQUIREMENTS": ""}
    started = time.monotonic()
    proc = sh(root / "hooks" / "session-start", env)
    assert time.monotonic() - started < 5  # it returns at once; the venv is built behind it
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    stamp = data / "venv" / ".self-improve-stamp"
    wait_for(stamp)
    assert stamp.read_text() == "self-improve-bootstrap 1: \n"
    wait_for_gone(data / "bootstrap.lock")
    python = data / "venv" / "bin" / "python"
    out = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(data / "venv")  # built in venv.new.PID, renamed: still works
    mtime = stamp.stat().st_mtime_ns
    assert sh(root / "hooks" / "session-start", env).returncode == 0
    time.sleep(0.5)
    assert stamp.stat().st_mtime_ns == mtime and not (data / "bootstrap.lock").exists()
    assert sorted(p.name for p in data.iterdir()) == ["bootstrap.log", "venv"]
    # The shim then prefers that venv (found through CLAUDE_PLUGIN_DATA).
    version = sh(root / "bin" / "self-improve", env, "--version")
    assert version.returncode == 0 and self_improve.__version__ in version.stdout


def wait_for_gone(path: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} still there after {seconds}s")
        time.sleep(0.1)


def test_session_start_skips_a_checkout_a_pinned_python_and_a_held_lock(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    data = tmp_path / "data"
    env = {"CLAUDE_PLUGIN_DATA": str(data), "SELF_IMPROVE_BOOTSTRAP_REQUIREMENTS": ""}
    assert sh(root / "hooks" / "session-start", {**env, "SELF_IMPROVE_NO_BOOTSTRAP": "1"}).returncode == 0
    assert sh(root / "hooks" / "session-start", {**env, "SELF_IMPROVE_PYTHON": sys.executable}).returncode == 0
    (data / "bootstrap.lock").mkdir(parents=True)
    assert sh(root / "hooks" / "session-start", env).returncode == 0
    (root / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, root / ".venv" / "bin" / "python")
    (data / "bootstrap.lock").rmdir()
    assert sh(root / "hooks" / "session-start", env).returncode == 0
    time.sleep(0.5)
    assert sorted(p.name for p in data.iterdir()) == []


def test_session_start_failure_is_not_retried_for_a_day(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    data = tmp_path / "data"
    tools = tmp_path / "tools"  # the usual tools, but no python at all
    tools.mkdir()
    for tool in ("sh", "mkdir", "find", "cat", "mv", "rm", "rmdir", "date", "setsid", "nohup", "dirname"):
        found = shutil.which(tool)
        if found:
            (tools / tool).symlink_to(found)
    env = {"CLAUDE_PLUGIN_DATA": str(data), "PATH": str(tools)}
    proc = subprocess.run(["/bin/sh", str(root / "hooks" / "session-start")], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert proc.returncode == 0 and proc.stdout == ""
    wait_for(data / "bootstrap.failed")
    wait_for_gone(data / "bootstrap.lock")
    log = (data / "bootstrap.log").read_text()
    assert "no python3 >= 3.11 found" in log
    subprocess.run(["/bin/sh", str(root / "hooks" / "session-start")], env=env, timeout=60, stdin=subprocess.DEVNULL,
                   check=True)
    time.sleep(0.5)
    assert (data / "bootstrap.log").read_text() == log  # not tried again


# --- bin/self-improve ---------------------------------------------------------------------------


def test_shim_runs_the_cli_from_a_copy_without_venv(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    proc = sh(root / "bin" / "self-improve", {"HOME": str(tmp_path), "SELF_IMPROVE_PYTHON": sys.executable}, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"self-improve {self_improve.__version__}"


def test_shim_finds_the_plugin_data_venv_without_the_variable(tmp_path: Path) -> None:
    """The Bash tool gets no CLAUDE_PLUGIN_DATA: the shim looks where Claude Code keeps it."""
    root = plugin_copy(tmp_path)
    fake = tmp_path / ".claude" / "plugins" / "data" / "self-improve-self-improve" / "venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\necho "via data venv" >&2\nexec {sys.executable} "$@"\n')
    fake.chmod(0o755)
    link = tmp_path / "links" / "self-improve"
    link.parent.mkdir()
    link.symlink_to(root / "bin" / "self-improve")  # e.g. linked into ~/.local/bin
    proc = sh(link, {"HOME": str(tmp_path)}, "--version")
    assert proc.returncode == 0, proc.stderr
    assert "via data venv" in proc.stderr and self_improve.__version__ in proc.stdout


def test_shim_refuses_an_old_python(tmp_path: Path) -> None:
    root = plugin_copy(tmp_path)
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    (bindir / "python3").write_text("#!/bin/sh\nexit 1\n")
    (bindir / "python3").chmod(0o755)
    proc = subprocess.run([str(root / "bin" / "self-improve"), "--version"], capture_output=True, text=True,
                          env={"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path)}, timeout=60, check=False)
    assert proc.returncode == 1 and "needs Python >= 3.11" in proc.stderr


def test_generated_json_parses() -> None:
    for relative in (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "hooks/hooks.json"):
        assert isinstance(json.loads((REPO / relative).read_text()), dict)
