"""``.learnings/.state/corrections.jsonl``: the corrections the hooks caught that no lesson came
of yet. The one reader and writer of that file.

When the prompt-submit hook detects a correction (``detect/corrections.detect_correction``) it
nudges the agent to log it, and queues it here, so that a nudge the agent ignores does not lose
it. One JSON object a line, oldest first, written by hand (``json.dumps`` would import ``json``
and ``re`` on the hook's path)::

    {"id": "1a2b3c4d5e", "date": "2026-03-01", "session": "96ffc192-…", "pattern": "en.thats-wrong", "language": "en", "excerpt": "No, that's wrong. Don't use npm here, use pnpm."}

- ``excerpt``: the start of the prompt, every secret redacted (``detect/redact``, as
  ``store.record.clean_text`` does), on one line, control characters removed, at most
  :data:`MAX_EXCERPT_CHARS` characters. Nothing else of the prompt is kept.
- ``session``: the harness session it was said in (at most :data:`MAX_SESSION_CHARS`), ``date``
  the UTC day, ``pattern`` and ``language`` what the detector named; ``id`` a short digest of
  them and the second, so a prompt the hook sees twice (the hook registered twice) is queued once.

Bounded: at most ``corrections.queue_max`` items (a personal setting, never more than
:data:`MAX_ITEMS`), the oldest dropped first; each line at most :data:`MAX_LINE_BYTES`, so the
file never exceeds :data:`MAX_FILE_BYTES`. A line that is not one of ours (too long, not
JSON, a field missing or malformed) is dropped when the file is next written.

An item leaves the queue when a lesson is made of it: ``log learning --category correction``
in its session confirms the oldest item of that session (:func:`confirm`), and ``review`` logs,
edits or drops items one by one (:func:`remove`). Every change is a read, a change and an atomic
replace under the state directory's lock (``counters.state_lock``, the lock the hooks hold for
their session files), through :class:`~self_improve.store.trust.StoreDir`, so never through a
link. The file is under ``.state/``, which the store's ``.gitignore`` keeps out of git.

The hooks import this module: no imports at run time beyond the standard library's cheapest,
and readers pass the JSON parser they can afford (the hooks ``hooks.budget.parse_json``).
"""

from __future__ import annotations

from self_improve.events import Frozen
from self_improve.paths import STATE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    from self_improve.store.trust import StoreDir

    Parse = Callable[[str], Any]

FILE = "corrections.jsonl"
STATE = STATE_DIR + "/"  # where the state files are inside a store
MAX_EXCERPT_CHARS = 200
MAX_SESSION_CHARS = 128
MAX_NAME_CHARS = 60  # pattern and language: names of ours ("en.thats-wrong", "en")
MAX_ITEMS = 200  # corrections.queue_max is clamped to 1..MAX_ITEMS
# A line: excerpt <= 200 chars (<= 4 bytes each in UTF-8, 2 for an escaped quote or backslash),
# session <= 128 (idem), two names <= 60 ASCII characters, the id, the date and the keys.
MAX_LINE_BYTES = 2048
MAX_FILE_BYTES = MAX_ITEMS * MAX_LINE_BYTES
_HEAD_CHARS = 2000  # of the prompt, what is redacted: the excerpt is cut from its start
_ID_CHARS = 10
_HEX = frozenset("0123456789abcdef")
_FIELDS = ("id", "date", "session", "pattern", "language", "excerpt")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-_")


class QueuedCorrection(Frozen):
    """One caught correction (see the module's docstring for each field)."""

    __slots__ = _FIELDS
    id: str
    date: str
    session: str
    pattern: str
    language: str
    excerpt: str

    def __init__(self, id: str, date: str, session: str, pattern: str, language: str, excerpt: str) -> None:
        self._set(id, date, session, pattern, language, excerpt)

    def as_json(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in _FIELDS}


# ---- what is kept of a prompt ----------------------------------------------------------------------


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (every run of blanks, line breaks included, one space), without
    control characters, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    if not flat.isprintable():
        flat = " ".join("".join(ch if ch.isprintable() else " " for ch in flat).split())
    return flat[:limit].rstrip()


