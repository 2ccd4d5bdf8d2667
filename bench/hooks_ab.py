"""Hook latency, this checkout against another one, interleaved in the same run.

    git archive <rev> | tar -x -C /tmp/before
    .venv/bin/python bench/hooks_ab.py /tmp/before

Both checkouts' hook scripts run with this venv's interpreter (``SELF_IMPROVE_PYTHON``) on the
same payloads (the Claude Code fixtures) in one initialised project; each round runs the
baseline then ours, so machine noise hits both alike. Prints p50 of each and the ratio.
"""

from __future__ import annotations

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


def main() -> int:
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "hooks/post-bash").exists():
        print("usage: bench/hooks_ab.py BASELINE_CHECKOUT", file=sys.stderr)
        return 2
    baseline = Path(sys.argv[1]).resolve()
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
