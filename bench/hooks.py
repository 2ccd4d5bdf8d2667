"""Hook latency: wall p50 of each hook on 1 KB and 1 MB payloads, as ratios measured in one run.

    .venv/bin/python bench/hooks.py [--runs 31]

Baselines, measured in the same run:
- `python -I -c pass` with the same interpreter the hooks use (the bare start-up);
- the reference skill's detector re-implemented as a bash script (bench/reference/error-detector.sh,
  17 case-sensitive substrings on stdin, first hit wins).
Targets: <= 1.3x the bare interpreter on 1 KB; <= 0.1x the reference on 1 MB. pre-bash runs before
every Bash call: with no history, and with a prevention index of 21 commands (no match, and the
match, which opens the store and prints the known fix). A passing post-bash in a project with an
index reads it (the command may be one to drop from it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOOKS = REPO / "hooks"
REFERENCE = REPO / "bench" / "reference" / "error-detector.sh"
FIXTURES = REPO / "tests" / "fixtures" / "claude"


def interpreter() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def failing_payload(cwd: Path, size: int) -> bytes:
    data = json.loads((FIXTURES / "PostToolUseFailure.json").read_text())
    tail = "Traceback (most recent call last):\n  File \"app.py\", line 1, in <module>\nModuleNotFoundError: No module named 'nosuchmod'"
    filler_line = "collecting packages, resolving the dependency graph, building wheels for the project\n"
    filler = (filler_line * (size // len(filler_line) + 1))[: max(0, size - len(tail))]
    data.update(cwd=str(cwd), error=f"Exit code 1\n{filler}{tail}", session_id="bench-failing")
    return json.dumps(data).encode()


def passing_payload(cwd: Path, size: int) -> bytes:
    data = json.loads((FIXTURES / "PostToolUse.json").read_text())
    line = "test_module.py::test_case PASSED\n"
    data.update(cwd=str(cwd))
    data["tool_response"]["stdout"] = (line * (size // len(line) + 1))[:size]
    return json.dumps(data).encode()


def prompt_payload(cwd: Path, size: int) -> bytes:
    data = json.loads((FIXTURES / "UserPromptSubmit.json").read_text())
    data.update(cwd=str(cwd), prompt=("please refactor the parser and keep the tests green " * (size // 52 + 1))[:size])
    return json.dumps(data).encode()


def pre_payload(cwd: Path, command: str = "pytest -q tests/test_cart.py") -> bytes:
    data = json.loads((FIXTURES / "PreToolUse.json").read_text())
    data.update(cwd=str(cwd), tool_input={"command": command, "description": "run"})
    return json.dumps(data).encode()


def with_history(work: Path, env: dict[str, str]) -> Path:
    """A project whose prevention index holds 20 commands that failed (none of them the one
    pre_payload runs by default), and the sample failure with a fix the user logged."""
    project = work / "history"
    project.mkdir()
    cli = [interpreter(), "-m", "self_improve", "--root", str(project)]
    subprocess.run([*cli, "init"], check=True, stdout=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(REPO)})
    for n in range(20):
        data = json.loads(failing_payload(project, 200))
        data["tool_input"]["command"] = f"python3 tool_{n}.py --month {n}"
        subprocess.run([str(HOOKS / "post-bash")], input=json.dumps(data).encode(), stdout=subprocess.DEVNULL, env=env, check=True)
    subprocess.run([str(HOOKS / "post-bash")], input=failing_payload(project, 200), stdout=subprocess.DEVNULL, env=env, check=True)
    subprocess.run([*cli, "log", "error", "--pattern-key", "deps.module-not-found/python:nosuchmod", "--action",
                    "pip install nosuchmod", "nosuchmod is missing"], check=True, stdout=subprocess.DEVNULL,
                   env={**env, "PYTHONPATH": str(REPO)})
    return project


def p50(command: list[str], stdin: bytes, runs: int, env: dict[str, str], before: Path | None = None) -> float:
    """Wall p50 in ms; ``before``: a folder removed before each run (untimed)."""
    samples = []
    for _ in range(runs):
        if before is not None:
            shutil.rmtree(before, ignore_errors=True)
        started = time.perf_counter()
        subprocess.run(command, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="si-bench-hooks-"))
    env = {**os.environ, "HOME": str(work / "home")}
    try:
        project = work / "project"
        subprocess.run([interpreter(), "-m", "self_improve", "--root", str(project.parent), "--version"], check=True,
                       stdout=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(REPO)})
        project.mkdir()
        subprocess.run([interpreter(), "-m", "self_improve", "--root", str(project), "init"], check=True,
                       stdout=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(REPO)})
        bare = p50([interpreter(), "-I", "-c", "pass"], b"", args.runs, env)
        rows = []
        for size_name, size in (("1 KB", 1024), ("1 MB", 1024 * 1024)):
            # The failing case records its failure, which puts its command in the prevention index:
            # it gets a project of its own, so that the others run where nothing has failed.
            failing_project = work / f"failing-{size}"
            failing_project.mkdir()
            subprocess.run([interpreter(), "-m", "self_improve", "--root", str(failing_project), "init"], check=True,
                           stdout=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(REPO)})
            cases = (
                ("post-bash, failing", failing_payload(failing_project, size)),
                ("post-bash, passing", passing_payload(project, size)),
                ("prompt-submit", prompt_payload(project, size)),
            )
            if size_name == "1 KB":  # a command line is short: the pre-bash rows need no 1 MB case
                history = with_history(work, env)
                sample = json.loads(failing_payload(history, 200))["tool_input"]["command"]
                cases += (
                    ("pre-bash, no history", pre_payload(project)),
                    ("pre-bash, 21 indexed", pre_payload(history)),
                    ("pre-bash, known fix", pre_payload(history, sample)),
                    ("post-bash, pass+index", passing_payload(history, size)),
                )
            for name, stdin in cases:
                hook = name.split(",")[0]
                # the known fix is said once per session until its outcome is in: each run a new session
                fresh = history / ".learnings" / ".state" / "evidence" if name == "pre-bash, known fix" else None
                ours = p50([str(HOOKS / hook)], stdin, args.runs, env, before=fresh)
                reference = p50(["bash", str(REFERENCE)], stdin, args.runs, env) if hook == "post-bash" else None
                rows.append((size_name, name, ours, reference))
        print(f"interpreter: {interpreter()}")
        print(f"bare start-up (python -I -c pass): {bare:.1f} ms (p50 of {args.runs})")
        print()
        print(f"{'payload':<7} {'hook':<20} {'ours p50':>10} {'/ bare':>8} {'reference p50':>14} {'ours / ref':>11}")
        for size_name, name, ours, reference in rows:
            ref = f"{reference:>11.1f} ms" if reference is not None else f"{'-':>14}"
            ratio = f"{ours / reference:>10.2f}x" if reference is not None else f"{'-':>11}"
            print(f"{size_name:<7} {name:<20} {ours:>7.1f} ms {ours / bare:>7.2f}x {ref} {ratio}")
        print()
        print("targets: 1 KB <= 1.3x bare (pre-bash: with no history; `known fix` opens the store and speaks);"
              " 1 MB <= 0.1x the reference")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
