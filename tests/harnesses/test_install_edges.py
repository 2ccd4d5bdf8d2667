"""Install edge cases (issue 9, finding 13): symlinks, read-only files, where temp files go.

Through the real CLI where the user meets them: one line on stderr, exit 1, nothing written.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from self_improve import atomic
from self_improve.harnesses import installer as inst
from self_improve.review import managed_block
from self_improve.store.store import GITIGNORE
from self_improve.user_edit import user_temp_dir
from self_improve.paths import user_state_dir
from tests.concurrency_helpers import cli_env
from tests.helpers import PNPM, make_project, run_cli, statuses, tree_hash

ORIGINAL = '{\n  "model": "opus"\n}\n'
NOTHING = "self-improve changed nothing"


def claude(home: Path, verb: str = "install") -> tuple[int, str, str]:
    done = run_cli(verb, "--harness", "claude", "--scope", "user", cwd=home, env={"HOME": str(home)})
    return done.returncode, done.stdout, done.stderr


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def ours(path: Path) -> bool:
    return "hooks/post-bash" in path.read_text(encoding="utf-8")


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    return tmp_path / "home"


def test_install_refuses_a_dangling_settings_symlink(home: Path) -> None:
    missing = home / "dotfiles" / "claude.json"
    settings(home).symlink_to(missing)
    before = tree_hash(home)
    code, out, err = claude(home)
    assert (code, out, err) == (
        1,
        "",
        (
            f"self-improve: error: {settings(home)} is a symlink to {missing}, which does not exist; "
            f"fix or remove the link ({NOTHING})\n"
        ),
    )
    assert tree_hash(home) == before and settings(home).is_symlink() and not missing.exists()


def test_uninstall_leaves_a_dangling_settings_symlink_alone(home: Path) -> None:
    settings(home).symlink_to(home / "nowhere.json")
    code, _, err = claude(home, "uninstall")
    assert (code, err) == (0, "")
    assert settings(home).is_symlink() and os.readlink(settings(home)) == str(home / "nowhere.json")


def test_uninstall_never_deletes_a_symlink_nor_what_it_points_to(home: Path) -> None:
    # The state the issue found: a file holding nothing but our hooks (no backup: we created
    # it), reached through a link. Before, uninstall deleted the link and left our hooks behind.
    assert claude(home)[0] == 0
    managed = home / "dotfiles" / "claude.json"
    managed.parent.mkdir()
    os.replace(settings(home), managed)
    settings(home).symlink_to(managed)
    assert ours(managed) and not inst.backup_path(settings(home)).exists()
    code, _, err = claude(home, "uninstall")
    assert (code, err) == (0, "")
    assert settings(home).is_symlink() and managed.read_text(encoding="utf-8") == "{}\n"


def test_a_symlink_to_a_real_file_is_still_written_through(home: Path) -> None:
    managed = home / "dotfiles" / "claude.json"
    managed.parent.mkdir()
    managed.write_text(ORIGINAL, encoding="utf-8")
    settings(home).symlink_to(managed)
    assert claude(home)[0] == 0
    assert settings(home).is_symlink() and ours(managed)
    assert claude(home, "uninstall")[0] == 0
    assert settings(home).is_symlink() and managed.read_text(encoding="utf-8") == ORIGINAL


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_a_read_only_settings_file_is_refused_not_rewritten(home: Path, verb: str) -> None:
    if verb == "uninstall":
        assert claude(home)[0] == 0  # something of ours to remove
    else:
        settings(home).write_text(ORIGINAL, encoding="utf-8")
    settings(home).chmod(0o444)
    before, inode = tree_hash(home), settings(home).stat().st_ino
    code, out, err = claude(home, verb)
    assert (code, out, err) == (
        1,
        "",
        (
            f"self-improve: error: {settings(home)} is read-only (mode 0444); make it writable (chmod u+w) "
            f"to let self-improve edit it; {NOTHING}\n"
        ),
    )
    assert tree_hash(home) == before and settings(home).stat().st_ino == inode
    assert stat.S_IMODE(settings(home).stat().st_mode) == 0o444


def test_a_read_only_file_that_needs_no_change_is_fine(home: Path) -> None:
    assert claude(home)[0] == 0
    settings(home).chmod(0o444)
    code, out, err = claude(home)
    assert (code, err) == (0, "") and f"claude: {settings(home)} is already up to date\n" in out


def test_one_refusal_writes_no_file_of_the_plan(home: Path) -> None:
    codex_hooks = home / ".codex" / "hooks.json"
    settings(home).write_text(ORIGINAL, encoding="utf-8")
    codex_hooks.parent.mkdir()
    codex_hooks.write_text("{}\n", encoding="utf-8")
    codex_hooks.chmod(0o444)
    before = tree_hash(home)
    done = run_cli("install", "--harness", "claude,codex", "--scope", "user", cwd=home, env={"HOME": str(home)})
    assert done.returncode == 1 and done.stderr.startswith(f"self-improve: error: {codex_hooks} is read-only")
    assert tree_hash(home) == before  # claude's settings.json, planned first, was not written either


def spy_on_temp_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The directory of every temp file atomic_write creates (read back from its descriptor)."""
    where: list[str] = []
    original = atomic._write_temp

    def spy(dir_fd: int, name: str, data: bytes, mode: int, durable: bool) -> str:
        where.append(os.readlink(f"/proc/self/fd/{dir_fd}"))
        return original(dir_fd, name, data, mode, durable)

    monkeypatch.setattr(atomic, "_write_temp", spy)
    return where


