"""Editing a file the user owns (CLAUDE.md, AGENTS.md, settings.json, hooks.json, .gitattributes)
without losing a concurrent writer's change.

Other programs write these files while we do: Claude Code rewrites settings.json (temp file and
rename), the user appends to CLAUDE.md (``echo … >> CLAUDE.md``), a second ``self-improve
promote`` edits the same block. One edit here is:

1. **Our lock**, one per file (``<user state dir>/locks/<hash of the real path>.lock``), so two of
   our own processes never interleave on one file, whichever command or store they come from.
2. **Read, edit, compare-and-replace.** The bytes are read through a descriptor we keep; the edit
   is a pure function of those bytes; ``atomic.atomic_write(expect=…)`` re-reads just before
   ``os.replace`` and raises ``Conflict`` when somebody else wrote meanwhile (another inode, or
   other bytes; a pure append is let through, see 3). Then we re-read, re-apply the pure edit and
   try again, for up to ``RETRY_FOR`` seconds, else refuse with nothing written.
3. **Writers of the old inode.** A program that opened the file *before* our rename still writes
   into the old inode, which the rename has unlinked: its bytes would be lost. So after the
   replace we wait until nobody holds the old inode open for writing (a Linux read lease,
   ``F_SETLEASE``, is granted exactly then), then compare its bytes with what we read.
   When it grew, we take the old inode's bytes, plus whatever was appended to our new file
   since, re-apply the edit and replace again.
4. **Writers that rename over ours.** A program that read the file just before our replace and
   renames its own version a moment later drops our change (it never saw it). We look again
   ``SETTLE`` seconds after our last write and re-apply the edit to what we find (our edits are
   idempotent: applied to a file that has them, they change nothing).

Temp files go to ``temp_dir`` when given (``.learnings/.state/``: same filesystem, ignored by git),
so a kill never leaves one beside the user's file. A file whose owner has no write permission is
refused, not rewritten: the mode bits are checked, since root ignores them.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import random
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass

from self_improve import atomic
from self_improve.errors import SelfImproveError
from self_improve.lock import locked
from self_improve.paths import user_state_dir

BytesEdit = Callable[[bytes | None], bytes | None]
"""A pure edit: the file's bytes (None: absent) to its new bytes (None: delete the file)."""

RETRY_FOR = 3.0  # seconds of compare-and-replace attempts before we give up and refuse
BACKOFF = (0.001, 0.01)  # a random pause between attempts, so we fall between another writer's
MERGE_ROUNDS = 8  # re-merges of late writes (into the old inode, or over our file) after our rename
WRITER_WAIT = 2.0  # seconds we wait for a writer that still holds the old inode open
SETTLE = 0.05  # seconds a writer that read before our replace has to rename its version over ours
LOCK_TIMEOUT = 30.0
_POLL = 0.002


class EditRefused(SelfImproveError):
    """The edit could not be made safely; nothing of ours was written."""


@dataclass(frozen=True)
class Edited:
    """What the final round read and wrote (``before == after``: nothing to do)."""

    before: bytes | None
    after: bytes | None


