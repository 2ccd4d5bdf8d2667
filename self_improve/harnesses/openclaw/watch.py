"""``self-improve watch``: a sweep pass now, then one per change of a transcript database.

The pass itself is ``sweep.py``'s (offsets saved after every batch), so stopping between passes
never loses or repeats work. Changes come from a watchdog observer on OpenClaw's agents dir,
debounced; a pass also runs every ``safety_interval_s`` without any event.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from self_improve.harnesses import openclaw as openclaw
from self_improve.harnesses.openclaw.sweep import Detector, OnRecorded, Recorder, SweepReport, sweep
from self_improve.harnesses.openclaw.transcripts import Offsets, OffsetsError

__all__ = ["Offsets", "OffsetsError", "SweepReport", "WatchOptions", "is_relevant_event", "watch"]

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
