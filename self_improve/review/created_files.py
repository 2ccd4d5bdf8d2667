"""Which instruction files self-improve created, so that retiring the last rule deletes only those.

Taking our last block out of a file leaves it empty. Whether it then goes or stays depends on
what it was before our block, and the bytes cannot say: a file that did not exist and a 0-byte
file both become the block alone. So when an edit of ours creates a file, its real path is
recorded in ``created-files`` in the user's state dir (one per line; per machine, like the
provenance ledger), and an emptied file is deleted only when it is recorded there. Whatever we
cannot know (no record: another clone, a moved project, an older version, a state dir we cannot
write) keeps a 0-byte file: deleting a user's file is the worse error. A file that existed
without any block of ours is the user's from then on, and leaves the record.
"""

from __future__ import annotations

import os
from pathlib import Path

from self_improve.atomic import atomic_write
from self_improve.paths import user_state_dir

RECORD = "created-files"


def _record() -> Path:
    return Path(user_state_dir()) / RECORD


def _key(target: Path) -> str:
    return os.path.realpath(target)


def _read() -> list[str]:
    try:
        return _record().read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return []


def _write(names: list[str]) -> None:
    try:
        _record().parent.mkdir(parents=True, exist_ok=True)
        atomic_write(_record(), "".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape"))
    except OSError:
        pass  # not recorded: the file will be kept (empty), never deleted, which is the safe side


def was_created(target: Path) -> bool:
    return _key(target) in _read()


def remember_created(target: Path) -> None:
    names = _read()
    if _key(target) not in names:
        _write([*names, _key(target)])


def forget_created(target: Path) -> None:
    names = _read()
    if _key(target) in names:
        _write([name for name in names if name != _key(target)])
