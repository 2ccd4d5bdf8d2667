"""The OpenClaw transcript watcher, against a copy of a real OpenClaw database.

Hand count of tests/data/openclaw/openclaw-agent.sqlite (a copy of shared/openclaw's) (7 sessions, 57 rows):

    session                                   rows  exec results  failing
    29bf1caf-8162-4d74-86e1-a4b6d03aca73         6             0        0
    ant-1                                        9             1        1  (ls /nonexistent, exit 2)
    ccplug-1                                     9             1        1
    e2e-final                                    9             1        1
    gw-1                                         9             1        1
    hookrun-1                                    6             0        0
    toolrun-1                                    9             1        1
                                                57             5        5

Every result's ``details.cwd`` (and every session header's ``cwd``) is ``/tmp/ocx/ws``; the
copy rewrites it to ``<tmp>/proj/sub`` so the results land in a fake opted-in project.

The mechanics tests inject a deterministic detector (non-zero exit = error) and an in-memory
recorder, so they test the watcher, not the rules; ``test_real_store_*`` uses the real ones.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, UTC
from pathlib import Path

import pytest

from self_improve.harnesses import openclaw as openclaw
from self_improve.harnesses.openclaw import sweep as ow
from self_improve.harnesses.openclaw import transcripts
from self_improve.harnesses.openclaw import watch as watcher
from self_improve.events import ToolResult
from tests.helpers import CLI

SHARED_DB = Path(__file__).resolve().parent.parent / "data" / "openclaw" / "openclaw-agent.sqlite"
FIXTURE_CWD = "/tmp/ocx/ws"
FIXTURE_ROWS = 57
FIXTURE_RESULTS = 5
FIXTURE_FAILURES = 5
FIXTURE_SESSIONS = ("ant-1", "ccplug-1", "e2e-final", "gw-1", "toolrun-1")
ALL_SESSIONS = 7
WAIT_S = 20.0



# -- fakes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeDetection:
    pattern_key: str
    title: str
    excerpt: str


def fake_detector(result: ToolResult, project: Path) -> FakeDetection | None:
    if result.exit_code in (0, None):
        return None
    return FakeDetection("test.exit", f"exit {result.exit_code}", result.output[:200])


@dataclass
class Recorded:
    """A thread-safe in-memory recorder."""

    hits: list[ow.Hit] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, hit: ow.Hit) -> None:
        with self.lock:
            self.hits.append(hit)

    def count(self) -> int:
        with self.lock:
            return len(self.hits)

    def keys(self) -> list[tuple[str, int]]:
        with self.lock:
            return [(h.session, h.seq) for h in self.hits]


# -- fixture database ------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    state: Path
    db: Path
    project: Path
    workdir: Path
    offsets: Path

    def databases(self) -> list[Path]:
        return openclaw.transcript_databases(self.state)


def make_layout(tmp_path: Path, opted_in: bool = True) -> Layout:
    state = tmp_path / "state"
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    db.parent.mkdir(parents=True)
    shutil.copyfile(SHARED_DB, db)
    project = tmp_path / "proj"
    workdir = project / "sub"
    workdir.mkdir(parents=True)
    if opted_in:
        (project / ".learnings").mkdir()
    _rewrite_cwd(db, FIXTURE_CWD, str(workdir))
    return Layout(state, db, project, workdir, tmp_path / "xdg-state" / "offsets.json")


def _rewrite_cwd(db: Path, old: str, new: str) -> None:
    with _writer(db) as conn:
        rows = conn.execute("SELECT session_id, seq, event_json FROM transcript_events").fetchall()
        for session, seq, text in rows:
            if text and old in text:
                conn.execute(
                    "UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = ?",
                    (text.replace(old, new), session, seq),
                )


@contextmanager
def _writer(db: Path) -> Iterator[sqlite3.Connection]:
    """A writer like OpenClaw's: WAL mode, one transaction per batch."""
    conn = sqlite3.connect(db, timeout=5)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        # Python 3.11 bundles SQLite 3.40, which lacks octet_length(), used by the table's CHECK
        # on navigation_json: every INSERT fails with "unknown function" unless CHECKs are
        # skipped when *writing* test rows.  Reads never evaluate them.
        conn.execute("PRAGMA ignore_check_constraints=ON")
        with conn:
            yield conn
    finally:
        conn.close()


