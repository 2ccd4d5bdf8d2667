"""``.learnings/.state/injections.jsonl``: the journal of what the hooks told the agent. The one
reader and writer of that file.

Every time a hook prints a block that reaches the model (post-bash's ``<error-detected>``,
pre-bash's ``<known-fix>``, prompt-submit's reminders, correction nudges and known mistakes),
``hooks/journal`` appends one record here, after the block was printed; ``self-improve stats
--injected`` reads them back. One JSON object a line, oldest first, written by hand
(``json.dumps`` would import ``json`` and ``re`` on the hook's path)::

    {"time":"2026-12-01T14:03:07Z","hook":"post-bash","harness":"claude","session":"1a2b3c4d-…","text":"<error-detected>\\n…","truncated":false}

- ``time``: UTC, to the second (``SELF_IMPROVE_NOW`` pins it, as for the store);
- ``hook``: one of :data:`HOOKS`; ``harness``: the adapter's name (``claude``, ``codex``);
- ``session``: the harness's session id, on one line, control characters removed, at most
  :data:`MAX_SESSION_CHARS` characters;
- ``text``: the block exactly as the hook injected it (our own text: its templates and store
  text that went through ``detect/sanitise`` already), cut to its first :data:`MAX_TEXT_CHARS`
  characters; ``truncated`` says whether it was cut.

Bounded: the newest :data:`MAX_RECORDS` records are kept, and of them only as many of the newest
as fit in :data:`KEEP_BYTES` (a record of at most 2,000 characters of text takes ~2.2 KB, so
200 of them fit unless their text is mostly escaped control characters). Appending is one
``O_APPEND`` write, O(record): the file is compacted to that bound (read, filtered, atomically
replaced) only once it grows past :data:`COMPACT_BYTES`, so a compaction follows at least
``COMPACT_BYTES - KEEP_BYTES`` bytes of appends. The file therefore never exceeds
``COMPACT_BYTES`` plus one record (:data:`MAX_LINE_BYTES`), and the hook pays O(file) once in
hundreds of injections.

Each append writes a line break first: a foreign tail without one (garbage, somebody's torn
write) then costs no record of ours. Readers skip blank lines and every line that is not a
record of ours (too long, not JSON, a field missing, of the wrong type or out of its bounds);
the next compaction drops them. Every access goes through
:class:`~self_improve.store.trust.StoreDir` (never through a link); the caller holds the state
directory's lock (``counters.state_lock``) around :func:`append`, so that a compaction loses no
concurrent append. The file is under ``.state/``, which the store's ``.gitignore`` keeps out of
git.

The hooks import this module: the standard library's cheapest only, and readers pass the JSON
parser they can afford (the hooks ``hooks.budget.parse_json``; ``json.loads`` by default).
"""

from __future__ import annotations

import os

from self_improve.events import Frozen
from self_improve.paths import STATE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from self_improve.store.trust import StoreDir

    Parse = Callable[[str], Any]

FILE = "injections.jsonl"
STATE = STATE_DIR + "/"  # where the state files are inside a store; "" in the user's state dir
HOOKS = ("post-bash", "pre-bash", "prompt-submit")
MAX_RECORDS = 200
MAX_TEXT_CHARS = 2000
MAX_SESSION_CHARS = 128
MAX_HARNESS_CHARS = 32
# A line: text <= 2000 characters (<= 6 bytes each escaped), session <= 128 (idem), the rest < 200.
MAX_LINE_BYTES = 16 * 1024
KEEP_BYTES = 512 * 1024
COMPACT_BYTES = 1024 * 1024
READ_LIMIT = COMPACT_BYTES + 4 * MAX_LINE_BYTES  # what a reader takes of a file that grew past its bound
_FIELDS = ("time", "hook", "harness", "session", "text", "truncated")
_TEXT_FIELDS = _FIELDS[:-1]


class Injection(Frozen):
    """One injected block (see the module's docstring for each field)."""

    __slots__ = _FIELDS
    time: str
    hook: str
    harness: str
    session: str
    text: str
    truncated: bool

    def __init__(self, time: str, hook: str, harness: str, session: str, text: str, truncated: bool) -> None:
        self._set(time, hook, harness, session, text, truncated)

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}


# ---- a record ------------------------------------------------------------------------------------


def one_line(text: str, limit: int) -> str:
    """``text`` on one line, without control characters, at most ``limit`` characters."""
    flat = "".join(ch for ch in text if ch.isprintable()) if not text.isprintable() else text
    return flat.strip()[:limit]


def now_text(now: float | None = None) -> str:
    """``now`` (else the store's clock: ``SELF_IMPROVE_NOW`` pins it) as ``YYYY-MM-DDTHH:MM:SSZ``."""
    import time

    if now is None:
        from self_improve.clock import utcnow

        try:
            now = utcnow().timestamp()
        except ValueError:  # a malformed SELF_IMPROVE_NOW: the real clock
            now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(now)))


