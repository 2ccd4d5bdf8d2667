"""Hook latency, this checkout against another one, interleaved in the same run.

    git archive <rev> | tar -x -C /tmp/before
    .venv/bin/python bench/hooks_ab.py /tmp/before

Both checkouts' hook scripts run with this venv's interpreter (``SELF_IMPROVE_PYTHON``) on the
same payloads (the Claude Code fixtures) in one initialised project; each round runs the
baseline then ours, so machine noise hits both alike. Prints p50 of each and the ratio.

    .venv/bin/python bench/hooks_ab.py /tmp/before --instructions [--runs 5]

counts instead the instructions each hook's Python process executes (valgrind's callgrind, the
median of ``--runs``; the sh wrapper, the same in both, is left out), with those of the bare
``python -I -c pass`` for scale. A count does not see the machine's load: on a shared machine
it tells apart changes of ~1% that wall time cannot (~4.5 M instructions are ~1 ms here), but
it misses what costs time without instructions (system calls that wait: a rename, a flush).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROUNDS = 30


def payload(name: str, project: str) -> bytes:
    data = json.loads((HERE / "tests/fixtures/claude" / f"{name}.json").read_text())
    data["cwd"] = project
    return json.dumps(data).encode()


def timed(script: Path, data: bytes, env: dict[str, str], samples: list[float]) -> None:
    started = time.perf_counter()
    subprocess.run([str(script)], input=data, env=env, capture_output=True, check=False)
    samples.append(1000 * (time.perf_counter() - started))


def instructions(command: list[str], data: bytes, env: dict[str, str]) -> int:
    """What ``command`` executes, in instructions (callgrind's total)."""
    with tempfile.NamedTemporaryFile(prefix="si-ab-valgrind-") as log:
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log.name}", *command],
                       input=data, env=env, capture_output=True, check=False)
        for line in Path(log.name).read_text().splitlines():
            if "Collected :" in line:
                return int(line.rsplit(":", 1)[1])
    raise SystemExit(f"valgrind reported no count for {command}")


def counted(baseline: Path, cases: dict[str, tuple[str, bytes]], env: dict[str, str], runs: int) -> None:
    python = env["SELF_IMPROVE_PYTHON"]
    bare = statistics.median(instructions([python, "-I", "-c", "pass"], b"", env) for _ in range(runs))
    print(f"bare start-up (python -I -c pass): {bare / 1e6:.2f} M instructions\n")
    print(f"{'hook':22s} {'baseline':>10s} {'ours':>10s} {'ours - baseline':>16s} {'ours / bare':>12s}")
    log = Path(env["HOME"]) / ".local/state/self-improve/debug.log"
    for label, (hook, data) in cases.items():
        counts: dict[Path, list[int]] = {baseline: [], HERE: []}
        for tree in (baseline, HERE):  # warm-up at full speed: it writes the caches and the .pyc files
            for _ in range(2):
                timed(tree / "hooks" / hook, data, env, [])
        logged = log.read_text() if log.exists() else ""
        for _ in range(runs):
            for tree in (baseline, HERE):
                command = [python, "-I", "-S", str(tree / "self_improve/hooks/entry.py"), hook]
                counts[tree].append(instructions(command, data, env))
        before, after = (statistics.median(counts[tree]) for tree in (baseline, HERE))
        print(f"{label:22s} {before / 1e6:8.2f} M {after / 1e6:8.2f} M {(after - before) / 1e6:+14.2f} M {after / bare:11.2f}x")
        # ~50x slower under valgrind, a heavy call can meet the hooks' 2 s deadline: its count is cut short
        if "deadline" in (log.read_text() if log.exists() else "")[len(logged):]:
            print(f"{'':22s} (a run met the deadline under valgrind: these counts are cut short)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", metavar="BASELINE_CHECKOUT")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    parser.add_argument("--runs", type=int, default=5, help="runs per hook and checkout with --instructions (median)")
    args = parser.parse_args()
    if not (Path(args.baseline) / "hooks/post-bash").exists():
        print("usage: bench/hooks_ab.py BASELINE_CHECKOUT [--instructions [--runs N]]", file=sys.stderr)
        return 2
    baseline = Path(args.baseline).resolve()
    python = sys.executable
    project = tempfile.mkdtemp(prefix="si-ab-")
    subprocess.run([python, "-m", "self_improve", "--root", project, "init"], cwd=HERE, capture_output=True, check=True)
    home = tempfile.mkdtemp(prefix="si-ab-home-")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SELF_IMPROVE_"))}
    env.update(HOME=home, SELF_IMPROVE_PYTHON=python)
    cases = {
        "post-bash, passing": ("post-bash", payload("PostToolUse", project)),
        "post-bash, failing": ("post-bash", payload("PostToolUseFailure", project)),
        "prompt-submit": ("prompt-submit", payload("UserPromptSubmit", project)),
    }
    print(f"baseline: {baseline}\nours:     {HERE}\n")
    if args.instructions:
        counted(baseline, cases, env, args.runs)
        return 0
    print(f"{'hook':22s} {'baseline p50':>13s} {'ours p50':>10s} {'ours / baseline':>16s}")
    for label, (hook, data) in cases.items():
        samples: dict[Path, list[float]] = {baseline: [], HERE: []}
        for round_ in range(ROUNDS + 3):  # three warm-up rounds
            for tree in (baseline, HERE):
                timed(tree / "hooks" / hook, data, env, samples[tree] if round_ >= 3 else [])
        before, after = (statistics.median(samples[tree]) for tree in (baseline, HERE))
        print(f"{label:22s} {before:10.1f} ms {after:7.1f} ms {after / before:15.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
