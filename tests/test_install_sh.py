"""``./install.sh``: idempotent, prints what it changed, and ``--uninstall`` gives every byte back."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
from pathlib import Path

from tests.helpers import REPO, tree_hash


def install_sh(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "PATH": os.environ.get("PATH", "")}
    return subprocess.run([str(REPO / "install.sh"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_install_twice_then_uninstall(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    settings = home / ".claude/settings.json"
    settings.write_bytes(b'{\n\t"model": "opus",\n\t"hooks": {}\n}')
    original = settings.read_bytes()

    first = install_sh("--project", str(project), home=home, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert f"linked {home}/.local/bin/self-improve -> {REPO}/.venv/bin/self-improve" in first.stdout
    assert f"claude: update {settings}" in first.stdout
    assert "created .learnings/ERRORS.md" in first.stdout
    assert (home / ".local/bin/self-improve").resolve() == (REPO / ".venv/bin/self-improve").resolve()
    assert "hooks/post-bash" in settings.read_text()
    snapshot = {**tree_hash(home), **{f"project/{k}": v for k, v in tree_hash(project).items()}}

    second = install_sh("--project", str(project), home=home, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert f"claude: {settings} is already up to date" in second.stdout
    assert ".learnings/ already initialised" in second.stdout
    assert {**tree_hash(home), **{f"project/{k}": v for k, v in tree_hash(project).items()}} == snapshot

    removed = install_sh("--uninstall", home=home, cwd=tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert settings.read_bytes() == original
    assert not (home / ".local/bin/self-improve").exists()
    assert (project / ".learnings/ERRORS.md").exists()  # learnings are the user's: never removed


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    result = install_sh("--frobnicate", home=tmp_path, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "install.sh: unknown option: --frobnicate (see --help)\n"


# ---- issue 14: --help, progress, --test's skip reasons, on a fake checkout --------------------------
# A copy of install.sh beside a fake Python: `python3.13 -m venv` makes a venv of stubs, whose
# pip, mypy, import-linter, ruff and pytest print their arguments. Nothing is installed for real.

FAKE_SYSTEM_PYTHON = """#!/bin/sh
case "$1 $2" in
    "-m venv") mkdir -p "$4/bin" && cp "$FAKE_VENV_BIN"/* "$4/bin/" ;;
    "-c import sys; print(sys.executable)") echo "$0" ;;
esac
"""
FAKE_VENV_PYTHON = """#!/bin/sh
case "$1 $2" in
    "-m pip") sleep "${FAKE_PIP_SECONDS:-0}" ;;
    "-m mypy"|"-m pytest") shift; echo "$*" ;;
esac
"""
FAKE_TOOL = '#!/bin/sh\necho "$(basename "$0") $*"\n'


def fake_checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    checkout, system_bin, venv_bin, home = (tmp_path / name for name in ("checkout", "system-bin", "venv-bin", "home"))
    for folder in (checkout, system_bin, venv_bin, home):
        folder.mkdir()
    shutil.copy2(REPO / "install.sh", checkout / "install.sh")  # with its mode
    scripts = {system_bin / "python3.13": FAKE_SYSTEM_PYTHON, venv_bin / "python": FAKE_VENV_PYTHON,
               **{venv_bin / tool: FAKE_TOOL for tool in ("self-improve", "lint-imports", "ruff")}}
    for path, text in scripts.items():
        path.write_text(text)
        path.chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{system_bin}:/usr/bin:/bin", "FAKE_VENV_BIN": str(venv_bin)}
    return checkout, env


def run_fake(checkout: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(checkout / "install.sh"), *args], cwd=checkout, env=env, capture_output=True, text=True,
                          timeout=60)


def test_help_prints_only_the_help(tmp_path: Path) -> None:
    result = install_sh("--help", home=tmp_path, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "self-improve installer. Idempotent: run it again at any time.\n"
        "\n"
        "  ./install.sh [--project DIR] [--harness claude|codex|openclaw|all|none] [--scope user|project|local]\n"
        "  ./install.sh --uninstall [--harness ...] [--scope ...] [--project DIR]\n"
        "  ./install.sh --test [pytest args...]   the checks CI runs, then pytest (it lists why tests were skipped)\n"
        "  ./install.sh --help\n"
    )


def test_each_slow_step_says_what_it_does_and_how_long_it_took(tmp_path: Path) -> None:
    checkout, env = fake_checkout(tmp_path)
    result = run_fake(checkout, env, "--harness", "none")
    assert result.returncode == 0, result.stderr
    home, python = env["HOME"], env["PATH"].split(":")[0] + "/python3.13"
    assert re.sub(r"done in \d+ s", "done in N s", result.stdout) == (
        f"==> creating the virtual environment {checkout}/.venv (with {python})\n"
        "    done in N s\n"
        f"==> installing self-improve into {checkout}/.venv (pip)\n"
        "    done in N s\n"
        f"linked {home}/.local/bin/self-improve -> {checkout}/.venv/bin/self-improve\n"
        f"note: {home}/.local/bin is not on your PATH; add it to use 'self-improve' directly\n"
    )


def test_on_a_terminal_the_seconds_tick_while_pip_runs(tmp_path: Path) -> None:
    checkout, env = fake_checkout(tmp_path)
    controller, terminal = pty.openpty()
    process = subprocess.Popen([str(checkout / "install.sh"), "--harness", "none"], cwd=checkout,
                               env={**env, "FAKE_PIP_SECONDS": "2.5"}, stdout=terminal, stderr=subprocess.PIPE)
    os.close(terminal)
    seen = b""
    while chunk := read_or_end(controller):
        seen += chunk
    assert process.wait(timeout=60) == 0
    os.close(controller)
    text = seen.decode().replace("\r\n", "\n")  # the terminal's newline
    installing = text[text.index("==> installing"):]
    # Each second's count overwrites the last (\r), and the result overwrites the count.
    ticks = re.fullmatch(r"==> installing self-improve into \S+ \(pip\)\n((?:\r    \d+ s)+)\r    done in \d+ s\n",
                         installing.split("linked")[0])
    assert ticks is not None, installing
    assert ticks[1].startswith("\r    1 s")  # a busy machine may skip a count, never the first


def read_or_end(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: every writer closed the terminal
        return b""


def test_test_mode_runs_the_checks_and_has_pytest_list_skip_reasons(tmp_path: Path) -> None:
    checkout, env = fake_checkout(tmp_path)
    assert run_fake(checkout, env, "--harness", "none").returncode == 0  # makes the fake venv
    result = run_fake(checkout, env, "--test", "-q", "-x")
    assert result.returncode == 0, result.stderr
    assert re.sub(r"done in \d+ s", "done in N s", result.stdout) == (
        f"==> installing self-improve and its test tools into {checkout}/.venv (pip)\n"
        "    done in N s\n"
        "== mypy (self_improve/, disallow_untyped_defs)\n"
        "mypy\n"
        "== import-linter (the rooms' layers, no cycles)\n"
        "lint-imports --no-cache\n"
        "== ruff\n"
        "ruff check --no-cache self_improve tests bench\n"
        "== pytest\n"
        "pytest -rs -q -x\n"
    )
