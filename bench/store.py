"""Store benchmark: parse + `list --json` of 10,000 entries, and one `log` that appends or merges.

    .venv/bin/python bench/store.py [--entries 10000]

Each figure is the median wall time of the real CLI (a subprocess, as a user runs it), printed with
its ratio to a bare interpreter start-up measured in the same run. To show that an append does not
scale with the file size, the append is also measured on a store 10x smaller.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, UTC
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from self_improve.store.entry import NewEntry, render_new  # noqa: E402
from self_improve.store.store import HEADERS, Store  # noqa: E402

CLI = [sys.executable, "-m", "self_improve"]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}


def generate(root: Path, count: int) -> int:
    """A store of ``count`` entries split across the three files; returns its size in bytes."""
    Store(root).init()
    start = datetime(2026, 1, 1, tzinfo=UTC)
    files = {"LRN": [HEADERS["learning"]], "ERR": [HEADERS["error"]], "FEAT": [HEADERS["feature"]]}
    prefixes = ["LRN"] * 5 + ["ERR"] * 4 + ["FEAT"]
    for n in range(count):
        prefix = prefixes[n % len(prefixes)]
        day = start + timedelta(days=n % 300)
        words = uuid.UUID(int=n).hex
        entry = NewEntry(
            id=f"{prefix}-{day:%Y%m%d}-{n:05d}",
            category="insight" if prefix == "LRN" else "python3",
            logged=f"{day:%Y-%m-%dT%H:%M:%SZ}",
            summary=f"Generated entry {n} about {words[:8]} and {words[8:16]}",
            details="Some details about what happened, with enough text to look like a real entry.",
            action="Do the right thing instead of the wrong one.",
            error_excerpt="Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad" if prefix == "ERR" else "",
            metadata=(
                ("Source", "conversation"),
                ("Pattern-Key", f"gen.key-{n}"),
                ("Recurrence-Count", "2"),
                ("First-Seen", f"{day:%Y-%m-%d}"),
                ("Last-Seen", f"{day:%Y-%m-%d}"),
                ("Occurrences", f"{day:%Y-%m-%d}/1a2b3c4d, {day:%Y-%m-%d}/5e6f7a8b"),
            ),
        )
        files[prefix].append("\n" + render_new(entry))
    names = {"LRN": "LEARNINGS.md", "ERR": "ERRORS.md", "FEAT": "FEATURE_REQUESTS.md"}
    total = 0
    for prefix, parts in files.items():
        data = "".join(parts).encode()
        (root / ".learnings" / names[prefix]).write_bytes(data)
        total += len(data)
    return total


def timed(args: list[str], cwd: Path, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(args, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="si-bench-"))
    try:
        bare = timed([sys.executable, "-c", "pass"], base, args.repeat)
        noop = timed([*CLI, "--version"], base, args.repeat)
        rows = []
        for count in (args.entries // 10, args.entries):
            root = base / f"store-{count}"
            root.mkdir()
            size = generate(root, count)
            listing = timed([*CLI, "list", "--json"], root, args.repeat)
            append = timed([*CLI, "log", "learning", "--session", "bench", "--", "SUMMARY"], root, 1)  # warm
            samples = []
            for _ in range(args.repeat):
                summary = f"A brand new lesson number {uuid.uuid4().hex}"
                samples.append(timed([*CLI, "log", "learning", "--session", "bench", summary], root, 1))
            append = statistics.median(samples)
            merge = timed([*CLI, "log", "error", "--pattern-key", f"gen.key-{count - 2}", "--session", "bench", "x"], root, args.repeat)
            rows.append((count, size, listing, append, merge))
        print(f"bare interpreter start-up (python -c pass): {bare:7.1f} ms")
        print(f"CLI start-up (self-improve --version):      {noop:7.1f} ms  ({noop / bare:.2f}x bare)")
        print()
        print(f"{'entries':>8} {'size':>9} | {'parse + list --json':>20} | {'log (append)':>14} | {'log (merge)':>14}")
        for count, size, listing, append, merge in rows:
            print(
                f"{count:>8} {size / 1e6:>7.2f}MB | {listing:>8.1f} ms ({listing / bare:4.1f}x) |"
                f" {append:>6.1f} ms ({append / bare:3.1f}x) | {merge:>6.1f} ms ({merge / bare:3.1f}x)"
            )
        small, large = rows[0][3], rows[-1][3]
        print()
        print(f"append on {rows[-1][0]} entries / append on {rows[0][0]} entries: {large / small:.2f}x "
              f"for {rows[-1][1] / rows[0][1]:.0f}x the bytes")
        print("targets: list --json < 1000 ms at 10,000 entries; log (append) < 100 ms")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
