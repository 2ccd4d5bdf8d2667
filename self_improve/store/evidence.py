"""What the exit codes prove: observed fixes, measured credit, and the prevention index.

The evidence path is a small per-session ring kept by post-bash (``.state/evidence/<session>.json``):
- **open failures**: each failure's fingerprint, the entry it was recorded on, its intent
  (``detect/intent.py``) and the successful commands that ran after it (read-only ones left out,
  at most :data:`MAX_AFTER`, newest kept). When the same intent later passes in the session, the
  commands in between, or the argument change itself, are the **observed fix** of that failure;
- **recalls**: each fix a hook injected (after a failure, or before a command) that is waiting for
  its outcome. The same intent passing is **measured helpful**; the same fingerprint failing
  again is **measured harmful** (not for a fix of the first prompt's list: that failure says the
  agent did not apply it). One outcome per recall.

The **prevention index** (``.state/prevent.json``, one per project) maps a command that failed,
normalised, to its fingerprint, until that command passes. The pre-bash hook reads this one small
file on every Bash call and opens the store only when the command about to run is in it.

Everything here is pure over plain dicts, plus the read and the write of the two files through
:class:`~self_improve.store.trust.StoreDir` (never through a link); the caller holds the state
lock around a read-change-write. Files are bounded and their readers drop what is not ours.
"""

from __future__ import annotations

from self_improve.events import Frozen
from self_improve.paths import STATE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from self_improve.detect.intent import Intent
    from self_improve.store.trust import StoreDir

    Parse = Callable[[str], Any]

STATE = STATE_DIR + "/"  # where the state files are inside a store
EVIDENCE_DIR = "evidence"
INDEX_FILE = "prevent.json"
MAX_FAILURES = 8
MAX_AFTER = 4
MAX_RECALLS = 8
MAX_INDEX = 64
MAX_BYTES = 64 * 1024
MAX_SHOWN_COMMAND = 44  # characters of one command inside an observed fix
MAX_FIX_CHARS = 120  # "at most about 120 characters, one line"
_TEXT_FIELDS = ("fp", "id", "key", "program", "shape", "cmd", "src")
MAX_LISTINGS = 3  # a command listed at 3 first prompts without failing again is listed no more
# Where a recall was made: after a failure, before a command (pre-bash), at the session's first
# prompt. Only the first two keep pre-bash from saying the same fix again.
RECALLED_AFTER, RECALLED_BEFORE, RECALLED_AT_START = "after", "before", "start"


class Outcome(Frozen):
    """What one command proved: observed fixes to write, entries to credit."""

    __slots__ = ("observed", "helpful", "harmful")
    observed: tuple[tuple[str, str], ...]  # (entry ID, observed fix text)
    helpful: tuple[str, ...]  # entry IDs, once each per recall
    harmful: tuple[str, ...]

    def __init__(self, observed: tuple[tuple[str, str], ...] = (), helpful: tuple[str, ...] = (),
                 harmful: tuple[str, ...] = ()) -> None:
        self._set(observed, helpful, harmful)

    def __bool__(self) -> bool:
        return bool(self.observed or self.helpful or self.harmful)


# ---- the two files -----------------------------------------------------------------------------


def _read(fs: StoreDir, name: str, parse: Parse) -> Any:
    from self_improve.store.trust import UntrustedStore

    try:
        raw = fs.read(name, limit=MAX_BYTES)
        return parse(raw.decode("utf-8")) if raw else None
    except (OSError, ValueError, UnicodeDecodeError, UntrustedStore):
        return None


def _records(value: Any, limit: int, lists: tuple[str, ...] = (), ints: tuple[str, ...] = ("t",)) -> list[dict[str, Any]]:
    """The well-formed records of a list read from disk: string fields of ours, ``t`` an int."""
    out: list[dict[str, Any]] = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        record: dict[str, Any] = {k: v[:400] for k, v in item.items() if k in _TEXT_FIELDS and isinstance(v, str)}
        for name in ints:
            record[name] = item[name] if type(item.get(name)) is int else 0
        for name in lists:
            found = item.get(name)
            record[name] = [v[:200] for v in found if isinstance(v, str)][-MAX_AFTER:] if isinstance(found, list) else []
        if record.get("fp") and record.get("key"):
            out.append(record)
    return out[-limit:]


def session_name(state: str, file_name: str) -> str:
    return f"{state}{EVIDENCE_DIR}/{file_name}"


def read_session(fs: StoreDir, name: str, parse: Parse) -> dict[str, list[dict[str, Any]]]:
    data = _read(fs, name, parse)
    data = data if isinstance(data, dict) else {}
    return {"failures": _records(data.get("failures"), MAX_FAILURES, ("after",)),
            "recalls": _records(data.get("recalls"), MAX_RECALLS)}


