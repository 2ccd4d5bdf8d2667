"""What every harness's reader of past sessions shares (``claude/history.py``,
``codex/history.py``; ``commands/scan.py`` reads them): the event a transcript yields, its time,
and how the transcript files are found (regular files only, links not followed, sorted, so that
``scan`` reads them in the same order every time)."""

from __future__ import annotations

import os
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
