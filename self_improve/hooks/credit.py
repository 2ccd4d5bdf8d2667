"""The hooks' side of the evidence that exit codes give (``store/evidence.py``).

- :func:`observe` runs in post-bash after every command of a project with a store: it updates the
  session's ring and the prevention index, and writes what the command proved (an observed fix on
  the failing fingerprint's entry, measured helpful or harmful on a recalled fix's entry).
- :func:`prevention` runs in pre-bash before every command: the fix to inject, if the command
  about to run failed before with a known fix and has not passed since.

Cost, for the common command: a passing result in a session with nothing open reads two small
files that usually do not exist (the session's ring, the index) and stops. pre-bash reads the
index only; the store is opened only when the command is in it.
"""

from __future__ import annotations

import time

from self_improve.hooks.budget import BUDGET, parse_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from self_improve.detect.classify import Detection
    from self_improve.events import ToolCall, ToolResult
    from self_improve.hooks.state import Context, Fix, Seen
    from self_improve.store.entry import Entry
    from self_improve.store.evidence import Outcome
    from self_improve.store.store import Store


def _debug(message: str, exc: BaseException | None = None) -> None:
    from self_improve.hooks import debug

    debug.debug(message, exc)


def _names(context: Context) -> str:
    from self_improve.hooks.state import session_file_name
    from self_improve.store.evidence import session_name

    return session_name(context.state, session_file_name(context.session))


def observe(context: Context, result: ToolResult, detection: Detection | None, seen: Seen | None,
            now: float | None = None) -> None:
    """What this command proves, kept and written (module doc). Never raises. ``now``: when the
    command ran, for ``self-improve scan`` (the hooks: None, the clock)."""
    if context.root is None or not context.session or result.interrupted:
        return
    try:
        _observe(context, result, detection, seen, now)
    except Exception as exc:  # noqa: BLE001 - evidence is best effort: the nudge stands without it
        _debug(f"post-bash: could not keep the evidence: {type(exc).__name__}: {exc}", exc)


def _observe(context: Context, result: ToolResult, detection: Detection | None, seen: Seen | None,
             when: float | None) -> None:
    from self_improve.store import evidence as ev

    # A failure is what the detector saw. A pass is an exit 0 it did not flag, or, where the
    # harness gives no exit code (Codex), a result it did not flag. Anything else proves nothing.
    failed = detection is not None
    if not failed and result.exit_code not in (0, None):
        return
    name = _names(context)
    nothing_open = False
    if not failed:
        session = ev.read_session(context.fs, name, parse_json)
        nothing_open = not session["failures"] and not session["recalls"]
        if nothing_open and not ev.may_match(ev.read_index(context.fs, context.state, parse_json), result.command):
            return  # the common passing command: nothing open in the session, nothing to drop from the index
    from self_improve.detect.intent import Intent

    intent = Intent.of(result.command)
    if not intent.key:
        return
    # Redaction only for a command that may be quoted: a failure, or a pass while one is open.
    shown = ev.shown_command(result.command, _clean) if failed or not nothing_open else ""
    now = int(time.time() if when is None else when)
    with BUDGET.critical("keeping the evidence"), context.locked():
        session = ev.read_session(context.fs, name, parse_json)
        index = ev.read_index(context.fs, context.state, parse_json)
        before = (repr(session), repr(index))
        if failed:
            assert detection is not None
            entry_id = seen.entry_id if seen is not None else ""
            recalled = seen.fix.entry_id if seen is not None and seen.fix is not None else ""
            outcome = ev.on_failure(session, index, intent, shown, detection.fingerprint, entry_id, recalled, now)
        else:
            outcome = ev.on_pass(session, index, intent, shown, now)
        if (repr(session), repr(index)) != before:
            ev.write_session(context.fs, name, session)
            ev.write_index(context.fs, context.state, index)
    if outcome:
        with BUDGET.critical("writing the evidence"):
            _write(context, outcome, when)


def _clean(text: str) -> str:
    from self_improve.store.store import clean_text

    return clean_text(text)


