"""Files of the user's cache dir in ``marshal`` format: the one reader and writer.

A hook is a fresh interpreter on every shell command, so what is costly to build and the same in
every process is built once and kept here: the parsed packaged rules and the pre-screen's needles
(``detect/prescreen.py``), the compiled programs of our regular expressions (``rx``). Best
effort both ways: a file that cannot be read is nothing cached, one that cannot be written only
costs the next process the work it saves. ``marshal`` because loading it is C speed and needs no
import; it is no format for data from others, and this directory is the user's own.
"""

from __future__ import annotations

import marshal
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def read(path: str) -> object | None:
    """What ``write`` stored at ``path``, or None (missing, unreadable or corrupt)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()  # marshal.load(handle) would read each object from the file apart
        return marshal.loads(data)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def write(path: str, value: Any) -> None:
    """Replace ``path`` with ``value`` (marshal-able), atomically; never raises."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as handle:
            marshal.dump(value, handle)
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass


def prune(path: str, prefix: str, keep: int = 3) -> int:
    """Delete the older files of ``path``'s folder named ``<prefix>…marshal``, keeping ``path`` and
    the ``keep`` newest (a cache keyed by a data file's size and mtime gets a new file whenever that
    file changes: an upgrade, an edit). Regular files only; never raises; returns how many went."""
    folder = os.path.dirname(path)
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".marshal")]
    except OSError:
        return 0
    dated = []
    for name in names:
        full = os.path.join(folder, name)
        try:
            info = os.lstat(full)
        except OSError:
            continue
        if full != path and (info.st_mode & 0o170000) == 0o100000:  # a regular file
            dated.append((info.st_mtime_ns, full))
    removed = 0
    for _, full in sorted(dated, reverse=True)[max(0, keep - 1) :]:
        try:
            os.unlink(full)
            removed += 1
        except OSError:
            pass
    return removed
