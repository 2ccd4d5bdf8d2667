"""Adversarial inputs for a regex, built from its own literal characters.

Backtracking blows up where a pattern's pieces can match the same text in many ways, or where
a search restarts at many positions of one long run and rescans it each time. Both show on text
made of the pattern's own pieces, repeated without the part that would complete a match:
``"::" * n`` for ``::\\S+\\s+ok``, ``"\\n" * n`` for ``^\\s*x``, ``"bzip2: " * n`` for
``bzip2: [^\\n]*data integrity error``. ``inputs`` makes those: each literal run of the pattern
repeated (alone, spaced, one per line), each run followed by any other run (or by a character
of one of its classes) repeated, and each character repeated.

Used by tests/detect/test_regex_linear.py (exact answers on 4 KB inputs) and by
bench/hooks_bounded.py (timings on 40 KB ones).
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# One character each class category can match: space includes the newline on purpose.
_CATEGORY_CHARS = {
    "CATEGORY_SPACE": " \t\n",
    "CATEGORY_DIGIT": "1",
    "CATEGORY_WORD": "a_",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_NOT_WORD": " .",
}
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))


def pieces(pattern: str) -> tuple[list[str], set[str]]:
    """(the pattern's literal runs, in order; the characters its literals and classes match)."""
    runs: list[str] = []
    chars: set[str] = set()

    def walk(items: Any) -> None:
        run = ""
        for op, value in items:
            if op is sre.LITERAL:
                run += chr(value)
                chars.add(chr(value))
                continue
            if run:
                runs.append(run)
                run = ""
            if op in _REPEATS:
                walk(value[2])
            elif op is sre.SUBPATTERN:
                walk(value[-1])
            elif op is getattr(sre, "ATOMIC_GROUP", None):
                walk(value)
            elif op is sre.BRANCH:
                for branch in value[1]:
                    walk(branch)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(value[1])
            elif op is sre.IN:
                _class_chars(value, chars)
            elif op in (sre.NOT_LITERAL, sre.ANY):
                chars.add("x")
        if run:
            runs.append(run)

    walk(sre_parse.parse(pattern, re.MULTILINE))
    return runs, chars


def _class_chars(items: Any, chars: set[str]) -> None:
    for op, value in items:
        if op is sre.LITERAL:
            chars.add(chr(value))
        elif op is sre.RANGE:
            chars.update((chr(value[0]), chr(value[1])))
        elif op is sre.CATEGORY:
            chars.update(_CATEGORY_CHARS.get(str(value), ""))


def inputs(pattern: str, size: int) -> dict[str, str]:
    """Named adversarial texts of about ``size`` characters for ``pattern``."""
    runs, chars = pieces(pattern)
    made: dict[str, str] = {}

    def repeat(unit: str, name: str, head: str = "") -> None:
        if unit:
            made[name] = head + (unit * (size // len(unit) + 1))[:size]

    for i, run in enumerate(runs):
        repeat(run, f"run{i}")
        repeat(run + " ", f"run{i}+space")
        repeat(run + "\n", f"run{i}+newline")
        for j, other in enumerate(runs):
            if i != j:
                for separator in ("", " ", "\n"):
                    repeat(other + separator, f"run{i} then run{j}{separator!r}", head=run)
        for char in sorted(chars):
            repeat(char, f"run{i} then {char!r}", head=run)
    repeat("".join(runs), "all runs")
    repeat("".join(runs[:-1]), "all runs but the last")
    repeat(" ".join(runs[:-1]), "all runs but the last, spaced")
    for char in sorted(chars):
        repeat(char, f"{char!r}")
    repeat("".join(sorted(chars)), "every character")
    return made


def first_hits(compiled: re.Pattern[str], text: str, limit: int = 32) -> list[tuple[int, int]]:
    """The spans of the first ``limit`` matches: what detect() reads of a pattern."""
    spans = []
    for match in compiled.finditer(text):
        spans.append(match.span())
        if len(spans) >= limit:
            break
    return spans
