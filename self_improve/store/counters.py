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
HOOK_COUNTERS = ("reminders", "error_nudges", "recalls", "preventions", "correction_nudges", "errors_recorded")
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
