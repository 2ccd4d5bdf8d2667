"""What one hook call may spend (how much of its stdin it keeps, how long it may run), and its payload.

A hook runs on every prompt and every Bash call, fed by a harness that may send anything: a
payload of a gigabyte, a stdin that never closes, a store that blocks (a FIFO where a file should
be). Whatever comes, the hook must end soon, exit 0 and print nothing it did not finish.

- **stdin**: at most ``MAX_PARSED_BYTES`` are kept; past that the rest is drained through one
  fixed buffer and thrown away, so memory stays flat on any input and the harness's writes
  succeed (see ``read_capped`` for why we drain rather than close the pipe).
- **time**: one deadline per call, ``DEADLINE_SECONDS`` after ``Budget.arm``, delivered by
  ``SIGALRM``. It fires only at a safe point: outside a ``critical`` section (a store or state
  write, which holds our lock) it raises ``DeadlineExceeded`` at once; inside one it waits for
  the section to end, for at most ``GRACE_SECONDS`` more. A write still running then is
  interrupted anyway: it is hung (a FIFO, a dead NFS mount), and the store's writes are atomic
  renames and all-or-nothing appends whose ``finally`` blocks release the lock, so an exception
  there tears nothing; the kernel drops the ``flock`` when we exit in any case.

Both bounds are constants on purpose: a repository's config must not be able to make the hooks
slower or hungrier. Standard library only, and only builtin modules (``_signal``, not
``signal``, which imports ``enum``: milliseconds the hooks do not have).

The payload is parsed here too (:func:`read_payload`), without ``json``: it imports ``re``,
which alone costs ~6 ms, more than the rest of a passing hook call. The C scanner behind
``json`` (``_json.make_scanner``) parses exactly as ``json.loads`` does, so the hooks and their
state files use it directly (:func:`parse_json`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Claude Code caps a Bash result at 30,000 characters by default (BASH_MAX_OUTPUT_LENGTH, at most
# 150,000) and Codex truncates what its model sees: even JSON-escaped at 6 bytes a character,
# a real payload stays under 1 MiB. 8 MiB leaves room for any harness we have not measured while
# keeping the worst case small: reading and parsing 8 MiB costs ~8 ms and ~22 MB more memory
# than a small payload (bench/hooks_bounded.py); 32 MiB would cost 4x that memory, for
# outputs of which detection reads only the first 8 and the last 32 KiB anyway.
MAX_PARSED_BYTES = 8 * 1024 * 1024
# The whole call, start-up excluded: a failing command is recorded in ~12 ms, a prompt in ~5 ms
# (a first call, which fills the cache dir, in ~50 ms), so 2 s is never reached by honest work,
# even on a loaded machine with hooks running in parallel; and it stays far below the harnesses'
# own hook timeouts (ours register 30 s).
DEADLINE_SECONDS = 2.0
# How long a write that has started may still run after the deadline before it is interrupted.
GRACE_SECONDS = 0.5
_DRAIN_CHUNK = 1024 * 1024


class DeadlineExceeded(BaseException):
    """The hook's time is up. A BaseException, so that the store's and the hooks' own
    ``except Exception`` (best-effort steps) cannot swallow it and carry on."""


class Budget:
    """The deadline of one hook call; ``BUDGET`` is the process's one instance."""

    def __init__(self) -> None:
        self._armed = False
        self._previous: Any = None
        self._reset()

    def _reset(self) -> None:
        self.stage = "starting"  # what the hook was doing, for the debug line
        self.expired = False
        self._depth = 0  # nesting of critical sections
        self._grace_used = False

    def arm(self, seconds: float = DEADLINE_SECONDS) -> None:
        """Start the clock. Without SIGALRM (not POSIX, or not the main thread) there is no
        deadline: the harness's own timeout still bounds the hook."""
        self.disarm()
        self._reset()  # a fresh budget for each call in this process
        try:
            import _signal  # type: ignore[import-not-found]  # typeshed has no stub for the builtin _signal

            self._previous = _signal.signal(_signal.SIGALRM, self._on_alarm)
            self._armed = True
            _signal.setitimer(_signal.ITIMER_REAL, seconds)
        except (ImportError, AttributeError, ValueError, OSError):
            self.disarm()

    def disarm(self) -> None:
        """Stop the clock and give SIGALRM back; after this nothing interrupts the hook."""
        while self._armed:
            try:
                import _signal

                _signal.setitimer(_signal.ITIMER_REAL, 0)
                previous = self._previous if self._previous is not None else _signal.SIG_DFL
                _signal.signal(_signal.SIGALRM, previous)
                self._armed = False
            except DeadlineExceeded:
                self.expired = True  # it fired just now; the timer is spent: try again
            except (ImportError, AttributeError, ValueError, OSError):
                self._armed = False

    def critical(self, stage: str) -> _Critical:
        """``with BUDGET.critical("recording the error"):`` around a write that holds our lock."""
        return _Critical(self, stage)

    def _on_alarm(self, signum: int, frame: object) -> None:
        self.expired = True
        if self._depth and not self._grace_used:
            self._grace_used = True
            _set_timer(GRACE_SECONDS)  # let the write finish; _Critical.__exit__ raises after it
            return
        raise DeadlineExceeded(self.stage)


