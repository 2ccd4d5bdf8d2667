"""``self-improve doctor``: one line per check, the fix for each failure, exit 1 on any."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.helpers import REPO, run_cli


ON_PATH = f"{REPO / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"  # as after an install that linked it there


def doctor(project: Path, home: Path, path: str = ON_PATH) -> tuple[int, list[str]]:
    result = run_cli("doctor", "--project", str(project), cwd=project,
                     env={"HOME": str(home), "OPENCLAW_WORKSPACE_DIR": str(home / "none"), "PATH": path})
    return result.returncode, [re.sub(r"in \d+ ms", "in N ms", line) for line in result.stdout.splitlines()]


def test_healthy_install(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    env = {"HOME": str(home)}
    assert run_cli("init", cwd=project, env=env).returncode == 0
    assert run_cli("install", "--harness", "claude", "--scope", "user", cwd=project, env=env).returncode == 0
    code, lines = doctor(project, home)
    assert code == 0, lines
    settings = home / ".claude/settings.json"
    assert lines[:4] == [
        f"✓ claude: UserPromptSubmit hook registered in {settings}",
        f"✓ claude: PostToolUse (Bash) hook registered in {settings}",
        f"✓ claude: PreToolUse (Bash) hook registered in {settings}",
        f"✓ claude: PostToolUseFailure (Bash) hook registered in {settings}",
    ]
    assert "✓ claude: post-bash answered a sample PostToolUseFailure correctly in N ms (exit 0)" in lines
    assert "✓ claude: prompt-submit answered a sample UserPromptSubmit correctly in N ms (exit 0)" in lines
    assert "✓ claude: pre-bash answered a sample PreToolUse correctly in N ms (exit 0)" in lines
    assert lines[-1] == "✓ learnings: lint: no problems in .learnings/"
    assert list((project / ".learnings").glob("*.md")) and not (project / ".learnings/ERRORS.md").read_text().count("## [")


def test_missing_hooks_broken_paths_and_double_registration(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    code, lines = doctor(project, home)
    assert code == 1
    assert lines[:2] == ["✗ claude: UserPromptSubmit hook is not registered", "    fix: self-improve install --harness claude"]
    run_cli("install", "--harness", "claude", "--scope", "user", cwd=project, env={"HOME": str(home)})
    settings = home / ".claude/settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"self-improve@self-improve": True}
    text = json.dumps(data).replace("/hooks/post-bash", "/moved/hooks/post-bash")
    settings.write_text(text)
    code, lines = doctor(project, home)
    assert code == 1
    assert "✗ claude: registered twice: in settings and as the enabled plugin (every hook fires twice)" in lines
    assert any(line.startswith("✗ claude: hook script ") and line.endswith("/moved/hooks/post-bash is missing or not executable") for line in lines)


def test_codex_hooks_need_the_users_review(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    project.mkdir()
    assert run_cli("install", "--harness", "codex", "--scope", "user", cwd=project, env={"HOME": str(home)}).returncode == 0
    hooks = home / ".codex/hooks.json"
    code, lines = doctor(project, home)
    assert code == 1
    assert f"✗ codex: hooks in {hooks} are not trusted yet, so Codex skips them" in lines
    (home / ".codex/config.toml").write_text(f'[hooks.state."{hooks}:PostToolUse:0:0"]\ntrusted_hash = "sha256:x"\n')
    code, lines = doctor(project, home)
    assert f"✓ codex: hooks in {hooks} were reviewed in /hooks" in lines


def test_doctor_lists_the_project_settings_it_ignored(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    assert run_cli("--root", str(project), "init").returncode == 0
    (project / ".learnings/config.toml").write_text("[promotion]\nrequire_approval = false\nmin_occurrences = 1\n")
    _, lines = doctor(project, home)
    assert [line for line in lines if line.startswith("✓ config:")] == [
        "✓ config: .learnings/config.toml: ignored promotion.require_approval: personal, honoured only from the user-level config",
        "✓ config: .learnings/config.toml: ignored promotion.min_occurrences: 1 is out of bounds, 2 used",
    ]


def test_the_cli_off_path_is_reported_with_where_the_hooks_point_instead(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    code, lines = doctor(project, home, path="/usr/bin:/bin")
    assert code == 1
    index = lines.index(f"✗ cli: `self-improve` is not on PATH: the hooks print {REPO / 'bin' / 'self-improve'} in the commands they suggest")
    assert lines[index + 1] == f"    fix: add {home / '.local' / 'bin'} (where ./install.sh links it) to PATH in your shell's profile"
    _, lines = doctor(project, home)
    assert "✓ cli: `self-improve` is on PATH" in lines
