"""What ``self-improve scan`` has read: per transcript file, how far, for which projects.

Kept in the user's state dir (``$XDG_STATE_HOME/self-improve/scan/<harness>.json``, one file per
harness: ``claude``, ``codex``), never in a
project: a repository cannot make us skip or re-read anybody's history. Per file:

- ``size``, ``mtime`` (ns) and ``head`` (a digest of its first bytes): a file whose size and
  mtime did not change is not opened again (an unchanged re-scan costs one ``stat`` a file); a
  file that shrank or whose head changed is another file under the same name, read from 0;
- ``all``: the offset up to which every opted-in project's events were taken (an
  ``--all-projects`` scan), and ``projects``: per project root, the offset up to which that one
  project's events were taken (``--project``). An event at ``x`` is recorded for project P only
  when ``x`` is past both: a scan of one project then a scan of all never takes an event twice;
- ``calls``: the reader's carry-over to the next scan: shell calls read and not yet answered
  when the scan stopped (their result comes in a later line), and for a Codex rollout the
  session and cwd its first lines gave (keys ``:session``, ``:cwd``: ``harnesses/codex/history.py``).

And per project root, ``owned``: the sessions the scan recorded (as opposed to the sessions the
live hooks saw, which it leaves alone: ``commands/scan.py``).

Crash safety, as ``sweep``'s: never count twice. Before anything is written to a store the
offset past that event is appended to a journal (``<harness>.journal``, one short JSON line,
no fsync), which the next load replays; the state file is rewritten (atomically) once at the
end and the journal then emptied. A crash between the journal line and the write loses that one
event; it never counts it twice.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from self_improve.paths import user_state_dir

VERSION = 1
HEAD_BYTES = 1024
ALL = "all"


def state_dir() -> str:
    return os.path.join(user_state_dir(), "scan")


def head_digest(path: str, size: int) -> str:
    """A digest of the first :data:`HEAD_BYTES` of a file (of all of it when smaller): what tells
    an appended file from a replaced one."""
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read(min(size, HEAD_BYTES))).hexdigest()[:16]


def scan_lock(harness: str, folder: str | None = None) -> Any:
    """One writing scan at a time per harness (``lock.locked`` on ``<harness>.lock``): load the
    state inside it."""
    from self_improve.lock import locked

    folder = folder or state_dir()
    os.makedirs(folder, exist_ok=True)
    return locked(os.path.join(folder, f"{harness}.lock"))


class FileState:
    """One transcript file's record (see the module doc)."""

    __slots__ = ("size", "mtime", "head", "all", "projects", "calls")

    def __init__(self, size: int = 0, mtime: int = 0, head: str = "", all_offset: int = 0,
                 projects: dict[str, int] | None = None, calls: dict[str, str] | None = None) -> None:
        self.size = size
        self.mtime = mtime
        self.head = head
        self.all = all_offset
        self.projects = projects or {}
        self.calls = calls or {}

    def offset_for(self, project: str | None) -> int:
        """How far this file was read for ``project`` (None: for every project)."""
        if project is None:
            return self.all
        return max(self.all, self.projects.get(project, 0))

    def taken(self, project: str, end: int) -> bool:
        """Whether the event whose line ends at ``end`` was already taken for ``project``."""
        return end <= max(self.all, self.projects.get(project, 0))

    def advance(self, project: str | None, offset: int) -> None:
        if project is None:
            self.all = max(self.all, offset)
            self.projects = {root: at for root, at in self.projects.items() if at > self.all}
        else:
            self.projects[project] = max(self.projects.get(project, 0), offset)

    def as_json(self) -> dict[str, Any]:
        return {"size": self.size, "mtime": self.mtime, "head": self.head, "all": self.all,
                "projects": self.projects, "calls": self.calls}

    @classmethod
    def from_json(cls, data: Any) -> FileState:
        if not isinstance(data, dict):
            return cls()

        def number(name: str) -> int:
            value = data.get(name)
            return value if type(value) is int and value >= 0 else 0

        projects = data.get("projects")
        calls = data.get("calls")
        return cls(number("size"), number("mtime"), str(data.get("head", "")), number("all"),
                   {k: v for k, v in projects.items() if isinstance(k, str) and type(v) is int} if isinstance(projects, dict) else {},
                   {k: v for k, v in calls.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(calls, dict) else {})


class ScanState:
    """The scan state of one harness, loaded (journal replayed); ``save`` writes it back."""

    def __init__(self, harness: str, folder: str | None = None) -> None:
        self.folder = folder or state_dir()
        self.path = os.path.join(self.folder, f"{harness}.json")
        self.journal = os.path.join(self.folder, f"{harness}.journal")
        self.files: dict[str, FileState] = {}
        self.owned: dict[str, set[str]] = {}
        self._load()

    def _load(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            data = {}
        if isinstance(data, dict) and data.get("version") == VERSION:
            files = data.get("files")
            for path, record in (files.items() if isinstance(files, dict) else ()):
                self.files[path] = FileState.from_json(record)
            owned = data.get("owned")
            for root, sessions in (owned.items() if isinstance(owned, dict) else ()):
                if isinstance(sessions, list):
                    self.owned[root] = {s for s in sessions if isinstance(s, str)}
        try:
            with open(self.journal, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except OSError:
            lines = []
        for line in lines:
            self._replay(line)

    def _replay(self, line: str) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return  # a line torn by a crash: the event it announced was not written
        if not isinstance(record, dict):
            return
        if isinstance(record.get("own"), list) and len(record["own"]) == 2:
            root, session = record["own"]
            if isinstance(root, str) and isinstance(session, str):
                self.owned.setdefault(root, set()).add(session)
        path, offset = record.get("f"), record.get("o")
        if isinstance(path, str) and type(offset) is int:
            project = record.get("p")
            self.file(path).advance(project if isinstance(project, str) else None, offset)

    def file(self, path: str) -> FileState:
        found = self.files.get(path)
        if found is None:
            found = self.files[path] = FileState()
        return found

    def owns(self, root: str, session: str) -> bool:
        return session in self.owned.get(root, ())

    def note(self, path: str, project: str | None, offset: int, own: tuple[str, str] | None = None) -> None:
        """Before a write to a store: the event ending at ``offset`` of ``path`` is taken (for
        ``project``, None: for all), and ``own``'s (root, session) is the scan's. Journaled."""
        os.makedirs(self.folder, exist_ok=True)
        lines = []
        if own is not None and not self.owns(*own):
            self.owned.setdefault(own[0], set()).add(own[1])
            lines.append(json.dumps({"own": list(own)}))
        self.file(path).advance(project, offset)
        lines.append(json.dumps({"f": path, "p": project, "o": offset}))
        with open(self.journal, "a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")

    def save(self) -> None:
        """The whole state, atomically; then the journal it now contains is emptied."""
        from self_improve.atomic import atomic_write

        os.makedirs(self.folder, exist_ok=True)
        data = {"version": VERSION, "files": {path: record.as_json() for path, record in sorted(self.files.items())},
                "owned": {root: sorted(sessions) for root, sessions in sorted(self.owned.items())}}
        atomic_write(self.path, (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8"), durable=False)
        if os.path.exists(self.journal):
            os.remove(self.journal)
