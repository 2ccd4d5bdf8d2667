"""The hooks' debug log: one line per failure, never a raise.

A hook must print nothing it did not mean to and exit 0 whatever happens, so every failure ends
here: ``$XDG_STATE_HOME/self-improve/debug.log`` (``paths.user_state_dir``), and stderr too with
``SELF_IMPROVE_DEBUG=1``.
"""

from __future__ import annotations

import os
import sys
import time

from self_improve.paths import user_state_dir

DEBUG_LOG = "debug.log"


def debug_log_path() -> str:
    return os.path.join(user_state_dir(), DEBUG_LOG)


def debug(message: str, exc: BaseException | None = None) -> None:
    """One line in the debug log; never raises."""
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} pid={os.getpid()} {message}\n"
    try:
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(line)
            if exc is not None:
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
        path = debug_log_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(line)
    except BaseException:  # noqa: BLE001
        pass
