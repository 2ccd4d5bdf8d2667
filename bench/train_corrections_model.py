"""Fit the correction model on the tune split, and write it next to the detector.

    .venv/bin/python bench/train_corrections_model.py [--check] [--report]

The model is the second opinion of self_improve.detect.corrections: a logistic regression over
the hashed features ``corrections.features`` extracts (the same function the hook runs), fitted
by plain stochastic gradient descent (fixed seed, fixed order: the output is reproducible byte
for byte) on the **tune** rows of tests/data/corrections*.jsonl only. The dev rows are never
read here, so bench/corrections.py's dev figures stay held out for the model too.

Its threshold (a log-odds) is chosen on tune by cross-validation: each of FOLDS folds (by a hash
of the text) is scored by a model fitted on the others, and THRESHOLD is the lowest log-odds at
which the model's out-of-fold positives **among the prompts no pattern matches** are
corrections in at least TARGET_PRECISION of cases. Only those prompts matter: the detector asks
the model nothing else, and they are the hard ones (counting the prompts the patterns already
catch made the model look 0.95 precise where, on its own ground, it was 0.58). Tune's
residual holds few corrections (the patterns were written against them), so its precision is
pessimistic for new prompts, whose residual holds more.

Writes self_improve/detect/corrections_model.bin (one signed byte per bucket: the weight over
MODEL_SCALE) and the block of MODEL_* constants in self_improve/detect/corrections.py. --check
exits 1 when they are not what this script writes; --report prints the cross-validation figures.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corrections import Labelled, load  # noqa: E402
from self_improve.detect import corrections  # noqa: E402
from self_improve.events import Prompt  # noqa: E402

DETECT = ROOT / "self_improve" / "detect"
BUCKETS = 65521  # a prime: the bucket of a feature is its UTF-8 bytes, as an integer, modulo this
EPOCHS = 30
RATE = 0.2
L2 = 1e-4
SEED = 13
FOLDS = 5
TARGET_PRECISION = 0.75  # among the prompts no pattern matches (see above)

Example = tuple[list[int], float]


def examples(rows: Sequence[Labelled]) -> list[Example]:
    return [(corrections.features(corrections._normalise(r.text), BUCKETS), float(r.label == "correction")) for r in rows]


def fit(data: list[Example]) -> tuple[list[float], float]:
    """Weights and bias of a logistic regression, by SGD in a seeded order."""
    weights, bias = [0.0] * BUCKETS, 0.0
    order = list(data)
    shuffle = random.Random(SEED).shuffle
    for _ in range(EPOCHS):
        shuffle(order)
        for buckets, truth in order:
            z = bias + sum(weights[i] for i in buckets)
            gradient = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))) - truth
            bias -= RATE * gradient
            for i in buckets:
                weights[i] -= RATE * (gradient + L2 * weights[i])
    return weights, bias


def quantise(weights: list[float]) -> tuple[bytes, float]:
    """One signed byte per weight, and the scale that turns it back into a weight."""
    scale = max(abs(w) for w in weights) / 127 or 1.0
    return bytes(round(w / scale) & 0xFF for w in weights), scale


def logit(data: bytes, scale: float, bias: float, buckets: list[int]) -> float:
    signed = memoryview(data).cast("b")
    return bias + scale * sum(signed[i] for i in buckets)


def fold_of(text: str) -> int:
    return int(hashlib.sha256(b"fold:" + text.encode("utf-8")).hexdigest()[:8], 16) % FOLDS


def out_of_fold(rows: Sequence[Labelled], data: list[Example]) -> list[float]:
    """Each row's log-odds from a model that did not see its fold."""
    scores = [0.0] * len(rows)
    folds = [fold_of(r.text) for r in rows]
    for k in range(FOLDS):
        weights, bias = fit([d for d, f in zip(data, folds, strict=True) if f != k])
        packed, scale = quantise(weights)
        for i, (d, f) in enumerate(zip(data, folds, strict=True)):
            if f == k:
                scores[i] = logit(packed, scale, bias, d[0])
    return scores


def residual(rows: Sequence[Labelled]) -> list[bool]:
    """Which rows no pattern matches (the only prompts the model is asked about)."""
    return [corrections.detect_correction_by_patterns(Prompt(r.text, "train", "/tmp")) is None for r in rows]


def choose_threshold(rows: Sequence[Labelled], scores: list[float], report: bool) -> float:
    """The lowest log-odds at which the model's out-of-fold positives among the rows no pattern
    matches are corrections in at least TARGET_PRECISION of cases."""
    keep = residual(rows)
    rows = [r for r, k in zip(rows, keep, strict=True) if k]
    scores = [s for s, k in zip(scores, keep, strict=True) if k]
    ranked = sorted(zip(scores, (r.label == "correction" for r in rows), strict=True), reverse=True)
    total = sum(truth for _, truth in ranked)
    threshold, tp, fp, recall = math.inf, 0, 0, 0.0
    for score, truth in ranked:
        tp, fp = tp + truth, fp + (not truth)
        if tp / (tp + fp) >= TARGET_PRECISION:
            threshold, recall = score, tp / total
    if report:
        above = [truth for score, truth in ranked if score >= threshold]
        print(f"out of fold, the {len(rows)} tune prompts no pattern matches: at log-odds >= {threshold:.3f} the model alone has"
              f" P={sum(above) / len(above):.3f} R={recall:.3f} ({sum(above)} corrections, {len(above) - sum(above)} others)")
        for cut in (0.0, 1.0, 2.0, 3.0, 4.0):
            kept = [truth for score, truth in ranked if score >= cut]
            print(f"  log-odds >= {cut}: P={sum(kept) / max(1, len(kept)):.3f} R={sum(kept) / total:.3f}")
    return round(threshold, 3)


START = "# ---- model constants (generated by bench/train_corrections_model.py"
END = "# ---- end of model constants"


def render(bias: float, scale: float, threshold: float, rows: int, data_digest: str) -> str:
    return f"""{START}: do not edit by hand) ------
MODEL_BUCKETS = {BUCKETS}
MODEL_BIAS = {bias!r}
MODEL_SCALE = {scale!r}
MODEL_THRESHOLD = {threshold!r}
MODEL_TRAINED_ON = {rows}  # tune prompts
MODEL_DATA_SHA256 = {data_digest!r}  # of their labels and texts, in order
"""


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args(argv)
    rows = [r for r in load() if r.split == "tune"]
    digest = hashlib.sha256("\n".join(f"{r.label}\t{r.text}" for r in rows).encode("utf-8")).hexdigest()
    data = examples(rows)
    threshold = choose_threshold(rows, out_of_fold(rows, data), args.report)
    weights, bias = fit(data)
    packed, scale = quantise(weights)
    block = render(bias, scale, threshold, len(rows), digest)
    bin_path, py_path = DETECT / "corrections_model.bin", DETECT / "corrections.py"
    source = py_path.read_text(encoding="utf-8")
    start, end = source.index(START), source.index(END)
    updated = source[:start] + block + source[end:]
    if args.check:
        fresh = bin_path.exists() and bin_path.read_bytes() == packed and updated == source
        if not fresh:
            print("the correction model is stale: run bench/train_corrections_model.py")
        return 0 if fresh else 1
    bin_path.write_bytes(packed)
    py_path.write_text(updated, encoding="utf-8")
    print(f"trained on {len(rows)} tune prompts; threshold {threshold} (log-odds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
