"""Concurrent edits of the user's files: how often a change is lost, and what the care costs.

    .venv/bin/python bench/concurrency.py [--trials 25] [--checkout DIR]

Three races, each with real processes (the writers of tests/concurrency_helpers.py):
- two ``promote``s of different entries into one CLAUDE.md: trials where a bullet is missing,
  and trials where an entry says ``promoted`` without its bullet;
- a process appending lines to CLAUDE.md (open, write, close, in a loop) during ``promote``:
  trials that lost a line, and lines lost in all;
- a process rewriting settings.json (read, add a key, rename) during ``install``: trials where
  its keys or our hooks are missing.
Then the median wall time of one ``promote`` with nobody else writing.

``--checkout`` runs the CLI of another checkout (e.g. ``git archive HEAD | tar -x -C /tmp/head``)
for a before/after comparison in the same run; the tests' own helpers come from this one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.concurrency_helpers import (  # noqa: E402 - after the sys.path line above
    APPENDER,
    Writer,
    cli_env,
    finish,
    install_during_rewrites,
    start_cli,
)
from tests.test_concurrency import PNPM, RUFF, make_project  # noqa: E402

BULLET = re.compile(r"<!-- (LRN-\d{8}-[a-z]+) -->")


def status_of(root: Path, entry_id: str) -> str:
    text = (root / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")
    block = text.split(f"## [{entry_id}]", 1)[1]
    return re.search(r"\*\*Status\*\*: (\w+)", block)[1]  # type: ignore[index]


def promotes(scratch: Path, trials: int, env: dict[str, str]) -> tuple[int, int]:
    lost = orphaned = 0
    for trial in range(trials):
        root = make_project(scratch / f"promote-{trial}")
        processes = [start_cli("promote", entry_id, "--yes", cwd=root, env=env) for entry_id in (PNPM, RUFF)]
        for process in processes:
            finish(process)
        bullets = set(BULLET.findall((root / "CLAUDE.md").read_text(encoding="utf-8")))
        lost += bullets != {PNPM, RUFF}
        orphaned += any(status_of(root, e) == "promoted" and e not in bullets for e in (PNPM, RUFF))
    return lost, orphaned


def appends(scratch: Path, trials: int, env: dict[str, str]) -> tuple[int, int, int]:
    bad_trials = lines_lost = lines_total = 0
    for trial in range(trials):
        root = make_project(scratch / f"append-{trial}")
        writer = Writer(APPENDER, root / "CLAUDE.md", scratch)
        finish(start_cli("promote", PNPM, "--yes", cwd=root, env=env))
        count = writer.stop()
        kept = set(re.findall(r"^user line (\d+)$", (root / "CLAUDE.md").read_text(encoding="utf-8"), flags=re.MULTILINE))
        missing = count - len(kept)
        bad_trials += missing > 0
        lines_lost += missing
        lines_total += count
    return bad_trials, lines_lost, lines_total


def installs(scratch: Path, trials: int) -> tuple[int, int]:
    theirs_lost = ours_lost = 0
    for trial in range(trials):
        _, count, settings = install_during_rewrites(scratch, trial)
        value = json.loads(settings.read_bytes())
        theirs_lost += {k for k in value if k.startswith("other-")} != {f"other-{n}" for n in range(count)}
        ours_lost += "post-bash" not in json.dumps(value.get("hooks", {}))
    return theirs_lost, ours_lost


def promote_time(scratch: Path, env: dict[str, str], runs: int = 9) -> float:
    times = []
    for run in range(runs):
        root = make_project(scratch / f"time-{run}")
        started = time.perf_counter()
        finish(start_cli("promote", PNPM, "--yes", cwd=root, env=env))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--checkout", type=Path, default=REPO, help="the checkout whose CLI runs (default: this one)")
    args = parser.parse_args()
    os.environ["SELF_IMPROVE_UNDER_TEST"] = str(args.checkout.resolve())
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        os.environ.setdefault("XDG_STATE_HOME", str(scratch / "state"))
        env = cli_env()
        print(f"checkout: {args.checkout.resolve()}, {args.trials} trials each")
        lost, orphaned = promotes(scratch, args.trials, env)
        print(f"two concurrent promotes: a bullet lost in {lost}/{args.trials}, 'promoted' without its bullet in {orphaned}/{args.trials}")
        bad, missing, total = appends(scratch, args.trials, env)
        print(f"appending during promote: lines lost in {bad}/{args.trials} trials ({missing} of {total} lines)")
        theirs, ours = installs(scratch, args.trials)
        print(f"rewriting settings.json during install: its keys lost in {theirs}/{args.trials}, our hooks lost in {ours}/{args.trials}")
        print(f"one promote, nobody else writing: median {promote_time(scratch, env) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
