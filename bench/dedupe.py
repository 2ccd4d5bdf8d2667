"""Duplicate lessons: does `log` make one entry per lesson, however it is worded?

    .venv/bin/python bench/dedupe.py [--split tune|dev|all] [--seeds 3] [-v]

Every summary of ``bench/data/paraphrases.jsonl`` (``lesson``, ``text``, ``lang``, ``split`` by a
hash of the lesson's ``family``: a lesson and its hard negatives share a family) is logged as a
learning, without a Pattern-Key and in a session of its own, into a fresh temporary store through
the real ``Store.log``, in a shuffled order (one per seed). Then ``review``'s duplicate groups are
computed on that store. Per split it prints, as the mean over the seeds (the worst seed in
brackets):

- **auto merges**: the pairs of summaries that landed in one entry; precision (how many of them
  are one lesson) and recall (of all same-lesson pairs);
- **merged or proposed**: the share of same-lesson pairs whose summaries share an entry, or whose
  entries `log` named as candidates of each other, or that `review` put in one group (and by
  `log` alone, without `review`); by language pair too;
- **proposal precision**: of the pairs only proposed (not merged), how many are one lesson;
- **candidates per new entry**: the most, and the mean, that `log` named.

Goals on held-out paraphrases: auto-merge precision >= 0.98, merged or proposed >= 0.8, at most 3
candidates per new entry. The thresholds (``store/duplicates.py``) were chosen on ``tune`` only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "bench" / "data" / "paraphrases.jsonl"
sys.path.insert(0, str(REPO))


def load(split: str) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row for row in rows if split == "all" or row["split"] == split]


def run_once(rows: list[dict[str, str]], seed: int, base: Path) -> dict[str, object]:
    from self_improve.store.duplicates import duplicate_groups
    from self_improve.store.store import LogRequest, Store

    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    root = base / f"store-{seed}"
    root.mkdir()
    store = Store(root)
    store.init()
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    entry_of: dict[int, str] = {}
    links: set[frozenset[str]] = set()
    candidates: list[int] = []
    for step, index in enumerate(order):
        result = store.log(LogRequest(kind="learning", summary=rows[index]["text"], session=f"session-{seed}-{step}",
                                      now=start + timedelta(minutes=step), logged_by="cli"))
        entry_of[index] = result.entry_id
        if result.created:
            candidates.append(len(result.candidates))
            links.update(frozenset((result.entry_id, other)) for other, _, _ in result.candidates)
    grouped: dict[str, int] = {}
    for number, group in enumerate(duplicate_groups(store.entries("learning"))):
        for entry in group.entries:
            grouped[entry.id] = number
    figures: Counter[str] = Counter()
    by_langs: dict[str, Counter[str]] = defaultdict(Counter)
    for a, b in itertools.combinations(range(len(rows)), 2):
        same = rows[a]["lesson"] == rows[b]["lesson"]
        ea, eb = entry_of[a], entry_of[b]
        merged = ea == eb
        by_log = not merged and frozenset((ea, eb)) in links
        proposed = by_log or (not merged and ea in grouped and grouped.get(eb) == grouped[ea])
        figures["same"] += same
        figures["merged"] += merged
        figures["merged_same"] += merged and same
        figures["proposed"] += proposed
        figures["proposed_same"] += proposed and same
        figures["by_log_same"] += by_log and same
        if same:
            langs = "-".join(sorted({rows[a]["lang"], rows[b]["lang"]})) if rows[a]["lang"] != rows[b]["lang"] else rows[a]["lang"]
            key = langs if langs in ("en", "zh", "en-zh") else "other"
            by_langs[key]["same"] += 1
            by_langs[key]["covered"] += merged or proposed
    return {
        "precision": figures["merged_same"] / figures["merged"] if figures["merged"] else 1.0,
        "recall": figures["merged_same"] / figures["same"],
        "covered": (figures["merged_same"] + figures["proposed_same"]) / figures["same"],
        "covered_by_log": (figures["merged_same"] + figures["by_log_same"]) / figures["same"],
        "proposal_precision": figures["proposed_same"] / figures["proposed"] if figures["proposed"] else 1.0,
        "max_candidates": max(candidates, default=0),
        "mean_candidates": statistics.mean(candidates) if candidates else 0.0,
        "entries": len(set(entry_of.values())),
        "merged_pairs": figures["merged"],
        "wrong_merges": figures["merged"] - figures["merged_same"],
        "groups": len(set(grouped.values())),
        "by_langs": {key: value["covered"] / value["same"] for key, value in sorted(by_langs.items())},
        "lang_pairs": {key: value["same"] for key, value in sorted(by_langs.items())},
    }


def report(split: str, runs: list[dict[str, object]], rows: list[dict[str, str]]) -> None:
    def mean(name: str) -> float:
        return statistics.mean(float(run[name]) for run in runs)  # type: ignore[arg-type]

    def worst(name: str, low: bool = True) -> float:
        values = [float(run[name]) for run in runs]  # type: ignore[arg-type]
        return min(values) if low else max(values)

    lessons = len({row["lesson"] for row in rows})
    print(f"split {split}: {len(rows)} summaries of {lessons} lessons, {len(runs)} order(s)")
    print(f"  entries made:              {mean('entries'):.1f}")
    print(f"  auto merges:               precision {mean('precision'):.3f} [{worst('precision'):.3f}], "
          f"recall {mean('recall'):.3f} ({mean('merged_pairs'):.1f} pairs, {mean('wrong_merges'):.1f} wrong)")
    print(f"  merged or proposed:        {mean('covered'):.3f} [{worst('covered'):.3f}] of same-lesson pairs "
          f"(by log alone: {mean('covered_by_log'):.3f})")
    langs = runs[0]["lang_pairs"]
    assert isinstance(langs, dict)
    for key in langs:
        share = statistics.mean(float(run["by_langs"][key]) for run in runs)  # type: ignore[index]
        print(f"    {key:<6} {share:.3f} of {langs[key]} pairs")
    print(f"  proposal precision:        {mean('proposal_precision'):.3f} (pairs proposed, not merged, that are one lesson)")
    print(f"  candidates per new entry:  at most {worst('max_candidates', low=False):.0f}, mean {mean('mean_candidates'):.2f}")
    print(f"  review groups:             {mean('groups'):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["tune", "dev", "all", "both"], default="both")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="si-dedupe-"))
    # The ledger and the user-level config of a temporary home, never the developer's own.
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")
    try:
        splits = ["tune", "dev"] if args.split == "both" else [args.split]
        out = {}
        for split in splits:
            rows = load(split)
            (base / split).mkdir()
            runs = [run_once(rows, seed, base / split) for seed in range(args.seeds)]
            out[split] = runs
            if not args.json:
                report(split, runs, rows)
        if args.json:
            print(json.dumps(out, indent=1))
        else:
            print("goals on held-out: auto-merge precision >= 0.98; merged or proposed >= 0.8; at most 3 candidates per new entry")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
