"""Correction patterns on adversarial prompts: time of each, as a ratio to a linear scan.

    .venv/bin/python bench/corrections_linear.py [--size N] [--top 8] [--no-old]

(``--size 10004 --no-old``: texts four times the window; a linear pattern keeps its ratio)

Every pattern of self_improve.detect.corrections, and the old form of each one rewritten to be
linear (tests/detect/test_corrections_linear.py, OLD), runs on its adversarial texts (that
test's ``adversarial``: regex_adversary's, and every prefix of a string of the pattern's shape
repeated or followed by a long blank run) of the window's length (HEAD_CHARS + 1 + TAIL_CHARS,
the most detect_correction reads). For each, its slowest text is reported against
``\\bq{3}\\b`` on the same text (a pattern of the same kind that cannot backtrack), measured in
the same run: a linear pattern stays within a small factor of it, a quadratic one grows with
the text. Then detect_correction itself on the slowest texts, and on one long sentence of hits
that ends in a question mark, against the same baseline.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from self_improve.detect import corrections
from self_improve.detect.corrections import detect_correction
from self_improve.events import Prompt
from tests.detect.test_corrections_linear import OLD, WINDOW, adversarial

from hooks_bounded import BASELINE_PATTERN as BASELINE  # bench/ is this script's folder
from hooks_bounded import _scan  # seconds to read the first 32 matches

Row = tuple[float, float, str, str]  # (seconds, baseline seconds, pattern name, input name)


def best(function: object, *args: object, runs: int = 3) -> float:
    spent = []
    for _ in range(runs):
        started = time.perf_counter()
        function(*args)  # type: ignore[operator]
        spent.append(time.perf_counter() - started)
    return min(spent)


def worst(name: str, pattern: str, size: int) -> tuple[Row, str]:
    compiled = re.compile(pattern, re.MULTILINE)
    texts = adversarial(pattern, size)
    slowest, label = 0.0, ""
    for label_, text in texts.items():
        spent = _scan(compiled, text)
        if spent > slowest / 2:  # only candidates are timed again
            spent = min(spent, _scan(compiled, text), _scan(compiled, text))
        if spent > slowest:
            slowest, label = spent, label_
    text = texts[label]
    return (slowest, min(_scan(BASELINE, text) for _ in range(5)), name, label), text


def growth(pattern: str, label: str, size: int) -> str:
    """How much longer the same text four times as long takes: about 4 when linear, 16 when
    quadratic."""
    compiled = re.compile(pattern, re.MULTILINE)
    short, long = adversarial(pattern, size)[label], adversarial(pattern, 4 * size)[label]
    return f"x{min(_scan(compiled, long) for _ in range(3)) / min(_scan(compiled, short) for _ in range(3)):.1f}"


def report(title: str, rows: list[Row], top: int, patterns: dict[str, str], size: int) -> None:
    rows = sorted(rows, key=lambda r: r[0] / r[1], reverse=True)
    print(f"\n{title} ({len(rows)} patterns), each on its slowest text, against \\bq{{3}}\\b on that text;"
          " then the time of that text 4x as long, over its time (linear: about x4)")
    for seconds, base, name, label in rows[:top]:
        print(f"  {seconds * 1000:8.3f} ms {seconds / base:8.1f}x {growth(patterns[name], label, size):>6}  {name:<22} {label[:60]}")
    print(f"  slowest: {max(r[0] for r in rows) * 1000:.3f} ms; worst ratio {max(r[0] / r[1] for r in rows):.1f}x;"
          f" median ratio {statistics.median(r[0] / r[1] for r in rows):.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=WINDOW, help=f"text length (default {WINDOW}, the window)")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--no-old", action="store_true", help="skip the old forms (slow on long texts)")
    args = parser.parse_args()
    new_rows, old_rows, texts = [], [], []
    for pattern in corrections.PATTERNS:
        row, text = worst(pattern.name, pattern.regex, args.size)
        new_rows.append(row)
        texts.append((pattern.name, text))
        if pattern.name in OLD and not args.no_old:
            old_rows.append(worst(pattern.name, OLD[pattern.name], args.size)[0])
    print(f"texts of {args.size} characters")
    now = {p.name: p.regex for p in corrections.PATTERNS}
    if old_rows:
        report("old forms of the rewritten patterns", old_rows, args.top, OLD, args.size)
    report("rewritten patterns, now", [r for r in new_rows if r[2] in OLD], args.top, now, args.size)
    report("all patterns, now", new_rows, args.top, now, args.size)

    def detect(text: str) -> object:
        return detect_correction(Prompt(text, "bench", "/tmp"))

    print("\ndetect_correction on each pattern's slowest text, against \\bq{3}\\b on that text")
    ratios = []
    for name, text in texts:
        detect(text)  # compiles what the text needs
        ratios.append((best(detect, text) / best(_scan, BASELINE, text, runs=5), best(detect, text), name))
    for ratio, seconds, name in sorted(ratios, reverse=True)[: args.top]:
        print(f"  {seconds * 1000:8.3f} ms {ratio:8.1f}x  text of {name}")
    question = "不对" * ((args.size - 1) // 2) + "？"  # every hit is in one sentence that asks
    detect(question)
    seconds = best(detect, question)
    print(f"  {seconds * 1000:8.3f} ms {seconds / best(_scan, BASELINE, question, runs=5):8.1f}x"
          f"  {len(question) // 2} hits of 不对 in one question")
    # A pasted 2 MB prompt is read at its ends only (the window), so it costs what a short one does.
    filler = "please refactor the parser and keep the tests green " * 40_000
    short = filler[: args.size]
    detect(filler)
    long_seconds, short_seconds = best(detect, filler), best(detect, short)
    print(f"  {long_seconds * 1000:8.3f} ms {long_seconds / short_seconds:8.1f}x  a {len(filler):,}-character prompt,"
          f" against its first {len(short):,} characters")


if __name__ == "__main__":
    main()