def _write(context: Context, outcome: Outcome, when: float | None = None) -> None:
    """Observed fixes and measured credit into their entries (``Store.update``: under the store's
    lock, the file rewritten atomically), dated ``when`` (else the store's clock)."""
    store = context.store()
    if store is None:
        return
    from self_improve.clock import utc_of, utcnow

    today = (utcnow() if when is None else utc_of(when)).strftime("%Y-%m-%d")

    def helped(entry: Entry) -> Entry:
        counted = entry.with_metadata("Measured-Helpful", str(entry.measured_helpful + 1))
        return counted.with_metadata("Last-Measured-Helpful", today)

    def harmed(entry: Entry) -> Entry:
        return entry.with_metadata("Measured-Harmful", str(entry.measured_harmful + 1))

    for entry_id, text in outcome.observed:
        if _update(store, entry_id, observed_fix_edit(text)):
            # `review --yes` promotes a fix only where it was written on this machine (a committed
            # Observed-Fix line is somebody else's words): the ledger keeps the text's digest.
            store.note_fix_written_here(entry_id, today, text)
    helped_here = sum(1 for entry_id in outcome.helpful if _update(store, entry_id, helped))
    if helped_here:  # dated too, for `stats --curve` (the entry keeps a total and the last day only)
        from self_improve.store import counters

        counters.bump_daily(context.fs, {"measured_helpful": helped_here}, today, context.state, parse_json)
    for entry_id in outcome.harmful:
        _update(store, entry_id, harmed)


def observed_fix_edit(text: str) -> Callable[[Entry], Entry]:
    def edit(entry: Entry) -> Entry:
        return entry.with_metadata("Observed-Fix", text)

    return edit


def _update(store: Store, entry_id: str, edit: Callable[[Entry], Entry]) -> bool:
    """Whether the entry took the edit."""
    from self_improve.errors import SelfImproveError

    try:
        store.update(entry_id, edit)
        return True
    except SelfImproveError as exc:  # the entry was archived or merged away meanwhile
        _debug(f"post-bash: evidence for {entry_id} not written: {exc}")
        return False


# ---- before the session's first command -----------------------------------------------------------

MAX_SESSION_FIXES = 3


def open_mistakes(context: Context) -> list[tuple[str, Fix]]:
    """The session's first prompt: (fingerprint, fix) of up to :data:`MAX_SESSION_FIXES` commands
    of the index (they failed, have a known fix, and have not passed since; listed fewer than
    ``evidence.MAX_LISTINGS`` times since), newest first. Each is noted as a recall of this
    session, so its outcome is measured, and counted as listed."""
    if context.root is None:
        return []
    from self_improve.store import evidence as ev

    index = ev.read_index(context.fs, context.state, parse_json)
    if not index:
        return []
    store = context.store()
    if store is None:
        return []
    found: list[tuple[dict[str, Any], Fix]] = []
    for record in ev.to_list(index):
        if len(found) >= MAX_SESSION_FIXES:
            break
        if any(record["fp"] == seen["fp"] for seen, _ in found):
            continue
        fix = context.known_fix(store, record["fp"])
        if fix is not None:
            found.append((record, fix))
    if found:
        with BUDGET.critical("noting the recalls"), context.locked():
            index = ev.read_index(context.fs, context.state, parse_json)  # again, under the lock
            ev.note_listed(index, [record["key"] for record, _ in found])
            ev.write_index(context.fs, context.state, index)
            if context.session:
                name = _names(context)
                session = ev.read_session(context.fs, name, parse_json)
                for record, fix in found:
                    ev.add_recall(session, record, fix.entry_id, ev.RECALLED_AT_START, int(time.time()))
                ev.write_session(context.fs, name, session)
    return [(record["fp"], fix) for record, fix in found]


# ---- pre-bash ---------------------------------------------------------------------------------


def prevention(context: Context, call: ToolCall) -> tuple[str, Fix] | None:
    """(fingerprint, fix) to inject before ``call``, or None (module doc). The fix comes from the
    same recall as post-bash's (``Context.known_fix``), so a closed entry is never offered."""
    if context.root is None:
        return None
    from self_improve.store import evidence as ev

    index = ev.read_index(context.fs, context.state, parse_json)
    if not ev.may_match(index, call.command):
        return None  # the common command: not one that failed here (no parsing needed to know)
    from self_improve.detect.intent import Intent

    intent = Intent.of(call.command)
    found = ev.lookup(index, intent)
    if found is None:
        return None
    name = _names(context) if context.session else ""
    fingerprint = found["fp"]
    if name and ev.said_in_session(ev.read_session(context.fs, name, parse_json), fingerprint):
        return None  # this session was given that fix already and its outcome is not in yet
    store = context.store()
    fix = context.known_fix(store, fingerprint) if store is not None else None
    if fix is None:
        return None
    if name:
        with BUDGET.critical("noting the recall"), context.locked():
            session = ev.read_session(context.fs, name, parse_json)
            record = {"fp": fingerprint, "key": intent.key, "program": intent.program, "shape": intent.shape}
            ev.add_recall(session, record, fix.entry_id, ev.RECALLED_BEFORE, int(time.time()))
            ev.write_session(context.fs, name, session)
    return fingerprint, fix
