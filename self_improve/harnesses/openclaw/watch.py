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

Offsets and crash safety: never double count
    The last processed ``seq`` per (database, session) is kept in a JSON file (default
    ``$XDG_STATE_HOME/self-improve/openclaw-offsets.json``), written atomically (temp file,
    fsync, ``os.replace``, fsync of the dir).

    Exactly-once would need the store to dedupe on (session, seq), which its contract does not
    offer, so one side of a crash window has to give.  We choose **never double count**: a
    double-counted error inflates a recurrence count and can promote a rule that was not
    earned, while one missed occurrence of a failure is harmless (a real recurring failure
    recurs).  So, for a row that is about to be recorded, the offset is saved *before* the
    store write; a hard crash (SIGKILL, power loss) in the microseconds between the two loses
    that one occurrence and nothing else.  If the store write *raises* (a malformed ERRORS.md,
    a lock timeout), the offset is rewound and saved, so the row is retried next pass rather
    than lost, and that session stops for this pass.  Rows with nothing to record are
    committed per batch: replaying them after a crash records nothing, so it is harmless.
    SIGINT/SIGTERM only set a flag checked between passes, so they never cut a record short.

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
import json
import os
import re
import shlex
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from self_improve.atomic import atomic_write
from self_improve.lock import locked
from self_improve.harnesses.openclaw import adapter as openclaw
from self_improve.events import ToolResult
from self_improve.store.location import find_learnings_root

OFFSETS_FILENAME = "openclaw-offsets.json"
OFFSETS_VERSION = 1
BATCH_SIZE = 200
# How far back (in rows) we look for the toolCall of a result whose call was read in an earlier
# pass.  A call and its result are adjacent in practice; this bounds the cost of a weird case.
CALL_LOOKBACK_ROWS = 1000
BUSY_TIMEOUT_S = 0.25
BUSY_ATTEMPTS = 3
BUSY_PAUSE_S = 0.1
# A sweep waits this long for a running watcher's pass to finish with the offsets file.
OFFSETS_LOCK_TIMEOUT_S = 600.0


# -- seams (injectable for tests and for the lead's later wiring) ----------------------------


class DetectionLike(Protocol):
    @property
    def pattern_key(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def excerpt(self) -> str: ...


# (result, project root) -> detection; the project is passed so its own [detect] rules apply.
Detector = Callable[[ToolResult, Path], "DetectionLike | None"]


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


# Returns False when the project declines (not counted as recorded); None or True: recorded.
Recorder = Callable[[Hit], "bool | None"]
OnRecorded = Callable[[frozenset[Path]], None]


def default_detector(result: ToolResult, project: Path) -> DetectionLike | None:
    """The packaged rules merged with the project's ``[detect]`` table, as the hooks do."""
    # Imported lazily: the watcher starts fast and reads rules only when a result needs them.
    from self_improve.detect.classify import detect, load_rules
    from self_improve.store.store import Store

    overrides = Store(project).config.get("detect")
    return detect(result, load_rules(overrides) if overrides else None)


def store_recorder(hit: Hit) -> bool:
    """Record through the store: the only code that touches ``.learnings/``."""
    from self_improve.store.store import LogRequest, Store

    store = Store(hit.project)
    # The watcher is OpenClaw's post-bash hook, so the hooks' switch applies to it too.
    if store.setting("hooks.record_errors") is False:
        return False
    store.log(
        LogRequest(
            kind="error",
            summary=hit.detection.title,
            pattern_key=hit.detection.pattern_key,
            session=hit.session,
            excerpt=hit.detection.excerpt,
            details=_context_line(hit.result),
            now=hit.when,
            logged_by="hook",  # the watcher records what it saw itself, like the hooks
        )
    )
    return True


def _context_line(result: ToolResult) -> str:
    """The entry's Context: the command, redacted like every other text we store."""
    try:
        from self_improve.detect.redact import redact
    except ImportError:
        return ""  # never store a command unredacted
    code = "unknown" if result.exit_code is None else str(result.exit_code)
    command = " ".join(result.command.split())[:200]
    if not command:
        return ""
    shown = redact(command)
    # Markdown inline code: a command containing a backtick needs a longer fence.
    fence = "`` " if "`" in shown else "`"
    return f"OpenClaw exec: {fence}{shown}{fence[::-1]} (exit {code})"


# -- locations -------------------------------------------------------------------------------


def default_offsets_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "self-improve" / OFFSETS_FILENAME


def find_project(cwd: str) -> Path | None:
    """The nearest ancestor of ``cwd`` (itself included) holding ``.learnings/``: the opt-in."""
    # A relative cwd would resolve against *our* cwd, which says nothing about the agent's.
    if not cwd or not os.path.isabs(cwd):
        return None
    return find_learnings_root(cwd)


# Agents often run `cd /some/project && make` from their workspace: OpenClaw's cwd is then the
# workspace, yet the failure belongs to the project.  Only a plain leading `cd DIR &&` / `;` is
# understood; anything cleverer (variables, ~, subshells) falls back to the cwd.
_LEADING_CD = re.compile(r"""^\s*cd\s+(?:--\s+)?("(?:[^"\\$`]|\\.)*"|'[^']*'|[^\s;&|'"$`~]+)\s*(?:&&|;)""")


def command_dir(result: ToolResult) -> str | None:
    """The directory a command ``cd``s into first, resolved against its cwd, if any."""
    match = _LEADING_CD.match(result.command)
    if match is None:
        return None
    try:
        (target,) = shlex.split(match.group(1))
    except ValueError:
        return None
    if os.path.isabs(target):
        return os.path.normpath(target)
    return os.path.normpath(os.path.join(result.cwd, target)) if os.path.isabs(result.cwd) else None


def project_for(result: ToolResult, project_of: Callable[[str], Path | None] = find_project) -> Path | None:
    """Where a result is recorded: the project of its leading ``cd`` target, else of its cwd."""
    target = command_dir(result)
    return (project_of(target) if target else None) or project_of(result.cwd)


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


def _zstd_decoder() -> Callable[[bytes], bytes] | None:
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
    declined: int = 0
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
            "declined": self.declined,
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
    declined: int = 0
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
            declined=self.declined,
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
    project = project_for(result, ctx.project_of)
    if project is None:
        tally.outside_projects += 1  # opt-in: no .learnings/ above the command's cwd
        return True
    previous = ctx.offsets.last_seq(database, row.session_id)
    try:
        detection = ctx.detector(result, project)
        if detection is None:
            return True
        hit = Hit(project, row.session_id, database, row.seq, _when(row), result, detection)
        # Commit the offset BEFORE recording: a crash in between loses this one occurrence but
        # can never count it twice (see the module doc for why that is the better side).
        ctx.offsets.advance(database, row.session_id, row.seq)
        ctx.offsets.save()
        recorded = ctx.recorder(hit)
    except Exception as exc:  # a project's broken config or store must not kill the watcher
        # Nothing was recorded: rewind, so the row is retried next pass rather than lost.
        ctx.offsets.rewind(database, row.session_id, previous)
        ctx.offsets.save()
        tally.record_failures += 1
        tally.warnings.append(f"could not record {row.session_id}#{row.seq} in {project}: {exc}")
        return False
    if recorded is False:
        tally.declined += 1
        return True
    tally.errors_recorded += 1
    tally.projects.add(project)
    return True


def _when(row: Row) -> datetime:
    # Aware UTC, like the store's own clock: the occurrence is dated when the command ran.
    if row.created_at is None:
        return datetime.now(timezone.utc)
    return datetime.fromtimestamp(row.created_at / 1000, tz=timezone.utc)


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
