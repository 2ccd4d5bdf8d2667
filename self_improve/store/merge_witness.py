"""What each side of a git merge still holds elsewhere in its store, for :mod:`self_improve.store.merge_safety`.

The merge driver sees three temporary files and the path (``%P``). To tell an entry that
``review`` moved to ``archive/<year>.md`` from one that was dropped, it must see the rest of the
*same side's* store. It reads it from git's objects, never from the working tree: a commit's tree
is exactly what that side is, and reading objects follows no symlink and blocks on no FIFO
(``.learnings/`` is repo-controlled text).

A commit speaks for a side only if its blob at ``%P`` is byte-identical to that side's file, so a
wrong guess can never vouch for a side. The guesses:

- ours: ``HEAD`` (``merge``, ``rebase``, ``cherry-pick`` and ``revert`` all merge into HEAD);
- theirs: what git leaves while it merges: the ``GITHEAD_<sha>`` variables of ``git merge`` and
  ``git pull``, the last line of ``rebase-merge/done`` (``git rebase``),
  ``rebase-apply/original-commit``, the first line of ``sequencer/todo``, and the pseudo-refs
  ``MERGE_HEAD``, ``CHERRY_PICK_HEAD``, ``REVERT_HEAD``, ``REBASE_HEAD``, ``ORIG_HEAD``.

When no guess verifies (a single ``git cherry-pick``, a virtual merge base, a file renamed on the
way) the answer is ``None``: the side's store is unknown and every removal counts as unaccounted.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path, PurePath, PurePosixPath
from typing import TypeVar

from self_improve.paths import LEARNINGS_DIR
from self_improve.store.archive import ARCHIVE_DIR
from self_improve.store.entry import parse_text
from self_improve.store.merge_safety import Side

GIT_TIMEOUT = 30
MAX_STORE_BYTES = 64 * 1024 * 1024  # beyond this the store is "unknown": the safe side, not a slow merge
MAX_STATE_FILE = 1024 * 1024
_PSEUDO_REFS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "ORIG_HEAD")
_REGULAR_MODES = (b"100644", b"100755")


P = TypeVar("P", bound=PurePath)


def store_dir(path: P) -> P | None:
    """The ``.learnings`` directory a file in the repository belongs to; None outside a store."""
    parts = path.parts
    if LEARNINGS_DIR not in parts[:-1]:
        return None
    return type(path)(*parts[: parts.index(LEARNINGS_DIR) + 1])


def _git(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], input=stdin, capture_output=True, timeout=GIT_TIMEOUT, check=False, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


class GitStoreWitness:
    """``witness(side)``: upper-case IDs in the side's other store files, or None when unknown."""

    def __init__(self, path: str, ours: bytes, theirs: bytes, *, cwd: Path | None = None, env: Mapping[str, str] | None = None) -> None:
        self._path = PurePosixPath(path.replace("\\", "/"))
        self._files = {"ours": ours, "theirs": theirs}
        self._cwd = cwd
        self._env = os.environ if env is None else env
        self._cache: dict[str, frozenset[str] | None] = {}

    def __call__(self, side: Side) -> frozenset[str] | None:
        if side not in self._cache:
            self._cache[side] = self._lookup(side)
        return self._cache[side]

    # ---- which commit is this side ------------------------------------------------------------

    def _lookup(self, side: Side) -> frozenset[str] | None:
        store = None if ".." in self._path.parts or self._path.is_absolute() else store_dir(self._path)
        if store is None:
            return None
        candidates = ["HEAD"] if side == "ours" else self._theirs_candidates()
        for commit in dict.fromkeys(candidates):  # in order, each once
            if self._blob(commit) == self._files[side]:
                return self._store_ids(commit, store)
        return None

    def _theirs_candidates(self) -> list[str]:
        found = [name[len("GITHEAD_") :] for name in self._env if name.startswith("GITHEAD_")]
        found += _second_words(self._state_file("rebase-merge/done"), last=True)
        found += [line.strip() for line in self._state_file("rebase-apply/original-commit").splitlines()[:1]]
        found += _second_words(self._state_file("sequencer/todo"), last=False)
        found += list(_PSEUDO_REFS)
        return [name for name in found if name and not name.startswith("-")]

    def _state_file(self, name: str) -> str:
        """A file git keeps in its own directory during a rebase or cherry-pick ("" if none)."""
        where = _git("rev-parse", "--git-path", name, cwd=self._cwd)
        if where is None:
            return ""
        path = Path(os.fsdecode(where.strip()))
        if self._cwd is not None and not path.is_absolute():
            path = self._cwd / path
        try:
            with path.open("rb") as handle:
                return handle.read(MAX_STATE_FILE).decode("utf-8", "replace")
        except OSError:
            return ""

    def _blob(self, commit: str) -> bytes | None:
        return _git("cat-file", "blob", f"{commit}:{self._path.as_posix()}", cwd=self._cwd)

    # ---- what that commit's store holds ----------------------------------------------------------

    def _store_ids(self, commit: str, store: PurePosixPath) -> frozenset[str] | None:
        listing = _git("ls-tree", "-r", "-l", "-z", commit, "--", f"{store.as_posix()}/", cwd=self._cwd)
        if listing is None:
            return None
        shas, total = [], 0
        for record in listing.split(b"\0"):
            parsed = _tree_record(record)
            if parsed is None:
                continue
            mode, sha, size, name = parsed
            if mode in _REGULAR_MODES and self._is_store_file(PurePosixPath(name), store):
                shas.append(sha)
                total += size
        if total > MAX_STORE_BYTES:
            return None
        if not shas:
            return frozenset()
        contents = _git("cat-file", "--batch", stdin=b"".join(sha + b"\n" for sha in shas), cwd=self._cwd)
        if contents is None:
            return None
        ids: set[str] = set()
        for text in _batch_contents(contents):
            ids.update(entry.id.upper() for entry in parse_text(text.decode("utf-8", "surrogateescape")).entries)
        return frozenset(ids)

    def _is_store_file(self, name: PurePosixPath, store: PurePosixPath) -> bool:
        if name == self._path or not name.name.lower().endswith(".md"):
            return False
        return name.parent == store or name.parent == store / ARCHIVE_DIR


def _second_words(text: str, *, last: bool) -> list[str]:
    """The commit of a todo line (``pick <sha> subject``): the last line's, or the first's."""
    lines = [line.split() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        return []
    words = lines[-1] if last else lines[0]
    return [words[1]] if len(words) > 1 else []


def _tree_record(record: bytes) -> tuple[bytes, bytes, int, str] | None:
    """``<mode> <type> <sha> <size>\\t<path>`` from ``ls-tree -l -z``."""
    head, tab, name = record.partition(b"\t")
    fields = head.split()
    if not tab or len(fields) != 4 or fields[1] != b"blob" or not fields[3].isdigit():
        return None
    return fields[0], fields[2], int(fields[3]), os.fsdecode(name)


def _batch_contents(output: bytes) -> list[bytes]:
    """The blobs of ``cat-file --batch`` output: ``<sha> <type> <size>\\n<content>\\n`` each."""
    blobs, at = [], 0
    while at < len(output):
        end = output.find(b"\n", at)
        if end < 0:
            break
        header = output[at:end].split()
        if len(header) != 3 or not header[2].isdigit():
            break  # "<sha> missing": nothing more we can trust
        size = int(header[2])
        blobs.append(output[end + 1 : end + 1 + size])
        at = end + 1 + size + 1
    return blobs
