"""Default rule targets follow the harnesses installed for the project (``review/installed.py``,
``TargetTable.for_harnesses``): Claude Code alone gets every rule in .claude/rules/self-improve.md, Codex alone in
AGENTS.md, both today's split; a file is never created for a harness the user does not use,
unless they ask (``--target``, a ``targets.*`` key in their config)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.harnesses.installer import PORTABLE_COMMAND, hook_command, load_manifest
from self_improve.review.installed import PLUGIN_NAME, installed_harnesses
from self_improve.review.managed_block import rehash
from self_improve.review.policy import TargetTable, harness_default
from tests.helpers import entry_text, record_here, run_cli, user_config, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"
ENTRY = "ERR-20260210-bbb"
RULE = "Run `make deps` before `make test`."
BLOCK = rehash(f"{BEGIN}\n## Learned rules\n- {RULE} <!-- {ENTRY} -->\n{END}\n")
OURS = PORTABLE_COMMAND.format(script="post-bash")


def settings_with_our_hook(command: str = OURS) -> str:
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    return json.dumps({"hooks": {"PostToolUse": [group]}}, indent=2) + "\n"


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    write_project(root, [
        entry_text(ENTRY, "make test fails: dependencies missing", category="make", area="tests", action=RULE,
                   pattern_key="build.missing-deps", occurrences=[(15, "1a2b3c4d"), (9, "5e6f7a8b"), (5, "9c0d1e2f")]),
    ])
    record_here(root)
    return root


def env(home: Path, **extra: str) -> dict[str, str]:
    return {**TODAY, "HOME": str(home), "CODEX_HOME": str(home / ".codex"), **extra}


RULES = ".claude/rules/self-improve.md"  # the Claude Code default target


def files(root: Path) -> list[str]:
    """Every file outside .learnings/ and .git/: the instruction files review wrote."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and p.relative_to(root).parts[0] not in (".learnings", ".git"))


def review_yes(project: Path, home: Path, *args: str, extra: dict[str, str] | None = None) -> str:
    result = run_cli("review", "--yes", *args, cwd=project, env={**env(home), **(extra or {})})
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    return result.stdout


def promote(project: Path, home: Path, *args: str) -> str:
    result = run_cli("promote", ENTRY, "--yes", *args, cwd=project, env=env(home))
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    return result.stdout