class _Critical:
    """A section the deadline does not interrupt (for up to ``GRACE_SECONDS``); on leaving it,
    an expired deadline is raised, at a point where no write is half done."""

    __slots__ = ("budget", "stage", "_outer")

    def __init__(self, budget: Budget, stage: str) -> None:
        self.budget = budget
        self.stage = stage
        self._outer = budget.stage

    def __enter__(self) -> None:
        self._outer = self.budget.stage
        self.budget.stage = self.stage
        self.budget._depth += 1

    def __exit__(self, *exc_info: object) -> None:
        budget = self.budget
        budget._depth -= 1
        budget.stage = self._outer
        if budget.expired and budget._depth == 0:
            _set_timer(0)  # the grace timer, if armed, must not fire again while we give up
            raise DeadlineExceeded(self.stage)


def _set_timer(seconds: float) -> None:
    try:
        import _signal

        _signal.setitimer(_signal.ITIMER_REAL, seconds)
    except (ImportError, AttributeError, OSError):
        pass


BUDGET = Budget()


def read_capped(stream: Any, cap: int = MAX_PARSED_BYTES) -> tuple[bytes | None, int]:
    """(the whole of ``stream``, its size), or (None, bytes read) when it holds more than ``cap``.

    Past the cap the rest is drained through one fixed buffer and dropped: memory stays at
    ``cap`` whatever comes. We drain rather than close the pipe because a harness writing a big
    payload may not expect EPIPE from a hook that reads nothing (an unhandled error on a Node
    child's stdin is fatal to the writer), and a writer at pipe speed finishes a gigabyte well
    within the deadline. A writer slower than that, or a stdin that never closes, meets the
    deadline: the hook exits and the harness's next write fails, as it would on the harness's
    own timeout.
    """
    BUDGET.stage = "reading stdin"
    raw = stream.read(cap + 1)  # one allocation of cap + 1, of which only what came is touched
    if len(raw) <= cap:
        return raw, len(raw)
    total = len(raw)
    del raw
    BUDGET.stage = f"draining stdin past the {cap >> 20} MiB cap"
    buffer = bytearray(_DRAIN_CHUNK)
    while True:
        count = stream.readinto(buffer)
        if not count:
            return None, total
        total += count


# ---- the payload --------------------------------------------------------------------------------


def read_payload(stream: Any, name: str = "hook") -> dict[str, Any] | None:
    """The payload's JSON object, or None. Past ``MAX_PARSED_BYTES`` nothing is kept or parsed
    (one debug line): the rest of stdin is drained and dropped."""
    raw, size = read_capped(stream)
    if raw is None:
        from self_improve.hooks.debug import debug

        debug(f"{name}: payload over {MAX_PARSED_BYTES >> 20} MiB ({size} bytes); ignored, printed nothing")
        return None
    if not raw:
        return None
    BUDGET.stage = "parsing the payload"
    payload = parse_json(raw.decode("utf-8", "replace"))
    return payload if isinstance(payload, dict) else None


class _ScannerContext:
    """What ``_json.make_scanner`` reads from a decoder: the same settings as ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, Any] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


_WHITESPACE = " \t\n\r"


def parse_json(text: str) -> Any:
    """``json.loads(text)``, or None for anything that is not exactly one JSON value."""
    try:
        import _json

        # typeshed declares the decoder argument as make_scanner itself; any object with the
        # decoder's attributes is what the C scanner reads.
        scan = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    except (ImportError, AttributeError, TypeError):
        try:
            return json_module().loads(text)
        except ValueError:
            return None
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if text[end:].strip(_WHITESPACE):
        return None
    return value


def json_module() -> Any:
    import json

    return json
