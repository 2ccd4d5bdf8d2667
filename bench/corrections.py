"""Score self_improve.detect.corrections on the labelled prompts in tests/data/corrections.jsonl.

    .venv/bin/python bench/corrections.py [DATA]

Prints precision / recall / F1 overall and per language, and every prompt it gets wrong.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/scoring.py, however this file is loaded
from scoring import Score  # noqa: E402
from self_improve.detect.corrections import detect_correction  # noqa: E402
from self_improve.events import Prompt  # noqa: E402

DEFAULT_DATA = ROOT / "tests" / "data" / "corrections.jsonl"


@dataclass(frozen=True)
class Labelled:
    text: str
    label: str  # "correction" | "other"
    lang: str  # "en" | "zh"


def load(path: Path = DEFAULT_DATA) -> list[Labelled]:
    with path.open(encoding="utf-8") as fh:
        return [Labelled(**json.loads(line)) for line in fh if line.strip()]


def evaluate(rows: Sequence[Labelled]) -> tuple[Score, list[tuple[Labelled, str | None]]]:
    tp = fp = fn = tn = 0
    wrong: list[tuple[Labelled, str | None]] = []
    for row in rows:
        hit = detect_correction(Prompt(row.text, "bench", "/tmp"))
        truth = row.label == "correction"
        if hit and truth:
            tp += 1
        elif hit:
            fp += 1
            wrong.append((row, hit.pattern))
        elif truth:
            fn += 1
            wrong.append((row, None))
        else:
            tn += 1
    return Score(tp, fp, fn, tn), wrong


def main(argv: Sequence[str]) -> int:
    rows = load(Path(argv[0]) if argv else DEFAULT_DATA)
    score, wrong = evaluate(rows)
    print(f"{len(rows)} prompts, {sum(r.label == 'correction' for r in rows)} corrections")
    print(f"all: P={score.precision:.3f} R={score.recall:.3f} F1={score.f1:.3f}  "
          f"(TP={score.tp} FP={score.fp} FN={score.fn} TN={score.tn})")
    for lang in sorted({r.lang for r in rows}):
        s, _ = evaluate([r for r in rows if r.lang == lang])
        print(f"{lang}:  P={s.precision:.3f} R={s.recall:.3f} F1={s.f1:.3f}  (TP={s.tp} FP={s.fp} FN={s.fn} TN={s.tn})")
    for row, pattern in wrong:
        what = f"false positive ({pattern})" if pattern else "missed"
        print(f"  {what}: [{row.lang}] {row.text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
