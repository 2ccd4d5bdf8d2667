"""Entry point the hook scripts run as ``python -I -S self_improve/hooks/entry.py NAME``.

``-I -S`` skips site-packages and the user's environment: the hot path needs only the standard
library, and skipping ``site`` saves most of the interpreter's start-up on a busy venv. Isolated
mode also drops the script's folder from ``sys.path``, so we put the package's parent there.

The wrapper ``exec``s this script, so its exit status is the hook's: it is 0 whatever happens.
Every failure, even an ImportError or a SyntaxError in our own package (a half-updated
checkout), ends in one debug line. We leave through ``os._exit`` after flushing stdout
ourselves: a stdout the harness already closed would otherwise make the interpreter's own final
flush fail, and Python then exits 120.
"""

import gc
import os
import sys


def _fallback_debug(message: str) -> None:
    """The debug line of a failure that ``hooks.run`` could not report itself.

    Normally ``hooks.debug`` writes it. This fallback exists for the failure that makes that
    module unreachable too (a half-updated checkout, a SyntaxError in our package): the line
    must still land in the same log, so the state dir comes from ``paths.user_state_dir`` when
    that is importable, and only otherwise from the same XDG rule spelled out here.
    """
    line = f"hook {' '.join(sys.argv[1:2])}: {message}"
    try:
        from self_improve.hooks.debug import debug

        debug(line)
        return
    except BaseException:  # noqa: BLE001 - the package is broken: write the line ourselves
        pass
    try:
        try:
            from self_improve.paths import user_state_dir

            folder = user_state_dir()
        except BaseException:  # noqa: BLE001
            state = os.environ.get("XDG_STATE_HOME") or ""
            if not os.path.isabs(state):
                state = os.path.join(os.path.expanduser("~"), ".local", "state")
            folder = os.path.join(state, "self-improve")
        os.makedirs(folder, exist_ok=True)
        text = f"pid={os.getpid()} {line}\n"
        with open(os.path.join(folder, "debug.log"), "a", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(text)
    except BaseException:  # noqa: BLE001 - never fail the session, not even here
        pass


def _main() -> None:
    # A hook lives for a few milliseconds: reference counting frees what it drops, and the cyclic
    # collector would only run (~15 times, ~1 ms in all) over the objects that imports create
    # and that live to the exit anyway. Its memory is bounded by the stdin cap and the deadline.
    gc.disable()
    try:
        here = os.path.dirname(os.path.abspath(__file__))  # <checkout>/self_improve/hooks
        sys.path.insert(0, os.path.dirname(os.path.dirname(here)))
        from self_improve.hooks.run import main

        main()
    except BaseException as exc:  # noqa: BLE001 - hooks.run catches its own; this is the rest
        _fallback_debug(f"{type(exc).__name__}: {exc}")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
            pass


_main()
os._exit(0)
