"""bench/fingerprints.py: exact pair counts on tiny hand-made inputs, a stand-in detector through
the whole report, and the label files covering exactly the rows they should."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "data" / "corpus"


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_fingerprints", REPO / "bench" / "fingerprints.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need their module registered
    spec.loader.exec_module(module)
    return module


fp = _load_bench()
Item = fp.Item


def test_pairs_on_a_hand_made_set() -> None:
    items = [Item("a", "m1", "k1"), Item("b", "m1", "k1"), Item("c", "m1", "k2"),
             Item("d", "m2", "k1"), Item("e", "m3", "k3")]
    pairs = fp.count_pairs(items)
    # 10 pairs: 3 within m1, 7 across mistakes
    assert (pairs.items, pairs.same_pairs, pairs.different_pairs) == (5, 3, 7)
    assert pairs.split == (("a", "c"), ("b", "c"))
    assert pairs.merged == (("a", "d"), ("b", "d"))
    assert (pairs.split_share, pairs.merged_share) == (2 / 3, 2 / 7)


def test_pairs_ids_are_ordered_whatever_the_input_order() -> None:
    pairs = fp.count_pairs([Item("z", "m1", "k"), Item("y", "m2", "k"), Item("x", "m1", "j")])
    assert pairs.merged == (("y", "z"),)
    assert pairs.split == (("x", "z"),)


def test_pairs_degenerate_inputs() -> None:
    assert fp.count_pairs([]) == fp.Pairs(0, 0, 0, (), ())
    one = fp.count_pairs([Item("a", "m", "k")])
    assert (one.same_pairs, one.different_pairs, one.merged_share, one.split_share) == (0, 0, 0.0, 0.0)
    # one key for everything: every cross-mistake pair is a wrong merge, no split
    flat = fp.count_pairs([Item(i, m, "k") for i, m in (("a", "m1"), ("b", "m1"), ("c", "m2"), ("d", "m3"))])
    assert (len(flat.merged), flat.different_pairs, len(flat.split), flat.same_pairs) == (5, 5, 0, 1)
    # one key per row: every same-mistake pair is split, no merge
    apart = fp.count_pairs([Item(i, "m", i) for i in "abcd"])
    assert (len(apart.merged), len(apart.split), apart.same_pairs) == (0, 6, 6)


def test_groups_for_listing() -> None:
    items = [Item("a", "m1", "k1"), Item("b", "m2", "k1"), Item("c", "m2", "k2"), Item("d", "m3", "k3")]
    assert {k: [i.id for i in v] for k, v in fp.merged_groups(items).items()} == {"k1": ["a", "b"]}
    assert {m: [i.id for i in v] for m, v in fp.split_groups(items).items()} == {"m2": ["b", "c"]}


def test_report_with_a_stand_in_detector() -> None:
    rows = fp.load_rows(CORPUS / "public.jsonl", CORPUS / "mistakes.json")[:6]

    def stand_in(result):  # subject: the first word of the command; nothing for one row
        if result.command.startswith("python3 server.py"):
            return None
        word = result.command.split()[0]
        subject = "" if word == "gcc" else word
        return SimpleNamespace(pattern_key="k", subject=subject, fingerprint=f"k/{subject}" if subject else "k")

    found, missed = fp.run(rows, stand_in)
    assert [r.case.id for r in rows] == ["c001", "c002", "c003", "c004", "c011", "c014"]
    assert missed == ["c004"]  # python3 server.py
    lines: list[str] = []
    figures = fp.report(found, missed, len(rows), out=lines.append)
    assert figures["detected"] == 5 and figures["with_subject"] == 5
    # all five are "python3 ..." -> one fingerprint, five different mistakes: 10 wrong merges
    assert figures["fingerprint"] == {"merged": 10, "different_pairs": 10, "split": 0, "same_pairs": 0, "whole": 0, "repeated": 0}
    assert any(line.startswith("  MERGED 'k/python3'") for line in lines)


def test_split_is_a_hash_of_the_label() -> None:
    assert fp.split_of("python-missing-pandas") == fp.split_of("python-missing-pandas")
    assert {fp.split_of(f"m{i}") for i in range(20)} == {"tune", "dev"}


# ---------------------------------------------------------------------------------------------
# The label files


def _rows(name: str) -> list[dict]:
    with (CORPUS / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_mistakes_json_labels_exactly_the_public_error_rows() -> None:
    labels = json.loads((CORPUS / "mistakes.json").read_text(encoding="utf-8"))
    assert labels.pop("_note").strip()
    errors = {r["id"] for r in _rows("public.jsonl") if r["label"] == "error"}
    assert len(errors) == 57
    assert set(labels) == errors
    assert all(isinstance(v, str) and v and v == v.strip() for v in labels.values())
    # c043 / c045: the same unknown npm package, once behind `|| true`; every other row its own mistake
    assert [sorted(ids) for ids in _by_label(labels).values() if len(ids) > 1] == [["c043", "c045"]]


def _by_label(labels: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for row_id, label in labels.items():
        out.setdefault(label, []).append(row_id)
    return out


def test_mistake_pairs_rows() -> None:
    rows = _rows("mistake_pairs.jsonl")
    assert len(rows) >= 80
    assert len({r["id"] for r in rows}) == len(rows)
    per_mistake = Counter(r["mistake"] for r in rows)
    assert sum(n >= 2 for n in per_mistake.values()) >= 25
    assert min(per_mistake.values()) >= 2
    for r in rows:
        assert r["label"] == "error" and r["kind"] and r["note"] and r["mistake"]
        assert r["split"] == fp.split_of(r["mistake"])
        payload = r["payload"]
        assert payload["tool_input"]["command"] == r["command"]
        if r["exit_code"]:
            assert payload["hook_event_name"] == "PostToolUseFailure"
            assert payload["error"] == f"Exit code {r['exit_code']}\n{r['output']}"
        else:
            assert payload["hook_event_name"] == "PostToolUse"
            assert payload["tool_response"]["stdout"] == r["output"]
        text = json.dumps(r)
        assert "/root/" not in text and "mistake-pairs-" not in text  # paths rewritten to /home/dev
    assert {fp.split_of(m) for m in per_mistake} == {"tune", "dev"}


def test_mistake_pairs_load_through_the_bench() -> None:
    rows = fp.load_rows(CORPUS / "mistake_pairs.jsonl", None)
    raw = {r["id"]: r for r in _rows("mistake_pairs.jsonl")}
    assert [r.case.id for r in rows] == list(raw)
    for r in rows:  # rebuilt from the payload as the hook would: exit code, output, and the labels carried over
        assert (r.case.result.exit_code, r.case.result.output) == (raw[r.case.id]["exit_code"], raw[r.case.id]["output"])
        assert (r.mistake, r.split) == (raw[r.case.id]["mistake"], raw[r.case.id]["split"])
