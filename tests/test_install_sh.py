"""``./install.sh``: idempotent, prints what it changed, and ``--uninstall`` gives every byte back."""

from __future__ import annotations

import os
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