def new_record(hook: str, harness: str, session: str, text: str, now: float | None = None) -> Injection:
    """The record of ``text`` injected now by ``hook`` (cut to :data:`MAX_TEXT_CHARS`)."""
    from self_improve.events import without_surrogates

    kept = without_surrogates(text[:MAX_TEXT_CHARS])
    return Injection(now_text(now), hook, one_line(harness, MAX_HARNESS_CHARS),
                     one_line(without_surrogates(session), MAX_SESSION_CHARS), kept, len(text) > MAX_TEXT_CHARS)


def render_line(record: Injection) -> bytes:
    """One line of the file (no line break); fields in a fixed order."""
    from self_improve.jsontext import quote

    parts = [f"{quote(name)}:{quote(getattr(record, name))}" for name in _TEXT_FIELDS]
    parts.append(f'"truncated":{"true" if record.truncated else "false"}')
    return ("{" + ",".join(parts) + "}").encode("utf-8")


def _is_time(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SSZ``."""
    return (len(text) == 20 and text[4] == text[7] == "-" and text[10] == "T" and text[13] == text[16] == ":"
            and text[19] == "Z" and (text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]).isdigit())


def _valid(data: object) -> Injection | None:
    """A record of ours, or None."""
    if not isinstance(data, dict) or set(data) != set(_FIELDS):
        return None
    time, hook, harness, session, text = (data[name] for name in _TEXT_FIELDS)
    if not all(isinstance(value, str) for value in (time, hook, harness, session, text)):
        return None
    if type(data["truncated"]) is not bool:
        return None
    record = Injection(time, hook, harness, session, text, data["truncated"])
    if not _is_time(record.time) or record.hook not in HOOKS or len(record.text) > MAX_TEXT_CHARS:
        return None
    if one_line(record.harness, MAX_HARNESS_CHARS) != record.harness:
        return None
    if one_line(record.session, MAX_SESSION_CHARS) != record.session:
        return None
    return record


def _default_parse() -> Parse:
    import json

    return json.loads


def parse_lines(raw: bytes, parse: Parse | None = None) -> list[Injection]:
    """The valid records of the file's bytes, in file order."""
    parse = parse or _default_parse()
    records: list[Injection] = []
    for line in raw.split(b"\n"):
        if not line.strip() or len(line) > MAX_LINE_BYTES:
            continue
        try:
            record = _valid(parse(line.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if record is not None:
            records.append(record)
    return records


def newest(records: list[Injection]) -> list[Injection]:
    """What the bound keeps of ``records``: the newest :data:`MAX_RECORDS` that fit in :data:`KEEP_BYTES`."""
    kept: list[Injection] = []
    size = 0
    for record in reversed(records[-MAX_RECORDS:]):
        size += len(render_line(record)) + 1
        if size > KEEP_BYTES:
            break
        kept.append(record)
    kept.reverse()
    return kept


def render(records: Iterable[Injection]) -> bytes:
    return b"".join(render_line(record) + b"\n" for record in records)


# ---- the file ------------------------------------------------------------------------------------


def read(fs: StoreDir, state: str = STATE, parse: Parse | None = None) -> list[Injection]:
    """The journal, oldest first, within its bound (:func:`newest`); [] when the file is missing.
    A file that is a link or not a regular file raises ``UntrustedStore``."""
    raw = fs.read(state + FILE, limit=READ_LIMIT)
    return newest(parse_lines(raw, parse)) if raw else []


def append(fs: StoreDir, record: Injection, state: str = STATE, parse: Parse | None = None) -> bool:
    """Add ``record`` at the end: one append of one line (O(record)); once the file is past
    :data:`COMPACT_BYTES`, compact it to its bound. True when it compacted. The caller holds
    the state lock (``counters.state_lock``)."""
    name = state + FILE
    line = render_line(record)
    if len(line) > MAX_LINE_BYTES:  # none of ours: each field is bounded well below it
        return False
    fs.append(name, b"\n" + line + b"\n", durable=False)
    if _size_hint(fs, name) <= COMPACT_BYTES:
        return False
    compact(fs, state, parse, record)
    return True


def compact(fs: StoreDir, state: str = STATE, parse: Parse | None = None, last: Injection | None = None) -> None:
    """Rewrite the file with what its bound keeps (atomic replace; removed when nothing is).
    ``last``: the record just appended, kept even when a file grown past :data:`READ_LIMIT` by
    somebody else hid it from the read."""
    records = read(fs, state, parse)
    if last is not None and (not records or records[-1] != last):
        records = newest([*records, last])
    if records:
        fs.replace(state + FILE, render(records), durable=False)
    else:
        fs.remove(state + FILE)


def _size_hint(fs: StoreDir, name: str) -> int:
    """The file's size, only to decide whether to compact: the append and the compaction
    themselves go through ``fs`` (no link followed); a link here only makes the hint wrong."""
    try:
        return os.stat(os.path.join(fs.path, name), follow_symlinks=False).st_size
    except OSError:
        return 0