@dataclass
class _Snapshot:
    """The file as we read it: its bytes, the descriptor we read them through, its inode."""

    data: bytes | None
    fd: int | None
    inode: int | None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _read_fd(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _snapshot(path: str) -> _Snapshot:
    try:
        fd, info = atomic.open_regular(path, os.O_RDONLY)
    except FileNotFoundError:
        return _Snapshot(None, None, None)
    except atomic.UnsafeFile:
        what = "a symlink" if os.path.islink(path) else "not a regular file"
        raise EditRefused(f"refusing to edit {path}: it is {what}; self-improve changed nothing") from None
    try:
        data = _read_fd(fd)
        return _Snapshot(data, fd, info.st_ino)
    except BaseException:
        os.close(fd)
        raise


def read_only_problem(path: str) -> str | None:
    """Why ``path`` must not be rewritten because its owner made it read-only (None: writable).

    The mode bits decide, not ``os.access``: root may write anything, but a user who made the
    file 0444 said "leave it alone", and a rename would silently undo that.
    """
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(info.st_mode) and not info.st_mode & stat.S_IWUSR:
        return f"{path} is read-only (mode {stat.S_IMODE(info.st_mode):04o}); make it writable (chmod u+w) to let self-improve edit it"
    return None


def lock_path_for(path: str) -> str:
    """Our lock for one user file: keyed by its real path, in the user's own state directory."""
    digest = hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(user_state_dir(), "locks", f"{digest}.lock")


def _lock(path: str) -> locked | None:
    lock_path = lock_path_for(path)
    try:
        os.makedirs(os.path.dirname(lock_path), mode=0o700, exist_ok=True)
    except OSError:
        return None  # no state dir (read-only home): compare-and-replace still guards the edit
    return locked(lock_path, LOCK_TIMEOUT)


def user_temp_dir() -> str | None:
    """Our temp directory in the user's state dir (for files outside any project), or None."""
    directory = os.path.join(user_state_dir(), "tmp")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return directory


def edit_user_file(
    path: str,
    edit: BytesEdit,
    *,
    temp_dir: str | None = None,
    settle: float = SETTLE,
) -> Edited:
    """Apply ``edit`` to the file at ``path`` so that no concurrent writer's bytes are lost.

    ``path`` itself must not be a symlink (resolve it first to write through one). ``edit`` may
    raise (a ``SelfImproveError``) to refuse; it may be called several times, on fresh bytes.
    Raises ``EditRefused`` when the file kept changing, or is read-only, with nothing written.
    """
    problem = read_only_problem(path)
    if problem is not None:
        raise EditRefused(f"{problem}; self-improve changed nothing")
    lock = _lock(path)
    if lock is None:
        return _edit(path, edit, temp_dir, settle)
    with lock:
        return _edit(path, edit, temp_dir, settle)


class _Unchanged:
    """The ``expect`` predicate we give ``atomic.atomic_write``: what the file must still be at its
    replace (``atomic.replace_at`` re-reads it just before ``os.replace``). The file still counts as unchanged
    when it is the inode we read, holding our bytes or our bytes plus an append: appended bytes
    land in the inode we hold open, and :func:`_absorb_late_writes` moves them into the new file
    after the replace. A user appending in a loop would otherwise make every attempt a conflict.
    A different inode (a writer that renamed its own version in) or rewritten bytes conflict.
    """

    def __init__(self, path: str, snapshot: _Snapshot) -> None:
        self.path = path
        self.snapshot = snapshot

    def matches(self, now: object) -> bool:
        read, inode = self.snapshot.data, self.snapshot.inode
        if read is None or inode is None:
            return now is None
        if not isinstance(now, bytes) or not now.startswith(read):
            return False
        try:
            return os.stat(self.path, follow_symlinks=False).st_ino == inode
        except OSError:
            return False



def _expect(path: str, snapshot: _Snapshot) -> object:
    return None if snapshot.data is None else _Unchanged(path, snapshot).matches


def _edit(path: str, edit: BytesEdit, temp_dir: str | None, settle: float) -> Edited:
    deadline = time.monotonic() + RETRY_FOR
    first = True
    while first or time.monotonic() < deadline:
        if not first:
            time.sleep(random.uniform(*BACKOFF))
        first = False
        snapshot = _snapshot(path)
        try:
            after = edit(snapshot.data)
            if after == snapshot.data:
                return Edited(snapshot.data, after)
            try:
                _put(path, after, _expect(path, snapshot), temp_dir)
            except atomic.Conflict:
                continue
            return _absorb_late_writes(path, edit, snapshot, after, temp_dir, settle)
        finally:
            snapshot.close()
    raise EditRefused(f"{path} kept changing while self-improve edited it; try again (self-improve changed nothing)")


def _put(path: str, data: bytes | None, expect: object, temp_dir: str | None) -> None:
    """Replace (or, for None, delete) the file, refusing with ``Conflict`` when it is not ``expect``
    (bytes, None for "absent", or a predicate such as :meth:`_Unchanged.matches`)."""
    if data is not None:
        try:
            atomic.atomic_write(path, data, expect=expect, temp_dir=temp_dir)
        except atomic.UnsafeFile as exc:
            raise EditRefused(f"{exc}; self-improve changed nothing") from None
        return
    now = _snapshot(path)
    now.close()
    if not (expect(now.data) if callable(expect) else now.data == expect):
        raise atomic.Conflict(f"{path} changed while we were editing it")
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _absorb_late_writes(
    path: str, edit: BytesEdit, stale: _Snapshot, written: bytes | None, temp_dir: str | None, settle: float
) -> Edited:
    """After our replace: make sure no writer of the moment lost its bytes, or ours.

    ``stale`` is the inode we replaced (as we read it), ``written`` what we put in its place.
    Two late writers are possible: one that had the old inode open (its bytes went to the
    unlinked inode) and one that read the file before our replace and renames its own version
    over ours a moment later (Claude Code rewriting settings.json). So we wait until nobody
    holds the old inode open for writing, give a renaming writer ``settle`` seconds, and look:
    the user's file is then the old inode's bytes plus whatever was appended to ours, or the
    file that replaced ours; the edit is applied to that again, until nothing moves.
    """
    base = stale.data
    owned: list[_Snapshot] = []  # snapshots opened here, closed here; the first is the caller's
    try:
        for round_number in range(MERGE_ROUNDS):
            if stale.fd is not None:
                _wait_for_writers(stale.fd)
            if settle > 0:
                time.sleep(settle)
            # Its bytes, compared with what we read: size and mtime would miss a write made
            # between our read and our fstat, or one within the clock's granularity.
            now = _read_fd(stale.fd) if stale.fd is not None else None
            grown = now if now is not None and now != stale.data else None
            live = _snapshot(path)
            owned.append(live)
            if grown is None and live.data == written:
                return Edited(base, written)
            intended = live.data if grown is None else _intended(base, grown, stale.data, live, written)
            try:
                merged = edit(intended)
            except Exception:  # noqa: BLE001 - whatever made the edit refuse, the bytes come first
                # Our edit no longer applies (say, the late write made the JSON invalid): keep
                # every byte the user wrote, without our change, and say so.
                if intended != live.data:
                    try:
                        _put(path, intended, live.data, temp_dir)
                    except atomic.Conflict:
                        pass  # a newer writer's file stands
                raise EditRefused(
                    f"{path} was written by another program while self-improve edited it; its bytes "
                    "were kept and our change was not made: run the command again"
                ) from None
            if grown is None and merged == live.data:
                return Edited(intended, merged)  # somebody appended to our file: our change is in it
            if round_number == MERGE_ROUNDS - 1 and _append_late_bytes(path, grown, stale.data, live):
                # A writer that never pauses (a loop appending to the file) would make every
                # replace leave a new late write behind: the last round appends instead, which
                # leaves no old inode. Every byte is kept; a late line may follow a later one.
                return Edited(intended, merged)
            try:
                _put(path, merged, _expect(path, live), temp_dir)
            except atomic.Conflict:
                continue  # nothing written this round: look at everything again
            stale, written, base = live, merged, intended
        raise EditRefused(
            f"{path} kept changing while self-improve edited it; check that our change is in it and run the command again"
        )
    finally:
        for snapshot in owned:
            snapshot.close()


def _append_late_bytes(path: str, grown: bytes | None, read: bytes | None, live: _Snapshot) -> bool:
    """Append to the live file what was appended to the old inode; False when that is not the case."""
    if grown is None or read is None or live.data is None or not grown.startswith(read):
        return False
    try:
        atomic.append_durable(path, grown[len(read):])
    except OSError:
        return False
    return True


def _intended(base: bytes | None, grown: bytes, read: bytes | None, live: _Snapshot, written: bytes | None) -> bytes:
    """The user's file as they meant it, once the replaced inode turned out to have grown.

    ``base`` is what our last write was computed from (the user's file as we knew it), ``read``
    the replaced inode's bytes when we read them, ``grown`` its bytes now, ``written`` what we
    put in its place and ``live`` the file there now. The user's file is ``base`` plus what was
    appended to the old inode, then what was appended to ours.
    """
    growth = grown[len(read):] if read is not None and grown.startswith(read) else None
    # Rewritten in place rather than appended to: its new bytes are the user's file.
    user = grown if growth is None else (base or b"") + growth
    if live.data is None:
        return user
    if written is not None and live.data.startswith(written):
        return user + live.data[len(written):]
    # Our new file was replaced by somebody else as well: keep theirs, plus what was appended to
    # the old inode (our edits are idempotent on the result).
    return live.data + (growth or b"")


def _wait_for_writers(fd: int) -> bool:
    """Wait until no other descriptor has the file open for writing; False if we cannot tell.

    A read lease is granted only when no process has the file open for writing (Linux,
    ``fcntl(2)``); we drop it at once, so nobody ever waits on it. The inode is unlinked by our
    rename, so no new writer can open it after that. Elsewhere ``settle`` alone covers it.
    """
    set_lease = getattr(fcntl, "F_SETLEASE", None)
    if set_lease is None or os.fstat(fd).st_nlink != 0:
        # Still reachable by another name (a hard link): a writer opening it there would break
        # our lease, and the kernel's signal for that (SIGIO) would kill us. Settle time only.
        return False
    deadline = time.monotonic() + WRITER_WAIT
    while True:
        try:
            fcntl.fcntl(fd, set_lease, fcntl.F_RDLCK)
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                return False  # not supported here, or not our file (EACCES)
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
            continue
        fcntl.fcntl(fd, set_lease, fcntl.F_UNLCK)
        return True
