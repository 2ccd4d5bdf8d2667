"""Durable writes: whole-file replacement through a temp file, and all-or-nothing appends.

This is the one writer of files, for ``.learnings/`` (through ``store/trust.py``, relative to a
directory descriptor opened without following links) and for the user's own files (CLAUDE.md,
settings.json, …, through ``atomic_write``).

Safety against a hostile directory (a cloned repo can plant anything in ``.learnings/``):
- the temp file gets a random name and is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``, so a
  planted file or symlink at that name is never opened, let alone truncated;
- its mode is set with ``fchmod`` on the descriptor, never by path;
- the target is never a symlink: ``os.replace`` would only swap the link itself, but a caller
  that reads through it would have read somebody else's file; we refuse instead;
- ``expect`` re-reads the target just before ``os.replace`` and refuses (``Conflict``) when its
  bytes changed since the caller read them, so a concurrent writer's change is never lost
  silently; the caller re-reads, re-applies its edit and tries again.

A SIGKILL at any moment leaves either the old or the new file (replace), or the old file plus
either nothing or the whole appended block (append). A short append is cut back to the old size.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: keep pathlib and typing off their hot path
    from self_improve.paths import PathArg

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
UNCHECKED = object()  # ``expect`` default: replace whatever is there
TEMP_SUFFIX = ".tmp"


class Conflict(OSError):
    """The file changed between the caller's read and our replace: nothing was written."""


class UnsafeFile(OSError):
    """A path we were asked to read or write is a symlink, or not a regular file."""


def _fsync_dir_fd(dir_fd: int) -> None:
    try:
        os.fsync(dir_fd)
    except OSError:  # some filesystems refuse fsync on a directory, which is fine
        pass


def open_dir(path: PathArg) -> int:
    """A descriptor of an existing directory (following links: the caller's own path)."""
    return os.open(os.fspath(path), os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)


def temp_name(name: str) -> str:
    return f".{name}.{os.urandom(6).hex()}{TEMP_SUFFIX}"


def _lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_regular(name: str, flags: int, *, dir_fd: int | None = None, mode: int = 0o666) -> tuple[int, os.stat_result]:
    """Open a regular file without following a link or blocking on a FIFO: (descriptor, its stat).

    ``O_NOFOLLOW | O_NONBLOCK`` are added to ``flags``; a link or anything but a regular file
    raises UnsafeFile (FileNotFoundError passes through).
    """
    try:
        fd = os.open(name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, mode, dir_fd=dir_fd)
    except FileNotFoundError:
        raise  # the usual miss (an optional file): told apart without errno
    except OSError as exc:
        import errno  # on failures only: the hooks' every call does without it

        if exc.errno == errno.ELOOP:
            raise UnsafeFile(f"{name} is a symlink") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeFile(f"{name} is not a regular file")
    return fd, info


def read_at(dir_fd: int, name: str, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file in the directory ``dir_fd`` (None if absent).

    Never follows a symlink, never blocks on a FIFO or a device (``O_NONBLOCK``, then ``fstat``).
    Raises UnsafeFile for anything that is not a regular file.
    """
    try:
        fd, _ = open_regular(name, os.O_RDONLY, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    try:
        chunks = []
        total = 0
        while limit is None or total < limit:  # to the end: the file may grow while we read
            chunk = os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def replace_at(
    dir_fd: int,
    name: str,
    data: bytes,
    *,
    durable: bool = True,
    expect: object = UNCHECKED,
    mode: int | None = None,
    temp_dir_fd: int | None = None,
    exchange: bool = False,
) -> None:
    """Replace ``name`` in the directory ``dir_fd`` with ``data`` (see the module docstring).

    ``expect``: the bytes the caller read (None: the file must not exist), or a predicate over
    the bytes found (None if absent) that says whether they still count as unchanged. ``temp_dir_fd``: a
    directory on the same filesystem for the temp file (so that a kill never leaves one beside
    the user's file); on another filesystem the temp goes beside the target after all.
    """
    current = _lstat_at(dir_fd, name)
    if current is not None and not stat.S_ISREG(current.st_mode):
        raise UnsafeFile(f"refusing to replace {name}: it is a symlink or not a regular file")
    if mode is None:
        mode = stat.S_IMODE(current.st_mode) if current is not None else 0o666 & ~_umask()
    where = dir_fd if temp_dir_fd is None else temp_dir_fd
    tmp = _write_temp(where, name, data, mode, durable)
    try:
        checked = None
        if expect is not UNCHECKED:
            checked = _lstat_at(dir_fd, name)
            now = read_at(dir_fd, name)
            if not (expect(now) if callable(expect) else now == expect):
                raise Conflict(f"{name} changed while we were editing it")
        if exchange and checked is not None and _exchanged(where, tmp, dir_fd, name, checked):
            if durable:
                _fsync_dir_fd(dir_fd)
            return
        try:
            os.replace(tmp, name, src_dir_fd=where, dst_dir_fd=dir_fd)
        except OSError as exc:
            import errno

            if where == dir_fd or exc.errno != errno.EXDEV:
                raise
            _unlink_quietly(where, tmp)
            where, tmp = dir_fd, _write_temp(dir_fd, name, data, mode, durable)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except _TempIsTheirs:
        raise
    except BaseException:
        _unlink_quietly(where, tmp)
        raise
    if durable:
        _fsync_dir_fd(dir_fd)


# Between our check of ``expect`` and ``os.replace`` another program may rename its own version
# in (Claude Code rewrites settings.json so); a plain replace would then drop that version unseen.
# ``renameat2(RENAME_EXCHANGE)`` swaps the two names atomically instead, so we learn which inode
# we displaced: the one we checked, or a newcomer, which we swap back (a ``Conflict``: the caller
# reads again). Linux 3.15+ on most filesystems; elsewhere the plain replace stands.
_RENAME_EXCHANGE = 2


_UNLOADED = object()
_renameat2_function: object = _UNLOADED


def _renameat2() -> object | None:
    """libc's ``renameat2``, looked up once per process (None where there is none)."""
    global _renameat2_function
    if _renameat2_function is _UNLOADED:
        try:
            import ctypes

            function = ctypes.CDLL(None, use_errno=True).renameat2
            function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            _renameat2_function = function
        except (OSError, AttributeError, ImportError):
            _renameat2_function = None
    return _renameat2_function


def _swap(src_dir: int, src: str, dst_dir: int, dst: str) -> bool:
    """Exchange two names atomically; False when this system cannot (nothing moved then)."""
    import ctypes
    import errno

    function = _renameat2()
    if function is None:
        return False
    if function(src_dir, os.fsencode(src), dst_dir, os.fsencode(dst), _RENAME_EXCHANGE) == 0:  # type: ignore[operator]
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EXDEV, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), dst)


