"""Derive the needles of every correction pattern, and write them into corrections_<lang>_index.py.

    .venv/bin/python bench/corrections_needles.py [--check]

A pattern of self_improve.detect.corrections is tried only when each of its needle groups has a
literal in the (case-folded) prompt. The groups are proved from the regex as ``re`` parses it:
for each top-level alternative, the sets of literals every match of it contains (a run of fixed
pieces spells a few strings: "n[aã]o" is "nao" or "não"; a group of alternatives needs one
literal of any of them; what is optional, repeated from zero, a class of more than four
characters or a category proves nothing); group k takes each alternative's k-th most selective
needle (its only one, when it has one), so any match of the pattern has a literal of every group. A literal that contains another literal of its group is dropped (it adds nothing),
and the groups with fewer literals come first (they are the cheaper to rule out).

Without --check each corrections_<lang>_index.py (names and first groups) and the REST block
of each corrections_<lang>.py (the other groups) are rewritten; with --check the script exits 1
when one is not what it would write (tests/detect/test_corrections.py runs the same check).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/corrections.py

import re  # noqa: E402
from functools import cache  # noqa: E402
from re import _parser as sre_parse  # type: ignore[attr-defined]  # noqa: E402
from typing import Any  # noqa: E402

from self_improve.detect import corrections  # noqa: E402

DETECT = ROOT / "self_improve" / "detect"
GROUPS = 2  # needle groups per pattern at most


def _weight(literal: str) -> int:
    return sum(1 if ch.isascii() else 3 for ch in literal)


LARGE = 16  # a needle of more literals is taken only when no smaller one is proved


WEAK, STRONG = 4, 6  # a literal shorter than WEAK (a non-ASCII character counting 3) is common


def _score(needle: frozenset[str]) -> tuple[int, bool, int, int]:
    """Needles whose every literal is long (STRONG) first, then those of no weak literal; small
    sets before large ones; then the longest shortest literal, and the fewest literals."""
    shortest = min(_weight(lit) for lit in needle)
    strength = 0 if shortest >= STRONG else 1 if shortest >= WEAK else 2
    return (strength, len(needle) > LARGE, -shortest, len(needle))


CHEAP_WEIGHT = 3  # the first group's literals may be this short ("you", "我们")
COMMON = 0.02  # ... unless more prompts than this hold one (the labelled prompts, case-folded)


LANGUAGE = ["en"]  # the language whose patterns are being derived


@cache
def _prompts(lang: str) -> tuple[str, ...]:
    from corrections import load  # bench/corrections.py: the labelled prompts

    return tuple(corrections._normalise(row.text) for row in load() if row.lang == lang)


@cache
def _frequency_in(lang: str, literal: str) -> float:
    prompts = _prompts(lang)
    return sum(literal in text for text in prompts) / len(prompts)


def _frequency(literal: str) -> float:
    """The share of the labelled prompts in the current language that hold ``literal`` (how
    often it rules nothing out)."""
    return _frequency_in(LANGUAGE[0], literal)
MAX_STRINGS = 128  # the most strings a run of fixed pieces may spell before it is cut


Strings = frozenset[str]


class _Scan:
    """What a piece of a parsed regex proves.

    ``exact``: the strings it can match, when they are few (else None); ``starts`` / ``ends``:
    strings every match of it starts / ends with one of (None when unknown; "" among them means
    it may start with anything); ``needles``: sets of literals every match of it holds one of.
    """

    def __init__(self, exact: Strings | None, starts: Strings | None, ends: Strings | None,
                 needles: list[Strings]) -> None:
        self.exact, self.starts, self.ends, self.needles = exact, starts, ends, needles


def _join(a: Strings | None, b: Strings | None) -> Strings | None:
    if a is None or b is None or len(a) * len(b) > MAX_STRINGS:
        return None
    return frozenset(x + y for x in a for y in b)


def _fixed(strings: Strings) -> _Scan:
    return _Scan(strings, strings, strings, [])


EMPTY: Strings = frozenset({""})


def _scan(items: Any) -> _Scan:
    """A sequence: runs of adjacent fixed pieces spell needles; a piece that is not fixed
    ends a run with its start strings, and the next run begins with its end strings."""
    needles: list[Strings] = []
    run: Strings | None = EMPTY
    exact: Strings | None = EMPTY
    starts: Strings | None = None
    leading = True  # no piece that is not fixed seen yet

    def close(strings: Strings | None) -> None:
        if strings is not None and strings and "" not in strings:
            needles.append(strings)

    for op, value in items:
        piece = _item(op, value)
        needles.extend(piece.needles)
        if piece.exact is not None:
            joined = _join(run, piece.exact)
            close(run)  # every run so far is a needle too: a longer one holds it
            if joined is None:
                joined = piece.exact
            run = joined
            exact = _join(exact, piece.exact)
            continue
        exact = None
        head = _join(run, piece.starts)
        if leading:
            starts = head
            leading = False
        close(head if head is not None else run)
        run = piece.ends if piece.ends is not None else EMPTY
    close(run)
    if leading:
        starts = exact if exact is not None else None
    return _Scan(exact, starts, run if exact is None else exact, needles)


def _item(op: Any, value: Any) -> _Scan:
    name = str(op)
    if name == "LITERAL":
        return _fixed(frozenset({chr(value)}))
    if name == "IN":
        chars = _class(value)
        return _fixed(chars) if chars is not None else _Scan(None, None, None, [])
    if name in ("AT", "ASSERT", "ASSERT_NOT"):
        return _fixed(EMPTY)  # zero-width: the pieces around it stay adjacent
    if name == "SUBPATTERN":
        return _scan(value[-1])
    if name == "ATOMIC_GROUP":
        return _scan(value)
    if name == "BRANCH":
        scans = [_scan(branch) for branch in value[1]]

        def union(parts: list[Strings | None]) -> Strings | None:
            if any(p is None for p in parts):
                return None
            joined = frozenset().union(*parts)  # type: ignore[arg-type]
            return joined if len(joined) <= MAX_STRINGS else None

        picks = [_best(sc) for sc in scans]
        needles = [frozenset().union(*picks)] if all(picks) else []  # type: ignore[arg-type]
        return _Scan(union([sc.exact for sc in scans]), union([sc.starts for sc in scans]),
                     union([sc.ends for sc in scans]), needles)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, body = value
        inner = _scan(body)
        if low == 0:
            if high == 1 and inner.exact is not None:
                return _fixed(EMPTY | inner.exact)
            return _Scan(None, None, None, [])
        if low == high == 1:
            return inner
        best = _best(inner)
        return _Scan(None, inner.starts, inner.ends, [best] if best else [])
    return _Scan(None, None, None, [])  # any character, a category, a back-reference


def _class(value: Any) -> Strings | None:
    """The characters of a small class ([aã], [eé]), or None (a negated or a large one)."""
    chars: set[str] = set()
    for op, item in value:
        kind = str(op)
        if kind == "LITERAL":
            chars.add(chr(item))
        elif kind == "RANGE" and item[1] - item[0] < 4:
            chars.update(chr(c) for c in range(item[0], item[1] + 1))
        else:
            return None
    return frozenset(chars) if 0 < len(chars) <= 4 else None


def _best(scan: _Scan) -> Strings | None:
    candidates = [n for n in scan.needles if n and "" not in n]
    if scan.exact is not None and scan.exact and "" not in scan.exact:
        candidates.append(scan.exact)
    return min(candidates, key=_score) if candidates else None


def _implies(a: Strings, b: Strings) -> bool:
    """Does a text holding a literal of ``a`` always hold one of ``b``?"""
    return all(any(lit_b in lit_a for lit_b in b) for lit_a in a)


def _reduce(literals: Strings) -> tuple[str, ...]:
    kept = [lit for lit in literals if not any(other != lit and other in lit for other in literals)]
    return tuple(sorted(kept, key=lambda lit: (len(lit), lit)))


def needles_of(regex: str) -> tuple[tuple[str, ...], ...]:
    """The needle groups of ``regex`` (as detect_correction compiles it: MULTILINE); () when an
    alternative has no literal it must contain."""
    parsed = list(sre_parse.parse(regex, re.MULTILINE))
    if len(parsed) == 1 and str(parsed[0][0]) == "BRANCH":
        alternatives = [_scan(branch) for branch in parsed[0][1][1]]
    else:
        alternatives = [_scan(parsed)]
    cheap, selective = [], []
    for alt in alternatives:
        candidates = {n for n in alt.needles if n and "" not in n}
        if alt.exact and "" not in alt.exact:
            candidates.add(alt.exact)
        if not candidates:
            return ()
        ranked = sorted(candidates, key=lambda n: (_score(n), sorted(n)))
        best = ranked[0]
        # The cheapest needle that is rare enough (or the best one): a prompt is ruled out only
        # after each literal of the first group is looked for, so that group must be small, and
        # a group most prompts hold rules nothing out.
        usable = [n for n in ranked if min(_weight(lit) for lit in n) >= CHEAP_WEIGHT
                  and max(_frequency(lit) for lit in n) <= COMMON] or [best]
        cheap.append(min(usable, key=lambda n: (len(n), -min(_weight(lit) for lit in n), sorted(n))))
        selective.append(best)
    first = _reduce(frozenset().union(*cheap))
    second = _reduce(frozenset().union(*selective))
    return (first,) if second == first else (first, second)


def derived(lang: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    LANGUAGE[0] = lang
    return {row[0]: needles_of(row[1]) for row in corrections._table(lang).PATTERNS}


NAMES = {"en": "English", "zh": "Chinese", "es": "Spanish", "de": "German", "fr": "French", "ja": "Japanese",
         "pt": "Portuguese", "ru": "Russian"}


REST_START = "# ---- other needle groups (generated by bench/corrections_needles.py: do not edit by hand) -"
REST_END = "# ---- end of other needle groups"


def render(lang: str, needles: dict[str, tuple[tuple[str, ...], ...]]) -> str:
    """corrections_<lang>_index.py: the names and the first needle group of each pattern, what
    every prompt in that language is checked against."""
    lines = [f'''"""The first needles of the {NAMES[lang]} correction patterns (generated by bench/corrections_needles.py
from corrections_{lang}.py: do not edit by hand).

    NAMES: tuple[str, ...]              # the patterns, in the order of corrections_{lang}.PATTERNS
    FIRST: tuple[tuple[str, ...], ...]  # per pattern, its first needle group (the cheapest to rule out)
    BY_GRAM: dict[str, tuple[int, ...]] # a needle's first three characters -> the patterns it is of
    SHORT: tuple[int, ...]              # the patterns with a needle of fewer characters

