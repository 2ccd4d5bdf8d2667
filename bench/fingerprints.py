"""Fingerprint quality: do detected errors of the same mistake share a fingerprint, and only they?

    .venv/bin/python bench/fingerprints.py [CORPUS] [--pairs] [--split tune|dev|all] [--list]

CORPUS defaults to tests/data/corpus/public.jsonl, whose error rows are hand-labelled with their
mistake in tests/data/corpus/mistakes.json; --pairs uses tests/data/corpus/mistake_pairs.jsonl
(real results built by bench/make_mistake_pairs.py, each row carrying its own `mistake` and
`split`).  --split keeps the rows of one split (default all; a public row's split is the same hash
of its label).  Tune the extractor on the tune split only; dev is the held-out check.  --list also
prints every detection's fingerprint.

Each row is rebuilt into a ToolResult exactly as bench/detect.py does (its loader is imported) and
run through self_improve.detect.classify.detect().  Among rows labelled `error` that are detected,
it prints:
  - the share whose Detection.subject is non-empty (goal >= 90 %);
  - wrong merges: pairs of rows of DIFFERENT mistakes that share a fingerprint (goal 0), listed;
  - wrong splits: pairs of rows of the SAME mistake whose fingerprints differ, listed;
and the same pair counts for the class alone (the Pattern-Key) as the baseline, measured in the
same run.  "The unit is the one thing that a single fix fixes": see the `_note` of mistakes.json.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from types import ModuleType



def _bench_detect() -> ModuleType:
    """bench/detect.py (its payload -> ToolResult loader), under the name the tests also use."""
    name = "bench_detect"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().with_name("detect.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses need their module registered
        spec.loader.exec_module(module)
    return sys.modules[name]


detect_bench = _bench_detect()

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"
PUBLIC = DATA / "public.jsonl"
MISTAKES = DATA / "mistakes.json"  # labels for public.jsonl
PAIRS = DATA / "mistake_pairs.jsonl"  # labels inside each row


def split_of(mistake: str) -> str:
    """The split of a mistake label: decided by a hash of the label alone, so that all rows of
    one mistake fall in the same split and nobody chooses it."""
    return "dev" if hashlib.sha256(mistake.encode("utf-8")).digest()[0] % 2 else "tune"


# ---------------------------------------------------------------------------------------------
# Pair counting (pure, tested in tests/test_fingerprint_bench.py)


@dataclass(frozen=True)
class Item:
    id: str
    mistake: str  # the hand label: rows of one mistake share it
    key: str  # what the store would group by: a fingerprint, or the Pattern-Key for the baseline


@dataclass(frozen=True)
class Pairs:
    items: int
    same_pairs: int  # pairs of items of the same mistake
    different_pairs: int  # pairs of items of different mistakes
    merged: tuple[tuple[str, str], ...]  # different mistakes, same key (ids, sorted)
    split: tuple[tuple[str, str], ...]  # same mistake, different keys (ids, sorted)

    @property
    def merged_share(self) -> float:
        return len(self.merged) / self.different_pairs if self.different_pairs else 0.0

    @property
    def split_share(self) -> float:
        return len(self.split) / self.same_pairs if self.same_pairs else 0.0


def count_pairs(items: Sequence[Item]) -> Pairs:
    """Every unordered pair of items, classified by (same mistake?, same key?)."""
    same = different = 0
    merged: list[tuple[str, str]] = []
    split: list[tuple[str, str]] = []
    for a, b in combinations(items, 2):
        pair = (a.id, b.id) if a.id <= b.id else (b.id, a.id)
        if a.mistake == b.mistake:
            same += 1
            if a.key != b.key:
                split.append(pair)
        else:
            different += 1
            if a.key == b.key:
                merged.append(pair)
    return Pairs(len(items), same, different, tuple(sorted(merged)), tuple(sorted(split)))


def merged_groups(items: Iterable[Item]) -> dict[str, list[Item]]:
    """Keys shared by more than one mistake, with their items (for listing wrong merges)."""
    by_key: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_key[item.key].append(item)
    return {k: v for k, v in sorted(by_key.items()) if len({i.mistake for i in v}) > 1}


def split_groups(items: Iterable[Item]) -> dict[str, list[Item]]:
    """Mistakes whose items got more than one key (for listing wrong splits)."""
    by_mistake: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_mistake[item.mistake].append(item)
    return {m: v for m, v in sorted(by_mistake.items()) if len({i.key for i in v}) > 1}


# ---------------------------------------------------------------------------------------------
# Corpus


@dataclass(frozen=True)
class Row:
    case: detect_bench.Case
    mistake: str
    split: str


def load_rows(path: Path, labels: Path | None) -> list[Row]:
    """The rows labelled `error`, with their mistake: from `labels` (an id -> label JSON) when
    given, else from each row's own `mistake` / `split` fields."""
    cases = detect_bench.load_corpus(path)
    raw: dict[str, dict] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                raw[row["id"]] = row
    table = {k: v for k, v in json.loads(labels.read_text(encoding="utf-8")).items() if not k.startswith("_")} if labels else None
    rows = []
    for case in cases:
        if case.label != "error":
            continue
        mistake = table[case.id] if table is not None else raw[case.id]["mistake"]
        split = raw[case.id].get("split") or split_of(mistake)
        rows.append(Row(case, mistake, split))
    return rows