def _exchanged(temp_dir: int, tmp: str, dir_fd: int, name: str, checked: os.stat_result) -> bool:
    """Put ``tmp`` at ``name`` by exchange; True when done (the displaced file is the one checked,
    now removed), False when the system cannot exchange (the caller replaces as before). Raises
    ``Conflict`` when the displaced file is a newcomer: it is swapped back, never lost."""
    ours = _lstat_at(temp_dir, tmp)
    if ours is None or not _swap(temp_dir, tmp, dir_fd, name):
        return False
    displaced = _lstat_at(temp_dir, tmp)
    if displaced is not None and (displaced.st_dev, displaced.st_ino) == (checked.st_dev, checked.st_ino):
        _unlink_quietly(temp_dir, tmp)
        return True
    for _ in range(8):  # swap the newcomer back; a third writer in between gets the same care
        try:
            swapped = _swap(temp_dir, tmp, dir_fd, name)
        except OSError:
            break  # the temp name still holds the newcomer: it must survive our cleanup
        if not swapped:
            break
        back = _lstat_at(temp_dir, tmp)
        if back is not None and (back.st_dev, back.st_ino) == (ours.st_dev, ours.st_ino):
            raise Conflict(f"{name} changed while we were editing it")
    # Not ours at the temp name: it is somebody's file. Leave it there, never unlink it.
    raise _TempIsTheirs(f"{name} was being replaced by another program; a version of it is kept at {tmp}")


class _TempIsTheirs(Conflict):
    """The temp name holds another program's file: it must not be removed."""


def _write_temp(dir_fd: int, name: str, data: bytes, mode: int, durable: bool) -> str:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for _ in range(16):
        tmp = temp_name(name)
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:  # astronomically unlikely with 48 random bits; a planted name
            continue
    else:
        raise FileExistsError(f"could not create a temp file for {name}")
    try:
        try:
            os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quietly(dir_fd, tmp)
        raise
    return tmp


def append_at(dir_fd: int, name: str, data: bytes, *, durable: bool = True, create: bool = True) -> None:
    """Append ``data`` to a regular file, all or nothing: a short write is cut back (``ftruncate``)."""
    flags = os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create else 0)
    try:
        fd, info = open_regular(name, flags, dir_fd=dir_fd, mode=0o666 & ~_umask())
    except UnsafeFile as exc:
        raise UnsafeFile(f"refusing to append to {exc}") from None
    try:
        size = info.st_size
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        except BaseException:
            try:  # all or nothing: a full disk must not leave a torn entry behind
                os.ftruncate(fd, size)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)


def atomic_write(path: PathArg, data: bytes, *, durable: bool = True, expect: object = UNCHECKED,
                 temp_dir: PathArg | None = None) -> None:
    """Replace the file at ``path`` (a path of the user's own, not of a store): see ``replace_at``."""
    path = os.fspath(path)
    dir_fd = open_dir(os.path.dirname(path) or ".")
    temp_fd = None
    try:
        if temp_dir is not None:
            try:
                temp_fd = open_dir(temp_dir)
            except OSError:
                temp_fd = None
        # A user's file has other writers: with ``expect``, swap names so that none is lost unseen.
        replace_at(dir_fd, os.path.basename(path), data, durable=durable, expect=expect, temp_dir_fd=temp_fd,
                   exchange=expect is not UNCHECKED)
    finally:
        os.close(dir_fd)
        if temp_fd is not None:
            os.close(temp_fd)


def append_durable(path: PathArg, data: bytes) -> None:
    """Append ``data`` in one write and fsync it, all or nothing. Never rewrites what is there."""
    path = os.fspath(path)
    dir_fd = open_dir(os.path.dirname(path) or ".")
    try:
        append_at(dir_fd, os.path.basename(path), data)
    finally:
        os.close(dir_fd)


def _unlink_quietly(dir_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError("short write")
        view = view[written:]
