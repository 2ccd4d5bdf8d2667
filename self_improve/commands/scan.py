"""``self-improve scan``: learn from past sessions, as if the hooks had been installed all along.

Reads the harnesses' transcripts (Claude Code: ``harnesses/claude/history.py``; Codex:
``harnesses/codex/history.py``; ``--harness all``, the default, reads both) and feeds every
finished shell command and every typed prompt through the live hooks' own steps: post-bash's
(``hooks/record.py``: the same detection and fingerprint, the same store write, the same
per-session ring that turns a failure followed by a pass into an observed fix) and
prompt-submit's correction queue (``Context.queue_correction``), each dated with the event's own
time and counted in its own session. Only projects that opted in take part: the event's ``cwd``
maps to a project as the hooks map it (``Context.for_cwd``: the ``.learnings/`` above it, the
``$HOME`` rule, the trust checks).

Live and scanned events are told apart by **session** (a session the live hooks saw is theirs):
- a session is **live** in a project when the hooks left a trace of it there
  (``hooks/record.live_session``): its ``.state/sessions/<id>.json`` (prompt-submit writes it at
  every prompt, post-bash at every failure it reports), ``.state/last-session``, or, for a
  session the scan does not own, its ring (``.state/evidence/<id>.json``), a hook line of this
  machine's provenance ledger, or an occurrence of any entry in its task;
- otherwise the scan **owns** it (noted in the scan state before its first write) and records
  its events; when the hooks later see an owned session (a resumed one), the first two traces
  hand it back to them from that point.
A session is one id on both sides: Claude Code's ``sessionId`` and Codex's thread id are what
their hooks get as ``session_id`` (verified on both clients). Exact per event would need the
hooks to keep each ``tool_use_id`` they recorded, which they do not; per session is exact for
every session wholly seen by one side, and errs on the side of never counting twice (a session
the hooks joined halfway is left to them).

Idempotent: the offsets per transcript, one state per harness (``store/scan_state.py``), make a
re-scan read only what was appended, and an unchanged file costs one ``stat``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import plural, print_json

if TYPE_CHECKING:
    from self_improve.harnesses.claude.history import TranscriptReader
    from self_improve.harnesses.history import Event
    from self_improve.hooks.state import Context
    from self_improve.store.scan_state import FileState, ScanState

HARNESS_CHOICES = ("claude", "codex", "openclaw", "all")
SCANNED = ("claude", "codex")  # the harnesses whose history ``scan`` reads (openclaw: ``self-improve sweep``)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="learn from past sessions' transcripts, as the hooks would have",
        description="Read past Claude Code transcripts and Codex rollouts and record their failing "
        "commands, observed fixes and corrections exactly as the hooks would have, dated when they "
        "happened. Only projects with .learnings/ take part; a re-scan reads only what is new, and "
        "sessions the hooks saw live are left to them.",
        epilog="examples:\n"
        "  self-improve scan --dry-run\n"
        "  self-improve scan --harness codex --all-projects --since 2026-10-01 --json",
    )
    parser.add_argument("--harness", choices=HARNESS_CHOICES, default="all",
                        help="whose transcripts to read (default: all: claude and codex)")
    parser.add_argument("--since", metavar="DATE", help="ignore events before this ISO date or time (they are marked as read)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="DIR", help="record into this project only (default: the current one)")
    where.add_argument("--all-projects", action="store_true", help="record into every project with .learnings/")
    parser.add_argument("--dry-run", action="store_true", help="record nothing; print what would be recorded")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(func=run)


def parse_date(text: str) -> float:
    """``--since``: an ISO date (UTC midnight) or time (UTC when naive) -> seconds since the epoch."""
    from self_improve.clock import datetime_classes

    _, utc = datetime_classes()
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since: expected an ISO date such as 2026-11-01; got {text!r}") from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=utc)).timestamp()


def chosen_project(args: argparse.Namespace) -> str | None:
    """The one project to record into (its root, real path), or None for ``--all-projects``."""
    if args.all_projects:
        return None
    from self_improve.store.trust import find_store_root

    start = args.project or getattr(args, "root", None) or os.getcwd()
    start = os.path.abspath(os.path.expanduser(start))
    root = find_store_root(start) if os.path.isdir(start) else None
    if root is None:
        raise SelfImproveError(f"no .learnings/ at or above {start}: run `self-improve init` there, or pass --all-projects")
    return os.path.realpath(root)


def run(args: argparse.Namespace) -> int:
    if args.harness == "openclaw":
        raise UsageError("--harness openclaw: its history is read by `self-improve sweep`")
    since = parse_date(args.since) if args.since else None
    project = chosen_project(args)
    scan = Scan(project, since, args.dry_run, args.harness)
    for harness in SCANNED if args.harness == "all" else (args.harness,):
        read_history(scan, harness)
    report = scan.report()
    if args.json:
        print_json(report, sys.stdout)
    else:
        for line in scan.planned:
            print(line)
        print(summary_line(report))
    return 0


def read_history(scan: Scan, harness: str) -> None:
    """One harness's transcripts through ``scan``, its own state loaded and saved under its lock."""
    import importlib

    from self_improve.store.scan_state import ScanState, scan_lock

    history = importlib.import_module(f"self_improve.harnesses.{harness}.history")
    files = history.transcripts(history.history_dir())
    if not files:
        return  # a harness never used here: no state to keep for it
    if scan.dry_run:
        scan.run(ScanState(harness), files, history.TranscriptReader)
        return
    with scan_lock(harness):
        state = ScanState(harness)
        try:
            scan.run(state, files, history.TranscriptReader)
        finally:
            state.save()