def excerpt_of(prompt: str) -> str:
    """What the queue keeps of a prompt: its start, redacted (before it is cut, so that no secret
    is cut in two and missed; and again once on one line, for a secret split over lines), on one
    line, at most :data:`MAX_EXCERPT_CHARS` characters, never cut inside a ``[REDACTED]`` tag."""
    from self_improve.detect.redact import MARGIN, redact, shorten
    from self_improve.events import without_surrogates

    text = without_surrogates(prompt[:_HEAD_CHARS + MARGIN])  # all the redaction reads of a long prompt
    head = redact(text, (0, _HEAD_CHARS)) if len(text) > _HEAD_CHARS else redact(text)
    flat = redact(one_line(head, _HEAD_CHARS))
    return one_line(shorten(flat, MAX_EXCERPT_CHARS), MAX_EXCERPT_CHARS)


def clean_session(session: str) -> str:
    """A session id as the queue keeps and compares it."""
    from self_improve.events import without_surrogates

    return one_line(without_surrogates(session), MAX_SESSION_CHARS)


def _name(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch in _NAME_CHARS)[:MAX_NAME_CHARS]


def new_item(prompt: str, session: str, pattern: str, language: str, now: float | None = None) -> QueuedCorrection:
    """The item for a correction caught now (``SELF_IMPROVE_NOW`` pins the clock, as for the store)."""
    from self_improve.digest import sha256_hex

    day, second = _clock(now)
    excerpt = excerpt_of(prompt)
    session = clean_session(session)
    pattern, language = _name(pattern), _name(language)
    seed = "\0".join((str(second), session, pattern, language, excerpt))
    digest = sha256_hex(seed.encode("utf-8", "replace"))[:_ID_CHARS]
    return QueuedCorrection(digest, day, session, pattern, language, excerpt)


def _clock(now: float | None) -> tuple[str, int]:
    """(the UTC day, the second) of ``now``, else of the store's clock (``self_improve.clock``:
    ``SELF_IMPROVE_NOW`` pins it)."""
    import time

    if now is None:
        from self_improve.clock import utcnow

        try:
            now = utcnow().timestamp()
        except ValueError:  # a malformed SELF_IMPROVE_NOW: the real clock
            now = None
    second = int(time.time() if now is None else now)
    return time.strftime("%Y-%m-%d", time.gmtime(second)), second


# ---- the file ------------------------------------------------------------------------------------


def _default_parse() -> Parse:
    import json

    return json.loads


def _valid(data: object) -> QueuedCorrection | None:
    """An item of ours, or None: every field a string within its bound, one line, printable."""
    if not isinstance(data, dict) or set(data) != set(_FIELDS):
        return None
    values = [data[name] for name in _FIELDS]
    if not all(isinstance(value, str) and value.isprintable() for value in values):
        return None
    item = QueuedCorrection(*values)
    day = item.date
    if not (len(item.id) == _ID_CHARS and set(item.id) <= _HEX):
        return None
    if not (len(day) == 10 and day[4] == day[7] == "-" and (day[:4] + day[5:7] + day[8:]).isdigit()):
        return None
    if len(item.session) > MAX_SESSION_CHARS or len(item.excerpt) > MAX_EXCERPT_CHARS:
        return None
    if _name(item.pattern) != item.pattern or _name(item.language) != item.language:
        return None
    return item


