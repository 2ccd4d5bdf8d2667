"""self_improve.detect.corrections: labelled prompts, exact hits, documented decisions, properties."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.detect import corrections
from self_improve.detect import patterns
from self_improve.detect.corrections import CorrectionHit, detect_correction
from self_improve.events import Prompt

DATA = Path(__file__).resolve().parents[1] / "data" / "corrections.jsonl"


def hit(text: str) -> CorrectionHit | None:
    return detect_correction(Prompt(text, "session-1", "/tmp/project"))


def load() -> list[dict[str, str]]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_dataset_is_large_balanced_bilingual_and_well_formed() -> None:
    rows = load()
    assert len(rows) >= 150
    assert all(set(r) == {"text", "label", "lang"} for r in rows)
    assert {r["label"] for r in rows} == {"correction", "other"}
    assert {r["lang"] for r in rows} == {"en", "zh"}
    share = sum(r["label"] == "correction" for r in rows) / len(rows)
    assert 0.4 <= share <= 0.6
    assert len({r["text"] for r in rows}) == len(rows)  # no duplicates


def test_precision_and_recall_on_the_labelled_prompts() -> None:
    tp = fp = fn = 0
    for row in load():
        found, truth = hit(row["text"]) is not None, row["label"] == "correction"
        tp += found and truth
        fp += found and not truth
        fn += truth and not found
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    # Measured: P=1.000 R=0.990 on this file (in-sample: the patterns were written against it).
    # Fresh held-out batches scored P~0.92 R~0.5 before their misses were generalised; see
    # bench/corrections.py and the report.
    assert precision >= 0.98
    assert recall >= 0.98


@pytest.mark.parametrize(
    ("text", "pattern", "language"),
    [
        ("no, that's wrong", "en.no", "en"),
        ("That's incorrect, the API returns a list", "en.thats-wrong", "en"),
        ("that's not what I asked", "en.not-what-i-asked", "en"),
        ("don't use requests, use httpx", "en.dont-use-x-use-y", "en"),
        ("I told you to keep the tests", "en.i-told-you", "en"),
        ("stop doing that", "en.stop", "en"),
        ("you forgot the migration", "en.you-did-wrong", "en"),
        ("why did you delete the README?", "en.why-did-you", "en"),
        ("you edited the wrong file", "en.you-did-wrong", "en"),
        ("wrong file", "en.still-wrong", "en"),
        ("revert that", "en.revert", "en"),
        ("Actually, use the v2 endpoint", "en.actually", "en"),
        ("You’re using the wrong table", "en.wrong-thing", "en"),  # curly apostrophe
        ("不对", "zh.not-right", "zh"),
        ("错了，是另一个文件", "zh.wrong", "zh"),
        ("不是这样的", "zh.not-this", "zh"),
        ("应该用 pnpm", "zh.should-use", "zh"),
        ("别用 requests", "zh.dont", "zh"),
        ("不要用全局变量", "zh.dont", "zh"),
        ("我已经说过了，缩进用两个空格", "zh.told-you", "zh"),
    ],
)
def test_correction_forms(text: str, pattern: str, language: str) -> None:
    assert hit(text) == CorrectionHit(pattern, language)


@pytest.mark.parametrize(
    "text",
    [
        "fix the error in foo.py",
        "why does this test fail?",
        "what's wrong with my query",
        "actually run the tests",  # decided: emphasis on an instruction, not a correction
        "Actually I have a question about the build system",
        "No rush, take your time",
        "No problem, let's move on",
        "No, I haven't tried that yet — what would you suggest?",
        "Please revert commit 3f2a1b so we can release",
        "Stop the dev server and restart it",
        "Is this the wrong file?",
        "Should I use poetry instead?",
        "Write a script that uses requests. Don't use selenium.",
        "Can you double check you didn't leave any debug prints?",
        "The function returns the wrong result for negative numbers, please fix it",
        "为什么这个测试失败了？",
        "修复 foo.py 里的错误",
        "应该用哪个库来解析 YAML？",
        "帮我把日志级别改成 DEBUG",  # 别 inside 级别
        "先别提交，我还要再看一下",  # "not yet", not a correction
        "这段代码运行时出错了，帮我定位原因",
        "",
        "   ",
    ],
)
def test_discussing_errors_or_asking_is_not_correcting(text: str) -> None:
    assert hit(text) is None


def test_a_question_skips_question_prone_patterns_only() -> None:
    assert hit("Is this the wrong file?") is None
    assert hit("This is the wrong file.") == CorrectionHit("en.wrong-thing", "en")
    assert hit("Why did you change the port?") == CorrectionHit("en.why-did-you", "en")


def test_long_prompts_are_read_at_their_ends_only() -> None:
    filler = "please refactor the parser and keep the tests green " * 40_000  # ~2 MB
    assert hit("no, that's wrong. " + filler) == CorrectionHit("en.no", "en")
    assert hit(filler + " I told you to use pnpm") == CorrectionHit("en.i-told-you", "en")
    assert hit(filler[:100_000] + " that's wrong " + filler[:100_000]) is None  # pasted material
    assert hit(filler) is None  # its cost, against a short prompt's: bench/corrections_linear.py


def test_needles_are_sound() -> None:
    """Each top-level alternative of each pattern provably contains one of the pattern's
    needles, so skipping a pattern whose needles are absent never loses a match."""
    for pattern in corrections.PATTERNS:
        needles = corrections._NEEDLES[pattern.name]
        assert needles, pattern.name
        regex = pattern.regex
        for a, b in patterns._split_alternatives(regex, 0, len(regex)):
            required, _ = patterns._needle_scan(regex, a, b)
            assert any(all(any(n in lit for n in needles) for lit in proof) for proof in required), (pattern.name, regex[a:b])


def test_every_pattern_compiles_and_is_named_by_language() -> None:
    for pattern in corrections.PATTERNS:
        assert re.compile(pattern.regex)
        assert pattern.language in ("en", "zh")
        assert pattern.name == pattern.name.casefold()
    assert len({p.name for p in corrections.PATTERNS}) == len(corrections.PATTERNS)


def test_hit_is_an_immutable_record() -> None:
    found = hit("no, that's wrong")
    assert found == CorrectionHit("en.no", "en")
    with pytest.raises(AttributeError):
        found.pattern = "x"  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=500))
def test_never_raises(text: str) -> None:
    found = hit(text)
    assert found is None or found.language in ("en", "zh")