def test_promote_puts_its_temp_file_under_learnings_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A SIGKILL between the temp write and the rename leaves the temp file where it was made:
    # in .learnings/.state/ (git-ignored), never as .CLAUDE.md.*.tmp in the project root.
    where = spy_on_temp_files(monkeypatch)
    (tmp_path / ".learnings" / ".state").mkdir(parents=True)
    (tmp_path / "CLAUDE.md").write_text("# Project\n", encoding="utf-8")
    managed_block.edit_file(tmp_path / "CLAUDE.md", tmp_path, lambda t: managed_block.upsert_rule(t, "LRN-20260201-aaa", "Use pnpm."))
    assert where == [str(tmp_path / ".learnings" / ".state")]
    assert ".state/" in GITIGNORE.splitlines()  # our .learnings/.gitignore covers that directory


def test_outside_a_project_the_temp_file_goes_to_our_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = spy_on_temp_files(monkeypatch)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    managed_block.edit_file(workspace / "AGENTS.md", workspace, lambda t: t + "# Agents\n")
    path = tmp_path / "home" / ".claude" / "settings.json"
    inst.FileChange(path, None, ORIGINAL.encode(), settle=0.0).apply()
    # AGENTS.md's temp, then that of our record that we created AGENTS.md (review/created_files.py,
    # in our state dir beside the record itself), then the same record's for home/ and
    # home/.claude/ (the folders the install made), then settings.json's
    assert where == [user_temp_dir(), user_state_dir(), user_state_dir(), user_state_dir(), user_temp_dir()]
    assert json.loads(path.read_bytes()) == {"model": "opus"}


def test_promote_refuses_a_read_only_claude_md_and_leaves_the_entry_pending(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project")
    (root / "CLAUDE.md").chmod(0o444)
    before = tree_hash(root)
    done = run_cli("promote", PNPM, "--yes", "--target", "CLAUDE.md", cwd=root, env=cli_env())  # the user's own file
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        (
            f"self-improve: error: {root}/CLAUDE.md is read-only (mode 0444); make it writable (chmod u+w) "
            "to let self-improve edit it\n"
        ),
    )
    assert tree_hash(root) == before and statuses(root)[PNPM] == "pending"
