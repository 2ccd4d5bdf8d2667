"""``.learnings/.state/counters.json``: what the loop did, counted. The one reader and writer.

The hooks count the nudges they fire (:data:`HOOK_COUNTERS`), the CLI the actions it takes
(promote, retire, archive, restore), and ``stats`` shows both. Every write is a read, an add and an atomic
replace under the state directory's lock (:func:`state_lock`, the lock the hooks also hold for
their session files), through :class:`~self_improve.store.trust.StoreDir`, so never through a
link. Counters are best effort: a write is not fsynced.

The file holds whole numbers only, and is written by hand: ``json.dumps`` would import ``json``
(and ``re``) on a hook's every prompt. Its readers pass the parser they can afford (the hooks
their ``_json`` scanner, ``hooks.budget.parse_json``); ``json.loads`` by default.
"""

from __future__ import annotations

from self_improve.paths import STATE_DIR

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from self_improve.store.trust import StoreDir

    Parse = Callable[[str], Any]

FILE = "counters.json"
STATE = STATE_DIR + "/"  # where the state files are inside a store; "" in the user's state dir
HOOK_COUNTERS = ("reminders", "error_nudges", "recalls", "preventions", "correction_nudges", "errors_recorded", "errors_scanned")
MAX_BYTES = 1 << 20


def state_lock(fs: StoreDir, state: str = STATE, timeout: float = 2.0) -> Any:
    """``with state_lock(fs):`` the lock of the state directory, around every read-add-write."""
    return fs.lock(state + ".lock", timeout=timeout)


def read(fs: StoreDir, state: str = STATE, parse: Parse | None = None) -> dict[str, int] | None:
    """Every counter, or None when the file is missing or unreadable."""
    return read_ints(fs, state + FILE, parse)


def add(fs: StoreDir, counts: Mapping[str, int], state: str = STATE, parse: Parse | None = None) -> None:
    """Add ``counts``; the caller holds :func:`state_lock`."""
    update_ints(fs, state + FILE, counts, parse)


def bump(fs: StoreDir, counts: Mapping[str, int], state: str = STATE, parse: Parse | None = None) -> None:
    """Add ``counts`` under the state lock."""
    with state_lock(fs, state):
        add(fs, counts, state, parse)


# ---- files of whole numbers (the counters, the hooks' session files) ------------------------


def read_ints(fs: StoreDir, name: str, parse: Parse | None = None) -> dict[str, int] | None:
    """The file's whole-number members (others are dropped), or None when it is missing or
    unreadable."""
    from self_improve.store.trust import UntrustedStore

    if parse is None:
        import json

        parse = json.loads
    try:
        raw = fs.read(name, limit=MAX_BYTES)
        data = parse(raw.decode("utf-8")) if raw else None
    except (OSError, ValueError, UntrustedStore):
        return None
    if not isinstance(data, dict):
        return None
    return {str(k): v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def write_ints(fs: StoreDir, name: str, data: Mapping[str, int]) -> None:
    """Only names of ours (letters, digits, ``_-.``) are kept: they need no JSON escapes."""
    body = ", ".join(f'"{key}": {int(value)}' for key, value in sorted(data.items()) if _plain(key))
    fs.replace(name, ("{" + body + "}").encode("utf-8"), durable=False)


def _plain(name: str) -> bool:
    return bool(name) and name.isascii() and all(ch.isalnum() or ch in "_-." for ch in name)


def update_ints(fs: StoreDir, name: str, counts: Mapping[str, int], parse: Parse | None = None) -> None:
    data = read_ints(fs, name, parse) or {}
    for key, by in counts.items():
        data[key] = data.get(key, 0) + by
    write_ints(fs, name, data)


# ---- dated tallies: what the learning curve needs per day (``review/curve.py``) ------------------
#
# The counters above are totals: a curve cannot be drawn from them. A few of them are also kept
# per day in their own file, ``daily.json``, as ``"NAME.YYYY-MM-DD": count`` (names of ours and
# ISO days need no JSON escapes: the same writer). Bounded: the newest :data:`MAX_DAYS` days of
# each name are kept. Days are the store's clock (``SELF_IMPROVE_NOW``), as the occurrences.

DAILY_FILE = "daily.json"
# Counted per day as well as in total: the actions ``bump`` counts for the CLI, and the measured
# credit the hooks write (``hooks/credit.py`` calls :func:`bump_daily` for it).
DAILY_COUNTERS = ("rules_promoted", "rules_retired", "measured_helpful")
MAX_DAYS = 731  # two years of days, per name: about 25 KB for three names


def read_daily(fs: StoreDir, state: str = STATE, parse: Parse | None = None) -> dict[str, dict[str, int]]:
    """``{name: {day: count}}`` of the dated tallies; empty when the file is missing or
    unreadable. Keys that are not ``NAME.YYYY-MM-DD`` are dropped."""
    data = read_ints(fs, state + DAILY_FILE, parse) or {}
    out: dict[str, dict[str, int]] = {}
    for key, count in data.items():
        name, _, day = key.rpartition(".")
        if name and _is_day(day) and count > 0:
            out.setdefault(name, {})[day] = count
    return out


def add_daily(fs: StoreDir, counts: Mapping[str, int], day: str, state: str = STATE, parse: Parse | None = None) -> None:
    """Add ``counts`` to ``day`` (YYYY-MM-DD); the caller holds :func:`state_lock`."""
    if not _is_day(day):
        return
    wanted = {f"{name}.{day}": by for name, by in counts.items() if by and _plain(name)}
    if not wanted:
        return
    data = read_ints(fs, state + DAILY_FILE, parse) or {}
    for key, by in wanted.items():
        data[key] = data.get(key, 0) + by
    write_ints(fs, state + DAILY_FILE, _newest_days(data))


def bump_daily(fs: StoreDir, counts: Mapping[str, int], day: str, state: str = STATE, parse: Parse | None = None) -> None:
    """Add ``counts`` to ``day`` under the state lock."""
    with state_lock(fs, state):
        add_daily(fs, counts, day, state, parse)


def bump_counted(fs: StoreDir, counts: Mapping[str, int], day: str, state: str = STATE, parse: Parse | None = None) -> None:
    """:func:`bump`, and the names of :data:`DAILY_COUNTERS` among ``counts`` also for ``day``,
    under one lock."""
    dated = {name: by for name, by in counts.items() if name in DAILY_COUNTERS}
    with state_lock(fs, state):
        add(fs, counts, state, parse)
        if dated:
            add_daily(fs, dated, day, state, parse)


def _is_day(text: str) -> bool:
    """``YYYY-MM-DD`` by its shape (the reader parses it; the writer only keeps the shape)."""
    return len(text) == 10 and text[4] == "-" and text[7] == "-" and (text[:4] + text[5:7] + text[8:]).isdigit()


def _newest_days(data: Mapping[str, int]) -> dict[str, int]:
    """Each name's newest :data:`MAX_DAYS` days (ISO days sort as text)."""
    by_name: dict[str, list[str]] = {}
    for key in data:
        by_name.setdefault(key.rpartition(".")[0], []).append(key)
    kept: dict[str, int] = {}
    for keys in by_name.values():
        for key in sorted(keys, key=lambda k: k.rpartition(".")[2])[-MAX_DAYS:]:
            kept[key] = data[key]
    return kept
