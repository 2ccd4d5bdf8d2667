"""Read OpenClaw's transcript databases, detect failing shell commands, record them.

The core of ``self-improve sweep`` (one pass) and ``self-improve watch`` (a pass per change).

Reading
    Each agent database is opened READ-ONLY (``file:...?mode=ro``): we never write OpenClaw's
    files.  The databases run in WAL mode; a read-only connection still needs the ``-wal`` and
    ``-shm`` files, and SQLite creates them beside the database if they are missing (they are
    the same files OpenClaw uses, so this is harmless).  Rows are read per session in ``seq``
    order, above the last ``seq`` we processed.  A database that is locked or busy is retried
    briefly, then skipped for this pass (counted as ``busy``); its rows come on the next pass.
    A missing database, or one whose ``transcript_events`` table does not exist yet (OpenClaw
    is creating it), is simply empty.

Offsets and crash safety
    The last processed ``seq`` per (database, session) is kept in a JSON file (default
    ``$XDG_STATE_HOME/self-improve/openclaw-offsets.json``), written atomically (temp file,
    fsync, ``os.replace``, fsync of the dir).  Recording happens before the offset is saved,
    so a crash can never *miss* a row.  The window in which a crash could *double count* is
    made as small as we can: the offset is saved right after **each recorded error** (not
    only at the end of a batch), so at most the single error recorded in the last
    microseconds before a crash could be counted twice; rows with nothing to record are
    committed per batch, and replaying them is harmless (nothing is recorded for them).
    Exactly-once would need the store to dedupe on (session, seq), which its contract does
    not offer.  A failed record (e.g. a malformed ERRORS.md) stops that session for this pass
    *without* advancing, so the row is retried next pass rather than lost.

    The offsets file is guarded by an advisory lock held for a whole pass, so a ``sweep`` run
    while ``watch`` is running waits for the watcher's pass and then continues from its
    offsets instead of counting the same rows again.

Compressed rows
    OpenClaw may store a row zstd-compressed (``event_json`` NULL, ``event_zstd`` set).  We
    decode it with ``compression.zstd`` (Python 3.14+), else the optional ``zstandard``
    package, else skip it and count it in ``zstd_skipped`` (the offset still moves past it, so
    one undecodable row never blocks the rest of its session).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from self_improve.harnesses import openclaw
from self_improve.harnesses.base import ToolResult

LEARNINGS_DIR = ".learnings"
OFFSETS_FILENAME = "openclaw-offsets.json"
OFFSETS_VERSION = 1
BATCH_SIZE = 200
# How far back (in rows) we look for the toolCall of a result whose call was read in an earlier
# pass.  A call and its result are adjacent in practice; this bounds the cost of a weird case.
CALL_LOOKBACK_ROWS = 1000
BUSY_TIMEOUT_S = 0.25
BUSY_ATTEMPTS = 3
BUSY_PAUSE_S = 0.1


# -- seams (injectable for tests and for the lead's later wiring) ----------------------------


class DetectionLike(Protocol):
    @property
    def pattern_key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def excerpt(self) -> str: ...


Detector = Callable[[ToolResult], "DetectionLike | None"]


@dataclass(frozen=True)
class Hit:
    """One detected failure, in an opted-in project, ready to be recorded."""

    project: Path
    session: str
    database: Path
    seq: int
    when: datetime
    result: ToolResult
    detection: DetectionLike


Recorder = Callable[[Hit], None]
OnRecorded = Callable[[frozenset[Path]], None]


def default_detector(result: ToolResult) -> DetectionLike | None:
    # Imported lazily: the watcher starts fast and the rules file is read only when needed.
    from self_improve.detect.errors import detect

    return detect(result)


def store_recorder(hit: Hit) -> None:
    """Record through the store: the only code that touches ``.learnings/``."""
    from self_improve.store.store import LogRequest, Store

    Store(hit.project).log(
        LogRequest(
            kind="error",
            summary=hit.detection.title,
            pattern_key=hit.detection.pattern_key,
            session=hit.session,
            excerpt=hit.detection.excerpt,
            now=hit.when,
        )
    )


# -- locations -------------------------------------------------------------------------------


def default_offsets_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "self-improve" / OFFSETS_FILENAME


def find_project(cwd: str) -> Path | None:
    """The nearest ancestor of ``cwd`` (itself included) holding ``.learnings/``: the opt-in."""
    if not cwd or not os.path.isabs(cwd):
        return None
    path = Path(cwd)
    for candidate in (path, *path.parents):
        if (candidate / LEARNINGS_DIR).is_dir():
            return candidate
    return None


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
        with open(self.path.with_name(self.path.name + ".lock"), "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self.load()
                yield self
                self.save()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def load(self) -> None:
        self._data = _read_offsets(self.path)
        self._dirty = False

    def last_seq(self, database: Path, session: str) -> int:
        return self._data.get(_db_key(database), {}).get(session, -1)

    def sessions(self, database: Path) -> Mapping[str, int]:
        return dict(self._data.get(_db_key(database), {}))

    def advance(self, database: Path, session: str, seq: int) -> None:
        sessions = self._data.setdefault(_db_key(database), {})
        if seq > sessions.get(session, -1):
            sessions[session] = seq
            self._dirty = True

    def save(self) -> None:
        if not self._dirty:
            return
        payload = {"version": OFFSETS_VERSION, "databases": self._data}
        atomic_write_text(self.path, json.dumps(payload, indent=1, sort_keys=True) + "\n")
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


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` so a reader sees the old or the new file, never a torn one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    # The rename is durable only once the directory entry is; not all filesystems allow it.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- zstd ------------------------------------------------------------------------------------


def _zstd_decoder() -> Callable[[bytes], bytes] | None:
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+

        return zstd.decompress  # type: ignore[no-any-return]
    except ImportError:
        pass
    try:
        import zstandard  # type: ignore[import-not-found]  # optional, never a hard dependency
    except ImportError:
        return None

    def decode(blob: bytes) -> bytes:
        # decompressobj copes with frames that omit the content size, unlike decompress().
        return zstandard.ZstdDecompressor().decompressobj().decompress(blob)  # type: ignore[no-any-return]

    return decode


def zstd_backend() -> str | None:
    """Which zstd decoder is available: ``"compression.zstd"``, ``"zstandard"`` or ``None``."""
    decoder = _zstd_decoder()
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


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry_busy(query: Callable[[], Any]) -> Any:
    for attempt in range(BUSY_ATTEMPTS):
        try:
            return query()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            if attempt + 1 == BUSY_ATTEMPTS:
                raise DatabaseBusy(str(exc)) from exc
            time.sleep(BUSY_PAUSE_S)
    raise AssertionError("unreachable")


def _has_transcripts(conn: sqlite3.Connection) -> bool:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
            (openclaw.TRANSCRIPT_TABLE,),
        ).fetchall()
    )
    return bool(rows)


def _session_heads(conn: sqlite3.Connection) -> dict[str, int]:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT session_id, MAX(seq) FROM transcript_events GROUP BY session_id"
        ).fetchall()
    )
    return {str(session): int(seq) for session, seq in rows}


def _read_batch(conn: sqlite3.Connection, session: str, after: int, limit: int) -> list[Row]:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT session_id, seq, created_at, event_json, event_zstd FROM transcript_events"
            " WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (session, after, limit),
        ).fetchall()
    )
    return [Row(str(s), int(q), _int_or_none(c), j, z) for s, q, c, j, z in rows]


def _read_before(conn: sqlite3.Connection, session: str, before: int, limit: int) -> list[Row]:
    rows = _retry_busy(
        lambda: conn.execute(
            "SELECT session_id, seq, created_at, event_json, event_zstd FROM transcript_events"
            " WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (session, before, limit),
        ).fetchall()
    )
    return [Row(str(s), int(q), _int_or_none(c), j, z) for s, q, c, j, z in rows]


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) else None


# -- one pass --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepReport:
    databases: int = 0
    rows_read: int = 0
    tool_results: int = 0
    errors_recorded: int = 0
    zstd_skipped: int = 0
    bad_rows: int = 0
    busy: int = 0
    unreadable: int = 0
    outside_projects: int = 0
    record_failures: int = 0
    projects: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "databases": self.databases,
            "rows_read": self.rows_read,
            "tool_results": self.tool_results,
            "errors_recorded": self.errors_recorded,
            "zstd_skipped": self.zstd_skipped,
            "bad_rows": self.bad_rows,
            "busy": self.busy,
            "unreadable": self.unreadable,
            "outside_projects": self.outside_projects,
            "record_failures": self.record_failures,
            "projects": list(self.projects),
            "projects_touched": len(self.projects),
            "warnings": list(self.warnings),
        }


@dataclass
class _Tally:
    """Mutable counters for one pass; frozen into a :class:`SweepReport` at the end."""

    databases: int = 0
    rows_read: int = 0
    tool_results: int = 0
    errors_recorded: int = 0
    zstd_skipped: int = 0
    bad_rows: int = 0
    busy: int = 0
    unreadable: int = 0
    outside_projects: int = 0
    record_failures: int = 0
    projects: set[Path] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)

    def freeze(self) -> SweepReport:
        return SweepReport(
            databases=self.databases,
            rows_read=self.rows_read,
            tool_results=self.tool_results,
            errors_recorded=self.errors_recorded,
            zstd_skipped=self.zstd_skipped,
            bad_rows=self.bad_rows,
            busy=self.busy,
            unreadable=self.unreadable,
            outside_projects=self.outside_projects,
            record_failures=self.record_failures,
            projects=tuple(sorted(str(p) for p in self.projects)),
            warnings=tuple(self.warnings),
        )


@dataclass(frozen=True)
class _PassContext:
    recorder: Recorder
    detector: Detector
    offsets: Offsets
    since_ms: int | None
    batch_size: int
    decode_zstd: Callable[[bytes], bytes] | None
    project_of: Callable[[str], Path | None]


def sweep(
    databases: Iterable[Path],
    *,
    offsets: Offsets,
    recorder: Recorder | None = None,
    detector: Detector | None = None,
    since: datetime | None = None,
    on_recorded: OnRecorded | None = None,
    batch_size: int = BATCH_SIZE,
) -> SweepReport:
    """One pass over ``databases``: record every new failing shell command, advance offsets.

    ``since``: rows created before it are read but not recorded, and the offsets move past
    them (so ``sweep --since 7d`` on a machine with a long history imports one week, and the
    watcher afterwards does not import the rest).
    """
    project_cache: dict[str, Path | None] = {}

    def project_of(cwd: str) -> Path | None:
        if cwd not in project_cache:
            project_cache[cwd] = find_project(cwd)
        return project_cache[cwd]

    tally = _Tally()
    with offsets.locked():
        ctx = _PassContext(
            recorder=recorder or store_recorder,
            detector=detector or default_detector,
            offsets=offsets,
            since_ms=int(since.timestamp() * 1000) if since is not None else None,
            batch_size=batch_size,
            decode_zstd=_zstd_decoder(),
            project_of=project_of,
        )
        for database in databases:
            _sweep_database(database, ctx, tally)
    if tally.zstd_skipped:
        tally.warnings.append(
            f"{tally.zstd_skipped} zstd-compressed transcript row(s) skipped: "
            "install 'zstandard' (or use Python 3.14+) to read them"
        )
    report = tally.freeze()
    if on_recorded is not None and tally.errors_recorded:
        on_recorded(frozenset(tally.projects))
    return report


def _sweep_database(database: Path, ctx: _PassContext, tally: _Tally) -> None:
    if not database.is_file():
        return  # not created yet, or removed: nothing to read is not an error
    tally.databases += 1
    try:
        with contextlib.closing(open_readonly(database)) as conn:
            if not _has_transcripts(conn):
                return  # OpenClaw is still creating its schema
            for session, head in sorted(_session_heads(conn).items()):
                if head > ctx.offsets.last_seq(database, session):
                    _sweep_session(conn, database, session, ctx, tally)
    except DatabaseBusy:
        tally.busy += 1
    except sqlite3.OperationalError as exc:
        if _is_busy(exc):
            tally.busy += 1
        else:
            _unreadable(database, exc, tally)
    except sqlite3.DatabaseError as exc:  # "file is not a database": half-written, or not ours
        _unreadable(database, exc, tally)


def _unreadable(database: Path, exc: Exception, tally: _Tally) -> None:
    tally.unreadable += 1
    tally.warnings.append(f"cannot read {database}: {exc}")


class _SessionReader:
    """Joins results to their calls within one session, looking back in the DB if needed."""

    def __init__(self, conn: sqlite3.Connection, session: str, ctx: _PassContext, tally: _Tally) -> None:
        self.conn = conn
        self.session = session
        self.ctx = ctx
        self.tally = tally
        self.commands: dict[str, str] = {}
        self.cwd: str | None = None

    def decode(self, row: Row) -> Mapping[str, Any] | None:
        text = row.event_json
        if text is None and row.event_zstd is not None:
            if self.ctx.decode_zstd is None:
                self.tally.zstd_skipped += 1
                return None
            try:
                text = self.ctx.decode_zstd(bytes(row.event_zstd)).decode("utf-8")
            except Exception:  # a corrupt frame is one bad row, never a crashed watcher
                self.tally.bad_rows += 1
                return None
        try:
            event = json.loads(text) if text is not None else None
        except ValueError:
            event = None
        if not isinstance(event, Mapping):
            self.tally.bad_rows += 1
            return None
        return event

    def observe(self, event: Mapping[str, Any]) -> None:
        self.cwd = openclaw.session_cwd(event) or self.cwd
        for call in openclaw.shell_calls(event):
            self.commands[call.call_id] = call.command

    def result(self, event: Mapping[str, Any], seq: int) -> ToolResult | None:
        call_id = openclaw.shell_result_call_id(event)
        if call_id is None:
            return None
        if call_id and call_id not in self.commands:
            self._look_back(seq)
        return openclaw.tool_result(event, self.session, self.commands, self.cwd or "")

    def _look_back(self, seq: int) -> None:
        # The call (and the session header) were read in an earlier pass: fetch them again.
        for row in reversed(_read_before(self.conn, self.session, seq, CALL_LOOKBACK_ROWS)):
            event = self._decode_quietly(row)
            if event is not None:
                self.observe(event)

    def _decode_quietly(self, row: Row) -> Mapping[str, Any] | None:
        # Rows re-read for context were already counted when first read.
        saved = (self.tally.zstd_skipped, self.tally.bad_rows)
        event = self.decode(row)
        self.tally.zstd_skipped, self.tally.bad_rows = saved
        return event


def _sweep_session(
    conn: sqlite3.Connection, database: Path, session: str, ctx: _PassContext, tally: _Tally
) -> None:
    reader = _SessionReader(conn, session, ctx, tally)
    after = ctx.offsets.last_seq(database, session)
    while True:
        batch = _read_batch(conn, session, after, ctx.batch_size)
        if not batch:
            return
        for row in batch:
            tally.rows_read += 1
            if not _process_row(row, reader, database, ctx, tally):
                ctx.offsets.save()
                return  # recording failed: retry this row next pass, never skip it
            after = row.seq
        ctx.offsets.advance(database, session, after)
        ctx.offsets.save()


def _process_row(row: Row, reader: _SessionReader, database: Path, ctx: _PassContext, tally: _Tally) -> bool:
    """Handle one row; ``False`` means "stop this session here, do not advance past the row"."""
    event = reader.decode(row)
    if event is None:
        return True
    reader.observe(event)
    result = reader.result(event, row.seq)
    if result is None:
        return True
    tally.tool_results += 1
    if ctx.since_ms is not None and row.created_at is not None and row.created_at < ctx.since_ms:
        return True
    project = ctx.project_of(result.cwd)
    if project is None:
        tally.outside_projects += 1  # opt-in: no .learnings/ above the command's cwd
        return True
    detection = ctx.detector(result)
    if detection is None:
        return True
    hit = Hit(project, row.session_id, database, row.seq, _when(row), result, detection)
    try:
        ctx.recorder(hit)
    except Exception as exc:  # the store's failure must not kill the watcher
        tally.record_failures += 1
        tally.warnings.append(f"could not record {row.session_id}#{row.seq} in {project}: {exc}")
        return False
    tally.errors_recorded += 1
    tally.projects.add(project)
    # Commit this row at once: shrinks the double-count window to one record (see module doc).
    ctx.offsets.advance(database, row.session_id, row.seq)
    ctx.offsets.save()
    return True


def _when(row: Row) -> datetime:
    # Local naive time, like datetime.now(), which is what the store gets from the hooks.
    if row.created_at is None:
        return datetime.now()
    return datetime.fromtimestamp(row.created_at / 1000)


# -- watching --------------------------------------------------------------------------------

WATCHED_SUFFIXES: tuple[str, ...] = (".sqlite", ".sqlite-wal")
# Only events that can mean "new rows".  Opening/closing without writing is excluded on
# purpose: our own read-only pass opens the files, and reacting to that would loop forever.
WATCHED_EVENT_TYPES: frozenset[str] = frozenset({"created", "modified", "moved", "closed"})


@dataclass(frozen=True)
class WatchOptions:
    debounce_s: float = 0.5
    # A pass also runs this often without any event: a cheap net under missed inotify events
    # (e.g. the agents dir was created after we started, or an overflowed event queue).
    safety_interval_s: float = 60.0
    # How often to look for the agents dir while OpenClaw has never run.
    appear_poll_s: float = 2.0


def is_relevant_event(event_type: str, src_path: str, dest_path: str = "") -> bool:
    if event_type not in WATCHED_EVENT_TYPES:
        return False
    return any(str(p).endswith(WATCHED_SUFFIXES) for p in (src_path, dest_path) if p)


def watch(
    state: Path,
    *,
    offsets: Offsets,
    stop: threading.Event,
    recorder: Recorder | None = None,
    detector: Detector | None = None,
    on_recorded: OnRecorded | None = None,
    on_pass: Callable[[SweepReport], None] | None = None,
    options: WatchOptions = WatchOptions(),
) -> None:
    """Run a pass now, then one per (debounced) change of a transcript database, until ``stop``.

    Returns once ``stop`` is set; a pass in progress finishes first, and offsets are saved
    after every batch, so stopping never loses or repeats work.
    """
    dirty = threading.Event()

    def run_pass() -> None:
        report = sweep(
            openclaw.transcript_databases(state),
            offsets=offsets,
            recorder=recorder,
            detector=detector,
            on_recorded=on_recorded,
        )
        if on_pass is not None:
            on_pass(report)

    with _observer(openclaw.agents_dir(state), dirty, stop, options) as ensure_watching:
        run_pass()
        last_pass = time.monotonic()
        while not stop.is_set():
            ensure_watching()
            timeout = max(0.0, options.safety_interval_s - (time.monotonic() - last_pass))
            woke = dirty.wait(timeout=min(timeout, options.appear_poll_s))
            if stop.is_set():
                break
            if woke:
                # Debounce: OpenClaw writes a turn as a burst of rows; one pass takes them all.
                stop.wait(options.debounce_s)
                dirty.clear()
            elif time.monotonic() - last_pass < options.safety_interval_s:
                continue
            run_pass()
            last_pass = time.monotonic()


@contextlib.contextmanager
def _observer(
    agents: Path, dirty: threading.Event, stop: threading.Event, options: WatchOptions
) -> Iterator[Callable[[], None]]:
    """A watchdog observer on ``agents``, started as soon as that dir exists."""
    # Lazy: only `watch` needs watchdog; sweep and the hooks never import it.
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            dest = getattr(event, "dest_path", "") or ""
            if is_relevant_event(event.event_type, str(event.src_path), str(dest)):
                dirty.set()

    observer = Observer()
    scheduled = False

    def ensure_watching() -> None:
        nonlocal scheduled
        if scheduled or not agents.is_dir():
            return
        observer.schedule(Handler(), str(agents), recursive=True)
        scheduled = True
        dirty.set()  # the dir just appeared: whatever is in it now deserves a pass

    ensure_watching()
    dirty.clear()  # the initial pass covers what existed before we started
    observer.start()
    try:
        yield ensure_watching
    finally:
        observer.stop()
        observer.join(timeout=5)