def write_session(fs: StoreDir, name: str, evidence: dict[str, list[dict[str, Any]]]) -> None:
    from self_improve.jsontext import dumps

    if not evidence["failures"] and not evidence["recalls"]:
        if fs.is_file(name):
            fs.remove(name)  # nothing open: the next passing command of this session finds no file
        return
    body = {"failures": evidence["failures"][-MAX_FAILURES:], "recalls": evidence["recalls"][-MAX_RECALLS:]}
    fs.replace(name, dumps(body).encode("utf-8"), durable=False)


def read_index(fs: StoreDir, state: str, parse: Parse) -> dict[str, dict[str, Any]]:
    data = _read(fs, state + INDEX_FILE, parse)
    # ``t``: when it failed; ``listed``: at how many sessions' first prompt since (``to_list``)
    records = _records(data.get("commands") if isinstance(data, dict) else None, MAX_INDEX, ints=("t", "listed"))
    return {record["key"]: record for record in records}


def write_index(fs: StoreDir, state: str, index: dict[str, dict[str, Any]]) -> None:
    from self_improve.jsontext import dumps

    records = sorted(index.values(), key=lambda record: int(record.get("t", 0)))[-MAX_INDEX:]
    if not records:
        fs.remove(state + INDEX_FILE)  # nothing to prevent: a passing command finds no file
        return
    fs.replace(state + INDEX_FILE, dumps({"commands": records}).encode("utf-8"), durable=False)


# ---- what a command proves ---------------------------------------------------------------------


def _matches(record: dict[str, Any], intent: Intent) -> bool:
    return record.get("key") == intent.key or record.get("program") == intent.program


def may_match(index: dict[str, dict[str, Any]], command: str) -> bool:
    """Whether ``command`` can be one of the index's (``lookup``), before any parsing; False lets
    the hooks skip the shell lexer on the common command.

    Sound: ``lookup`` finds a record only when the command's key equals the record's key, or its
    shape equals the record's shape. A key starts with the basename of the command's first
    program and a shape with that of its last (``detect/intent.py``); a basename is a substring
    of the word it came from (quotes removed, nothing expanded), so it stands in the command
    line. A property test (tests/store/test_evidence.py) checks it."""
    for record in index.values():
        if record["key"].split(" ", 1)[0] in command:
            return True
        shape = record.get("shape", "")
        if shape and shape.split(" ", 1)[0] in command:
            return True
    return False


def lookup(index: dict[str, dict[str, Any]], intent: Intent) -> dict[str, Any] | None:
    """The index's record for the command about to run: the same normalised command, else the
    same program, subcommand and flags (``pytest --filter y`` after ``pytest --filter x`` failed)."""
    if not intent.key:
        return None
    found = index.get(intent.key)
    if found is None:
        found = next((record for record in reversed(index.values()) if record.get("shape") == intent.shape), None)
    return found


def on_pass(evidence: dict[str, list[dict[str, Any]]], index: dict[str, dict[str, Any]], intent: Intent,
            shown: str, now: int) -> Outcome:
    """A command passed: close what it answers. Changes ``evidence`` and ``index`` in place."""
    helpful = _once(record["id"] for record in evidence["recalls"] if _matches(record, intent) and _counts(record, intent))
    evidence["recalls"] = [record for record in evidence["recalls"] if not _matches(record, intent)]
    observed: list[tuple[str, str]] = []
    still_open = []
    for failure in evidence["failures"]:
        if not _matches(failure, intent):
            if not intent.read_only and shown and shown not in failure["after"]:
                failure["after"] = [*failure["after"], shown][-MAX_AFTER:]
            still_open.append(failure)
            continue
        text = observed_fix(failure["after"], failure.get("cmd", ""), shown, failure["key"] == intent.key)
        if text and failure.get("id"):
            observed.append((failure["id"], text))
        if failure["key"] != intent.key:  # the failing command itself never passed: keep it preventable
            _keep_preventable(index, failure, now)
    evidence["failures"] = still_open
    for key in [key for key, record in index.items() if key == intent.key or record.get("shape") == intent.shape]:
        del index[key]
    return Outcome(tuple(observed), helpful)


