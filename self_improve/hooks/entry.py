"""Entry point the hook scripts run as ``python -I -S self_improve/hooks/entry.py NAME``.

``-I -S`` skips site-packages and the user's environment: the hot path needs only the standard
library, and skipping ``site`` saves most of the interpreter's start-up on a busy venv. Isolated
mode also drops the script's folder from ``sys.path``, so we put the package's parent there.

The wrapper ``exec``s this script, so its exit status is the hook's: it is 0 whatever happens.
Every failure, even an ImportError or a SyntaxError in our own package (a half-updated
checkout), ends in one debug line. We leave through ``os._exit`` once ``hooks.run.run_script``
has flushed stdout itself: a stdout the harness already closed would otherwise make the
interpreter's own final flush fail, and Python then exits 120.

This file stays a few statements long: a script, unlike a module, is compiled from source on
every run, and compiling the ~40 lines of code it used to hold cost every hook call ~0.4 ms
(~2 M instructions). What a call does once our package imports is in ``hooks.run``; here is only
what cannot be there: the debug line of a package that does not import at all
(:data:`_FALLBACK`), kept as source and compiled on that failure only.
"""

import gc
import os
import sys

# The debug line of a failure that ``hooks.run`` could not report itself. Normally ``hooks.debug``
# writes it. This fallback exists for the failure that makes that module unreachable too (a
# half-updated checkout, a SyntaxError in our package): the line must still land in the same log,
# by the same XDG rule as ``paths.user_state_dir`` (which may be unreachable as well).
# tests/hooks/test_hooks_bounded.py runs every branch of it.
_FALLBACK = """
try:
    line = f"hook {' '.join(sys.argv[1:2])}: {type(exc).__name__}: {exc}"
    try:
        from self_improve.hooks.debug import debug

        debug(line)
    except BaseException:  # the package is broken: write the line ourselves
        state = os.environ.get("XDG_STATE_HOME") or ""
        if not os.path.isabs(state):
            state = os.path.join(os.path.expanduser("~"), ".local", "state")
        folder = os.path.join(state, "self-improve")
        os.makedirs(folder, exist_ok=True)
        text = f"pid={os.getpid()} {line}\\n"
        with open(os.path.join(folder, "debug.log"), "a", encoding="utf-8", errors="replace") as handle:
            handle.write(text)
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(text)
    sys.stderr.flush()
except BaseException:  # never fail the session, not even here
    pass
"""

# A hook lives for a few milliseconds: reference counting frees what it drops, and the cyclic
# collector would only run (~15 times, ~1 ms in all) over the objects that imports create
# and that live to the exit anyway. Its memory is bounded by the stdin cap and the deadline.
gc.disable()
try:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from self_improve.hooks.run import run_script

    run_script()
except BaseException as exc:  # noqa: BLE001 - hooks.run catches its own; this is the rest
    exec(_FALLBACK, {"exc": exc, "os": os, "sys": sys})  # it is all one try: it cannot fail the session
os._exit(0)
