"""``extract-skill`` writes where the project's agent loads skills: ``.claude/skills/`` where
self-improve is installed for Claude Code (``review/installed.py``), else ``skills/``;
``--output-dir`` overrides either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.harnesses.installer import PORTABLE_COMMAND
from self_improve.store.store import Store
from tests.helpers import entry_text, run_cli, tree_hash, write_project

ENTRY = "ERR-20260202-bbb"
HOOKED = json.dumps({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": PORTABLE_COMMAND.format(script="post-bash")}]}]}}) + "\n"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    write_project(root, [entry_text(ENTRY, "pytest fails with ImportError from the root",
                                    action="Run `python -m pytest` so the root is on sys.path.", occurrences=[(3, "t1")])])
    return root


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def extract(project: Path, home: Path, *args: str) -> str:
    result = run_cli("extract-skill", "fix-imports", "--from", ENTRY, *args, cwd=project,
                     env={"HOME": str(home), "CODEX_HOME": str(home / ".codex")})
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    return result.stdout


def skills(project: Path) -> list[str]:
    return sorted(str(p.relative_to(project)) for p in project.rglob("SKILL.md"))


def hook_claude(settings: Path) -> None:
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(HOOKED, encoding="utf-8")


def test_claude_code_installed_for_the_project(project: Path, home: Path) -> None:
    hook_claude(project / ".claude/settings.local.json")
    assert extract(project, home) == "extracted ERR-20260202-bbb into .claude/skills/fix-imports/SKILL.md\n"
    assert skills(project) == [".claude/skills/fix-imports/SKILL.md"]
    assert Store(project).get(ENTRY).field("Skill-Path") == ".claude/skills/fix-imports"


def test_claude_code_installed_for_the_user(project: Path, home: Path) -> None:
    hook_claude(home / ".claude/settings.json")
    assert extract(project, home) == "extracted ERR-20260202-bbb into .claude/skills/fix-imports/SKILL.md\n"
    assert skills(project) == [".claude/skills/fix-imports/SKILL.md"]


def test_no_claude_code_keeps_skills(project: Path, home: Path) -> None:
    assert extract(project, home) == "extracted ERR-20260202-bbb into skills/fix-imports/SKILL.md\n"
    assert skills(project) == ["skills/fix-imports/SKILL.md"]


def test_an_openclaw_workspace_keeps_skills(project: Path, home: Path) -> None:
    hook_claude(home / ".claude/settings.json")
    (project / "SOUL.md").write_text("soul\n", encoding="utf-8")
    assert extract(project, home) == "extracted ERR-20260202-bbb into skills/fix-imports/SKILL.md\n"


def test_output_dir_overrides_the_detection(project: Path, home: Path) -> None:
    hook_claude(project / ".claude/settings.local.json")
    assert extract(project, home, "--output-dir", "skills") == "extracted ERR-20260202-bbb into skills/fix-imports/SKILL.md\n"
    assert skills(project) == ["skills/fix-imports/SKILL.md"]


def test_dry_run_shows_the_detected_place_and_writes_nothing(project: Path, home: Path) -> None:
    hook_claude(project / ".claude/settings.local.json")
    before = tree_hash(project)
    assert extract(project, home, "--dry-run").startswith("--- /dev/null\n+++ b/.claude/skills/fix-imports/SKILL.md\n")
    assert tree_hash(project) == before
