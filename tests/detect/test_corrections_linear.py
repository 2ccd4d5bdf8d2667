"""self_improve.detect.corrections: every pattern on adversarial inputs, and the rewrites.

What is asserted is behaviour, exactly; how long it takes is measured by
bench/corrections_linear.py (ratios against a linear scan of the same text), never here.

- Each pattern runs on adversarial texts as long as the window a prompt is read through
  (HEAD_CHARS + 1 + TAIL_CHARS): regex_adversary's (its literal runs and characters repeated)
  and ours (every prefix of a string the pattern matches, repeated or followed by a long run of
  blanks, with or without the rest): its first hits must be the independent ``regex`` engine's,
  and a text without any of its needles must not match.
- The patterns rewritten to be linear keep their old form below (OLD), as the reference: on
  generated prompt-like texts and on the adversarial ones, old and new give the same decision
  (what detect_correction reads of a pattern: a match whose sentence is not a question).
- Hand-computed cases pin the shapes that were quadratic.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest
import regex  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.detect import corrections, corrections_en, corrections_zh
from self_improve.detect.corrections import CorrectionHit, detect_correction
from self_improve.events import Prompt
from tests.detect.regex_adversary import first_hits, inputs, pieces

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DATA = (DATA_DIR / "corrections.jsonl", DATA_DIR / "corrections_multilingual.jsonl")
WINDOW = corrections.HEAD_CHARS + 1 + corrections.TAIL_CHARS  # the most a pattern ever reads
BY_NAME = {p.name: p for p in corrections.PATTERNS}

_NO_ANSWER = r"(?:i haven't|i have not|not yet|thanks|thank you|it's fine|that's fine|worries|problem)"
# The patterns before they were made linear (git history: self_improve/detect/corrections.py).
OLD: dict[str, str] = {
    "en.no": r"^\s*(?:(?:hmm+|well|ugh|wait|ok(?:ay)?)[\s,.]+)?(?:no+|nope|nah)(?:[\s,.!]+(?:no+|nope))*\s*(?:[,.!;:\u2014\u2013-]|$)(?!\s*" + _NO_ANSWER + ")",
    "en.still-wrong": r"\bstill (?:wrong|incorrect|broken|not (?:right|working|fixed|correct))\b|^\s*(?:wrong|incorrect)\b|\bsame (?:error|exception|problem|issue|failure|bug|mistake)\b|\bafter your (?:change|fix|edit|patch|commit)",
    "en.i-wanted-x-not-y": r"\bi (?:wanted|meant|asked for|needed|said)\b[^.?!\n]*,\s*not\b",
    "en.thats-not-how": r"\bthat's not (?:how|the way|what)\b|^\s*not (?:like )?(?:that|this)\b|\bdoing it wrong\b",
    "en.unneeded": r"^\s*(?:there's )?no need (?:for|to)\b|\b(?:that's|that is|this is|it's) (?:overkill|unnecessary|not necessary|too complicated|overcomplicated|way too much)\b|\b(?:wasn't|was not|weren't|were not) (?:needed|necessary|required|asked for)\b",
    "en.i-told-you": r"\bi (?:already |just |literally )?(?:told|asked) you\b|\bas i (?:already |just )?(?:said|mentioned|explained|told you)\b|(?<!\bif )(?<!\bwhen )\bi (?:already |just |literally )?said\b(?! (?:in|on|at|to|during|that we|we|something|anything|yes|no|ok|okay)\b)|\bi meant\b|\bi (?:never|didn't|did not) (?:ask|say|tell|want|request)(?:ed|s)?\b|\bi never (?:said|told)\b|\bi asked (?:you )?(?:for|to) [^.?!\n]*,? not\b|\b(?:didn't|did) i (?:not )?(?:say|tell you|ask|mention)\b|\bi (?:explicitly |specifically |clearly |only )?asked (?:for|you)\b|\bi (?:explicitly|specifically|clearly) (?:said|told|asked|wanted|mentioned|requested)\b|\bdid you (?:even|actually|really) \w+",
    "en.you-again": r"\byou \w+ed\b[^.?!\n]*\bagain\b",
    "en.wrong-thing": r"(?:\byou\b[^.?!\n]{0,40}?|\b(?:that's|that is|this is|it's|it is|that was)\s+(?:the |a |an )?|^\s*)wrong (?:" + corrections_en._NOUNS + r")s?\b",
    "en.dont-use-x-use-y": r"\b" + corrections_en._NEG + r" (?:use|using) [^.;!?\n]{1,60}?(?:[,;.]|\s)\s*(?:use|try|switch to|go with|stick (?:to|with)|we use|like the rest|just)\b",
    "en.dont-again": r"\b(?:don't|do not|dont|stop|quit)\b[^.?!\n]*\b(?:every time|each time|again|anymore|any more|all the time|another|yet another)\b",
    "en.stop": r"^\s*stop\s*[.!]|\bstop (?:doing|using|adding|changing|making|creating|writing|touching|editing|modifying|deleting|removing|ignoring|guessing|putting|calling|rewriting|reformatting|breaking|committing|pushing|installing|asking|apologi[sz]ing|that|it)\b",
    "en.actually": r"^\s*actually\s*[,.!:\u2014\u2013-]|^\s*(?:wait|hold on|hold up)\s*[,.!\u2014\u2013-]+\s*(?:no|don't|do not|stop|that|you|not)\b",
    "zh.dont": corrections_zh._ZH_NOT + r"(?:别|不要|不许|不准|禁止)(?:再|擅自|私自|随意|随便|乱|自己|自作主张)?(?:用|动|改|删|碰|加|推|提交|使用|修改|写|跳过|猜|瞎)|" + corrections_zh._ZH_NOT + r"(?:别|不要)(?:再|瞎|乱)|不用\s*[^，,。]{1,20}[，,]\s*(?:用|改用|换成)",
}


def test_the_old_forms_are_the_rewritten_patterns() -> None:
    assert set(OLD) <= set(BY_NAME)
    assert all(OLD[name] != BY_NAME[name].regex for name in OLD)
    for old in OLD.values():
        re.compile(old)


# ---- adversarial inputs ------------------------------------------------------------------------

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))
_CATEGORY_CHAR = {"CATEGORY_SPACE": " ", "CATEGORY_DIGIT": "1", "CATEGORY_WORD": "a", "CATEGORY_NOT_SPACE": "a",
                  "CATEGORY_NOT_DIGIT": "a", "CATEGORY_NOT_WORD": " "}


def _one_char(op: Any, value: Any) -> str:
    """A character the item ``op value`` (a literal, a class, ``.``) accepts."""
    if op is sre.LITERAL:
        return chr(value)
    if op is sre.NOT_LITERAL:
        return "y" if value == ord("x") else "x"
    if op is sre.ANY or value[0][0] is sre.NEGATE:
        return "x"
    first_op, first = value[0]
    if first_op is sre.LITERAL:
        return chr(first)
    if first_op is sre.RANGE:
        return chr(first[0])
    return _CATEGORY_CHAR[str(first)]


def _strings(items: Any) -> list[str]:
    """Strings in the shape of a sequence: the first choice at every branch, then each other
    choice of one branch at a time; a repeat as its minimum count (at least once)."""
    parts = [_item(op, value) for op, value in items]
    first = [p[0] for p in parts]
    made = ["".join(first)]
    for k, part in enumerate(parts):
        made += ["".join(first[:k] + [other] + first[k + 1 :]) for other in part[1:]]
    return made


def _item(op: Any, value: Any) -> list[str]:
    if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
        return [_one_char(op, value)]
    if op in _REPEATS:
        return [s * max(value[0], 1) for s in _strings(value[2])]
    if op is sre.SUBPATTERN:
        return _strings(value[-1])
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return _strings(value)
    if op is sre.BRANCH:
        return [s for branch in value[1] for s in _strings(branch)]
    return [""]  # anchors and lookarounds match no character


def witnesses(pattern: str) -> list[tuple[str, list[int]]]:
    """For each top-level alternative of ``pattern``: a string of its shape (first choices
    inside), and the offsets where each of its items ends (where a scan may start)."""
    parsed = list(sre_parse.parse(pattern, re.MULTILINE))
    branches = parsed[0][1][1] if len(parsed) == 1 and parsed[0][0] is sre.BRANCH else [parsed]
    found = []
    for branch in branches:
        text, cuts = "", []
        for op, value in branch:
            text += _item(op, value)[0]
            cuts.append(len(text))
        found.append((text, sorted(set(cuts))))
    return found


def prefix_inputs(pattern: str, size: int) -> dict[str, str]:
    """Named texts of ``size`` characters: each prefix of a witness repeated (alone, spaced, one
    per line), or followed by a long run of blanks, then the rest of the witness or nothing."""
    made: dict[str, str] = {}

    def fill(name: str, unit: str, head: str = "", tail: str = "") -> None:
        room = size - len(head) - len(tail)
        if unit and room > 0:
            made[name] = head + (unit * (room // len(unit) + 1))[:room] + tail

    for text, cuts in witnesses(pattern):
        for cut in cuts:
            head, rest = text[:cut], text[cut:]
            if not head.strip():
                continue
            for separator in ("", " ", "\n"):
                fill(f"({head + separator!r})*", head + separator)
            for blank in (" ", "\n"):
                fill(f"{head!r} {blank!r}*", blank, head=head)
                if rest:
                    fill(f"{head!r} {blank!r}* {rest!r}", blank, head=head, tail=rest)
    return made


def adversarial(pattern: str, size: int = WINDOW) -> dict[str, str]:
    """regex_adversary's texts (each literal run alone, with the next one, or with a blank) and
    ours, case-folded as detect_correction folds a prompt."""
    runs, _ = pieces(pattern)
    keep = {f"run{i}{suffix}" for i in range(len(runs)) for suffix in ("", "+space", "+newline")}
    keep |= {f"run{i} then run{i + 1}{sep!r}" for i in range(len(runs)) for sep in ("", " ", "\n")}
    keep |= {f"run{i} then {blank!r}" for i in range(len(runs)) for blank in (" ", "\t", "\n", "x")}
    made = {name: text for name, text in inputs(pattern, size).items() if name in keep or not name.startswith("run")}
    made.update(prefix_inputs(pattern, size))
    return {name: text[:size].casefold() for name, text in made.items()}


def decision(pattern: str, skip_questions: bool, text: str) -> bool:
    """What detect_correction reads of one pattern: does it have a match whose sentence is not
    a question (any match, for a pattern that does not skip questions)?"""
    for match in re.compile(pattern, re.MULTILINE).finditer(text):
        if not (skip_questions and corrections._in_question(text, match.end())):
            return True
    return False


@pytest.mark.parametrize("pattern", corrections.PATTERNS, ids=[p.name for p in corrections.PATTERNS])
def test_adversarial_inputs_get_the_exact_answer(pattern: corrections._Pattern) -> None:
    ours = re.compile(pattern.regex, re.MULTILINE)
    theirs = regex.compile(pattern.regex, regex.MULTILINE | regex.VERSION0)
    groups = corrections.needles(pattern.name)
    assert groups, pattern.name
    texts = adversarial(pattern.regex)
    if pattern.name in OLD:
        texts.update(adversarial(OLD[pattern.name]))
    assert len(texts) > 50
    for name, text in texts.items():
        assert len(text) == WINDOW, name
        hits = first_hits(ours, text)
        assert hits == first_hits(theirs, text), name
        if not all(any(n in text for n in group) for group in groups):
            assert hits == [], f"{name}: matched without a literal of each needle group"


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_rewrite_decides_as_its_old_form_on_the_adversarial_inputs(name: str) -> None:
    # Shorter texts: the old forms are the quadratic ones (70 ms a text at the full window).
    new, old = BY_NAME[name], OLD[name]
    for label, text in {**adversarial(new.regex, 400), **adversarial(old, 400)}.items():
        assert decision(new.regex, new.skip_questions, text) == decision(old, new.skip_questions, text), label


# ---- old and new forms agree on prompt-like texts ------------------------------------------------

_WORDS = ["no", "nope", "not", "thanks", "i said", "i asked for", "you used", "again", "don't use", "use",
          "stop", "actually", "wait", "wrong", "file", "that's", "x", "不用", "用", "，", "。", "?", "？", "."]


_SEPARATORS = [" ", "  ", "\n", "\n\n", " \n ", "\t", ",", ", ", ".", "!", "?", "？", "，", "。"]


def prompt_like(*patterns: str) -> st.SearchStrategy[str]:
    """Texts of up to 12 pieces: strings the patterns match (hypothesis' from_regex, on a small
    alphabet), their literal runs and characters, prompt words, blanks and sentence marks."""
    own = {c for p in patterns for c in pieces(p)[1] if c.isprintable() or c in "\n\t"}
    alphabet = "".join(sorted(own | set("abcdefinostuwy '") | set("".join(_SEPARATORS))))
    fragments = sorted({run for p in patterns for run in pieces(p)[0]} | {w for p in patterns for w, _ in witnesses(p)}
                       | own | set(_WORDS))
    piece = st.one_of(*(st.from_regex(re.compile(p, re.MULTILINE), fullmatch=True, alphabet=alphabet) for p in patterns),
                      st.sampled_from(fragments), st.sampled_from(_SEPARATORS))
    return st.lists(piece, max_size=12).map(lambda parts: "".join(parts).casefold())


def starts_and_ends(pattern: str, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(pattern, text, re.MULTILINE)]


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_rewrite_agrees_with_its_old_form_on_prompt_like_texts(name: str) -> None:
    new, old = BY_NAME[name], OLD[name]

    @settings(max_examples=200, deadline=None, database=None)
    @given(text=prompt_like(old))
    def check(text: str) -> None:
        assert decision(new.regex, new.skip_questions, text) == decision(old, new.skip_questions, text)
        assert bool(re.search(new.regex, text, re.MULTILINE)) == bool(re.search(old, text, re.MULTILINE))
        if new.skip_questions:  # every match is read: each must end where it did
            assert [e for _, e in starts_and_ends(new.regex, text)] == [e for _, e in starts_and_ends(old, text)]

    check()


def old_detect_correction(text: str) -> CorrectionHit | None:
    """detect_correction with the old forms of the rewritten patterns."""
    saved = {lang: corrections._table(lang).PATTERNS for lang in corrections.LANGUAGES}
    for lang, rows in saved.items():
        corrections._table(lang).PATTERNS = tuple((name, OLD.get(name, regex), skip) for name, regex, skip in rows)
    try:
        return detect_correction(Prompt(text, "s", "/p"))
    finally:
        for lang, rows in saved.items():
            corrections._table(lang).PATTERNS = rows


def test_every_labelled_prompt_gets_the_same_hit() -> None:
    rows = [json.loads(line) for path in DATA for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) > 1500
    for row in rows:
        assert detect_correction(Prompt(row["text"], "s", "/p")) == old_detect_correction(row["text"]), row["text"]


@settings(max_examples=300, deadline=None, database=None)
@given(text=st.lists(st.sampled_from(_WORDS + [" ", "\n", ", ", "  "]), max_size=40).map("".join))
def test_detect_correction_is_unchanged(text: str) -> None:
    assert detect_correction(Prompt(text, "s", "/p")) == old_detect_correction(text)


# ---- hand-computed cases: the shapes that were quadratic ------------------------------------------

N = WINDOW


@pytest.mark.parametrize(
    ("name", "text", "matches"),
    [
        # ^\s* over blank lines: rescanned from each of them
        ("en.no", "\n" * (N - 2) + "no", True),
        ("en.no", "thanks" + "\n" * (N - 6), False),
        # \s*$ then (?!\s*thanks): every line end of the run rescanned the run
        ("en.no", "no" + "\n" * (N - 8) + "thanks", False),
        ("en.no", "no" + "\n" * (N - 3) + "x", True),
        ("en.no", "no" + " " * (N - 3) + "x", False),
        ("en.no", "no, " + "no " * ((N - 4) // 3), True),
        ("en.no", "no " * 831 + "thanks", False),
        ("en.no", "no, no thanks", True),  # the repeat backs off: "no," then " no thanks"
        ("en.still-wrong", "\n" * (N - 5) + "wrong", True),
        ("en.thats-not-how", "\n" * (N - 8) + "not that", True),
        ("en.unneeded", "\n" * (N - 11) + "no need to", True),
        ("en.stop", "\n" * (N - 5) + "stop.", True),
        ("en.stop", "stop" + "\n" * (N - 4), False),
        ("en.actually", "\n" * (N - 9) + "actually,", True),
        ("en.actually", "actually" + "\n" * (N - 8), False),
        ("en.wrong-thing", "\n" * (N - 10) + "wrong file", True),
        ("en.wrong-thing", "\n" * (N - 11) + "wrong file?", False),
        # A[^.?!\n]*B: every A rescanned the rest of its sentence
        ("en.i-wanted-x-not-y", ("i said " * N)[:N], False),
        ("en.i-wanted-x-not-y", ("i said " * N)[: N - 5] + ", not", True),
        ("en.i-told-you", ("i asked to " * N)[:N], False),
        ("en.i-told-you", ("i asked to " * N)[: N - 4] + " not", True),
        ("en.you-again", ("you used " * N)[:N], False),
        ("en.you-again", ("you used " * N)[: N - 6] + " again", True),
        ("en.dont-again", ("don't " * N)[:N], False),
        ("en.dont-again", ("don't " * N)[: N - 6] + " again", True),
        ("en.dont-again", "don't." + "x again" * 300, False),  # another sentence
        # the first A of the sentence is the one taken: B may come before a later A
        ("en.i-wanted-x-not-y", "i said tabs, not spaces; i said so", True),
        ("en.i-told-you", "i asked to keep it, not drop it, i asked to", True),
        ("en.you-again", "you used it again, you used it", True),
        ("en.dont-again", "don't do that again, don't", True),
        # a bounded run then blanks then a word: each start inside the blanks rescanned them
        ("en.dont-use-x-use-y", "don't use x" + " " * (N - 11), False),
        ("en.dont-use-x-use-y", "don't use x" + " " * (N - 14) + "use", True),
        ("en.dont-use-x-use-y", "don't use x" + " " * 59 + ". use", True),
        ("en.dont-use-x-use-y", "don't use x" + " " * 60 + ". use", False),  # 60 characters at most
        ("en.dont-use-x-use-y", "don't use x  . use y", True),  # blanks, then a mark
        ("zh.dont", "不用" + " " * (N - 2), False),
        ("zh.dont", "不用" + " " * (N - 4) + "，用", True),
        ("zh.dont", "不用 " + "x" * 20 + "，用", True),
        ("zh.dont", "不用 " + "x" * 21 + "，用", False),
    ],
)
def test_hand_computed_cases(name: str, text: str, matches: bool) -> None:
    pattern = BY_NAME[name]
    assert decision(pattern.regex, pattern.skip_questions, text) is matches
    assert decision(OLD[name], pattern.skip_questions, text) is matches


def test_a_long_question_is_looked_up_once_per_sentence() -> None:
    # 1,249 hits of 不对 in one sentence ending in "？": each used to rescan to its end.
    assert detect_correction(Prompt("不对" * 1249 + "？", "s", "/p")) is None
    assert detect_correction(Prompt("不对" * 1249 + "。", "s", "/p")) == CorrectionHit("zh.not-right", "zh")
    text = "is it the wrong file? " + "this is the wrong file? " * 10 + "this is the wrong file."
    assert detect_correction(Prompt(text, "s", "/p")) == CorrectionHit("en.wrong-thing", "en")
    seen = [9, 9]  # nothing searched yet
    assert corrections._in_question("a? b. c?", 0, seen) and seen == [0, 1]
    assert corrections._in_question("a? b. c?", 1, seen) and seen == [0, 1]
    assert not corrections._in_question("a? b. c?", 2, seen) and seen == [2, 4]
    assert corrections._in_question("a? b. c?", 6, seen) and seen == [6, 7]
