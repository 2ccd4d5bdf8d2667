"""A planned change to one file, shown before it is made: the one diff, the one confinement check.

``install``, ``promote``, ``retire``, ``review`` and the OpenClaw installer all plan first and
write later, and every ``--dry-run`` prints the same git-style diff, so a user reads one format.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from self_improve.errors import SelfImproveError
from self_improve.lines import lines_of  # the one copy, also imported from here by review
from self_improve.output import home_path

Content = bytes | str | None  # None: the file is absent (before) or is to be deleted (after)


def _text(content: Content) -> str:
    if content is None:
        return ""
    if isinstance(content, bytes):
        return content.decode("utf-8", "surrogateescape")
    return content


def unified_diff(before: Content, after: Content, label: str) -> str:
    """git-style unified diff (``a/label``, ``b/label``; ``/dev/null`` for a created or deleted
    file; a missing final newline shown as git shows it). Empty when nothing changes."""
    import difflib  # only a shown plan needs it; the modules that plan must load fast

    out = []
    for line in difflib.unified_diff(
        lines_of(_text(before)),
        lines_of(_text(after)),
        "/dev/null" if before is None else f"a/{label}",
        "/dev/null" if after is None else f"b/{label}",
    ):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def label_for(path: Path, root: Path | None) -> str:
    """``path`` as the diff and the messages name it: relative to ``root`` when it is inside,
    else ``~/…`` when it is under the home directory (a user-scope target such as
    ``~/.claude/CLAUDE.md``: the same on every machine, and no user name on screen), else absolute."""
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return home_path(path)


def is_within(path: Path | str, root: Path | str) -> bool:
    """Whether ``path`` is ``root`` or below it (by the names given: resolve both first)."""
    path, root = os.path.normpath(os.fspath(path)), os.path.normpath(os.fspath(root))
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_inside_root(path: Path | str, root: Path | str) -> str:
    """The real path ``path`` leads to; refused when a symlink (or ``..``) leads outside the root."""
    real = os.path.realpath(path)
    if not is_within(real, os.path.realpath(root)):
        raise SelfImproveError(f"refusing to write {os.fspath(path)}: it leads outside the project root {os.fspath(root)} (to {real})")
    return real


def confined(path: Path | str, root: Path) -> Path:
    """The absolute file ``path`` (relative to ``root`` unless absolute) names, refused when it is
    a symlink, resolves outside ``root`` (a ``..`` or a linked parent directory), or exists and
    is not a regular file. Every planned write of a file in a project goes through here."""
    real_root = root.resolve()
    if not real_root.is_dir():
        raise SelfImproveError(f"refusing to write {path}: project root {root} is not a directory")
    target = Path(path) if Path(path).is_absolute() else root / path
    if target.is_symlink():
        raise SelfImproveError(f"refusing to write {target}: it is a symlink")
    resolved = Path(check_inside_root(target, root))
    try:
        mode = os.lstat(resolved).st_mode
    except FileNotFoundError:
        return resolved
    if not stat.S_ISREG(mode):
        raise SelfImproveError(f"refusing to write {target}: it is not a regular file")
    return resolved


@dataclass(frozen=True)
class PlannedChange:
    """One file's content before and after; ``None`` is absent (before) or delete (after)."""

    path: Path
    before: bytes | None
    after: bytes | None

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self, root: Path | None = None) -> str:
        return unified_diff(self.before, self.after, label_for(self.path, root)) if self.changed else ""
