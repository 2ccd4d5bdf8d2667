"""Rules where Claude Code already looks (issue 16): ``.claude/rules/self-improve.md`` is the
default target, ``~/.claude/rules/self-improve.md`` the user scope's; a rule already living in
CLAUDE.md stays there; a rule confined to one subtree goes to a path-scoped
``.claude/rules/self-improve-<slug>.md`` whose ``paths:`` frontmatter survives every block edit.
Exact bytes and exact trees throughout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.harnesses.installer import PORTABLE_COMMAND
from self_improve.review.managed_block import rehash
from self_improve.review.subject_paths import is_command_rule, scope_subtree
from self_improve.store.store import HEADERS, Store
from tests.helpers import entry_text, record_here, run_cli, tree_hash, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"
RULES = ".claude/rules/self-improve.md"
PNPM, PNPM_RULE = "LRN-20260201-aaa", "Use `pnpm install`, not npm."
LOAD, LOAD_RULE = "ERR-20260202-bbb", "In models.py, read optional config keys with `.get()`."
SAVE, SAVE_RULE = "ERR-20260203-ccc", "In models.py, close the file that save() opens."
RECENT = [(15, "1a2b3c4d"), (9, "5e6f7a8b"), (5, "9c0d1e2f")]
SCOPED_NAME = ".claude/rules/self-improve-app.md"
FRONTMATTER = '---\npaths:\n  - "app/**"\n---\n'


def block(*bullets: tuple[str, str]) -> str:
    lines = "".join(f"- {rule} <!-- {entry_id} -->\n" for entry_id, rule in bullets)
    return rehash(f"{BEGIN}\n## Learned rules\n{lines}{END}\n")


def install_claude(root: Path) -> None:
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": PORTABLE_COMMAND.format(script="post-bash")}]}
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude/settings.json").write_text(json.dumps({"hooks": {"PostToolUse": [group]}}) + "\n", encoding="utf-8")


def files(root: Path) -> dict[str, str]:
    """The project's tree outside .learnings/ and .git/: what review may have written."""
    return {name: digest for name, digest in tree_hash(root).items() if name.split("/", 1)[0] not in (".learnings", ".git")}


