"""A task is a harness session, named by a short stable hash (the unit of "distinct tasks")."""

from __future__ import annotations

import hashlib


def task_hash(session: str) -> str:
    """Short, stable and not reversible; "-" when the session is unknown."""
    if not session:
        return "-"
    return hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:8]