def _next_seq(conn: sqlite3.Connection, session: str) -> int:
    (head,) = conn.execute(
        "SELECT COALESCE(MAX(seq), -1) FROM transcript_events WHERE session_id = ?", (session,)
    ).fetchone()
    return int(head) + 1


def _call_event(call_id: str, command: str) -> dict[str, object]:
    part = {"type": "toolCall", "id": call_id, "name": "exec", "arguments": {"command": command}}
    return {"type": "message", "message": {"role": "assistant", "content": [part]}}


def _result_event(call_id: str, output: str, exit_code: int, cwd: str) -> dict[str, object]:
    text = f"{output}\n\n(Command exited with code {exit_code})" if exit_code else output
    return {
        "type": "message",
        "message": {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": "exec",
            "content": [{"type": "text", "text": text}],
            "details": {"status": "completed", "exitCode": exit_code, "aggregated": text, "cwd": cwd},
            "isError": False,
        },
    }


_call_counter = iter(range(10**6))


def append_commands(db: Path, session: str, exit_codes: list[int], cwd: Path) -> None:
    """Append one call row and one result row per exit code, in one transaction."""
    with _writer(db) as conn:
        seq = _next_seq(conn, session)
        for code in exit_codes:
            call_id = f"call_t{next(_call_counter)}"
            for event in (_call_event(call_id, f"cmd-{call_id}"), _result_event(call_id, "boom", code, str(cwd))):
                conn.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    (session, seq, json.dumps(event), int(time.time() * 1000)),
                )
                seq += 1


def run_sweep(layout: Layout, recorder: Recorded, **kwargs: object) -> ow.SweepReport:
    return ow.sweep(
        layout.databases(),
        offsets=ow.Offsets(layout.offsets),
        recorder=recorder,
        detector=fake_detector,
        **kwargs,  # type: ignore[arg-type]
    )