def cli(root: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli(*args, cwd=root, env=TODAY)
    return result.returncode, result.stdout, result.stderr


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    write_project(root, [entry_text(PNPM, "Use pnpm, not npm", category="correction", action=PNPM_RULE, occurrences=RECENT)])
    record_here(root)
    return root


# ---- 1. the default: our own rules file, CLAUDE.md untouched ---------------------------------------


def test_claude_only_review_yes_writes_the_rules_file_and_leaves_claude_md_alone(project: Path) -> None:
    install_claude(project)
    before = files(project)
    assert cli(project, "review", "--yes") == (0, f"promoted {PNPM} to {RULES}\n", "")
    assert (project / RULES).read_text(encoding="utf-8") == block((PNPM, PNPM_RULE))
    after = files(project)
    assert sorted(after) == [RULES, ".claude/settings.json"] and not (project / "CLAUDE.md").exists()
    assert {name: digest for name, digest in after.items() if name != RULES} == before
    assert f"**Promoted**: {RULES}\n" in (project / ".learnings/LEARNINGS.md").read_text(encoding="utf-8")


def test_retiring_the_last_rule_gives_the_tree_back_and_keeps_the_users_claude_folder(project: Path) -> None:
    install_claude(project)
    (project / ".claude/agents").mkdir()
    (project / ".claude/agents/mine.md").write_text("# my agent\n", encoding="utf-8")
    (project / "CLAUDE.md").write_text("# Project\n\nIndent with tabs.\n", encoding="utf-8")
    before = files(project)
    assert cli(project, "promote", PNPM, "--yes") == (0, f"promoted {PNPM} to {RULES}\n", "")
    assert (project / "CLAUDE.md").read_bytes() == b"# Project\n\nIndent with tabs.\n"
    assert cli(project, "retire", PNPM, "--yes") == (0, f"retired {PNPM}: its rule is gone from {RULES}\n", "")
    assert files(project) == before
    assert not (project / ".claude/rules").exists()  # the folder we created went with our file
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["agents", "settings.json"]


def test_a_fresh_project_gets_its_claude_folders_back_removed(project: Path) -> None:
    before = files(project)
    assert cli(project, "promote", PNPM, "--yes") == (0, f"promoted {PNPM} to {RULES}\n", "")
    assert cli(project, "retire", PNPM, "--yes")[0] == 0
    assert files(project) == before and not (project / ".claude").exists()


def test_target_claude_md_still_works_and_a_rules_path_is_accepted(project: Path) -> None:
    assert cli(project, "promote", PNPM, "--yes", "--target", "CLAUDE.md") == (0, f"promoted {PNPM} to CLAUDE.md\n", "")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == block((PNPM, PNPM_RULE))
    assert not (project / ".claude").exists()
    moved = cli(project, "promote", PNPM, "--yes", "--target", ".claude/rules/team.md")
    assert moved == (0, f"promoted {PNPM} to .claude/rules/team.md (moved from CLAUDE.md)\n", "")
    assert (project / ".claude/rules/team.md").read_text(encoding="utf-8") == block((PNPM, PNPM_RULE))
    assert not (project / "CLAUDE.md").exists()


def test_a_target_the_user_set_wins(project: Path) -> None:
    (project / ".learnings/config.toml").write_text('[targets]\nlearning = "CLAUDE.md"\n', encoding="utf-8")
    install_claude(project)
    assert cli(project, "review", "--yes") == (0, f"promoted {PNPM} to CLAUDE.md\n", "")
    assert not (project / RULES).exists()


# ---- 2. existing blocks in CLAUDE.md keep working ---------------------------------------------------


def existing_claude_md(project: Path) -> bytes:
    """The entry promoted into CLAUDE.md by an earlier version: its record and its bullet there."""
    learnings = project / ".learnings/LEARNINGS.md"
    text = learnings.read_text(encoding="utf-8").replace("**Status**: pending\n", "**Status**: promoted\n**Promoted**: CLAUDE.md\n")
    learnings.write_text(text, encoding="utf-8")
    original = f"# Project\n\n{block((PNPM, PNPM_RULE))}".encode()
    (project / "CLAUDE.md").write_bytes(original)
    return original


def test_a_rule_in_claude_md_stays_there_and_is_retired_there(project: Path) -> None:
    existing_claude_md(project)
    install_claude(project)
    assert cli(project, "lint") == (0, "no problems\n", "")
    assert cli(project, "promote", PNPM, "--yes", "--rule", "Use pnpm, never npm.") == (0, f"promoted {PNPM} to CLAUDE.md\n", "")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == f"# Project\n\n{block((PNPM, 'Use pnpm, never npm.'))}"
    assert not (project / ".claude/rules").exists()  # no second copy
    assert cli(project, "retire", PNPM, "--yes") == (0, f"retired {PNPM}: its rule is gone from CLAUDE.md\n", "")
    assert (project / "CLAUDE.md").read_bytes() == b"# Project\n"


def test_a_stray_bullet_in_claude_md_keeps_a_re_promotion_there(project: Path) -> None:
    """Not promoted by our record, but its bullet is in CLAUDE.md: review --yes promotes it there."""
    original = f"# Project\n\n{block((PNPM, PNPM_RULE))}"
    (project / "CLAUDE.md").write_text(original, encoding="utf-8")
    removed = f"removed the rule for {PNPM} from CLAUDE.md: {PNPM_RULE}\n"  # drift: a bullet nobody promoted
    assert cli(project, "review", "--yes") == (0, f"{removed}promoted {PNPM} to CLAUDE.md\n", "")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == original
    assert not (project / ".claude").exists()


def test_drift_scans_the_rules_files(project: Path) -> None:
    (project / ".claude/rules").mkdir(parents=True)
    (project / RULES).write_text(block(("LRN-20260209-zzz", "Ghost rule.")), encoding="utf-8")
    (project / SCOPED_NAME).write_text(FRONTMATTER + "\n" + block(("LRN-20260209-yyy", "Other ghost.")), encoding="utf-8")
    code, out, _ = cli(project, "lint")
    assert code == 1
    assert f"{RULES}:3: rule for LRN-20260209-zzz, which is not an entry in .learnings/" in out
    assert f"{SCOPED_NAME}:8: rule for LRN-20260209-yyy, which is not an entry in .learnings/" in out


# ---- the user scope ------------------------------------------------------------------------------


def test_user_scope_goes_to_the_users_rules_file(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    data = home / ".local/share/self-improve"
    Store(home, learnings_dir=data).init()
    (data / "LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + entry_text(PNPM, "Use pnpm", action=PNPM_RULE), encoding="utf-8")
    env = {"HOME": str(home), "XDG_DATA_HOME": "", **TODAY}
    result = run_cli("promote", PNPM, "--yes", "--scope", "user", cwd=project, env=env)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"promoted {PNPM} to ~/{RULES}\n", "")
    assert (home / RULES).read_text(encoding="utf-8") == block((PNPM, PNPM_RULE))
    assert not (home / ".claude/CLAUDE.md").exists()
    result = run_cli("retire", PNPM, "--yes", "--scope", "user", cwd=project, env=env)
    assert (result.returncode, result.stdout) == (0, f"retired {PNPM}: its rule is gone from ~/{RULES}\n")
    assert not (home / ".claude").exists()


# ---- 3. path-scoped rules ----------------------------------------------------------------------------


@pytest.fixture()
def app_project(project: Path) -> Path:
    (project / "app").mkdir()
    (project / "app/models.py").write_text("CONFIG = {}\n", encoding="utf-8")
    errors = [
        entry_text(LOAD, "KeyError in load()", action=LOAD_RULE, pattern_key="python.traceback/KeyError@app/models.py:load",
                   occurrences=RECENT),
        entry_text(SAVE, "save() leaks a file", action=SAVE_RULE, meta=[("Related Files", "app/models.py")], occurrences=RECENT),
    ]
    (project / ".learnings/ERRORS.md").write_text(HEADERS["error"] + "\n" + "\n".join(errors), encoding="utf-8")
    return project


def test_a_rule_confined_to_a_subtree_gets_a_path_scoped_file_whose_frontmatter_survives(app_project: Path) -> None:
    before = files(app_project)
    assert cli(app_project, "promote", LOAD, "--yes") == (0, f"promoted {LOAD} to {SCOPED_NAME}\n", "")
    first = (FRONTMATTER + "\n" + block((LOAD, LOAD_RULE))).encode()
    assert (app_project / SCOPED_NAME).read_bytes() == first
    assert cli(app_project, "promote", SAVE, "--yes") == (0, f"promoted {SAVE} to {SCOPED_NAME}\n", "")
    assert (app_project / SCOPED_NAME).read_bytes() == (FRONTMATTER + "\n" + block((LOAD, LOAD_RULE), (SAVE, SAVE_RULE))).encode()
    assert cli(app_project, "retire", SAVE, "--yes")[0] == 0
    assert (app_project / SCOPED_NAME).read_bytes() == first  # frontmatter and first rule byte for byte
    assert cli(app_project, "retire", LOAD, "--yes") == (0, f"retired {LOAD}: its rule is gone from {SCOPED_NAME}\n", "")
    assert files(app_project) == before and not (app_project / ".claude").exists()


def test_review_yes_places_scoped_and_unscoped_rules(app_project: Path) -> None:
    record_here(app_project)
    assert cli(app_project, "review", "--yes") == (0, (
        f"promoted {LOAD} to {SCOPED_NAME}\npromoted {SAVE} to {SCOPED_NAME}\npromoted {PNPM} to {RULES}\n"
    ), "")
    assert (app_project / RULES).read_text(encoding="utf-8") == block((PNPM, PNPM_RULE))
    assert (app_project / SCOPED_NAME).read_text(encoding="utf-8") == FRONTMATTER + "\n" + block((LOAD, LOAD_RULE), (SAVE, SAVE_RULE))


def test_a_users_file_of_that_name_keeps_its_frontmatter(app_project: Path) -> None:
    (app_project / ".claude/rules").mkdir(parents=True)
    (app_project / SCOPED_NAME).write_bytes(FRONTMATTER.encode())
    assert cli(app_project, "promote", LOAD, "--yes") == (0, f"promoted {LOAD} to {SCOPED_NAME}\n", "")
    assert cli(app_project, "retire", LOAD, "--yes")[0] == 0
    assert (app_project / SCOPED_NAME).read_bytes() == FRONTMATTER.encode()  # theirs before: it stays as it was


def test_another_frontmatter_in_that_file_sends_the_rule_to_the_unscoped_file(app_project: Path) -> None:
    (app_project / ".claude/rules").mkdir(parents=True)
    (app_project / SCOPED_NAME).write_text('---\npaths:\n  - "app/**/*.ts"\n---\n', encoding="utf-8")
    assert cli(app_project, "promote", LOAD, "--yes") == (0, f"promoted {LOAD} to {RULES}\n", "")


def entry(summary: str = "x", **fields: object) -> object:
    from self_improve.store.entry import parse_text

    text = HEADERS["error"] + "\n" + entry_text("ERR-20260202-bbb", summary, **fields)  # type: ignore[arg-type]
    return parse_text(text).entries[0]


@pytest.mark.parametrize(("fields", "rule", "expected"), [
    ({"pattern_key": "python.traceback/KeyError@app/models.py:load"}, LOAD_RULE, "app"),
    ({"meta": [("Related Files", "app/models.py, app/views/list.py")]}, "In models.py, keep it.", "app"),
    ({"meta": [("Related Files", "pkg/web/src/a.py")]}, "In a.py, keep it.", "pkg/web"),
    # not scoped: a command, an observed fix, a file at the root, a hidden folder, two subtrees,
    # a path that is not there, a rule that does not name the file
    ({"meta": [("Related Files", "app/models.py")]}, "Run `python app/models.py` after editing models.py.", ""),
    ({"meta": [("Related Files", "app/models.py")]}, "Install the deps before touching models.py.", ""),
    ({"meta": [("Related Files", "app/models.py"), ("Observed-Fix", "pytest -x")]}, "In models.py, keep it.", ""),
    ({"meta": [("Related Files", "setup.py")]}, "In setup.py, keep it.", ""),
    ({"meta": [("Related Files", ".github/ci.md")]}, "In ci.md, keep it.", ""),
    ({"meta": [("Related Files", "app/models.py, pkg/web/src/a.py")]}, "In models.py, keep it.", ""),
    ({"meta": [("Related Files", "app/gone.py")]}, "In gone.py, keep it.", ""),
    ({"meta": [("Related Files", "../app/models.py")]}, "In models.py, keep it.", ""),
    ({"pattern_key": "deps.module-not-found/python:yaml"}, "In models.py, keep it.", ""),
    ({"meta": [("Related Files", "app/models.py")]}, "Always keep it short.", ""),
])
def test_scope_subtree(tmp_path: Path, fields: dict[str, object], rule: str, expected: str) -> None:
    for name in ("app/models.py", "app/views/list.py", "pkg/web/src/a.py", "setup.py", ".github/ci.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    assert scope_subtree(tmp_path, entry(**fields), rule) == expected  # type: ignore[arg-type]


def test_a_symlinked_folder_is_never_scoped(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "real/models.py").write_text("x\n", encoding="utf-8")
    (tmp_path / "app").symlink_to(tmp_path / "real")
    assert scope_subtree(tmp_path, entry(meta=[("Related Files", "app/models.py")]), "In models.py, keep it.") == ""  # type: ignore[arg-type]


def test_command_rules() -> None:
    plain = entry()
    assert is_command_rule(plain, "Use `python -m pytest` in app.")  # type: ignore[arg-type]
    assert is_command_rule(plain, "Re-run the migration after editing models.py.")  # type: ignore[arg-type]
    assert not is_command_rule(plain, "In models.py, use `dict.get` for optional keys.")  # type: ignore[arg-type]
