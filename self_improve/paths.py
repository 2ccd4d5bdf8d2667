"""Well-known paths, with ``os.path`` only.

``pathlib`` imports ``urllib.parse`` and ``fnmatch``; on the hooks' hot path that costs more than
all of our own work, so the hook side of the code uses plain strings and these helpers.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

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


CLI_NAME = "self-improve"


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _on_path(name: str, path: str) -> bool:
    # An empty PATH entry means the working directory to a shell: not a place the CLI is found.
    return any(folder and _is_executable(os.path.join(folder, name)) for folder in path.split(os.pathsep))


def cli_invocation(environ: Mapping[str, str] | None = None) -> str:
    """How a shell with this ``PATH`` runs our CLI: ``self-improve`` when it is on ``PATH``, else
    the absolute path of this checkout's ``bin/self-improve`` (or, for an installed package, the
    console script beside the interpreter), quoted for the shell when it needs it.

    The hooks print commands for the agent to run in its shell; ``./install.sh`` links the CLI into
    ``~/.local/bin``, which is often not on ``PATH``, and a printed command that does not run
    teaches the agent nothing."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    if _on_path(CLI_NAME, env.get("PATH", "")):
        return CLI_NAME
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (os.path.join(checkout, "bin", CLI_NAME), os.path.join(os.path.dirname(sys.executable), CLI_NAME)):
        if _is_executable(candidate):
            return _shell_word(candidate)
    return CLI_NAME


def _shell_word(text: str) -> str:
    """``text`` as one POSIX shell word (``shlex.quote``, without importing ``shlex`` and ``re``)."""
    safe = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")
    if text and all(char in safe for char in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"
