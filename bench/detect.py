"""Score self_improve.detect.errors on the labelled corpus of real Bash results.

    .venv/bin/python bench/detect.py [CORPUS] [--timing]

Prints precision / recall / F1 and the confusion counts of our detector, the ids it gets wrong,
its Pattern-Key accuracy on the errors it finds, and the same figures for the reference
skill's 17 case-sensitive substrings.  With --timing, also times detect() and the import.

Each corpus row is rebuilt from its hook ``payload`` exactly as the Claude Code adapter sees it:
PostToolUse -> exit 0 with ``tool_response.stdout``; PostToolUseFailure -> ``error`` is
"Exit code N\\n<output>", plus ``is_interrupt``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from self_improve.detect.errors import detect, load_rules  # noqa: E402
from self_improve.harnesses.base import ToolResult  # noqa: E402

DEFAULT_CORPUS = Path("/work/shared/corpus/public.jsonl")

REFERENCE_SUBSTRINGS = (
    "error:", "Error:", "ERROR:", "failed", "FAILED", "command not found", "No such file",
    "Permission denied", "fatal:", "Exception", "Traceback", "npm ERR!", "ModuleNotFoundError",
    "SyntaxError", "TypeError", "exit code", "non-zero",
)

_EXIT_LINE = re.compile(r"^Exit code (-?\d+)\n?")


@dataclass(frozen=True)
class Case:
    id: str
    label: str  # "error" | "ok"
    kind: str
    result: ToolResult


def result_from_payload(payload: dict) -> ToolResult:
    """The ToolResult a Claude Code hook would build from this stdin payload."""
    command = str(payload.get("tool_input", {}).get("command", ""))
    session = str(payload.get("session_id", ""))
    cwd = str(payload.get("cwd", ""))
    if payload.get("hook_event_name") == "PostToolUseFailure":
        error = str(payload.get("error", ""))
        match = _EXIT_LINE.match(error)
        code = int(match.group(1)) if match else None
        output = error[match.end():] if match else error
        return ToolResult(command, output, code, session, cwd, bool(payload.get("is_interrupt")))
    response = payload.get("tool_response") or {}
    output = str(response.get("stdout", ""))
    if response.get("stderr"):
        output = f"{output}\n{response['stderr']}" if output else str(response["stderr"])
    return ToolResult(command, output, 0, session, cwd, bool(response.get("interrupted")))


def load_corpus(path: Path = DEFAULT_CORPUS) -> list[Case]:
    cases = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                cases.append(Case(row["id"], row["label"], row["kind"], result_from_payload(row["payload"])))
    return cases


@dataclass(frozen=True)
class Score:
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(cases: Sequence[Case], predicted: Callable[[Case], bool]) -> tuple[Score, list[str], list[str]]:
    tp = fp = fn = tn = 0
    false_pos: list[str] = []
    false_neg: list[str] = []
    for case in cases:
        hit, truth = predicted(case), case.label == "error"
        if hit and truth:
            tp += 1
        elif hit:
            fp += 1
            false_pos.append(case.id)
        elif truth:
            fn += 1
            false_neg.append(case.id)
        else:
            tn += 1
    return Score(tp, fp, fn, tn), false_pos, false_neg


def reference_detects(case: Case) -> bool:
    """The reference skill: any of its 17 substrings, case-sensitive, in the output it reads
    (both events, i.e. the output of a failing command too), nothing else."""
    return any(s in case.result.output for s in REFERENCE_SUBSTRINGS)


def ours_detects(case: Case) -> bool:
    return detect(case.result) is not None


def key_accuracy(cases: Iterable[Case]) -> tuple[int, int, list[tuple[str, str, str]]]:
    """Among true errors we detect: how many get the corpus's own `kind` as Pattern-Key."""
    right = total = 0
    wrong: list[tuple[str, str, str]] = []
    for case in cases:
        found = detect(case.result)
        if case.label != "error" or found is None:
            continue
        total += 1
        if found.pattern_key == case.kind:
            right += 1
        else:
            wrong.append((case.id, case.kind, found.pattern_key))
    return right, total, wrong


def _timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def timing() -> None:
    clean_1k = ToolResult("make", "compiling module\n" * 60, 0, "s", "/tmp")
    error_1k = ToolResult("python3 app.py", "line\n" * 150 + "Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'\n", 1, "s", "/tmp")
    body = "".join(f"tests/test_x.py::test_parse_error_code[{i}] PASSED [ 50%]\n" for i in range(16000))
    big_ok = ToolResult("python3 -m pytest -v", body[:1_000_000] + "==== 16000 passed in 5.1s ====\n", 0, "s", "/tmp")
    big_fail = ToolResult("python3 -m pytest -v", body[:1_000_000] + "FAILED tests/test_x.py::test_a - assert 1 == 2\n==== 1 failed, 15999 passed in 5.1s ====\n", 1, "s", "/tmp")
    detect(clean_1k)  # warm the per-process caches the way one hook call would
    print("timing (best of 20, warm process):")
    for name, result in (("1 KB clean, exit 0", clean_1k), ("1 KB traceback, exit 1", error_1k),
                         ("1 MB pytest -v, exit 0", big_ok), ("1 MB pytest -v, 1 failure", big_fail)):
        print(f"  detect {name:<28} {_timed(lambda r=result: detect(r), 20):7.2f} ms")
    cold = (
        "import time; t=time.perf_counter();"
        "from self_improve.detect.errors import load_rules, detect;"
        "r=load_rules(); t1=time.perf_counter();"
        "from self_improve.harnesses.base import ToolResult;"
        "detect(ToolResult('make', 'compiling module\\n'*60, 0, 's', '/tmp'), r); t2=time.perf_counter();"
        "print(f'{(t1-t)*1000:.2f} {(t2-t1)*1000:.2f}')"
    )
    for label, prelude in (("cold (tomllib not yet imported)", ""), ("tomllib already imported by the config loader", "import tomllib;")):
        runs = []
        for _ in range(7):
            out = subprocess.run([sys.executable, "-c", prelude + cold], cwd=ROOT, capture_output=True, text=True, check=True)
            runs.append(tuple(map(float, out.stdout.split())))
        load_ms = min(r[0] for r in runs)
        first_ms = min(r[1] for r in runs)
        print(f"  import + load_rules, {label}: {load_ms:.2f} ms; first detect (1 KB) {first_ms:.2f} ms")


def main(argv: Sequence[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    cases = load_corpus(Path(args[0]) if args else DEFAULT_CORPUS)
    print(f"corpus: {len(cases)} results, {sum(c.label == 'error' for c in cases)} errors")
    for name, fn in (("self-improve", ours_detects), ("reference (17 substrings)", reference_detects)):
        s, fps, fns = score(cases, fn)
        print(f"\n{name}: P={s.precision:.3f} R={s.recall:.3f} F1={s.f1:.3f}  (TP={s.tp} FP={s.fp} FN={s.fn} TN={s.tn})")
        print(f"  false positives: {' '.join(fps) or '-'}")
        print(f"  false negatives: {' '.join(fns) or '-'}")
    right, total, wrong = key_accuracy(cases)
    print(f"\nPattern-Key accuracy on detected errors: {right}/{total} = {right / total if total else 0:.3f}")
    for case_id, kind, key in wrong:
        print(f"  {case_id}: corpus {kind:<28} ours {key}")
    if "--timing" in argv:
        print()
        timing()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
