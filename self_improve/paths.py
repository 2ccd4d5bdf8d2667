"""Well-known paths, and the checks on paths we write, with ``os.path`` only.

``pathlib`` imports ``urllib.parse`` and ``fnmatch``; on the hooks' hot path that costs more than
all of our own work, so the hook side of the code uses plain strings and these helpers.
"""

from __future__ import annotations

import os

from self_improve.errors import SelfImproveError

PathArg = str | os.PathLike[str]

LEARNINGS_DIR = ".learnings"
STATE_DIR = ".state"
LAST_SESSION = "last-session"  # .learnings/.state/last-session: the latest session a hook saw


def xdg_dir(variable: str, fallback: str) -> str:
    value = os.environ.get(variable)
    return value if value and os.path.isabs(value) else os.path.join(os.path.expanduser("~"), fallback)


def user_config_path() -> str:
    return os.path.join(xdg_dir("XDG_CONFIG_HOME", ".config"), "self-improve", "config.toml")


def user_state_dir() -> str:
    return os.path.join(xdg_dir("XDG_STATE_HOME", ".local/state"), "self-improve")


def user_data_dir() -> str:
    return os.path.join(xdg_dir("XDG_DATA_HOME", ".local/share"), "self-improve")


def user_cache_dir() -> str:
    return os.path.join(xdg_dir("XDG_CACHE_HOME", ".cache"), "self-improve")


def is_within(path: PathArg, root: PathArg) -> bool:
    """Whether ``path`` is ``root`` or below it (by the names given: resolve both first)."""
    path, root = os.path.normpath(os.fspath(path)), os.path.normpath(os.fspath(root))
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_inside_root(path: PathArg, root: PathArg) -> None:
    """Refuse to write through a symlink (or ``..``) that leads outside the project root."""
    real = os.path.realpath(path)
    if not is_within(real, os.path.realpath(root)):
        raise SelfImproveError(f"refusing to write {os.fspath(path)}: it leads outside the project root {os.fspath(root)} (to {real})")
