"""The pre-screen must be sound: whenever it calls a result clean, ``detect`` finds nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.detect import prescreen
from self_improve.detect import rules as detect_rules
from self_improve.detect.classify import detect
from self_improve.events import ToolResult

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "public.jsonl"


@pytest.fixture(autouse=True)
def screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    detect_rules._write_prescreen(detect_rules.load_rules())
    loaded = prescreen._load()
    assert loaded is not None and loaded[0] is not None  # every packaged rule is covered
    return loaded[0]


def test_needles_are_minimal_and_folded(screen: tuple[str, ...]) -> None:
    assert all(needle == needle.casefold() for needle in screen)
    assert not any(a != b and a in b for a in screen for b in screen)


def test_weak_patterns_of_rules_without_needles_cannot_hit_a_viewer_own_line() -> None:
    # The soundness argument for rules without needles: their weak patterns are anchored at ^
    # with a character class that cannot start "name: " (a word, a colon, then a space).
    for rule in detect_rules.load_rules().rules:
        if rule.needles:
            continue
        for pattern in rule.weak:
            compiled = re.compile(pattern, re.MULTILINE)
            for line in ("cat: x.py:1:2: e501 line too long", "bash: line 1: would reformat x", "git: would reformat a.py"):
                assert compiled.search(line) is None, (rule.key, pattern, line)


def test_exact_answers() -> None:
    assert prescreen.clearly_clean("build ok\n3 passed in 0.1s\n", 0, False)
    assert not prescreen.clearly_clean("Traceback (most recent call last):\n", 0, False)
    assert not prescreen.clearly_clean("all good", 1, False)
    assert not prescreen.clearly_clean("all good", None, False)
    assert not prescreen.clearly_clean("all good", 0, True)
    assert not prescreen.clearly_clean("\x1b[32mall good\x1b[0m", 0, False)
    assert not prescreen.clearly_clean("ERROR: FAILED TO CONNECT", 0, False)


def _check(output: str, command: str = "make") -> None:
    if prescreen.clearly_clean(output, 0, False):
        assert detect(ToolResult(command, output, 0, "s", "/tmp")) is None, output


def test_sound_on_the_corpus_and_its_exit_zero_variants() -> None:
    for line in CORPUS.read_text().splitlines():
        row = json.loads(line)
        _check(row["output"], row["command"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["ok", "done", "3 passed", "warning: x", "Error", "FAILED", "0 failed", "错误", "é", "\r", "\n", " ", ":"]),
            st.text(max_size=12),
        ),
        max_size=30,
    ).map("".join),
    st.sampled_from(["make", "cat log.txt", "pytest", "echo hi", "grep x y"]),
)
def test_sound_on_generated_outputs(output: str, command: str) -> None:
    _check(output, command)
