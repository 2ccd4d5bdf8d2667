"""Which projects take part, so that review can see a Pattern-Key recurring across projects.

One line per project root in ``$XDG_STATE_HOME/self-improve/projects`` (local state, never
committed). The store adds its project the first time it records something there;
``store.projects_with_key`` reads the list.
"""

from __future__ import annotations

from pathlib import Path

from self_improve.paths import LEARNINGS_DIR, user_state_dir


def registry_path() -> Path:
    return Path(user_state_dir()) / "projects"


def known_projects() -> list[Path]:
    """Registered roots that still have a ``.learnings/`` folder."""
    try:
        lines = registry_path().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    roots = [Path(line) for line in dict.fromkeys(lines) if line.strip()]
    return [root for root in roots if (root / LEARNINGS_DIR).is_dir()]


def note_project(root: Path) -> None:
    """Register ``root`` (an append of one line, once). Never fails the caller."""
    line = str(root.absolute())
    path = registry_path()
    try:
        if path.exists() and line in path.read_text(encoding="utf-8").splitlines():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except (OSError, UnicodeDecodeError):
        pass


__all__ = ["known_projects", "note_project", "registry_path"]
