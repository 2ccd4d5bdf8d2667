"""user_edit.edit_user_file: every concurrent writer's bytes survive our edit, deterministically.

The races are staged with a thread that acts at the exact moment that matters (between our read
and our replace, or just after our rename), so each test fails without the guard it checks.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from self_improve import user_edit
from self_improve.paths import user_state_dir

ORIGINAL = b"# Notes\n\nIndent with tabs.\n"
RULE = b"- Use pnpm. <!-- LRN-20260201-aaa -->\n"


def add_rule(data: bytes | None) -> bytes:
    """A pure, idempotent edit like upsert_rule: the rule once, at the end."""
    text = data or b""
    return text if RULE in text else text + RULE


def replace_by_rename(path: Path, data: bytes) -> None:
    """What another program (Claude Code) does: a temp file, then a rename over the path."""
    temp = path.with_name(path.name + ".theirs")
    temp.write_bytes(data)
    os.replace(temp, path)


def wait_for_new_inode(path: Path, old_inode: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while os.stat(path).st_ino == old_inode:
        if time.monotonic() > deadline:
            raise AssertionError("our replace never happened")
        time.sleep(0.0005)


def test_a_writer_between_our_read_and_our_replace_is_re_read(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(ORIGINAL)
    seen: list[bytes | None] = []

    def edit(data: bytes | None) -> bytes:
        seen.append(data)
        if len(seen) == 1:  # somebody renames their version in after our read
            replace_by_rename(path, ORIGINAL + b"theirs\n")
        return add_rule(data)

    result = user_edit.edit_user_file(str(path), edit, settle=0)
    assert seen == [ORIGINAL, ORIGINAL + b"theirs\n"]
    assert path.read_bytes() == ORIGINAL + b"theirs\n" + RULE
    assert (result.before, result.after) == (ORIGINAL + b"theirs\n", ORIGINAL + b"theirs\n" + RULE)


def test_an_append_into_the_old_inode_after_our_rename_is_moved_into_the_new_file(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(ORIGINAL)
    inode = os.stat(path).st_ino
    opened = threading.Event()

    def late_writer() -> None:
        with open(path, "ab") as handle:  # opened before our rename: it holds the old inode
            opened.set()
            wait_for_new_inode(path, inode)
            handle.write(b"late line\n")  # lands in the unlinked inode

    thread = threading.Thread(target=late_writer)
    thread.start()
    opened.wait()
    user_edit.edit_user_file(str(path), add_rule, settle=0)
    thread.join()
    assert path.read_bytes() == ORIGINAL + b"late line\n" + RULE


def test_a_writer_that_renames_its_version_over_ours_gets_our_edit_again(tmp_path: Path) -> None:
    path = tmp_path / "settings.md"
    path.write_bytes(ORIGINAL)
    inode = os.stat(path).st_ino

    def stale_renamer() -> None:  # read before our replace, renames right after it
        wait_for_new_inode(path, inode)
        replace_by_rename(path, ORIGINAL + b"theirs\n")

    thread = threading.Thread(target=stale_renamer)
    thread.start()
    user_edit.edit_user_file(str(path), add_rule, settle=0.3)
    thread.join()
    assert path.read_bytes() == ORIGINAL + b"theirs\n" + RULE


def test_a_file_that_never_stops_changing_is_refused_with_nothing_of_ours_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Long enough that even a loaded machine retries at least once (the first attempt is
    # milliseconds), short enough for a unit test; the count asserted is "retried", not a rate.
    monkeypatch.setattr(user_edit, "RETRY_FOR", 0.5)
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(ORIGINAL)
    calls: list[int] = []

    def edit(data: bytes | None) -> bytes:
        calls.append(1)
        replace_by_rename(path, ORIGINAL + b"change %d\n" % len(calls))
        return add_rule(data)

    with pytest.raises(user_edit.EditRefused) as refused:
        user_edit.edit_user_file(str(path), edit, settle=0)
    assert str(refused.value) == f"{path} kept changing while self-improve edited it; try again (self-improve changed nothing)"
    assert path.read_bytes() == ORIGINAL + b"change %d\n" % len(calls)
    assert len(calls) >= 2


def test_a_read_only_file_is_refused_by_its_mode_bits(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(ORIGINAL)
    path.chmod(0o444)
    with pytest.raises(user_edit.EditRefused) as refused:
        user_edit.edit_user_file(str(path), add_rule)
    assert str(refused.value) == (
        f"{path} is read-only (mode 0444); make it writable (chmod u+w) to let self-improve edit it; "
        "self-improve changed nothing"
    )
    assert path.read_bytes() == ORIGINAL and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_symlink_is_refused_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(ORIGINAL)
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(real)
    with pytest.raises(user_edit.EditRefused) as refused:
        user_edit.edit_user_file(str(link), add_rule)
    assert str(refused.value) == f"refusing to edit {link}: it is a symlink; self-improve changed nothing"
    assert real.read_bytes() == ORIGINAL and link.is_symlink()


def test_the_temp_file_goes_to_the_given_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from self_improve import atomic

    temp_dirs: list[str] = []
    original = atomic._write_temp

    def spy(dir_fd: int, name: str, data: bytes, mode: int, durable: bool) -> str:
        temp_dirs.append(os.readlink(f"/proc/self/fd/{dir_fd}"))
        return original(dir_fd, name, data, mode, durable)

    monkeypatch.setattr(atomic, "_write_temp", spy)
    state = tmp_path / ".learnings" / ".state"
    state.mkdir(parents=True)
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(ORIGINAL)
    user_edit.edit_user_file(str(path), add_rule, temp_dir=str(state), settle=0)
    assert temp_dirs == [str(state)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".learnings", "CLAUDE.md"]


def test_one_lock_per_real_file_in_the_user_state_dir(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(real)
    lock = user_edit.lock_path_for(str(real))
    assert os.path.dirname(lock) == os.path.join(user_state_dir(), "locks")
    assert user_edit.lock_path_for(str(link)) == lock  # same file, same lock
    assert user_edit.lock_path_for(str(tmp_path / "other.json")) != lock
