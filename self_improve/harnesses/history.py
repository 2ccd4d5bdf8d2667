"""What every harness's reader of past sessions shares (``claude/history.py``,
``codex/history.py``; ``commands/scan.py`` reads them): the event a transcript yields, its time,
and how the transcript files are found (regular files only, links not followed, sorted, so that
``scan`` reads them in the same order every time)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime

from self_improve.events import Prompt, ToolResult

MAX_PENDING_CALLS = 64  # Bash calls waiting for their result across a scan's end (kept in its state)


class Event:
    """One event of a transcript: a finished Bash command or a typed prompt, when it happened
    (seconds since the epoch), and ``end``, the file offset just past its line."""

    __slots__ = ("result", "prompt", "when", "end", "call_id")

    def __init__(self, when: float, end: int, result: ToolResult | None = None, prompt: Prompt | None = None,
                 call_id: str = "") -> None:
        self.when = when
        self.end = end
        self.result = result
        self.prompt = prompt
        self.call_id = call_id

    @property
    def session(self) -> str:
        if self.result is not None:
            return self.result.session
        return self.prompt.session if self.prompt is not None else ""

    @property
    def cwd(self) -> str:
        if self.result is not None:
            return self.result.cwd
        return self.prompt.cwd if self.prompt is not None else ""


def parse_time(text: object) -> float | None:
    """``2026-12-01T20:14:26.301Z`` -> seconds since the epoch; None when it is not a time."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None  # the harnesses write UTC with a Z: a naive time is not one of its lines
    return moment.timestamp()


def jsonl_files(folder: str, prefix: str = "") -> list[str]:
    """Every ``<prefix>*.jsonl`` below ``folder``, sorted (regular files only, links not followed)."""
    found: list[str] = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            if name.startswith(prefix) and name.endswith(".jsonl") and os.path.isfile(path) and not os.path.islink(path):
                found.append(path)
    return found


class JsonlReader:
    """The whole JSON lines of one transcript from ``offset`` (a line boundary), in file order;
    a harness's ``TranscriptReader`` says which lines are worth parsing (``WANTED``: a line
    holding none of these substrings is skipped unparsed) and what events each one gives
    (:meth:`events_of`).

    ``calls`` maps a call's id to its command: the calls read and not yet answered, kept by the
    caller across scans (bounded: :data:`MAX_PENDING_CALLS`). ``position`` is the offset just
    past the last whole line read: a last line without its newline is being written, and is left
    for the next scan; so is anything past ``stop``. A torn or foreign line proves nothing and
    is skipped."""

    WANTED: tuple[bytes, ...] = ()

    def __init__(self, path: str, offset: int, calls: dict[str, str], stop: int | None = None) -> None:
        self.path = path
        self.position = offset
        self.calls = calls
        self.stop = stop

    def events(self) -> Iterator[Event]:
        wanted = self.WANTED
        with open(self.path, "rb") as handle:
            handle.seek(self.position)
            for raw in handle:
                end = self.position + len(raw)
                if not raw.endswith(b"\n") or (self.stop is not None and end > self.stop):
                    return
                self.position = end
                if not any(needle in raw for needle in wanted):
                    continue  # most lines: attachments, request records, token counts
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(line, dict):
                    yield from self.events_of(line, end)

    def events_of(self, line: dict[str, object], end: int) -> Iterator[Event]:
        raise NotImplementedError
