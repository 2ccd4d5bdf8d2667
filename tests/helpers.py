"""Small helpers shared by the tests."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from self_improve.harnesses import agent_env

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
CLI = [sys.executable, "-m", "self_improve"]
AGENT_MARKERS = frozenset(agent_env.MARKERS)


def tree_hash(root: Path) -> dict[str, str]:
    """Every file below root (the lock file aside) with the sha256 of its bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != ".lock":
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None,
            user: int | None = None) -> subprocess.CompletedProcess[str]:
    # Without the agent-session markers of the environment the suite runs in (it may run inside
    # an agent): a test that wants them passes them in ``env``.
    inherited = {name: value for name, value in os.environ.items() if name not in AGENT_MARKERS}
    full_env = {**inherited, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **(env or {})}
    kwargs = {}
    if user is not None:
        kwargs["user"] = user
    return subprocess.run([*CLI, *args], cwd=cwd, input=input, capture_output=True, text=True, env=full_env, timeout=60, **kwargs)