def on_failure(evidence: dict[str, list[dict[str, Any]]], index: dict[str, dict[str, Any]], intent: Intent,
               shown: str, fingerprint: str, entry_id: str, recalled: str, now: int) -> Outcome:
    """A command failed with ``fingerprint`` (recorded on ``entry_id``; ``recalled``: the entry
    whose fix the hook is injecting now, or ""). Changes ``evidence`` and ``index`` in place."""
    # "Followed by the same fingerprint failing again": a fix given after a failure or with a
    # command. The first prompt's list is not: its command failing says the agent did not apply
    # it, not that it is wrong (a rule that recurs is proposed for revision, not retired).
    harmful = _once(record["id"] for record in evidence["recalls"]
                    if record["fp"] == fingerprint and record.get("src") != RECALLED_AT_START and _counts(record, intent))
    evidence["recalls"] = [record for record in evidence["recalls"] if record["fp"] != fingerprint]
    base = {"fp": fingerprint, "key": intent.key, "program": intent.program, "shape": intent.shape, "t": now}
    observed = []
    for failure in [f for f in evidence["failures"] if f["program"] == intent.program and f["key"] != intent.key
                    and f["fp"] != fingerprint]:
        # The same intent, other arguments, another error: the change got past the first error.
        evidence["failures"].remove(failure)
        if failure.get("id") and shown:
            observed.append((failure["id"], observed_fix([], failure.get("cmd", ""), shown, False, verb="got past this error")))
        _keep_preventable(index, failure, now)
    # The same attempt failing again: what ran in between did not fix it.
    evidence["failures"] = [f for f in evidence["failures"] if not (f["key"] == intent.key and f["fp"] == fingerprint)]
    evidence["failures"].append({**base, "id": entry_id, "cmd": shown, "after": []})
    if recalled:
        add_recall(evidence, base, recalled, RECALLED_AFTER, now)
    _keep_preventable(index, base, now)
    return Outcome(tuple(observed), harmful=harmful)


def _keep_preventable(index: dict[str, dict[str, Any]], failed: dict[str, Any], now: int) -> None:
    """The index's record of a command that failed (a failure of the ring, or its fields): the
    one writer of index records, which a new failure of that command also refreshes (``listed``
    starts again)."""
    index[failed["key"]] = {"key": failed["key"], "fp": failed["fp"], "shape": failed.get("shape", ""),
                            "program": failed.get("program", ""), "t": now}


def _counts(record: dict[str, Any], intent: Intent) -> bool:
    """Whether this result is an outcome of ``record``'s fix. A fix pre-bash gave for this very
    command arrived while it ran (Claude Code shows it with the result): it cannot have helped
    or harmed it, only what comes after."""
    return bool(record.get("id")) and not (record.get("src") == RECALLED_BEFORE and record["key"] == intent.key)


def _once(ids: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def to_list(index: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The index's records a session's first prompt may list, newest first: those listed fewer
    than :data:`MAX_LISTINGS` times since they last failed. A mistake that stopped happening
    (prevented, or gone) stops costing tokens; failing again lists it anew."""
    fresh = [record for record in index.values() if int(record.get("listed", 0)) < MAX_LISTINGS]
    return sorted(fresh, key=lambda record: int(record.get("t", 0)), reverse=True)


def note_listed(index: dict[str, dict[str, Any]], keys: list[str]) -> None:
    for key in keys:
        if key in index:
            index[key]["listed"] = int(index[key].get("listed", 0)) + 1


def add_recall(evidence: dict[str, list[dict[str, Any]]], record: dict[str, Any], entry_id: str, source: str,
               now: int) -> None:
    """A fix injected for ``record``'s command (an index record, or an intent's fields) before
    it ran: its outcome is that command's. One pending recall per entry, command and source."""
    evidence["recalls"] = [r for r in evidence["recalls"]
                           if not (r.get("id") == entry_id and r["key"] == record["key"] and r.get("src") == source)]
    evidence["recalls"].append({"fp": record["fp"], "id": entry_id, "key": record["key"],
                                "program": record.get("program", ""), "shape": record.get("shape", ""),
                                "src": source, "t": now})


def said_in_session(evidence: dict[str, list[dict[str, Any]]], fingerprint: str) -> bool:
    """Whether a hook gave this fix in the session, after a failure or before a command, and its
    outcome is not in yet (the first prompt's list does not count: pre-bash may say it again
    next to the command itself)."""
    return any(record["fp"] == fingerprint and record.get("src") != RECALLED_AT_START for record in evidence["recalls"])


def observed_fix(between: list[str], failed: str, passed: str, same_command: bool, verb: str = "passed") -> str:
    """The observed fix in our words, or "" when nothing visible made the difference (the same
    command passed with nothing run in between: an edit by another tool, or a flaky command)."""
    if not passed or (same_command and not between):
        return ""
    steps = [f"`{command}`" for command in between[-2:]]
    if same_command or between:
        text = f"Last time: {', then '.join(steps)}, then `{passed}` {verb}."
    else:
        text = f"Last time: `{passed}` {verb} instead of `{failed}`." if failed else f"Last time: `{passed}` {verb} instead."
    if len(text) > MAX_FIX_CHARS and len(steps) > 1:
        return observed_fix(between[-1:], failed, passed, same_command, verb)
    if len(text) > MAX_FIX_CHARS and failed:
        return observed_fix(between, "", passed, same_command, verb)
    return text[:MAX_FIX_CHARS]


def shown_command(command: str, clean: Callable[[str], str]) -> str:
    """A command as an observed fix quotes it: one line, redacted by ``clean``, without
    backticks, at most :data:`MAX_SHOWN_COMMAND` characters."""
    text = clean(" ".join(command.split())).replace("`", "'")
    return text if len(text) <= MAX_SHOWN_COMMAND else text[: MAX_SHOWN_COMMAND - 1].rstrip() + "…"
