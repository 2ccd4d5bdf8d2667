"""What post-bash records for a finished command, the one step ``self-improve scan`` shares.

:func:`record_result` is post-bash short of its nudge: the prescreen, the detection with the
project's ``[detect]``, the occurrence on the fingerprint's entry (``Context.record_error``), the
evidence (``hooks.credit.observe``: the ring, the index, observed fixes). Live (``when`` None)
the nudge about to be printed is counted with it; a scan (``when``: the event's own time) dates
everything then and counts no nudge, none was given.

Counting a scanned error: ``Context.record_error`` counts ``errors_recorded``, live or scanned.
A scanned occurrence is written by the hooks' own step and credited to the hooks in the ledger
(``logged_by="hook"``), and ``stats`` prints ``errors_recorded`` beside the ledger's hook
occurrences: counting it keeps the two figures equal. No nudge and no recall was given for it,
so ``error_nudges`` and ``recalls`` do not move; ``errors_scanned`` (not a hook counter, beside
them in ``counters.json``) says how many of ``errors_recorded`` came from ``scan``.

Also here, for ``scan`` only (imported by it, never on the hot path): whether the live hooks
saw a session in a project (:func:`live_session`, ``commands/scan.py``'s module doc).
"""

from __future__ import annotations

import sys

from self_improve.hooks import state as hook_state
from self_improve.hooks.budget import BUDGET

TYPE_CHECKING = False
if TYPE_CHECKING:
    from self_improve.detect.classify import Detection
    from self_improve.events import ToolResult

SCANNED_COUNTER = "errors_scanned"


def _debug(message: str, exc: BaseException | None = None) -> None:
    from self_improve.hooks import debug

    debug.debug(message, exc)


def record_result(context: hook_state.Context, result: ToolResult,
                  when: float | None = None) -> tuple[Detection, hook_state.Seen] | None:
    """Record ``result`` as post-bash does; (its detection, what was seen) when it is a failure.

    Live (``when`` None) a store we cannot write costs the occurrence, never the nudge (one debug
    line); a scan (``when`` set) lets the error through: ``scan`` must say it and stop."""
    from self_improve.hooks.credit import observe

    detection = detect_failure(context, result)
    if detection is None:
        observe(context, result, None, None, now=when)
        return None
    if when is None:
        seen = _record(context, detection, result)
        observe(context, result, detection, seen)  # the ring, the index, measured credit (hooks/credit.py)
        return detection, seen
    seen = _record_scanned(context, detection, result, when)
    # no nudge was given then: nothing was recalled, so no recall to measure
    observe(context, result, detection, hook_state.Seen(seen.count, seen.sessions, None, seen.entry_id), now=when)
    return detection, seen


def detect_failure(context: hook_state.Context, result: ToolResult) -> Detection | None:
    """post-bash's detection: the prescreen, then the rules with the project's ``[detect]``."""
    overrides = context.detect_overrides()
    if overrides is None:
        from self_improve.detect.prescreen import clearly_clean

        if clearly_clean(result.output, result.exit_code, result.interrupted):
            return None
    from self_improve.detect.classify import detect
    from self_improve.detect.rules import load_rules

    BUDGET.stage = "detecting"
    detection = detect(result, load_rules(overrides))
    _report_pattern_timeouts()
    return detection


def _record(context: hook_state.Context, detection: Detection, result: ToolResult) -> hook_state.Seen:
    """The live occurrence and the count of its nudge: one write of the counters, not two."""
    context.hold_counts()  # errors_recorded is written with the nudge's counts
    try:
        with BUDGET.critical(f"recording {detection.pattern_key}"):
            seen = context.record_error(detection, result)
    except Exception as exc:  # noqa: BLE001 - a store we cannot write must not cost the nudge
        _debug(f"post-bash: could not record {detection.pattern_key}: {type(exc).__name__}: {exc}", exc)
        seen = hook_state.Seen(0, 0, None)
    try:
        with BUDGET.critical("counting the nudge"):
            context.note_error_nudge(recall=seen.fix is not None)
    except Exception as exc:  # noqa: BLE001 - counters are best effort
        _debug(f"post-bash: could not count the nudge: {type(exc).__name__}: {exc}", exc)
    try:
        with BUDGET.critical("counting the error"):
            context.release_counts()  # what the nudge's write did not take (it failed): nothing, usually
    except Exception as exc:  # noqa: BLE001 - counters are best effort
        _debug(f"post-bash: could not count the error: {type(exc).__name__}: {exc}", exc)
    return seen


def _record_scanned(context: hook_state.Context, detection: Detection, result: ToolResult, when: float) -> hook_state.Seen:
    """The occurrence dated ``when``; ``errors_recorded`` and ``errors_scanned`` in one write."""
    from self_improve.clock import utc_of

    context.hold_counts()
    try:
        seen = context.record_error(detection, result, now=utc_of(when))
        if seen.entry_id:
            context.bump(SCANNED_COUNTER)
    finally:
        context.release_counts()
    return seen


def _report_pattern_timeouts() -> None:
    """One debug line per ``[detect]`` pattern that ran out of time (``detect.user_patterns``)."""
    patterns = sys.modules.get("self_improve.detect.user_patterns")
    if patterns is not None:
        for line in patterns.take_timeouts():
            _debug(f"post-bash: {line}")


# ---- the traces a live session leaves (scan only) ------------------------------------------------


def live_session(context: hook_state.Context, owned: bool, recorded: frozenset[str]) -> bool:
    """Whether the live hooks saw ``context.session`` in this project (``commands/scan.py``)."""
    from self_improve.paths import LAST_SESSION
    from self_improve.store.evidence import EVIDENCE_DIR
    from self_improve.store.tasks import task_hash
    from self_improve.store.trust import UntrustedStore

    name = hook_state.session_file_name(context.session)
    if context.fs.is_file(f"{context.state}sessions/{name}"):
        return True
    try:
        if context.fs.read(context.state + LAST_SESSION, limit=4096) == context.session.encode("utf-8", "replace"):
            return True
    except (OSError, UntrustedStore):
        pass
    if owned:
        return False  # the other traces may be the scan's own
    return context.fs.is_file(f"{context.state}{EVIDENCE_DIR}/{name}") or task_hash(context.session) in recorded


def recorded_tasks(context: hook_state.Context) -> frozenset[str]:
    """Every task hash of this project's occurrences and of its ledger's hook lines."""
    from self_improve.errors import SelfImproveError
    from self_improve.store.provenance import Ledger

    assert context.root is not None
    tasks = {line.task for lines in Ledger.load(context.root).by_id.values() for line in lines if line.who == "hook"}
    store = context.store()
    if store is not None:
        try:
            tasks.update(occurrence.task for entry in store.entries() for occurrence in entry.occurrences)
        except SelfImproveError:
            pass
    tasks.discard("-")
    return frozenset(tasks)
