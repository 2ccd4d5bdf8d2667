"""OpenClaw's transcript databases, read-only: their rows, our read positions, zstd.

Reading
    Each agent database is opened READ-ONLY (``file:...?mode=ro``): we never write OpenClaw's
    files.  The databases run in WAL mode; a read-only connection still needs the ``-wal`` and
    ``-shm`` files, and SQLite creates them beside the database if they are missing (they are
    the same files OpenClaw uses, so this is harmless).  Rows are read per session in ``seq``
    order, above the last ``seq`` we processed.  A database that is locked or busy is retried
    briefly (:class:`DatabaseBusy` after that: the pass skips it, its rows come on the next).
    A missing database, or one whose ``transcript_events`` table does not exist yet (OpenClaw
    is creating it), is simply empty.

Offsets
    The last processed ``seq`` per (database, session) is kept in a JSON file (default
    ``$XDG_STATE_HOME/self-improve/openclaw-offsets.json``), written atomically (temp file,
    fsync, ``os.replace``, fsync of the dir), and guarded by an advisory lock held for a whole
    pass (:meth:`Offsets.locked`), so a ``sweep`` run while ``watch`` is running waits for the
    watcher's pass and then continues from its offsets instead of counting the same rows again.
    When a row is committed relative to its record is ``watch.py``'s business.

Compressed rows
    OpenClaw may store a row zstd-compressed (``event_json`` NULL, ``event_zstd`` set).  We
    decode it with ``compression.zstd`` (Python 3.14+), else the optional ``zstandard``
    package, else not at all (:func:`zstd_decoder` is None; the pass skips such rows).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.atomic import atomic_write
from self_improve.lock import locked
from self_improve.paths import user_state_dir

TRANSCRIPT_TABLE = "transcript_events"
OFFSETS_FILENAME = "openclaw-offsets.json"
OFFSETS_VERSION = 1
BUSY_TIMEOUT_S = 0.25
BUSY_ATTEMPTS = 3
BUSY_PAUSE_S = 0.1
# A sweep waits this long for a running watcher's pass to finish with the offsets file.
OFFSETS_LOCK_TIMEOUT_S = 600.0


def default_offsets_path() -> Path:
    return Path(user_state_dir()) / OFFSETS_FILENAME


# -- offsets ---------------------------------------------------------------------------------


class Offsets:
    """Last processed ``seq`` per (database, session), persisted atomically.

    Use ``with offsets.locked():`` around a pass: it takes the advisory lock and reloads the
    file, so two processes sharing the file never process the same rows.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._data: dict[str, dict[str, int]] = {}
        self._dirty = False

    @contextlib.contextmanager
    def locked(self) -> Iterator[Offsets]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path.with_name(self.path.name + ".lock"), timeout=OFFSETS_LOCK_TIMEOUT_S):
            self.load()
            yield self
            self.save()

    def load(self) -> None:
        self._data = _read_offsets(self.path)
        self._dirty = False

    def last_seq(self, database: Path, session: str) -> int:
        return self._data.get(_db_key(database), {}).get(session, -1)

    def advance(self, database: Path, session: str, seq: int) -> None:
        sessions = self._data.setdefault(_db_key(database), {})
        if seq > sessions.get(session, -1):
            sessions[session] = seq
            self._dirty = True

    def rewind(self, database: Path, session: str, seq: int) -> None:
        """Put a session back to ``seq`` (after a failed record), even though it is lower."""
        sessions = self._data.setdefault(_db_key(database), {})
        if sessions.get(session, -1) != seq:
            if seq < 0:
                sessions.pop(session, None)
            else:
                sessions[session] = seq
            self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        payload = {"version": OFFSETS_VERSION, "databases": self._data}
        text = json.dumps(payload, indent=1, sort_keys=True) + "\n"
        atomic_write(self.path, text.encode("utf-8"))  # temp + fsync + os.replace + dir fsync
        self._dirty = False