def summary_line(report: dict[str, Any]) -> str:
    verb = "would record" if report["dry_run"] else "recorded"
    head = (f"{plural(report['sessions'], 'session')} in {plural(report['projects'], 'project')}: "
            f"{plural(report['mistakes'], 'mistake')}")
    if report["dry_run"]:
        return f"{head} {verb} (dry run: nothing written)"
    tail = f", {report['recurring']} recurring, {plural(report['observed_fixes'], 'observed fix', 'observed fixes')}"
    if report["corrections"]:
        tail += f", {plural(report['corrections'], 'correction')} queued"
    if report["live_sessions"]:
        tail += f"; {plural(report['live_sessions'], 'session')} left to the live hooks"
    return f"{head}{tail}; run `self-improve review`" if report["mistakes"] else f"{head}{tail}"


class Scan:
    """One scan: the files, the projects, what was recorded (``report``)."""

    def __init__(self, project: str | None, since: float | None, dry_run: bool, harness: str = "claude") -> None:
        self.harness = harness
        self.reader: type[TranscriptReader] | None = None
        self.project = project
        self.since = since
        self.dry_run = dry_run
        self.contexts: dict[tuple[str, str], Context | None] = {}
        self.roots: dict[str, str | None] = {}
        self.live: dict[tuple[str, str], bool] = {}
        self.traces: dict[str, frozenset[str]] = {}
        self.sessions: set[tuple[str, str]] = set()
        self.entries: dict[str, set[str]] = {}
        self.planned: list[str] = []
        self.counts = dict.fromkeys(("files", "files_read", "bytes_read", "events", "mistakes", "corrections",
                                     "outside_projects", "before_since"), 0)
        self.live_sessions: set[tuple[str, str]] = set()
        self.progress = Progress()

    # ---- the files ---------------------------------------------------------------------------
    def run(self, state: ScanState, files: list[str], reader: type[TranscriptReader]) -> None:
        """Read ``files`` with ``reader`` (a harness's ``TranscriptReader``) past ``state``'s offsets."""
        self.reader = reader
        sizes = []
        for path in files:
            try:
                sizes.append((path, os.stat(path)))
            except OSError:
                continue
        self.counts["files"] += len(sizes)
        self.progress.start(len(sizes), sum(info.st_size for _, info in sizes))
        for path, info in sizes:
            self._file(state, path, info)
            self.progress.done_file(info.st_size, self.counts["events"])
        self.progress.finish()

    def _file(self, state: ScanState, path: str, info: os.stat_result) -> None:
        from self_improve.store.scan_state import HEAD_BYTES, FileState, head_digest

        assert self.reader is not None

        record = state.files.get(path)
        if record is not None and record.size == info.st_size and record.mtime == info.st_mtime_ns \
                and record.offset_for(self.project) >= info.st_size:
            return  # unchanged since it was read whole: one stat
        try:
            if record is None or info.st_size < record.size or (
                    record.size and head_digest(path, min(record.size, HEAD_BYTES)) != record.head):
                record = FileState()  # new, or another file under this name: from its start
            if self.dry_run:
                record = FileState.from_json(record.as_json())  # a copy: the state stays as it is
            else:
                state.files[path] = record
            start = record.offset_for(self.project)
            reader = self.reader(path, start, dict(record.calls), stop=info.st_size)
            for event in reader.events():
                self._event(state, path, record, event)
        except OSError as exc:
            self.planned.append(f"warning: cannot read {path}: {exc.strerror or exc}")
            return
        self.counts["files_read"] += 1
        self.counts["bytes_read"] += reader.position - start
        record.calls = reader.calls
        record.advance(self.project, reader.position)
        record.size, record.mtime = info.st_size, info.st_mtime_ns
        record.head = head_digest(path, min(info.st_size, HEAD_BYTES))

    # ---- one event ---------------------------------------------------------------------------
    def _event(self, state: ScanState, path: str, record: FileState, event: Event) -> None:
        root = self._root(event.cwd)
        if root is None:
            self.counts["outside_projects"] += 1
            return
        if (self.project is not None and root != self.project) or record.taken(root, event.end):
            return
        if self.since is not None and event.when < self.since:
            self.counts["before_since"] += 1
            return
        context = self._context(root, event)
        if context is None or not event.session:
            return
        key = (root, event.session)
        if self._is_live(state, context, key):
            self.live_sessions.add(key)
            return
        self.counts["events"] += 1
        self.sessions.add(key)
        if self.dry_run:
            self._plan(context, event)
            return
        state.note(path, self.project, event.end, own=key)  # before any write: never twice (scan_state)
        if event.result is not None:
            from self_improve.hooks.record import record_result

            recorded = record_result(context, event.result, event.when)
            if recorded is not None:
                self.counts["mistakes"] += 1
                self.entries.setdefault(root, set()).add(recorded[0].fingerprint)
        elif event.prompt is not None and queue_prompt(context, event):
            self.counts["corrections"] += 1

    def _root(self, cwd: str) -> str | None:
        if cwd not in self.roots:
            from self_improve.store.trust import find_store_root

            found = find_store_root(cwd) if cwd and os.path.isabs(cwd) else None
            self.roots[cwd] = os.path.realpath(found) if found is not None else None
        return self.roots[cwd]

    def _context(self, root: str, event: Event) -> Context | None:
        """The hooks' own view of the project (``Context.for_cwd``: trust checks, config)."""
        key = (root, event.session)
        if key not in self.contexts:
            from self_improve.hooks.state import Context

            context = Context.for_cwd(event.cwd, event.session)
            self.contexts[key] = context if context is not None and context.root is not None else None
        return self.contexts[key]

    def _is_live(self, state: ScanState, context: Context, key: tuple[str, str]) -> bool:
        if key not in self.live:
            from self_improve.hooks.record import live_session

            self.live[key] = live_session(context, state.owns(*key), self._traces(context))
        return self.live[key]

    def _traces(self, context: Context) -> frozenset[str]:
        """The task hashes this project's store and ledger hold: sessions somebody recorded."""
        assert context.root is not None
        if context.root not in self.traces:
            from self_improve.hooks.record import recorded_tasks

            self.traces[context.root] = recorded_tasks(context)
        return self.traces[context.root]

    def _plan(self, context: Context, event: Event) -> None:
        from self_improve.clock import utc_of

        day = utc_of(event.when).strftime("%Y-%m-%d")
        if event.result is not None:
            from self_improve.hooks.record import detect_failure

            detection = detect_failure(context, event.result)
            if detection is not None:
                self.counts["mistakes"] += 1
                self.planned.append(f"would record {detection.fingerprint} in {context.root} ({day}, session {event.session[:8]})")
        elif event.prompt is not None:
            from self_improve.detect.corrections import detect_correction

            if detect_correction(event.prompt) is not None:
                self.counts["corrections"] += 1
                self.planned.append(f"would queue a correction in {context.root} ({day}, session {event.session[:8]})")

    # ---- the summary ---------------------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        recurring = fixes = 0
        if not self.dry_run:
            recurring, fixes = self._entry_figures()
        return {"dry_run": self.dry_run, "harness": self.harness, "sessions": len(self.sessions),
                "projects": len({root for root, _ in self.sessions}), **self.counts,
                "recurring": recurring, "observed_fixes": fixes, "live_sessions": len(self.live_sessions),
                "project_roots": sorted({root for root, _ in self.sessions})}

    def _entry_figures(self) -> tuple[int, int]:
        """(entries seen more than once, entries with an observed fix) among those recorded."""
        from self_improve.store.store import Store

        recurring = fixes = 0
        for root, fingerprints in self.entries.items():
            for entry in Store(root).entries(kind="error"):
                if entry.pattern_key in fingerprints:
                    recurring += entry.recurrence_count > 1
                    fixes += bool(entry.observed_fix)
        return recurring, fixes