@dataclass(frozen=True)
class Found:
    id: str
    mistake: str
    pattern_key: str
    subject: str
    fingerprint: str


Detector = Callable[[detect_bench.ToolResult], Any]


def run(rows: Sequence[Row], detector: Detector) -> tuple[list[Found], list[str]]:
    """Detections of the rows (and the ids not detected). `detector` returns None or an object
    with pattern_key, subject and fingerprint, as classify.detect does."""
    found: list[Found] = []
    missed: list[str] = []
    for row in rows:
        hit = detector(row.case.result)
        if hit is None:
            missed.append(row.case.id)
            continue
        found.append(Found(row.case.id, row.mistake, str(hit.pattern_key), str(hit.subject), str(hit.fingerprint)))
    return found, missed


def report(found: Sequence[Found], missed: Sequence[str], total: int, out: Callable[[str], None] = print) -> dict:
    n = len(found)
    with_subject = [f for f in found if f.subject]
    mistakes = {f.mistake for f in found}
    out(f"detected {n}/{total} error rows ({len(mistakes)} mistakes); not detected: {' '.join(missed) or '-'}")
    share = len(with_subject) / n if n else 0.0
    out(f"non-empty subject: {len(with_subject)}/{n} = {share:.1%}  (goal >= 90%)")
    empty = [f for f in found if not f.subject]
    if empty:
        out("  empty subject: " + ", ".join(f"{f.id} ({f.pattern_key})" for f in empty))
    by_id = {f.id: f for f in found}
    figures: dict = {"detected": n, "rows": total, "mistakes": len(mistakes), "with_subject": len(with_subject)}
    for name, keyed in (("fingerprint", [Item(f.id, f.mistake, f.fingerprint) for f in found]),
                        ("Pattern-Key alone (baseline)", [Item(f.id, f.mistake, f.pattern_key) for f in found])):
        pairs = count_pairs(keyed)
        whole = sum(1 for m in mistakes if len({i.key for i in keyed if i.mistake == m}) == 1
                    and sum(i.mistake == m for i in keyed) > 1)
        repeated = sum(1 for m in mistakes if sum(i.mistake == m for i in keyed) > 1)
        out(f"\n{name}: {len({i.key for i in keyed})} distinct keys for {len(mistakes)} mistakes")
        out(f"  wrong merges (different mistakes, same key): {len(pairs.merged)}/{pairs.different_pairs} pairs"
            f" = {pairs.merged_share:.2%}  (goal 0)")
        out(f"  wrong splits (same mistake, different keys): {len(pairs.split)}/{pairs.same_pairs} pairs"
            f" = {pairs.split_share:.2%};  mistakes seen twice or more kept under one key: {whole}/{repeated}")
        figures[name] = {"merged": len(pairs.merged), "different_pairs": pairs.different_pairs,
                         "split": len(pairs.split), "same_pairs": pairs.same_pairs, "whole": whole, "repeated": repeated}
        if name != "fingerprint":
            continue  # the baseline's merges are the whole class: counting them is enough
        for key, items in merged_groups(keyed).items():
            out(f"  MERGED {key!r}:")
            for item in items:
                out(f"      {item.id}  {item.mistake}")
        for mistake, items in split_groups(keyed).items():
            out(f"  SPLIT {mistake}:")
            for item in items:
                out(f"      {item.id}  {by_id[item.id].fingerprint!r}")
    return figures


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    split = "all"
    if "--split" in args:
        i = args.index("--split")
        split = args[i + 1]
        del args[i:i + 2]
        if split not in ("tune", "dev", "all"):
            raise SystemExit("--split takes tune, dev or all")
    pairs_mode = "--pairs" in args
    paths = [a for a in args if not a.startswith("--")]
    if pairs_mode:
        path, labels = (Path(paths[0]) if paths else PAIRS), None
    else:
        path = Path(paths[0]) if paths else PUBLIC
        labels = MISTAKES if path.resolve() == PUBLIC.resolve() else None
    rows = load_rows(path, labels)
    if split != "all":
        rows = [r for r in rows if r.split == split]
    from self_improve.detect.classify import Detection, detect
    from self_improve.detect.rules import load_rules

    if not ({"subject", "fingerprint"} <= set(dir(Detection)) | set(getattr(Detection, "__slots__", ()))):
        print("self_improve's Detection has no subject/fingerprint yet: nothing to measure", file=sys.stderr)
        return 2
    rules = load_rules()
    print(f"corpus: {path.name}, split {split}: {len(rows)} rows labelled error, {len({r.mistake for r in rows})} mistakes")
    found, missed = run(rows, lambda result: detect(result, rules))
    report(found, missed, len(rows))
    if "--list" in args:
        print("\nevery detection: id, mistake, fingerprint")
        for f in found:
            print(f"  {f.id}  {f.mistake:<48} {f.fingerprint}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
