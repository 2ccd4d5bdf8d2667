"""Which projects take part, so that review can see a Pattern-Key recurring across projects.

One line per project root in ``$XDG_STATE_HOME/self-improve/projects`` (local state, never
committed). The store adds its project the first time it records something there;
``store.projects_with_key`` reads the list.
"""

from __future__ import annotations

import os

from self_improve.paths import LEARNINGS_DIR, user_state_dir

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks note their project through here: no pathlib at run time
    from pathlib import Path

FILE = "projects"


def registry_path() -> Path:
    from pathlib import Path

    return Path(user_state_dir()) / FILE


def known_projects() -> list[Path]:
    """Registered roots that still have a ``.learnings/`` folder."""
    from pathlib import Path

    try:
        lines = registry_path().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    roots = [Path(line) for line in dict.fromkeys(lines) if line.strip()]
    return [root for root in roots if (root / LEARNINGS_DIR).is_dir()]


def note_project(root: str) -> None:
    """Register ``root`` (an absolute path, as ``Store`` keeps it: an append of one line, once).
    Never fails the caller."""
    line = root
    path = os.path.join(user_state_dir(), FILE)
    try:
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                if line in handle.read().splitlines():
                    return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except (OSError, UnicodeDecodeError):
        pass


def forget_project(root: str) -> None:
    """Take ``root`` out of the registry, and its provenance ledger with it: for a project that
    was only ever ours (doctor's scratch project), so no line of it outlives it. Never fails."""
    from self_improve.atomic import atomic_write
    from self_improve.store.provenance import ledger_path

    path = os.path.join(user_state_dir(), FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        if root in lines:
            atomic_write(path, "".join(f"{line}\n" for line in lines if line != root).encode("utf-8"))
    except (OSError, UnicodeDecodeError):
        pass
    ledger = ledger_path(root)
    for name in (ledger, ledger + ".1"):
        try:
            os.unlink(name)
        except OSError:
            pass


__all__ = ["forget_project", "known_projects", "note_project", "registry_path"]
