"""Where the project root and its ``.learnings/`` are."""

from __future__ import annotations

import os
from pathlib import Path

from self_improve.errors import SelfImproveError
from self_improve.paths import PathArg
from self_improve.store.trust import find_store_root


def find_root(start: Path | str | None = None, explicit: Path | str | None = None) -> Path:
    """``--root`` if given, else the nearest ancestor holding ``.learnings/`` (within the bounds of
    ``store.trust.find_store_root``) or else ``.git``; else the working directory."""
    if explicit is not None:
        root = Path(explicit).expanduser()
        if not root.is_dir():
            raise SelfImproveError(f"--root {explicit}: not a directory")
        return root.absolute()
    here = Path(start if start is not None else os.getcwd()).absolute()
    found = find_store_root(str(here))  # bounded by the repository root or $HOME (store/trust.py)
    if found is not None:
        return Path(found)
    home = Path.home().absolute()
    for candidate in (here, *here.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
        if candidate == home:
            break
    return here


def find_learnings_root(start: PathArg) -> Path | None:
    """The nearest ancestor holding ``.learnings/``: the opt-in rule of the hooks and the watcher."""
    found = find_store_root(os.fspath(start))
    return Path(found) if found is not None else None
