"""Workspaces waiting for the reminder block: install ran there before OpenClaw's first run.

OpenClaw seeds its own AGENTS.md on its first run, and we never create that file
(``install.py``). So an install into a workspace without one puts the skill in, and records the
workspace here: ``openclaw-pending-block`` in our state dir, one ``<workspace>\\t<state dir>``
line each (real paths). Every ``sweep`` pass, and so every ``watch`` pass, then calls
``install.ensure_blocks``: a recorded workspace whose AGENTS.md now exists gets the block (the same
plan as ``install``: the occupied and size refusals included) and leaves the record; so does one
that got it meanwhile (the next ``install``). ``uninstall`` drops the record. A workspace that is
not recorded is never touched: only an install asks for a block.

Cheap when nothing waits: one failed open per pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from self_improve.atomic import atomic_write
from self_improve.errors import SelfImproveError
from self_improve.harnesses.installer import FileChange
from self_improve.harnesses.openclaw import NAME
from self_improve.lock import locked
from self_improve.paths import user_state_dir

RECORD = "openclaw-pending-block"


def _record() -> Path:
    return Path(user_state_dir()) / RECORD


def _key(path: Path) -> str:
    return os.path.realpath(path)


def waiting() -> list[tuple[Path, Path]]:
    """The recorded (workspace, state dir) pairs, oldest first."""
    try:
        text = _record().read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return []
    pairs = []
    for line in text.splitlines():
        workspace, _, state = line.partition("\t")
        if workspace and state:
            pairs.append((Path(workspace), Path(state)))
    return pairs


def _write(pairs: list[tuple[Path, Path]]) -> None:
    path = _record()
    if not pairs:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(f"{w}\t{s}\n" for w, s in pairs).encode("utf-8", "surrogateescape"))


def is_waiting(workspace: Path) -> bool:
    return any(str(w) == _key(workspace) for w, _ in waiting())


def remember(workspace: Path, state: Path) -> None:
    with _locked():
        pairs = [(w, s) for w, s in waiting() if str(w) != _key(workspace)]
        _write([*pairs, (Path(_key(workspace)), Path(_key(state)))])


def forget(workspace: Path) -> None:
    with _locked():
        pairs = waiting()
        kept = [(w, s) for w, s in pairs if str(w) != _key(workspace)]
        if kept != pairs:
            _write(kept)


def _locked() -> locked:
    _record().parent.mkdir(parents=True, exist_ok=True)
    return locked(str(_record()) + ".lock")


@dataclass(frozen=True)
class PendingBlock(FileChange):
    """A plan step that writes nothing of the user's: on apply it records the workspace
    (``wanted``: install) or drops it (uninstall). Its summary is the line the user reads."""

    workspace: Path = Path()
    state: Path = Path()
    wanted: bool = True

    def preflight(self) -> None:
        return None

    def apply(self) -> None:
        try:
            remember(self.workspace, self.state) if self.wanted else forget(self.workspace)
        except OSError as exc:
            raise SelfImproveError(f"{NAME}: cannot record {self.workspace} in {_record()}: {exc.strerror or exc}") from None
