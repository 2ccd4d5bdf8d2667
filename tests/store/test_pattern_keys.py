"""Pattern-Keys in any script, one key in all its spellings (``detect/pattern_keys.py``): NFKC and
case folding when a key is written and when keys are compared; refused keys write nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from self_improve.detect.pattern_keys import canonical, folded, is_valid_key, key_problem, same_key
from self_improve.store.bulk import import_entries
from self_improve.store.entry import parse_text
from self_improve.store.store import LogRequest, Store
from tests.helpers import entry_text, run_cli, tree_hash, write_project

DAY = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CHINESE = "工具.包管理器"


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    return tmp_path


def log(root: Path, summary: str, key: str, session: str, kind: str = "learning") -> dict[str, object]:
    result = run_cli("log", kind, summary, "--pattern-key", key, "--session", session, "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# ---- the normal form -------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "written", "compared"), [
    ("deps.module-not-found/python:yaml", "deps.module-not-found/python:yaml", "deps.module-not-found/python:yaml"),
    ("  tooling.PM ", "tooling.PM", "tooling.pm"),
    ("python.traceback/KeyError@app/models.py:load", "python.traceback/KeyError@app/models.py:load",
     "python.traceback/keyerror@app/models.py:load"),
    (CHINESE, CHINESE, CHINESE),
    ("ｔｏｏｌｉｎｇ．ＰＭ", "tooling.PM", "tooling.pm"),  # full-width letters and full stop
    ("工具．包管理器", CHINESE, CHINESE),  # a full-width full stop after Chinese letters
    ("cafe\u0301.menu", "café.menu", "café.menu"),  # a decomposed accent is composed
    ("Straße.Regeln", "Straße.Regeln", "strasse.regeln"),  # full case folding, not lower()
    ("\u212aelvin.x", "Kelvin.x", "kelvin.x"),  # the Kelvin sign is a K
])
def test_canonical_and_folded_forms(raw: str, written: str, compared: str) -> None:
    assert (canonical(raw), folded(raw)) == (written, compared)
    assert is_valid_key(raw)
    assert same_key(raw, written) and same_key(raw, compared)


@pytest.mark.parametrize("key", [
    "", " ", "a b", "a\tb", "a\nb", "a<b", "a>b", "a`b", "a'b", 'a"b', "a;b", "a$b", "a|b", "a(b)", "a,b",
    "a\u202eb",  # right-to-left override
    "a\u200db",  # zero-width joiner
    "a\u3164b",  # Hangul filler: a letter that renders as nothing
    "a\ufe0fb",  # variation selector
    "a\u00a0b",  # no-break space (NFKC: a space)
    "a\uff1cb",  # full-width < (NFKC: <)
    "工具。包管理器",  # the ideographic full stop is punctuation, not "."
    "工具 包管理器",
    "a\udc80b",  # a lone surrogate
])
def test_refused_keys(key: str) -> None:
    assert not is_valid_key(key)
    expected = "it is empty" if not key.strip() else "use letters, digits and . _ - : / @ + (no blanks, quotes, < > or backticks)"
    assert key_problem(key) == expected


# ---- through the store --------------------------------------------------------------------------


def test_a_chinese_key_round_trips(project: Path) -> None:
    first = log(project, "用 pnpm，不要用 npm", CHINESE, "s1")
    second = log(project, "包管理器用 pnpm", CHINESE, "s2")
    assert (first["created"], second["created"], second["id"], second["recurrence_count"]) == (True, False, first["id"], 2)
    raw = (project / ".learnings/LEARNINGS.md").read_bytes()
    assert f"\n- Pattern-Key: {CHINESE}\n".encode() in raw
    (row,) = json.loads(run_cli("list", "--json", cwd=project).stdout)
    assert (row["pattern_key"], row["recurrence_count"], row["tasks"]) == (CHINESE, 2, 2)
    shown = run_cli("show", str(first["id"]), cwd=project).stdout
    assert f"- Pattern-Key: {CHINESE}" in shown


def test_nfkc_and_case_variants_merge_into_one_entry(project: Path) -> None:
    first = log(project, "Use pnpm, not npm", "ｔｏｏｌｉｎｇ.ＰＭ", "s1")
    assert b"\n- Pattern-Key: tooling.PM\n" in (project / ".learnings/LEARNINGS.md").read_bytes()
    for n, spelling in enumerate(("tooling.pm", "TOOLING.PM", "ｔｏｏｌｉｎｇ．ｐｍ"), start=2):
        again = log(project, f"Package manager lesson, take {n}", spelling, f"s{n}")
        assert (again["id"], again["created"], again["recurrence_count"]) == (first["id"], False, n)
    (entry,) = Store(project).entries("learning")
    assert entry.pattern_key == "tooling.PM"  # the first spelling, canonical, stays


def test_a_key_written_by_hand_in_another_spelling_still_matches(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        entry_text("LRN-20260201-aaa", "Package manager", pattern_key="ｔｏｏｌｉｎｇ.pm", occurrences=[(5, "1a2b3c4d")]),
        entry_text("LRN-20260201-bbb", "Menu", pattern_key="cafe\u0301.Menu", occurrences=[(5, "1a2b3c4d")]),
        entry_text("ERR-20260201-ccc", "yaml", pattern_key="Deps.Module-Not-Found/python:yaml", occurrences=[(5, "1a2b3c4d")]),
    ])
    store = Store(tmp_path)
    assert [e.id for e in store.with_pattern_key("learning", "TOOLING.PM")] == ["LRN-20260201-aaa"]
    assert [e.id for e in store.with_pattern_key("learning", "café.menu")] == ["LRN-20260201-bbb"]
    assert [e.id for e in store.with_pattern_key("error", "deps.module-not-found/python:yaml")] == ["ERR-20260201-ccc"]
    assert store.with_pattern_key("learning", "tooling.p") == [] and store.with_pattern_key("learning", "café") == []
    merged = store.log(LogRequest(kind="learning", summary="Another wording", pattern_key="tooling.pm", session="s9", now=DAY))
    assert (merged.entry_id, merged.created, merged.recurrence_count) == ("LRN-20260201-aaa", False, 2)
    # The hand-written spelling is kept as it is: only a key we write is ours to normalise.
    assert "- Pattern-Key: ｔｏｏｌｉｎｇ.pm\n" in (tmp_path / ".learnings/LEARNINGS.md").read_text(encoding="utf-8")


def test_an_import_merges_on_a_key_in_another_spelling(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    store = write_project(tmp_path, [entry_text("LRN-20260201-aaa", "Package manager", pattern_key="tooling.pm",
                                                occurrences=[(5, "1a2b3c4d")])])
    incoming = parse_text(entry_text("LRN-20260202-zzz", "Other words entirely", pattern_key="ＴＯＯＬＩＮＧ.PM",
                                     occurrences=[(4, "5e6f7a8b")])).entries
    (outcome,) = import_entries(store, list(incoming))
    assert (outcome.action, outcome.entry_id, outcome.reason) == ("merged", "LRN-20260201-aaa", "same Pattern-Key")


@pytest.mark.parametrize("key", ["tooling pm", "a<b", "a>b", "a`b", "a\u202eb", "工具。包管理器", "a\uff1cb", "a\u200db", " ", "\u3000"])
def test_a_refused_key_writes_nothing(project: Path, key: str) -> None:
    before = tree_hash(project)
    result = run_cli("log", "learning", "Use pnpm", "--pattern-key", key, cwd=project)
    shown = canonical(key) or key  # the key as it was judged: NFKC ("a＜b" is "a<b")
    problem = "it is empty" if not key.strip() else "use letters, digits and . _ - : / @ + (no blanks, quotes, < > or backticks)"
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"self-improve: error: invalid Pattern-Key {shown!r}: {problem}\n"
    assert tree_hash(project) == before


# ---- FileScan.keyed: found exactly when the keys are the same key ----------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from self_improve.store.scan import FileScan  # noqa: E402

_LETTERS = "abkszAKSZ09.-/:工具包ßé"
_SPELLINGS = {  # other spellings of one character: case, full width, the Kelvin sign, a decomposed é
    "a": "aAａＡ", "k": "kKｋＫ\u212a", "s": "sSｓＳ", "z": "zZｚＺ", "0": "0０", "9": "9９", ".": ".．", "-": "-－",
    "/": "/／", ":": ":：", "é": ["é", "e\u0301", "É"], "ß": ["ß", "ẞ"],
}


def respelled(key: str, choices: list[int]) -> str:
    out = []
    for ch, choice in zip(key, choices, strict=False):
        options = _SPELLINGS.get(ch.lower(), ch)
        out.append(list(options)[choice % len(options)])
    return "".join(out) + key[len(out):]


@settings(max_examples=200, deadline=None)
@given(stored=st.text(_LETTERS, min_size=1, max_size=8), other=st.text(_LETTERS, min_size=1, max_size=8),
       choices=st.lists(st.integers(0, 4), max_size=8), ask_other=st.booleans())
def test_keyed_finds_every_spelling_and_nothing_else(stored: str, other: str, choices: list[int], ask_other: bool) -> None:
    written = respelled(stored, choices)  # as a person or an older version might have written it
    assert same_key(written, stored)
    text = "# Learnings\n\n---\n\n" + entry_text("LRN-20260201-aaa", "x", pattern_key=written, occurrences=[(1, "1a2b3c4d")])
    query = other if ask_other else stored
    found = [entry.id for _, entry in FileScan(text, frozenset()).keyed(query)]
    assert found == (["LRN-20260201-aaa"] if same_key(written, query) else [])