A pattern is tried only when each of its needle groups has a literal in the (case-folded)
prompt; its other groups (corrections_{lang}.REST) are read once its first one has.
"""

NAMES = (''']
    lines += [f"    {name!r}," for name in needles]
    lines += [")", "FIRST = ("]
    lines += [f"    {groups[0]!r},  # {name}" for name, groups in needles.items()]
    lines.append(")")
    # The inverse of FIRST for a long prompt: a pattern's first group can hold only where the
    # first three characters of one of its needles occur, so the prompt's 3-grams name the few
    # patterns worth a look (instead of a set lookup per needle of every pattern).
    by_gram: dict[str, list[int]] = {}
    short: list[int] = []
    for position, groups in enumerate(needles.values()):
        for needle in groups[0]:
            if len(needle) < 3:
                short.append(position)
            elif position not in by_gram.setdefault(needle[:3], []):
                by_gram[needle[:3]].append(position)
    lines += ["# For a long prompt: the first three characters of each needle of FIRST -> the positions of",
              "# the patterns whose first group holds it; SHORT: the patterns with a shorter needle.",
              "BY_GRAM = {"]
    lines += [f"    {gram!r}: {tuple(positions)!r}," for gram, positions in sorted(by_gram.items())]
    lines += ["}", f"SHORT = {tuple(sorted(set(short)))!r}"]
    return "\n".join(lines) + "\n"


def render_rest(needles: dict[str, tuple[tuple[str, ...], ...]]) -> str:
    lines = [REST_START, "# Per pattern (in the order of PATTERNS), its needle groups after the first.", "REST = ("]
    for name, groups in needles.items():
        lines.append(f"    (  # {name}")
        lines += [f"        {group!r}," for group in groups[1:]]
        lines.append("    ),")
    lines += [")", REST_END + " " + "-" * (99 - len(REST_END) - 1)]
    return "\n".join(lines) + "\n"


def with_rest(source: str, block: str) -> str:
    if REST_START in source:
        start = source.index(REST_START)
        end = source.index("\n", source.index(REST_END)) + 1
        return source[:start] + block + source[end:]
    return source.rstrip("\n") + "\n\n" + block


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = total = literals = 0
    for lang in corrections.LANGUAGES:
        needles = derived(lang)
        missing = [name for name, groups in needles.items() if not groups]
        if missing:
            print("no needle proved for:", ", ".join(missing))
            return 1
        index, table = DETECT / f"corrections_{lang}_index.py", DETECT / f"corrections_{lang}.py"
        wanted = {index: render(lang, needles), table: with_rest(table.read_text(encoding="utf-8"), render_rest(needles))}
        total += len(needles)
        literals += sum(len(g) for gs in needles.values() for g in gs)
        for module, updated in wanted.items():
            current = module.read_text(encoding="utf-8") if module.exists() else None
            stale += current != updated
            if not args.check and current != updated:
                module.write_text(updated, encoding="utf-8")
    if args.check:
        if stale:
            print("the needles are stale: run bench/corrections_needles.py")
        return 1 if stale else 0
    print(f"{total} patterns, {literals} literals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