# ---- the hooks' steps, with the event's time (post-bash's: ``hooks/record.py``) -----------------------


def queue_prompt(context: Context, event: Event) -> bool:
    """What prompt-submit queues for a correction (``hooks/run.prompt_submit``), dated then."""
    from self_improve.detect.corrections import detect_correction

    assert event.prompt is not None
    hit = detect_correction(event.prompt)
    return hit is not None and context.queue_correction(hit, event.prompt.text, now=event.when)


class Progress:
    """``scan: 12/300 files, 45/200 MB, 1234 events, ETA 12 s`` on stderr, only on a terminal."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.files = self.total_files = 0
        self.bytes = self.total_bytes = 0
        self.started = self.shown = 0.0

    def start(self, files: int, size: int) -> None:
        """One harness's files from here (the counts start again)."""
        self.files = self.bytes = 0
        self.total_files, self.total_bytes = files, size
        self.started = time.monotonic()

    def done_file(self, size: int, events: int) -> None:
        self.files += 1
        self.bytes += size
        now = time.monotonic()
        if not self.enabled or now - self.shown < 0.2:
            return
        self.shown = now
        rate = self.bytes / max(now - self.started, 1e-6)
        eta = (self.total_bytes - self.bytes) / rate if rate else 0.0
        self.stream.write(f"\rscan: {self.files}/{self.total_files} files, {self.bytes / 1e6:.0f}/"
                          f"{self.total_bytes / 1e6:.0f} MB, {events} events, ETA {eta:.0f} s ")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