def wait_until(predicate: Callable[[], bool], timeout: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def settle_and_count(recorder: Recorded, expected: int) -> int:
    """Wait for ``expected`` records, then a little longer to catch any double count."""
    wait_until(lambda: recorder.count() >= expected)
    time.sleep(0.6)
    return recorder.count()


@contextmanager
def running_watcher(layout: Layout, recorder: Recorded, **kwargs: object) -> Iterator[list[ow.SweepReport]]:
    stop = threading.Event()
    reports: list[ow.SweepReport] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            watcher.watch(
                layout.state,
                offsets=ow.Offsets(layout.offsets),
                stop=stop,
                recorder=recorder,
                detector=fake_detector,
                on_pass=reports.append,
                options=watcher.WatchOptions(debounce_s=0.1, safety_interval_s=3600.0, appear_poll_s=0.2),
                **kwargs,  # type: ignore[arg-type]
            )
        except BaseException as exc:  # noqa: BLE001 - surfaced in the test thread below
            errors.append(exc)

    thread = threading.Thread(target=target, name="watcher", daemon=True)
    thread.start()
    try:
        assert wait_until(lambda: len(reports) >= 1 or bool(errors)), "watcher never ran its first pass"
        yield reports
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive(), "watcher did not stop"
    assert not errors, errors


# -- one sweep -------------------------------------------------------------------------------


def test_one_sweep_records_exactly_the_failing_exec_results(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    report = run_sweep(layout, recorder)
    assert (report.databases, report.rows_read, report.tool_results) == (1, FIXTURE_ROWS, FIXTURE_RESULTS)
    assert report.errors_recorded == FIXTURE_FAILURES == recorder.count()
    assert report.projects == (str(layout.project),)
    assert (report.zstd_skipped, report.busy, report.bad_rows, report.outside_projects) == (0, 0, 0, 0)
    assert sorted(h.session for h in recorder.hits) == sorted(FIXTURE_SESSIONS)
    hit = recorder.hits[0]
    assert hit.result.command == "ls /nonexistent"  # joined from the earlier toolCall row
    assert hit.result.exit_code == 2
    assert hit.result.output == "ls: cannot access '/nonexistent': No such file or directory"
    assert hit.project == layout.project and hit.seq == 6
    assert hit.session == "ant-1"  # sessions are read in sorted order
    assert hit.when == datetime.fromtimestamp(1795958834332 / 1000, tz=UTC)  # row's created_at


def test_second_sweep_records_nothing(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    run_sweep(layout, recorder)
    report = run_sweep(layout, recorder)
    assert (report.rows_read, report.errors_recorded, recorder.count()) == (0, 0, FIXTURE_FAILURES)
    saved = json.loads(layout.offsets.read_text())["databases"][str(layout.db.resolve())]
    assert len(saved) == ALL_SESSIONS and saved["ant-1"] == 8 and saved["hookrun-1"] == 5


def test_projects_without_learnings_are_skipped(tmp_path: Path) -> None:
    layout = make_layout(tmp_path, opted_in=False)
    recorder = Recorded()
    report = run_sweep(layout, recorder)
    assert (report.tool_results, report.outside_projects, report.errors_recorded) == (5, 5, 0)
    assert recorder.count() == 0


def test_leading_cd_into_a_project_counts_for_that_project(tmp_path: Path) -> None:
    layout = make_layout(tmp_path, opted_in=False)
    other = tmp_path / "other"
    (other / ".learnings").mkdir(parents=True)
    with _writer(layout.db) as conn:
        seq = _next_seq(conn, "cd-1")
        call = _call_event("c1", f"cd {other} && make")
        result = _result_event("c1", "make: *** No targets.  Stop.", 2, str(layout.workdir))
        for offset, event in enumerate((call, result)):
            conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                ("cd-1", seq + offset, json.dumps(event), 1),
            )
    recorder = Recorded()
    report = run_sweep(layout, recorder)
    assert report.errors_recorded == 1 and recorder.hits[0].project == other


def test_since_skips_older_rows_and_marks_them_read(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    report = run_sweep(layout, recorder, since=datetime(2100, 1, 1, tzinfo=UTC))
    assert (report.rows_read, report.tool_results, report.errors_recorded) == (FIXTURE_ROWS, 5, 0)
    assert run_sweep(layout, recorder).rows_read == 0
    assert recorder.count() == 0


def test_since_in_the_past_keeps_everything(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    report = run_sweep(layout, recorder, since=datetime(2020, 1, 1, tzinfo=UTC))
    assert report.errors_recorded == FIXTURE_FAILURES


def test_on_recorded_gets_the_projects_only_when_something_was_recorded(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    calls: list[frozenset[Path]] = []
    run_sweep(layout, Recorded(), on_recorded=calls.append)
    run_sweep(layout, Recorded(), on_recorded=calls.append)
    assert calls == [frozenset({layout.project})]


def test_a_declining_project_is_not_counted(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    report = ow.sweep(
        layout.databases(), offsets=ow.Offsets(layout.offsets), recorder=lambda hit: False, detector=fake_detector
    )
    assert (report.errors_recorded, report.declined, report.projects) == (0, 5, ())


# -- crash safety ----------------------------------------------------------------------------


class Crash(BaseException):
    """Stands for SIGKILL: not an Exception, so nothing in the sweep catches it."""


def test_a_crash_mid_pass_neither_loses_nor_double_counts(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()

    def crashing(hit: ow.Hit) -> None:
        recorder(hit)
        if recorder.count() == 2:
            raise Crash  # right after the 2nd record, before anything else runs

    with pytest.raises(Crash):
        ow.sweep(layout.databases(), offsets=ow.Offsets(layout.offsets), recorder=crashing, detector=fake_detector)
    assert recorder.count() == 2
    report = run_sweep(layout, recorder)
    assert report.errors_recorded == 3
    assert recorder.count() == FIXTURE_FAILURES
    assert len(set(recorder.keys())) == FIXTURE_FAILURES


def test_a_crash_before_the_store_write_loses_that_one_row_only(tmp_path: Path) -> None:
    # The documented trade-off: the offset is committed before the store write, so a hard
    # crash in between loses one occurrence rather than ever counting one twice.
    layout = make_layout(tmp_path)
    recorder = Recorded()
    calls = {"n": 0}

    def crashing(hit: ow.Hit) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise Crash  # dies before writing the 3rd
        recorder(hit)

    with pytest.raises(Crash):
        ow.sweep(layout.databases(), offsets=ow.Offsets(layout.offsets), recorder=crashing, detector=fake_detector)
    report = run_sweep(layout, recorder)
    assert report.errors_recorded == 2
    assert recorder.count() == FIXTURE_FAILURES - 1
    assert len(set(recorder.keys())) == FIXTURE_FAILURES - 1


def test_a_failing_record_is_retried_next_pass_not_lost(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    failures = {"left": 1}

    def flaky(hit: ow.Hit) -> None:
        if failures["left"]:
            failures["left"] -= 1
            raise OSError("disk full")
        recorder(hit)

    first = ow.sweep(layout.databases(), offsets=ow.Offsets(layout.offsets), recorder=flaky, detector=fake_detector)
    assert first.record_failures == 1 and "disk full" in first.warnings[0]
    assert first.errors_recorded == 4  # the other sessions went on
    second = ow.sweep(layout.databases(), offsets=ow.Offsets(layout.offsets), recorder=flaky, detector=fake_detector)
    assert second.errors_recorded == 1
    assert sorted(recorder.keys()) == sorted((s, 6) for s in FIXTURE_SESSIONS)


def test_offsets_file_is_replaced_atomically_and_leaves_no_temp_files(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    run_sweep(layout, Recorded())
    leftovers = [p.name for p in layout.offsets.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    assert json.loads(layout.offsets.read_text())["version"] == transcripts.OFFSETS_VERSION


def test_a_corrupt_offsets_file_is_an_error_not_a_replay(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    layout.offsets.parent.mkdir(parents=True)
    layout.offsets.write_text("{not json")
    with pytest.raises(transcripts.OffsetsError):
        run_sweep(layout, Recorded())


def test_default_offsets_path_respects_xdg_state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = tmp_path / "self-improve" / "openclaw-offsets.json"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert transcripts.default_offsets_path() == expected
    monkeypatch.delenv("XDG_STATE_HOME")
    assert transcripts.default_offsets_path() == Path.home() / ".local" / "state" / "self-improve" / "openclaw-offsets.json"


# -- awkward databases -----------------------------------------------------------------------


def test_a_missing_database_is_not_an_error(tmp_path: Path) -> None:
    offsets = ow.Offsets(tmp_path / "o.json")
    report = ow.sweep([tmp_path / "nope.sqlite"], offsets=offsets, recorder=Recorded(), detector=fake_detector)
    assert report == ow.SweepReport()
    assert openclaw.transcript_databases(tmp_path / "no-state") == []


@pytest.mark.parametrize("how", ["empty-file", "schema-without-transcripts"])
def test_a_database_being_created_is_empty(tmp_path: Path, how: str) -> None:
    db = tmp_path / "openclaw-agent.sqlite"
    if how == "empty-file":
        db.touch()
    else:
        with closing(sqlite3.connect(db)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE schema_meta (meta_key TEXT PRIMARY KEY)")
            conn.commit()
    report = ow.sweep([db], offsets=ow.Offsets(tmp_path / "o.json"), recorder=Recorded(), detector=fake_detector)
    assert (report.databases, report.rows_read, report.unreadable, report.busy) == (1, 0, 0, 0)
    assert not (tmp_path / "o.json").exists()  # nothing read, nothing to save


def test_a_file_that_is_not_a_database_is_reported_not_fatal(tmp_path: Path) -> None:
    db = tmp_path / "openclaw-agent.sqlite"
    db.write_bytes(b"this is not sqlite" * 200)
    report = ow.sweep([db], offsets=ow.Offsets(tmp_path / "o.json"), recorder=Recorded(), detector=fake_detector)
    assert report.unreadable == 1 and "cannot read" in report.warnings[0]


def test_a_locked_database_is_skipped_then_picked_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    pauses: list[float] = []
    monkeypatch.setattr(transcripts.time, "sleep", pauses.append)
    holder = sqlite3.connect(layout.db, isolation_level=None)
    try:
        # An EXCLUSIVE lock that also shuts out WAL readers (exclusive locking mode).
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        report = run_sweep(layout, recorder)
        # A short retry, then skip (how long that takes: bench/hooks_bounded.py).
        assert pauses == [transcripts.BUSY_PAUSE_S] * (transcripts.BUSY_ATTEMPTS - 1)
        assert (report.busy, report.errors_recorded, recorder.count()) == (1, 0, 0)
        holder.execute("COMMIT")
    finally:
        holder.close()  # releases the exclusive-mode lock
    report = run_sweep(layout, recorder)
    assert (report.busy, report.errors_recorded) == (0, FIXTURE_FAILURES)


def test_a_result_whose_call_was_read_in_an_earlier_pass_gets_its_command(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    run_sweep(layout, recorder)
    with _writer(layout.db) as conn:
        seq = _next_seq(conn, "split-1")
        conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
            ("split-1", seq, json.dumps(_call_event("cx", "pytest -x")), 1),
        )
    run_sweep(layout, recorder)  # reads the call only
    with _writer(layout.db) as conn:
        conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
            ("split-1", seq + 1, json.dumps(_result_event("cx", "1 failed", 1, str(layout.workdir))), 1),
        )
    report = run_sweep(layout, recorder)
    assert (report.rows_read, report.errors_recorded) == (1, 1)
    assert recorder.hits[-1].result.command == "pytest -x"


# -- zstd rows -------------------------------------------------------------------------------

_NAVIGATION = json.dumps(
    {
        "version": 1,
        "report": {"kind": "canonical"},
        "navigation": {},
        "reset": {},
        "model": {},
        "modelBytes": 0,
        "modelWithoutCheckpointBytes": 0,
        "withoutCustomDataBytes": 0,
    }
)


def _append_zstd_failure(layout: Layout, session: str, blob_of: Callable[[bytes], bytes]) -> None:
    call = json.dumps(_call_event("cz", "cargo build")).encode()
    result = json.dumps(_result_event("cz", "error[E0425]: cannot find value", 101, str(layout.workdir))).encode()
    with _writer(layout.db) as conn:
        seq = _next_seq(conn, session)
        for offset, payload in enumerate((call, result)):
            conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd,"
                " event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, ?, ?, ?, ?)",
                (session, seq + offset, 1, blob_of(payload), len(payload), _NAVIGATION),
            )


def test_zstd_rows_are_decoded(tmp_path: Path) -> None:
    zstandard = pytest.importorskip(
        "zstandard", reason="optional 'zstandard' is not installed (pip install zstandard) and Python < 3.14"
    )
    layout = make_layout(tmp_path)
    recorder = Recorded()
    run_sweep(layout, recorder)
    _append_zstd_failure(layout, "zstd-1", zstandard.ZstdCompressor().compress)
    report = run_sweep(layout, recorder)
    assert (report.rows_read, report.tool_results, report.errors_recorded, report.zstd_skipped) == (2, 1, 1, 0)
    assert recorder.hits[-1].result.command == "cargo build"
    assert recorder.hits[-1].result.exit_code == 101


def test_zstd_frames_without_content_size_are_decoded(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard", reason="optional 'zstandard' is not installed")

    def streamed(payload: bytes) -> bytes:  # a streaming frame does not record its size
        compressor = zstandard.ZstdCompressor().compressobj()
        return compressor.compress(payload) + compressor.flush()

    layout = make_layout(tmp_path)
    recorder = Recorded()
    run_sweep(layout, recorder)
    _append_zstd_failure(layout, "zstd-2", streamed)
    assert run_sweep(layout, recorder).errors_recorded == 1


def test_zstd_rows_without_a_decoder_are_skipped_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ow, "zstd_decoder", lambda: None)
    layout = make_layout(tmp_path)
    recorder = Recorded()
    run_sweep(layout, recorder)
    _append_zstd_failure(layout, "zstd-3", lambda payload: b"\x28\xb5\x2f\xfd" + payload)
    report = run_sweep(layout, recorder)
    assert (report.rows_read, report.zstd_skipped, report.errors_recorded) == (2, 2, 0)
    assert "2 zstd-compressed transcript row(s) skipped" in report.warnings[0]
    assert run_sweep(layout, recorder).rows_read == 0  # skipped once, not on every pass


def test_a_corrupt_zstd_row_is_a_bad_row(tmp_path: Path) -> None:
    pytest.importorskip("zstandard", reason="optional 'zstandard' is not installed")
    layout = make_layout(tmp_path)
    run_sweep(layout, Recorded())
    _append_zstd_failure(layout, "zstd-4", lambda payload: b"garbage")
    report = run_sweep(layout, Recorded())
    assert (report.bad_rows, report.zstd_skipped, report.errors_recorded) == (2, 0, 0)


# -- watching --------------------------------------------------------------------------------


def test_watch_records_rows_appended_in_batches(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    with running_watcher(layout, recorder):
        assert settle_and_count(recorder, FIXTURE_FAILURES) == 5
        append_commands(layout.db, "live-1", [1, 0, 2], layout.workdir)  # 2 failures, 1 success
        assert settle_and_count(recorder, 7) == 7
        append_commands(layout.db, "live-1", [1, 1, 1], layout.workdir)
        append_commands(layout.db, "live-2", [127], layout.workdir)
        assert settle_and_count(recorder, 11) == 11
    assert len(set(recorder.keys())) == 11


def test_a_restarted_watcher_never_double_counts(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    with running_watcher(layout, recorder):
        append_commands(layout.db, "live-1", [1, 1], layout.workdir)
        assert settle_and_count(recorder, 7) == 7
    append_commands(layout.db, "live-1", [3], layout.workdir)  # written while nobody watches
    with running_watcher(layout, recorder):
        assert settle_and_count(recorder, 8) == 8
        append_commands(layout.db, "live-3", [1, 1], layout.workdir)
        assert settle_and_count(recorder, 10) == 10
    assert len(set(recorder.keys())) == 10


def test_watch_picks_up_a_database_created_after_it_started(tmp_path: Path) -> None:
    state = tmp_path / "state"
    db = state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    layout = Layout(state, db, tmp_path / "proj", tmp_path / "proj" / "sub", tmp_path / "o.json")
    layout.workdir.mkdir(parents=True)
    (layout.project / ".learnings").mkdir()
    recorder = Recorded()
    with running_watcher(layout, recorder) as reports:
        assert reports[0].databases == 0  # OpenClaw has never run
        layout.db.parent.mkdir(parents=True)
        shutil.copyfile(SHARED_DB, layout.db)
        _rewrite_cwd(layout.db, FIXTURE_CWD, str(layout.workdir))
        assert settle_and_count(recorder, FIXTURE_FAILURES) == FIXTURE_FAILURES


def test_watch_survives_a_locked_database(tmp_path: Path) -> None:
    layout = make_layout(tmp_path)
    recorder = Recorded()
    with running_watcher(layout, recorder) as reports:
        assert settle_and_count(recorder, 5) == 5
        holder = sqlite3.connect(layout.db, isolation_level=None)
        holder.execute("PRAGMA ignore_check_constraints=ON")  # see _writer
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        for n, code in enumerate((1, 2)):
            seq = _next_seq(holder, "locked-1")
            call_id = f"lk{n}"
            holder.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)",
                ("locked-1", seq, json.dumps(_call_event(call_id, "x"))),
            )
            holder.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)",
                ("locked-1", seq + 1, json.dumps(_result_event(call_id, "e", code, str(layout.workdir)))),
            )
        holder.execute("COMMIT")  # the WAL changes: the watcher tries, finds the db locked
        assert wait_until(lambda: any(r.busy for r in reports)), "watcher never met the lock"
        assert recorder.count() == 5
        holder.close()  # lock gone; closing checkpoints the WAL into the db, which wakes us
        assert settle_and_count(recorder, 7) == 7


# -- the commands ----------------------------------------------------------------------------



def cli(*args: str) -> list[str]:
    return [*CLI, *args]


def test_sweep_command_prints_json_counts(tmp_path: Path) -> None:
    layout = make_layout(tmp_path, opted_in=False)  # outside projects: no store needed
    proc = subprocess.run(
        cli("sweep", "--state-dir", str(layout.state), "--offsets", str(layout.offsets), "--json"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    assert (counts["rows_read"], counts["tool_results"], counts["errors_recorded"]) == (57, 5, 0)
    assert (counts["outside_projects"], counts["zstd_skipped"], counts["projects_touched"]) == (5, 0, 0)


def test_sweep_command_with_nothing_to_read(tmp_path: Path) -> None:
    proc = subprocess.run(
        cli("sweep", "--state-dir", str(tmp_path / "none"), "--offsets", str(tmp_path / "o.json")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "no OpenClaw transcripts under" in proc.stdout


def test_sweep_since_parsing() -> None:
    from self_improve.commands.sweep import parse_since
    from self_improve.errors import UsageError

    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert parse_since("2h", now) == now - timedelta(hours=2)
    assert parse_since("7d", now) == now - timedelta(days=7)
    assert parse_since("2026-11-01T00:00:00Z") == datetime(2026, 11, 1, tzinfo=UTC)
    assert parse_since("2026-11-01").tzinfo is not None
    with pytest.raises(UsageError):
        parse_since("yesterday")


def test_watch_command_exits_0_on_sigterm_with_offsets_saved(tmp_path: Path) -> None:
    layout = make_layout(tmp_path, opted_in=False)
    proc = subprocess.Popen(
        cli("watch", "--state-dir", str(layout.state), "--offsets", str(layout.offsets), "--debounce", "0.1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The first pass has run once every session's offset is on disk.
        def first_pass_saved() -> bool:
            try:
                data = json.loads(layout.offsets.read_text())
            except (FileNotFoundError, ValueError):
                return False
            return len(data["databases"][str(layout.db.resolve())]) == ALL_SESSIONS

        assert wait_until(first_pass_saved), "watcher never saved its offsets"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "watch stopped" in out


def test_watch_command_exits_0_on_sigint(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        cli("watch", "--state-dir", str(tmp_path / "none"), "--offsets", str(tmp_path / "o.json")),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until(lambda: (tmp_path / "o.json.lock").exists()), "watcher never started a pass"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err


# -- with the real detector and store --------------------------------------------------------


def _real_pipeline_available() -> str | None:
    try:
        from self_improve.detect.classify import detect  # noqa: F401
        from self_improve.detect.rules import load_rules  # noqa: F401
        from self_improve.store.store import LogRequest, Store  # noqa: F401
    except ImportError as exc:
        return f"detect/store not available yet: {exc}"
    return None


def test_real_store_records_the_fixture_failures_once(tmp_path: Path) -> None:
    missing = _real_pipeline_available()
    if missing:
        pytest.skip(missing)
    from self_improve.store.store import Store

    layout = make_layout(tmp_path)
    Store(layout.project).init()
    offsets = ow.Offsets(layout.offsets)
    report = ow.sweep(layout.databases(), offsets=offsets)
    assert report.errors_recorded == FIXTURE_FAILURES, report
    again = ow.sweep(layout.databases(), offsets=offsets)
    assert again.errors_recorded == 0
    (entry,) = Store(layout.project).entries("error")  # one pattern, five occurrences
    assert entry.recurrence_count == FIXTURE_FAILURES
    assert len({o.task for o in entry.occurrences}) == FIXTURE_FAILURES  # five sessions
    assert entry.first_seen == "2026-11-29"  # the rows' created_at (UTC)
    assert "ls: cannot access" in (layout.project / ".learnings" / "ERRORS.md").read_text()

