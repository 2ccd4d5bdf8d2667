"""An exclusive advisory lock on a file, shared by every process that writes ``.learnings/``."""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

from self_improve.errors import SelfImproveError


@contextmanager
def locked(lock_path: str | os.PathLike[str], timeout: float = 30.0) -> Iterator[None]:
    """Hold ``flock(LOCK_EX)`` on ``lock_path``; the kernel drops it if we are killed."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SelfImproveError(f"timed out waiting for the lock {lock_path}") from None
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
