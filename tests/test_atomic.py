"""``atomic.atomic_write(expect=…)`` against a program that renames its own version in between our
check and our replace: the exchange makes that a ``Conflict`` with the newcomer in place."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from self_improve import atomic


def _renamer(path: Path, content: bytes) -> Callable[[object], bool]:
    """An ``expect`` predicate that says "unchanged", then lets another program rename its file in:
    exactly the window between our check and our rename."""

    def check(now: object) -> bool:
        temp = path.with_name(path.name + ".theirs")
        temp.write_bytes(content)
        os.replace(temp, path)
        return True

    return check


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name != "settings.json")


@pytest.mark.skipif(atomic._renameat2() is None, reason="renameat2 is not in this libc")
def test_a_version_renamed_in_after_our_check_is_kept_and_we_conflict(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"a": 1}\n')
    with pytest.raises(atomic.Conflict):
        atomic.atomic_write(path, b'{"a": 1, "ours": 2}\n', expect=_renamer(path, b'{"a": 1, "theirs": 3}\n'))
    assert path.read_bytes() == b'{"a": 1, "theirs": 3}\n'
    assert leftovers(tmp_path) == []


def test_an_unchanged_file_is_replaced_and_no_temp_is_left(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b"old\n")
    atomic.atomic_write(path, b"new\n", expect=b"old\n")
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []


def test_without_exchange_support_the_plain_replace_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic, "_renameat2", lambda: None)
    path = tmp_path / "settings.json"
    path.write_bytes(b"old\n")
    atomic.atomic_write(path, b"new\n", expect=b"old\n")
    assert path.read_bytes() == b"new\n"
    assert leftovers(tmp_path) == []
