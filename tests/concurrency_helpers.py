"""Concurrent writers for tests/test_concurrency.py and bench/concurrency.py: real processes.

Each writer is a small Python program run with ``sys.executable``; it waits for nothing but a
stop file, so a test can start it, run our CLI while it writes, then stop it and count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from self_improve.harnesses.agent_env import MARKERS
from tests.helpers import CLI, REPO

# A suite run from inside an agent must not see itself as one, or promote would only propose.
AGENT_MARKERS = MARKERS

APPENDER = r"""
import os, sys, time
path, ready, stop = sys.argv[1:4]
count = 0
while True:
    with open(path, "a", encoding="utf-8") as handle:  # open, write, close: like `echo >> CLAUDE.md`
        handle.write(f"user line {count}\n")
    count += 1
    if count == 1:
        open(ready, "w").close()
    if os.path.exists(stop):
        break
    time.sleep(0.0005)  # about 2,000 lines a second: several land in every window of ours
print(count)
"""

REWRITER = r"""
import json, os, random, sys, time
path, ready, stop = sys.argv[1:4]
count = 0
while True:
    with open(path, "rb") as handle:  # read, add a key, write a temp file, rename: like Claude Code
        data = json.loads(handle.read())
    data[f"other-{count}"] = count
    temp = f"{path}.other-{count}.tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.replace(temp, path)
    count += 1
    if count == 1:
        open(ready, "w").close()
    if os.path.exists(stop):
        break
    time.sleep(random.uniform(0.002, 0.02))  # a busy program: tens of rewrites during one install
print(count)
"""


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in AGENT_MARKERS}
    return {**env, "NO_COLOR": "1", "PYTHONPATH": os.environ.get("SELF_IMPROVE_UNDER_TEST", str(REPO)), **extra}


def start_cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str], timeout: float = 60) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


class Writer:
    """A writer process (APPENDER or REWRITER) on one file, between ``start`` and ``stop``."""

    def __init__(self, program: str, path: Path, scratch: Path) -> None:
        self.ready = scratch / "writer.ready"
        self.stop_file = scratch / "writer.stop"
        for flag in (self.ready, self.stop_file):
            flag.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-c", program, str(path), str(self.ready), str(self.stop_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not self.ready.exists():  # it has written once: it is running
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"writer did not start: {self.process.communicate()}")
            time.sleep(0.001)

    def stop(self) -> int:
        """Stop it; the number of writes it made."""
        self.stop_file.touch()
        out, err = self.process.communicate(timeout=30)
        if self.process.returncode != 0:
            raise RuntimeError(f"writer failed: {err}")
        return int(out)


def settings_keys(path: Path) -> dict[str, object]:
    value = json.loads(path.read_bytes())
    assert isinstance(value, dict)
    return value


def install_during_rewrites(scratch: Path, trial: int) -> tuple[tuple[int, str, str], int, Path]:
    """``install --harness claude`` into a fresh home while REWRITER rewrites its settings.json:
    (``finish``'s (code, out, err), the rewriter's write count, the settings file)."""
    home = scratch / f"home-{trial}"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "model": "opus"\n}\n', encoding="utf-8")
    writer = Writer(REWRITER, settings, scratch)
    result = finish(start_cli("install", "--harness", "claude", "--scope", "user", cwd=home, env=cli_env(HOME=str(home))))
    return result, writer.stop(), settings
