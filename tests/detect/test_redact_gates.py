"""Redaction skips a rule only where it cannot match (``redact._gates``): checked on the secret
corpus in all its placements, on texts made to fool a case-insensitive check, and on generated
texts built from the rules' own literals; and ``redact`` gives the same text with the gates as
without them."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.detect import prescreen, redact, redact_rules
from self_improve.detect.patterns import needle, needles_of

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDS = [json.loads(line) for line in (DATA / "secrets.jsonl").read_text(encoding="utf-8").splitlines()]
_spec = importlib.util.spec_from_file_location("secret_corpus", DATA / "secret_corpus.py")
assert _spec is not None and _spec.loader is not None
CORPUS = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CORPUS)

# re matches "s" to "ſ" and "k" to the Kelvin sign when it ignores case: lowering such a text
# would hide "password" or "key", so a text that is not ASCII must skip no case-insensitive rule.
CASE_TRICKS = ("PAſſWORD=hunter2hunter2", "api_\u212aey: abcdefghijklmnopqrst", "AUTHORIZATION: Bearer abcdefghijk",
               "Cookie: session=abc; \u00e9", "https://x.test/?x-amz-\u017fignature=deadbeefdeadbeef")


def skipped_but_matching(text: str) -> list[str]:
    runnable = {index for index, _rule in redact._runnable(text)}
    return [name for index, (name, _tag, pattern, _judge) in enumerate(redact._rules())
            if index not in runnable and pattern.search(text) is not None]


def without_gates(function: Callable[[str], str], text: str) -> str:
    patch = pytest.MonkeyPatch()
    patch.setattr(redact, "_gates", lambda: (None,) * len(redact._rules()))
    try:
        return function(text)
    finally:
        patch.undo()


def test_most_rules_have_a_gate_and_ordinary_output_skips_most() -> None:
    gates = redact._gates()
    assert len(gates) == len(redact._rules())
    assert sum(gate is not None for gate in gates) >= 50
    runnable = redact._runnable("make: *** [all] Error 2\nTraceback (most recent call last):\n")
    assert 0 < len(runnable) < len(gates) // 3  # the blobs (hex, base64) always run


def test_the_gates_are_the_needles_of_the_patterns() -> None:
    for (name, _tag, pattern, _judge), gate in zip(redact._rules(), redact._gates(), strict=True):
        assert gate == redact._gate(name, pattern), name
        if gate is not None:
            literals = redact_rules.NEEDLES.get(name) or needle(pattern.pattern)
            assert gate[1] == (tuple(x.lower() for x in literals) if gate[0] else literals), name
    assert redact._gates()[[name for name, *_ in redact._rules()].index("secret-assignment")] is not None


def top_level_alternatives(group: str) -> list[str]:
    """The alternatives of ``(?:a|b(?:c|d)|[|])``."""
    assert group.startswith("(?:") and group.endswith(")")
    parts, depth, start, i, body = [], 0, 0, 0, group[3:-1]
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 1
        elif c == "[":
            i = body.index("]", i + 2)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
        i += 1
    return [*parts, body[start:]]


def test_every_secret_word_holds_one_of_the_hand_written_needles() -> None:
    alternatives = top_level_alternatives(redact_rules.SECRET_WORDS)
    assert len(alternatives) >= 20 and "token" in alternatives
    for alternative in alternatives:
        proved = needles_of(alternative)
        assert any(all(any(n in literal.lower() for n in redact_rules.SECRET_WORD_NEEDLES) for literal in literals)
                   for literals in proved), alternative


def test_no_rule_that_matches_the_corpus_is_skipped() -> None:
    # Each secret's own line: the least text around it, so the fewest literals for a gate to see
    # (a longer output around it only adds to what a gate lets through).
    for record in RECORDS:
        line = str(record["line"])
        for variant in (line, line.upper(), line.swapcase()):
            assert skipped_but_matching(variant) == [], variant
        assert redact.redact(line) == without_gates(redact.redact, line)
    placements = CORPUS.placements("x", str(RECORDS[0]["line"]), RECORDS[0]["secrets"])
    assert all(skipped_but_matching(text) == [] for text in placements.values())


def test_case_tricks_outside_ascii_skip_no_case_insensitive_rule() -> None:
    for text in CASE_TRICKS:
        assert skipped_but_matching(text) == []
        assert redact.redact(text) == without_gates(redact.redact, text)
        assert redact.find_secret(text) == without_gates(redact.find_secret, text)  # type: ignore[arg-type]


def test_a_stale_or_corrupt_cache_of_gates_is_recomputed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    redact._gates.cache_clear()
    try:
        good = redact._gates()
        path = prescreen.cache_path("redact-needles", *redact._GATE_SOURCES)
        assert path is not None and not Path(path).exists()  # only the hooks write it
        redact.save_gates()
        assert Path(path).exists()
        redact._gates.cache_clear()
        assert redact._gates() == good and redact._unsaved_gates is None  # read back, nothing to write
        texts = tuple(pattern.pattern for _name, _tag, pattern, _judge in redact._rules())
        for bad in ((("another pattern",), good), "junk", (texts, ((True, ()),) * len(good)), (texts, good[:-1])):
            prescreen.write_cache("redact-needles", bad, *redact._GATE_SOURCES)
            redact._gates.cache_clear()
            assert redact._gates() == good
    finally:
        redact._gates.cache_clear()


LITERALS = sorted({literal for gate in redact._gates() if gate is not None for literal in gate[1]})
GLUE = ["=", ": ", " ", "\n", "://", "@", " -p", "_", "-----BEGIN RSA PRIVATE KEY-----\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(LITERALS), st.sampled_from(GLUE),
                          st.text(alphabet="abcXYZ019_-./+=:@ \u017f\u212a", min_size=1, max_size=24)),
                min_size=1, max_size=12),
       st.sampled_from([str, str.upper, str.lower, str.swapcase, str.title]))
def test_generated_texts_redact_the_same_with_and_without_gates(parts: list[str], case: Callable[[str], str]) -> None:
    text = case("".join(parts))
    assert skipped_but_matching(text) == []
    assert redact.redact(text) == without_gates(redact.redact, text)
