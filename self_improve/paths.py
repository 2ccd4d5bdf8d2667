"""Well-known paths, with ``os.path`` only.

``pathlib`` imports ``urllib.parse`` and ``fnmatch``; on the hooks' hot path that costs more than
all of our own work, so the hook side of the code uses plain strings and these helpers.
"""

from __future__ import annotations

import os

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
