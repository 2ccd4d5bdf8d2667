"""An exclusive advisory lock on a file, shared by every process that writes ``.learnings/``.

A small class instead of ``contextlib.contextmanager``: the hooks take this lock on every prompt,
and ``contextlib`` (with the ``collections`` it pulls in) would be most of their import time.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from self_improve.errors import SelfImproveError


class locked:
    """Hold ``flock(LOCK_EX)`` on ``lock_path``; the kernel drops it if we are killed."""

    def __init__(self, lock_path: str | os.PathLike[str], timeout: float = 30.0, *, dir_fd: int | None = None) -> None:
        self.lock_path = lock_path
        self.timeout = timeout
        self.dir_fd = dir_fd
        self._fd: int | None = None

    def __enter__(self) -> None:
        # Never through a symlink (a planted `.lock -> ~/x` would create or lock the user's file),
        # never blocking on a FIFO: the lock is a regular file of ours or nothing.
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.lock_path, flags, 0o644, dir_fd=self.dir_fd)
        except OSError as exc:
            raise SelfImproveError(f"cannot use the lock {self.lock_path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise SelfImproveError(f"cannot use the lock {self.lock_path}: not a regular file")
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise SelfImproveError(f"timed out waiting for the lock {self.lock_path}") from None
                    time.sleep(0.005)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(self, *exc_info: object) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
