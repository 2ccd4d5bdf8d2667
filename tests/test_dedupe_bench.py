"""bench/dedupe.py: its figures on a hand-made set, the labelled set's shape, and the goals on the
dev split (a guard against a change to the scorer that loses them)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_dedupe", REPO / "bench" / "dedupe.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


dd = _load_bench()


def test_figures_on_a_hand_made_set(tmp_path: Path) -> None:
    rows = [
        {"lesson": "a", "lang": "en", "text": "Use pnpm, not npm, to install dependencies in this repo"},
        {"lesson": "a", "lang": "en", "text": "Always run pnpm install instead of npm install"},  # certain: merged
        {"lesson": "b", "lang": "en", "text": "Ask the user before deleting any files"},
        {"lesson": "b", "lang": "zh", "text": "删除文件之前先问我"},  # likely: proposed
        {"lesson": "c", "lang": "en", "text": "Pin the pnpm version in CI"},  # a hard negative of a
    ]
    run = dd.run_once(rows, 0, tmp_path)
    assert (run["precision"], run["recall"], run["covered"], run["max_candidates"], run["entries"]) == (1.0, 0.5, 1.0, 1, 4)
    assert run["proposal_precision"] == 1.0 and run["wrong_merges"] == 0


def test_the_labelled_set() -> None:
    rows = dd.load("all")
    assert len(rows) >= 500 and len({row["lesson"] for row in rows}) >= 150
    for row in rows:
        assert set(row) == {"family", "lesson", "lang", "split", "text"}
        assert row["split"] == ("tune" if int(hashlib.sha256(row["family"].encode()).hexdigest(), 16) % 5 < 3 else "dev")
        assert row["text"].strip() == row["text"] and "\n" not in row["text"]
    assert len({row["text"] for row in rows}) == len(rows)
    assert {row["lang"] for row in rows} >= {"en", "zh", "es", "de", "fr", "ja", "pt", "ru"}
    families = {row["family"] for row in rows}
    # hard negatives: most families hold two or more lessons that share their words
    assert sum(1 for f in families if len({r["lesson"] for r in rows if r["family"] == f}) > 1) >= 60


def test_the_goals_hold_on_dev(tmp_path: Path) -> None:
    run = dd.run_once(dd.load("dev"), 0, tmp_path)
    assert run["precision"] >= 0.98
    assert run["covered"] >= 0.8
    assert run["max_candidates"] <= 3
    json.dumps(run)  # the --json output