def install_claude(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text(settings_with_our_hook(), encoding="utf-8")


def install_codex(project: Path) -> None:
    (project / ".codex").mkdir()
    (project / ".codex/hooks.json").write_text(settings_with_our_hook(), encoding="utf-8")


# ---- review --yes, end to end ---------------------------------------------------------------------


def test_claude_only_a_tests_rule_lands_in_claude_md_and_no_agents_md_is_created(project: Path, home: Path) -> None:
    install_claude(project)
    assert review_yes(project, home) == f"promoted {ENTRY} to .claude/rules/self-improve.md\n"
    assert files(project) == [".claude/rules/self-improve.md", ".claude/settings.json"]
    assert (project / ".claude/rules/self-improve.md").read_text(encoding="utf-8") == BLOCK


def test_codex_only_agents_md_gets_it_and_no_claude_md_is_created(project: Path, home: Path) -> None:
    install_codex(project)
    assert review_yes(project, home) == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == [".codex/hooks.json", "AGENTS.md"]
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == BLOCK


def test_codex_only_an_error_goes_to_agents_md_too(project: Path, home: Path) -> None:
    entries = project / ".learnings" / "ERRORS.md"
    entries.write_text(entries.read_text(encoding="utf-8").replace("**Area**: tests\n", ""), encoding="utf-8")
    install_codex(project)
    assert review_yes(project, home) == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == [".codex/hooks.json", "AGENTS.md"]


def test_both_installed_keep_the_split(project: Path, home: Path) -> None:
    install_claude(project)
    install_codex(project)
    assert review_yes(project, home) == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == [".claude/settings.json", ".codex/hooks.json", "AGENTS.md"]


def test_none_detected_keeps_todays_split(project: Path, home: Path) -> None:
    assert review_yes(project, home) == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == ["AGENTS.md"]


def test_a_user_scope_install_counts(project: Path, home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude/settings.json").write_text(settings_with_our_hook(hook_command(Path("/opt/si/hooks/post-bash"), "/usr/bin/python3")), encoding="utf-8")
    assert review_yes(project, home) == f"promoted {ENTRY} to .claude/rules/self-improve.md\n"
    assert files(project) == [".claude/rules/self-improve.md"]


def test_explicit_target_in_a_claude_only_project_still_creates_agents_md(project: Path, home: Path) -> None:
    install_claude(project)
    assert promote(project, home, "--target", "AGENTS.md") == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == [".claude/settings.json", "AGENTS.md"]
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == BLOCK


def test_a_target_the_user_set_in_config_is_kept(project: Path, home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    install_claude(project)
    config = user_config(tmp_path_factory, '[targets]\nworkflow = "AGENTS.md"\n')  # equal to the default: still a choice
    assert review_yes(project, home, extra=config) == f"promoted {ENTRY} to AGENTS.md\n"
    assert files(project) == [".claude/settings.json", "AGENTS.md"]


def test_an_existing_agents_md_does_not_pull_a_claude_only_rule(project: Path, home: Path) -> None:
    install_claude(project)
    (project / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    assert review_yes(project, home) == f"promoted {ENTRY} to .claude/rules/self-improve.md\n"
    assert (project / "AGENTS.md").read_bytes() == b"# Agents\n"


# ---- detection and the table -----------------------------------------------------------------------


def test_detection_reads_each_place(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    home.mkdir()
    assert installed_harnesses(project, home, {}) == frozenset()
    (project / ".claude").mkdir()
    (project / ".claude/settings.local.json").write_text('{"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}', encoding="utf-8")
    assert installed_harnesses(project, home, {}) == frozenset()  # someone else's hook
    (project / ".claude/settings.local.json").write_text(settings_with_our_hook(), encoding="utf-8")
    assert installed_harnesses(project, home, {}) == {"claude"}
    (home / ".codex").mkdir()
    (home / ".codex/config.toml").write_text(f"[[hooks.PostToolUse]]\nmatcher = \"Bash\"\nhooks = [{{ type = \"command\", command = {json.dumps(OURS)} }}]\n", encoding="utf-8")
    assert installed_harnesses(project, home, {}) == {"claude", "codex"}
    (project / "SOUL.md").write_text("soul\n", encoding="utf-8")
    assert installed_harnesses(project, home, {}) == {"claude", "codex", "openclaw"}


def test_the_enabled_plugin_counts_and_codex_home_is_read(tmp_path: Path) -> None:
    project, home, codex = tmp_path / "p", tmp_path / "h", tmp_path / "codex"
    for folder in (project, home / ".claude", codex):
        folder.mkdir(parents=True)
    (home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {f"{PLUGIN_NAME}@{PLUGIN_NAME}": True}}), encoding="utf-8")
    (codex / "hooks.json").write_text(settings_with_our_hook(), encoding="utf-8")
    assert installed_harnesses(project, home, {}) == {"claude"}
    assert installed_harnesses(project, home, {"CODEX_HOME": str(codex)}) == {"claude", "codex"}
    (home / ".claude/settings.json").write_text(json.dumps({"enabledPlugins": {f"{PLUGIN_NAME}@x": False}}), encoding="utf-8")
    assert installed_harnesses(project, home, {}) == frozenset()


def test_our_constants_match_the_manifest() -> None:
    manifest = load_manifest()
    assert manifest.name == PLUGIN_NAME
    assert manifest.option("claude", "settings", "user") == "~/.claude/settings.json"
    assert (manifest.option("claude", "settings", "project"), manifest.option("claude", "settings", "local")) == (
        ".claude/settings.json", ".claude/settings.local.json")
    assert (manifest.option("codex", "hooks_file", "user"), manifest.option("codex", "hooks_file", "project")) == (
        "~/.codex/hooks.json", ".codex/hooks.json")


@pytest.mark.parametrize(("installed", "expected"), [
    (set(), (RULES, RULES, RULES, "AGENTS.md")),
    ({"claude"}, (RULES, RULES, RULES, RULES)),
    ({"codex"}, ("AGENTS.md", "AGENTS.md", "AGENTS.md", "AGENTS.md")),
    ({"claude", "codex"}, (RULES, RULES, RULES, "AGENTS.md")),
    ({"openclaw"}, (RULES, RULES, RULES, "AGENTS.md")),
    ({"claude", "openclaw"}, (RULES, RULES, RULES, RULES)),
])
def test_the_table_per_installed_set(installed: set[str], expected: tuple[str, ...]) -> None:
    table = TargetTable().for_harnesses(installed, chosen=())
    assert (table.learning, table.error, table.feature, table.workflow_target) == expected
    assert (table.openclaw_default, table.openclaw_behaviour) == ("AGENTS.md", "SOUL.md")


def test_chosen_keys_and_other_files_are_never_redirected() -> None:
    table = TargetTable().for_harnesses({"claude"}, chosen=("targets.workflow",))
    assert table.workflow_target == "AGENTS.md"
    assert harness_default(".github/copilot-instructions.md", {"codex"}) == ".github/copilot-instructions.md"
