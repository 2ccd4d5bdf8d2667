"""The hooks' side of the injection journal (``store/injections``): what they told the agent.

A handler that has a block to inject notes it (:func:`note`: memory only, no I/O); ``hooks.run``
calls :func:`flush` once the call's output is settled, and the block is journaled only when it
was printed: a call that gave up at its deadline, or failed, journals nothing. The write gets a
small deadline of its own (:data:`JOURNAL_SECONDS`, the output is out already and the call's own
budget is spent) inside a ``BUDGET.critical`` section, so a deadline never cuts a record in two
(the append is all or nothing, the compaction an atomic replace). It never raises: a failure is
one debug line. Only a call that injected something imports this module.
"""

from __future__ import annotations

from self_improve.hooks.budget import BUDGET, parse_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from self_improve.hooks.state import Context

# Far above what an append takes (~0.1 ms) or a compaction of the whole file (a few ms), far
# below what a harness waiting for the hook to exit would notice.
JOURNAL_SECONDS = 0.5

_pending: list[tuple[Context, str, str]] = []  # (context, harness, block) of this call, at most one


def note(context: Context, harness: str, block: str) -> str:
    """Remember ``block`` as what this call injects, for :func:`flush`; returns ``block``."""
    _pending[:] = [(context, harness, block)] if block else []
    return block


def flush(hook: str, printed: bool) -> None:
    """Journal the block noted by this call if it was ``printed``; forget it either way."""
    if not _pending:
        return
    ((context, harness, block),) = _pending
    _pending.clear()
    if not printed:
        return
    try:
        BUDGET.arm(JOURNAL_SECONDS)
        with BUDGET.critical("journaling the injection"):
            from self_improve.store import injections

            record = injections.new_record(hook, harness, context.session, block)
            with context.locked():
                injections.append(context.fs, record, context.state, parse_json)
    except BaseException as exc:  # noqa: BLE001 - the block is out: a journal must not fail the hook
        if not isinstance(exc, KeyboardInterrupt):
            from self_improve.hooks.debug import debug

            debug(f"{hook}: could not journal the injection: {type(exc).__name__}: {exc}", exc)
    finally:
        BUDGET.disarm()
