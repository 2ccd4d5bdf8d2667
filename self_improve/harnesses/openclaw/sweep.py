"""One pass over OpenClaw's transcripts: detect failing shell commands and record them. The
core of ``self-improve sweep``; ``watch.py`` runs one per change.

The rows come from ``transcripts.py`` (read-only, per session in ``seq`` order, from where the
last pass stopped); each failure is recorded in the project its command ran in, exactly as the
hooks record one (``store.detections.record_detection``).

Crash safety: never double count
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

    A database still busy after a few retries is skipped for the pass (``busy``); a row that
    cannot be decoded (zstd without a decoder: ``zstd_skipped``; corrupt: ``bad_rows``) is passed
    over, so one undecodable row never blocks the rest of its session.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from self_improve.detect.shell import leading_cd
from self_improve.events import ToolResult
from self_improve.harnesses import openclaw as openclaw
from self_improve.harnesses.openclaw.transcripts import (
    DatabaseBusy,
    Offsets,
    Row,
    has_transcripts,
    is_busy,
    open_readonly,
    read_after,
    read_before,
    session_heads,
    zstd_decoder,
)
from self_improve.store.location import find_learnings_root

if TYPE_CHECKING:
    from self_improve.store.detections import DetectionLike

BATCH_SIZE = 200
# How far back (in rows) we look for the toolCall of a result whose call was read in an earlier
# pass.  A call and its result are adjacent in practice; this bounds the cost of a weird case.
CALL_LOOKBACK_ROWS = 1000


# -- seams (injectable: tests pass their own) -------------------------------------------------


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
    from self_improve.detect.classify import detect
    from self_improve.detect.rules import load_rules
    from self_improve.store.store import Store

    overrides = Store(project).config.get("detect")
    return detect(result, load_rules(overrides) if overrides else None)


def store_recorder(hit: Hit) -> bool:
    """Record through the store, as the hooks do (``store.detections``); False when the
    project's ``hooks.record_errors`` is off: the watcher is OpenClaw's post-bash hook."""
    from self_improve.store.detections import record_detection
    from self_improve.store.store import Store

    return record_detection(Store(hit.project), hit.detection, hit.result, now=hit.when) is not None


# -- locations -------------------------------------------------------------------------------


def find_project(cwd: str) -> Path | None:
    """The nearest ancestor of ``cwd`` (itself included) holding ``.learnings/``: the opt-in."""
    # A relative cwd would resolve against *our* cwd, which says nothing about the agent's.
    if not cwd or not os.path.isabs(cwd):
        return None
    return find_learnings_root(cwd)


def command_dir(result: ToolResult) -> str | None:
    """The directory a command ``cd``s into first, resolved against its cwd, if any.

    Agents often run ``cd /some/project && make`` from their workspace: OpenClaw's cwd is then
    the workspace, yet the failure belongs to the project.
    """
    return leading_cd(result.command, result.cwd)


def project_for(result: ToolResult, project_of: Callable[[str], Path | None] = find_project) -> Path | None:
    """Where a result is recorded: the project of its leading ``cd`` target, else of its cwd."""
    target = command_dir(result)
    return (project_of(target) if target else None) or project_of(result.cwd)


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
    notes: tuple[str, ...] = ()  # what the pass did besides recording: a reminder block added (``install.ensure_blocks``)

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in COUNTS}
        return {**data, "projects": list(self.projects), "projects_touched": len(self.projects), "warnings": list(self.warnings),
                "notes": list(self.notes)}


COUNTS = tuple(f.name for f in fields(SweepReport) if f.type == "int")


class _Tally:
    """The counts of one pass (:data:`COUNTS`), frozen into a :class:`SweepReport` at the end."""

    def __init__(self) -> None:
        self.counts = dict.fromkeys(COUNTS, 0)
        self.projects: set[Path] = set()
        self.warnings: list[str] = []

    def add(self, name: str, by: int = 1) -> None:
        self.counts[name] += by  # KeyError: not a count of SweepReport's

    def freeze(self) -> SweepReport:
        report = SweepReport(projects=tuple(sorted(str(p) for p in self.projects)), warnings=tuple(self.warnings))
        return replace(report, **self.counts)  # type: ignore[arg-type]  # COUNTS are SweepReport's int fields


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
            decode_zstd=zstd_decoder(),
            project_of=project_of,
        )
        for database in databases:
            _sweep_database(database, ctx, tally)
    if tally.counts["zstd_skipped"]:
        tally.warnings.append(
            f"{tally.counts['zstd_skipped']} zstd-compressed transcript row(s) skipped: "
            "install 'zstandard' (or use Python 3.14+) to read them"
        )
    report = replace(tally.freeze(), notes=tuple(_pending_blocks()))
    if on_recorded is not None and tally.counts["errors_recorded"]:
        on_recorded(frozenset(tally.projects))
    return report


def _pending_blocks() -> list[str]:
    """The reminder block for workspaces installed into before OpenClaw's first run, once it has
    seeded their AGENTS.md (``openclaw/pending.py``): every pass asks, at the cost of one open."""
    from self_improve.harnesses.openclaw import pending

    if not pending.waiting():
        return []
    from self_improve.harnesses.openclaw.install import ensure_blocks

    try:
        return ensure_blocks()
    except Exception as exc:  # noqa: BLE001 (a pass records errors first; the block can wait a pass)
        return [f"openclaw: the reminder blocks waiting for OpenClaw's first run were not checked: {exc}"]


def _sweep_database(database: Path, ctx: _PassContext, tally: _Tally) -> None:
    if not database.is_file():
        return  # not created yet, or removed: nothing to read is not an error
    tally.add("databases")
    try:
        with contextlib.closing(open_readonly(database)) as conn:
            if not has_transcripts(conn):
                return  # OpenClaw is still creating its schema
            for session, head in sorted(session_heads(conn).items()):
                if head > ctx.offsets.last_seq(database, session):
                    _sweep_session(conn, database, session, ctx, tally)
    except DatabaseBusy:
        tally.add("busy")
    except sqlite3.OperationalError as exc:
        if is_busy(exc):
            tally.add("busy")
        else:
            _unreadable(database, exc, tally)
    except sqlite3.DatabaseError as exc:  # "file is not a database": half-written, or not ours
        _unreadable(database, exc, tally)


def _unreadable(database: Path, exc: Exception, tally: _Tally) -> None:
    tally.add("unreadable")
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
                self.tally.add("zstd_skipped")
                return None
            try:
                text = self.ctx.decode_zstd(bytes(row.event_zstd)).decode("utf-8")
            except Exception:  # noqa: BLE001 - a corrupt frame is one bad row, never a crashed watcher
                self.tally.add("bad_rows")
                return None
        try:
            event = json.loads(text) if text is not None else None
        except ValueError:
            event = None
        if not isinstance(event, Mapping):
            self.tally.add("bad_rows")
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
        for row in reversed(read_before(self.conn, self.session, seq, CALL_LOOKBACK_ROWS)):
            event = self._decode_quietly(row)
            if event is not None:
                self.observe(event)

    def _decode_quietly(self, row: Row) -> Mapping[str, Any] | None:
        # Rows re-read for context were already counted when first read.
        saved = dict(self.tally.counts)
        event = self.decode(row)
        self.tally.counts = saved
        return event


def _sweep_session(
    conn: sqlite3.Connection, database: Path, session: str, ctx: _PassContext, tally: _Tally
) -> None:
    reader = _SessionReader(conn, session, ctx, tally)
    after = ctx.offsets.last_seq(database, session)
    while True:
        batch = read_after(conn, session, after, ctx.batch_size)
        if not batch:
            return
        for row in batch:
            tally.add("rows_read")
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
    tally.add("tool_results")
    if ctx.since_ms is not None and row.created_at is not None and row.created_at < ctx.since_ms:
        return True
    project = project_for(result, ctx.project_of)
    if project is None:
        tally.add("outside_projects")  # opt-in: no .learnings/ above the command's cwd
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
    except Exception as exc:  # noqa: BLE001 - a project's broken config or store must not kill the watcher
        # Nothing was recorded: rewind, so the row is retried next pass rather than lost.
        ctx.offsets.rewind(database, row.session_id, previous)
        ctx.offsets.save()
        tally.add("record_failures")
        tally.warnings.append(f"could not record {row.session_id}#{row.seq} in {project}: {exc}")
        return False
    if recorded is False:
        tally.add("declined")
        return True
    tally.add("errors_recorded")
    tally.projects.add(project)
    return True


def _when(row: Row) -> datetime:
    # Aware UTC, like the store's own clock: the occurrence is dated when the command ran.
    if row.created_at is None:
        return datetime.now(UTC)
    return datetime.fromtimestamp(row.created_at / 1000, tz=UTC)