def parse_lines(raw: bytes, parse: Parse | None = None) -> list[QueuedCorrection]:
    """The valid items of the file's bytes, in file order, the same id kept once."""
    parse = parse or _default_parse()
    items: list[QueuedCorrection] = []
    seen: set[str] = set()
    for line in raw.split(b"\n"):
        if not line.strip() or len(line) > MAX_LINE_BYTES:
            continue
        try:
            item = _valid(parse(line.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if item is not None and item.id not in seen:
            seen.add(item.id)
            items.append(item)
    return items


def render_line(item: QueuedCorrection) -> str:
    """One line of the file (no newline); fields in a fixed order."""
    from self_improve.jsontext import quote

    return "{" + ", ".join(f'"{name}": {quote(getattr(item, name))}' for name in _FIELDS) + "}"


def render(items: Iterable[QueuedCorrection]) -> bytes:
    """The file: one line per item; a line over :data:`MAX_LINE_BYTES` (none of ours) is left out."""
    lines = [line for line in (render_line(item).encode("utf-8") for item in items) if len(line) <= MAX_LINE_BYTES]
    return b"".join(line + b"\n" for line in lines)


def read(fs: StoreDir, state: str = STATE, parse: Parse | None = None) -> list[QueuedCorrection]:
    """Every valid item, oldest first (at most :data:`MAX_ITEMS`: the newest); [] when the file
    is missing. A file that is a link or not a regular file raises ``UntrustedStore``."""
    raw = fs.read(state + FILE, limit=MAX_FILE_BYTES)
    return parse_lines(raw, parse)[-MAX_ITEMS:] if raw else []


def write(fs: StoreDir, items: Sequence[QueuedCorrection], state: str = STATE) -> None:
    """Replace the file with ``items`` (atomic, fsynced: a caught correction is data, not a
    counter); remove it when there are none. The caller holds :func:`lock`."""
    if items:
        fs.replace(state + FILE, render(items[-MAX_ITEMS:]))
    else:
        fs.remove(state + FILE)


def lock(fs: StoreDir, state: str = STATE) -> Any:
    """``with lock(fs):`` the state directory's lock (``counters.state_lock``)."""
    from self_improve.store.counters import state_lock

    return state_lock(fs, state)


def bound(limit: object) -> int:
    """``corrections.queue_max`` clamped to 1..:data:`MAX_ITEMS` (a wrong type: the default)."""
    from self_improve.store.settings import default

    if isinstance(limit, bool) or not isinstance(limit, int):
        limit = default("corrections.queue_max")
    return max(1, min(MAX_ITEMS, int(limit)))  # type: ignore[call-overload]


# ---- the changes (each under the lock: ``with lock(fs):``) ----------------------------------------


def add(fs: StoreDir, item: QueuedCorrection, limit: object, state: str = STATE, parse: Parse | None = None) -> bool:
    """Queue ``item`` at the end, keeping the newest ``limit`` items (:func:`bound`); False, with
    nothing written, when an item of that id is queued already."""
    items = read(fs, state, parse)
    if any(queued.id == item.id for queued in items):
        return False
    write(fs, [*items, item][-bound(limit):], state)
    return True


def remove(fs: StoreDir, item_id: str, state: str = STATE, parse: Parse | None = None) -> QueuedCorrection | None:
    """Take the item ``item_id`` out of the queue; None (nothing written) when it is not there."""
    items = read(fs, state, parse)
    found = next((item for item in items if item.id == item_id), None)
    if found is not None:
        write(fs, [item for item in items if item is not found], state)
    return found


def sessions_for_log(explicit: str, agent_sessions: Sequence[str], last_session: str) -> list[str]:
    """The sessions a ``log learning --category correction`` confirms in, most specific first:
    ``--session`` alone when it is given; else the session ids the agent's shell exports
    (``CLAUDE_CODE_SESSION_ID``, ``CODEX_THREAD_ID``: ``harnesses/agent_env``), then the last
    session the hooks saw (what ``Store.log`` counts the occurrence in)."""
    if explicit.strip():
        return [explicit]
    return [session for session in dict.fromkeys([*agent_sessions, last_session]) if session.strip()]


def confirm(fs: StoreDir, sessions: Sequence[str], state: str = STATE, parse: Parse | None = None) -> QueuedCorrection | None:
    """A correction was logged as a lesson: take the oldest item of the first of ``sessions``
    (most specific first) that has one out of the queue, and return it; None when no item is of
    any of them (nothing written). An empty session matches nothing."""
    items = read(fs, state, parse)
    for session in sessions:
        wanted = clean_session(session)
        found = next((item for item in items if wanted and item.session == wanted), None)
        if found is not None:
            write(fs, [item for item in items if item is not found], state)
            return found
    return None
