"""``--scope user`` on every verb that reads or writes entries (issue 14, item 13).

Each verb acts on the user store (``$XDG_DATA_HOME/self-improve/``, here the default
``~/.local/share/self-improve/`` of an isolated home) and on the user-level instruction file
(``~/.claude/rules/self-improve.md``, which Claude Code loads for every project), names those files from ``~``, and leaves the project's own store,
which holds the same IDs, byte for byte as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from self_improve.store.store import HEADERS, Store
from tests.helpers import entry_text, run_cli, tree_hash, write_project

PNPM = "LRN-20261201-aaa"
BOOM = "ERR-20261201-bbb"
NOW = "2026-12-01T10:00:00+00:00"


def texts() -> list[str]:
    return [
        entry_text(PNPM, "Use pnpm, not npm", category="correction", action="Run pnpm, never npm."),
        entry_text(BOOM, "make fails without sudo"),
    ]


def user_dir(home: Path) -> Path:
    return home / ".local" / "share" / "self-improve"


@pytest.fixture()
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(project, home, env): the same entries in the project's store and in the user store."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    (project / ".git").mkdir()
    home.mkdir()
    write_project(project, texts())
    store = Store(home, learnings_dir=user_dir(home))
    store.init()
    (user_dir(home) / "LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + texts()[0], encoding="utf-8")
    (user_dir(home) / "ERRORS.md").write_text(HEADERS["error"] + "\n" + texts()[1], encoding="utf-8")
    env = {"HOME": str(home), "XDG_DATA_HOME": "", "SELF_IMPROVE_NOW": NOW, "SELF_IMPROVE_TODAY": "2026-12-01"}
    return project, home, env


def user(*args: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    result = run_cli(*args, "--scope", "user", cwd=cwd, env=env)
    return result.returncode, result.stdout, result.stderr


def learnings(home: Path) -> str:
    return (user_dir(home) / "LEARNINGS.md").read_text(encoding="utf-8")


def test_show_and_export_read_the_user_store(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    (user_dir(home) / "LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + texts()[0].replace("Use pnpm", "Mine: pnpm"), encoding="utf-8")
    before = tree_hash(project)
    assert user("show", PNPM, cwd=project, env=env) == (0, texts()[0].replace("Use pnpm", "Mine: pnpm"), "")
    assert user("export", "--kind", "learning", cwd=project, env=env) == (0, texts()[0].replace("Use pnpm", "Mine: pnpm"), "")
    assert tree_hash(project) == before


def test_promote_mark_and_retire_use_the_user_level_rules_file(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    before = tree_hash(project)
    assert user("promote", PNPM, "--yes", cwd=project, env=env) == (0, f"promoted {PNPM} to ~/.claude/rules/self-improve.md\n", "")
    claude = home / ".claude" / "rules" / "self-improve.md"
    assert f"- Run pnpm, never npm. <!-- {PNPM} -->\n" in claude.read_text(encoding="utf-8")
    assert user("mark", PNPM, "--harmful", cwd=project, env=env) == (0, (
        f"{PNPM}: helpful 0, harmful 1\n"
        "it misled more often than it helped: `self-improve review` proposes retiring it "
        f"(`self-improve retire {PNPM} --scope user`)\n"), "")
    assert user("retire", PNPM, "--yes", cwd=project, env=env) == (0, f"retired {PNPM}: its rule is gone from ~/.claude/rules/self-improve.md\n", "")
    assert not (home / ".claude").exists()  # the block was the whole file: it goes, as it came, with the folders we made
    assert "**Status**: retired" in learnings(home)
    assert tree_hash(project) == before


def test_retire_in_user_scope_asks_for_the_user_scope_command(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    assert user("promote", PNPM, "--yes", cwd=project, env=env)[0] == 0
    before = tree_hash(home)
    assert user("retire", PNPM, cwd=project, env=env) == (1, "", (
        "self-improve: error: promotion.require_approval is on: ask the user, then run "
        f"`self-improve retire {PNPM} --scope user --yes` (nothing changed)\n"))
    assert tree_hash(home) == before


@pytest.mark.parametrize(
    ("args", "out", "changed"),
    [
        (("resolve", BOOM, "--note", "ran it with sudo"), f"{BOOM} resolved\n", "**Status**: resolved"),
        (("set-status", BOOM, "in_progress"), f"{BOOM} is now in_progress\n", "**Status**: in_progress"),
    ],
)
def test_edits_land_in_the_user_store(setup: tuple[Path, Path, dict[str, str]], args: tuple[str, ...], out: str, changed: str) -> None:
    project, home, env = setup
    before = tree_hash(project)
    assert user(*args, cwd=project, env=env) == (0, out, "")
    assert changed in (user_dir(home) / "ERRORS.md").read_text(encoding="utf-8")
    assert tree_hash(project) == before


def test_archive_and_restore_name_the_user_files_from_home(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    before, errors = tree_hash(project), (user_dir(home) / "ERRORS.md").read_bytes()
    assert user("archive", BOOM, cwd=project, env=env) == (0, (
        f"archived {BOOM} to ~/.local/share/self-improve/archive/2026.md "
        f"(`self-improve restore {BOOM} --scope user` gives back status pending)\n"), "")
    assert BOOM not in (user_dir(home) / "ERRORS.md").read_text(encoding="utf-8")
    assert user("show", BOOM, "--json", cwd=project, env=env)[0] == 0  # found in the user archive
    assert user("resolve", BOOM, cwd=project, env=env) == (1, "", (
        f"self-improve: error: {BOOM} is archived in ~/.local/share/self-improve/archive/2026.md: "
        f"run `self-improve restore {BOOM} --scope user` first\n"))
    assert user("restore", BOOM, cwd=project, env=env) == (
        0, f"restored {BOOM} to ~/.local/share/self-improve/ERRORS.md (status pending)\n", "")
    assert (user_dir(home) / "ERRORS.md").read_bytes() == errors
    assert tree_hash(project) == before


def test_lint_lints_the_user_store(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    assert user("lint", cwd=project, env=env) == (0, "no problems\n", "")
    (user_dir(home) / "LEARNINGS.md").write_text(HEADERS["learning"] + "\n" + texts()[0] + "\n" + texts()[0], encoding="utf-8")
    code, out, err = user("lint", cwd=project, env=env)
    assert (code, err) == (1, "")
    assert out == f"~/.local/share/self-improve/LEARNINGS.md:28: duplicate ID {PNPM} (first at line 9): give one of the two entries a new ID\n"
    assert run_cli("lint", cwd=project, env=env).stdout == "no problems\n"  # the project's store is another one


def test_user_scope_dry_runs_write_nothing_anywhere(setup: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = setup
    before = (tree_hash(project), tree_hash(home))
    code, out, err = user("resolve", BOOM, "--dry-run", cwd=project, env=env)
    assert (code, err) == (0, "")
    assert out.startswith("--- a/.local/share/self-improve/ERRORS.md\n+++ b/.local/share/self-improve/ERRORS.md\n")
    assert "+**Status**: resolved\n" in out
    assert (tree_hash(project), tree_hash(home)) == before
