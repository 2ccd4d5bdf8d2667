"""A settings install of Claude Code gives the agent our skill: ``.claude/skills/self-improve/``
(user scope under the home, project and local scopes in the project), stamped as ours; uninstall
takes exactly our files and the folders we created, nothing of the user's."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from self_improve.commands import install as install_cmd
from self_improve.commands import uninstall as uninstall_cmd
from self_improve.harnesses.openclaw.skill import skill_sources
from tests.helpers import REPO, run_cli, tree_hash

SOURCES = skill_sources(REPO / "skill")
VERSION = "0.1.0"


def run_verb(module: Any, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root")
    sub = parser.add_subparsers(dest="command", required=True)
    module.register(sub)
    args = parser.parse_args([module.__name__.rsplit(".", 1)[1], *argv])
    return int(args.func(args))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(path)
    return path


def skill_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def everything(root: Path) -> list[str]:
    """Every file and folder below root, folders with a trailing slash."""
    return sorted(p.relative_to(root).as_posix() + ("/" if p.is_dir() else "") for p in root.rglob("*"))


def check_our_skill(folder: Path) -> None:
    files = skill_files(folder)
    stamp = json.loads(files.pop(".self-improve-stamp"))
    assert files == SOURCES  # SKILL.md and references/, byte for byte
    assert (stamp["installed_by"], stamp["version"]) == ("self-improve", VERSION)
    assert sorted(stamp["files"]) == sorted(SOURCES)


def test_user_scope_install_then_uninstall(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = home / ".claude/skills/other/SKILL.md"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"---\nname: other\n---\nmine\n")
    before = tree_hash(home), everything(home)
    folder = home / ".claude/skills/self-improve"

    assert run_verb(install_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out == (
        f"claude: create {home}/.claude/settings.json\n"
        f"claude: install the skill into {folder} ({len(SOURCES)} files)\n"
    )
    check_our_skill(folder)
    assert other.read_bytes() == b"---\nname: other\n---\nmine\n"

    assert run_verb(install_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out == (
        f"claude: {home}/.claude/settings.json is already up to date\n"
        f"claude: skill {folder} is up to date (self-improve {VERSION})\n"
    )
    assert run_verb(install_cmd, "--status", "--harness", "claude") == 0
    assert capsys.readouterr().out == (
        f"claude (user): installed in {home}/.claude/settings.json\n"
        f"claude (user): skill installed in {folder} (self-improve {VERSION})\n"
    )

    assert run_verb(uninstall_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out == (
        f"claude: delete {home}/.claude/settings.json (self-improve created it; nothing else was in it)\n"
        f"claude: remove the skill from {folder}\n"
    )
    assert (tree_hash(home), everything(home)) == before  # the user's skills/other/ and its folders stay


def test_project_scope_leaves_the_project_exactly_as_before(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = home / "app"
    project.mkdir()
    (project / "README.md").write_bytes(b"app\n")
    before = everything(project)
    assert run_verb(install_cmd, "--harness", "claude", "--project", str(project), "--scope", "project") == 0
    capsys.readouterr()
    check_our_skill(project / ".claude/skills/self-improve")
    assert not (home / ".claude").exists()
    assert run_verb(uninstall_cmd, "--harness", "claude", "--project", str(project), "--scope", "project") == 0
    capsys.readouterr()
    assert everything(project) == before  # .claude/, skills/ and self-improve/ were ours: all gone


def test_local_scope_installs_into_the_project_too(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = home / "app"
    (project / ".claude").mkdir(parents=True)
    assert run_verb(install_cmd, "--harness", "claude", "--project", str(project)) == 0
    check_our_skill(project / ".claude/skills/self-improve")
    assert run_verb(uninstall_cmd, "--harness", "claude", "--project", str(project)) == 0
    capsys.readouterr()
    assert everything(project) == [".claude/"]  # the user's .claude/ stays


def test_a_folder_that_is_not_ours_is_skipped_and_kept(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = home / ".claude/skills/self-improve"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(b"my own\n")
    assert run_verb(install_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out == (
        f"claude: create {home}/.claude/settings.json\n"
        f"claude: skipped the skill: {folder} holds a skill self-improve did not install (no .self-improve-stamp); "
        "move it away to install ours\n"
    )
    assert skill_files(folder) == {"SKILL.md": b"my own\n"}
    assert run_verb(install_cmd, "--status", "--harness", "claude") == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"claude (user): skill not installed: {folder} holds a skill self-improve did not install"
    )
    assert run_verb(uninstall_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"claude: left {folder} alone: self-improve did not install it (no stamp of ours)"
    )
    assert skill_files(folder) == {"SKILL.md": b"my own\n"}


def test_an_edited_skill_is_left_alone(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = home / ".claude/skills/self-improve"
    assert run_verb(install_cmd, "--harness", "claude") == 0
    (folder / "SKILL.md").write_bytes(b"edited\n")
    capsys.readouterr()
    assert run_verb(install_cmd, "--harness", "claude") == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"claude: skipped the skill: SKILL.md in {folder} changed since self-improve installed it; "
        "save your edit elsewhere and delete the file to update"
    )
    assert run_verb(uninstall_cmd, "--harness", "claude") == 0
    assert (folder / "SKILL.md").read_bytes() == b"edited\n"


def skill_checks(project: Path, home: Path) -> list[dict[str, Any]]:
    result = run_cli("doctor", "--project", str(project), "--json", env={"HOME": str(home)})
    return [c for c in json.loads(result.stdout) if c["harness"] == "claude" and c["check"].startswith(("skill ", "no self-improve skill "))]


def test_doctor_reports_the_skill(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = home / "app"
    project.mkdir()
    assert run_verb(install_cmd, "--harness", "claude") == 0
    assert skill_checks(project, home) == [
        {"harness": "claude", "ok": True, "check": f"skill installed in {home}/.claude/skills/self-improve", "fix": ""}
    ]
    (home / ".claude/skills/self-improve/.self-improve-stamp").unlink()
    assert skill_checks(project, home) == [{
        "harness": "claude", "ok": False,
        "check": f"no self-improve skill in {home}/.claude/skills/ or {project}/.claude/skills/: the agent is not told how to log a fix",
        "fix": "self-improve install --harness claude",
    }]