def _db_key(database: Path) -> str:
    return str(database.expanduser().resolve())


def _read_offsets(path: Path) -> dict[str, dict[str, int]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        # A corrupt offsets file must not silently restart from zero (that would re-record
        # every transcript): fail loudly instead.
        raise OffsetsError(f"cannot read offsets file {path}: {exc}") from exc
    databases = raw.get("databases") if isinstance(raw, dict) else None
    if not isinstance(databases, dict):
        raise OffsetsError(f"offsets file {path} has no 'databases' table")
    return {
        str(db): {str(s): int(q) for s, q in sessions.items() if isinstance(q, int)}
        for db, sessions in databases.items()
        if isinstance(sessions, dict)
    }


class OffsetsError(RuntimeError):
    """The offsets file exists but cannot be used."""


# -- zstd ------------------------------------------------------------------------------------


def zstd_decoder() -> Callable[[bytes], bytes] | None:
    try:
        from compression import zstd  # type: ignore[import-not-found, unused-ignore]  # Python 3.14+

        decompress: Callable[[bytes], bytes] = zstd.decompress
        return decompress
    except ImportError:
        pass
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]  # optional, never required
    except ImportError:
        return None

    def decode(blob: bytes) -> bytes:
        # decompressobj copes with frames that omit the content size, unlike decompress().
        data: bytes = zstandard.ZstdDecompressor().decompressobj().decompress(blob)
        return data

    return decode


def zstd_backend() -> str | None:
    """Which zstd decoder is available: ``"compression.zstd"``, ``"zstandard"`` or ``None``."""
    decoder = zstd_decoder()
    if decoder is None:
        return None
    return "zstandard" if decoder.__module__ == __name__ else "compression.zstd"


# -- reading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    session_id: str
    seq: int
    created_at: int | None  # epoch milliseconds
    event_json: str | None
    event_zstd: bytes | None


class DatabaseBusy(Exception):
    """Still locked after a few short retries: skip this database for this pass."""


def open_readonly(database: Path) -> sqlite3.Connection:
    uri = f"file:{urllib.parse.quote(str(database.resolve()))}?mode=ro"
    # isolation_level=None: no implicit transactions, so we never hold a read snapshot (which
    # would stop OpenClaw's WAL checkpoints) longer than one statement.
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)


def is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry_busy(query: Callable[[], Any]) -> Any:
    for attempt in range(BUSY_ATTEMPTS):
        try:
            return query()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if attempt + 1 == BUSY_ATTEMPTS:
                raise DatabaseBusy(str(exc)) from exc
            time.sleep(BUSY_PAUSE_S)
    raise AssertionError("unreachable")


def has_transcripts(conn: sqlite3.Connection) -> bool:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
            (TRANSCRIPT_TABLE,),
        ).fetchall()
    )
    return bool(rows)


def session_heads(conn: sqlite3.Connection) -> dict[str, int]:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id"
        ).fetchall()
    )
    return {str(session): int(seq) for session, seq in rows}


def read_after(conn: sqlite3.Connection, session: str, after: int, limit: int) -> list[Row]:
    """Up to ``limit`` rows of ``session`` above ``seq`` ``after``, in ``seq`` order."""
    return _rows(conn, "seq > ? ORDER BY seq", session, after, limit)


def read_before(conn: sqlite3.Connection, session: str, before: int, limit: int) -> list[Row]:
    """Up to ``limit`` rows of ``session`` below ``seq`` ``before``, the nearest first."""
    return _rows(conn, "seq < ? ORDER BY seq DESC", session, before, limit)


def _rows(conn: sqlite3.Connection, where: str, session: str, seq: int, limit: int) -> list[Row]:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT session_id, seq, created_at, event_json, event_zstd FROM transcript_events"
            f" WHERE session_id = ? AND {where} LIMIT ?",
            (session, seq, limit),
        ).fetchall()
    )
    return [Row(str(s), int(q), _int_or_none(c), j, z) for s, q, c, j, z in rows]


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) else None
