"""Durable writes: whole-file replacement through a temp file, and fsynced appends.

A SIGKILL at any moment leaves either the old or the new file (rewrite), or the old file plus
either nothing or the whole appended block (append: one ``write`` call of a few KB).
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: keep pathlib and typing off their hot path
    from self_improve.paths import PathArg


def _fsync_dir(directory: str) -> None:
    # Makes the rename itself durable; some filesystems refuse O_RDONLY on dirs, which is fine.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: PathArg, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data``: temp file in the same directory, fsync, ``os.replace``.

    ``durable=False`` skips the two fsyncs: for the hooks' own counters and session state, where
    a power cut may lose the last update but must never leave a half-written file (the rename
    still guarantees that), and the user should not wait for the disk on every prompt.
    """
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o644
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        _fsync_dir(directory)


def append_durable(path: PathArg, data: bytes) -> None:
    """Append ``data`` in one write and fsync it. Never rewrites what is already there."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
