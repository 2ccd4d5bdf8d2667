"""A task is a harness session, named by a short stable hash (the unit of "distinct tasks")."""

from __future__ import annotations

from self_improve.digest import sha256_hex


def task_hash(session: str) -> str:
    """Short, stable and not reversible; "-" when the session is unknown."""
    if not session:
        return "-"
    return sha256_hex(session.encode("utf-8", "surrogatepass"))[:8]
