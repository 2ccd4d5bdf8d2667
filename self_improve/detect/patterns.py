"""Regex pattern text: case-folding it, compiling it with the right engine, and proving the
literals ("needles") that every match of it contains.

    def fold_pattern(pattern: str) -> str            # case-fold the literals, keep the escapes
    def compile_pattern(pattern: str) -> Any         # compiled (cached), or None if unusable
    def needles_of(pattern: str) -> tuple[Needle, ...]
    def needle(pattern: str) -> Needle               # the most selective needle, or ()
    def pattern_needles(pattern: str) -> tuple[Needle, ...]  # the two most selective

A needle is a tuple of literals of which any match contains at least one.  Rules are tried only
when a needle of theirs occurs in the text, and the pre-screen skips the detector altogether
when no needle of any rule does.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import cache  # functools.cache, without importing functools

from self_improve.detect.nesting import closing_paren

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Needle = tuple[str, ...]  # literals of which a match contains at least one


def fold_pattern(pattern: str) -> str:
    """Case-fold the literal parts of a regex, leaving escapes (\\S, \\W, \\D, \\B...) intact.

    Folding a pattern naively would turn ``\\S`` into ``\\s`` and change its meaning.
    """
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        else:
            out.append(char.casefold())
    return "".join(out)


def compile_pattern(pattern: str) -> Any:
    """The compiled pattern, or None if unusable. A user's pattern (a ``UserPattern``, the only
    str subclass here) goes to ``regex`` with a time limit; ours to ``re``: they are linear."""
    if type(pattern) is not str:
        from self_improve.detect.user_patterns import compile_user

        return compile_user(pattern)
    return _compile_builtin(pattern)


@cache
def _compile_builtin(pattern: str) -> Any:
    """The compiled pattern (re, or regex for what only it understands), or None if unusable."""
    try:
        return re.compile(pattern, re.MULTILINE)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        pass
    try:  # e.g. \p{Han}: only the third-party engine knows it; pay its import only here
        import regex

        return regex.compile(pattern, regex.MULTILINE | regex.VERSION0)
    except Exception:  # noqa: BLE001 - any failure means "unusable pattern", never a crash
        return None


def needles_of(pattern: str) -> tuple[Needle, ...]:
    """Every needle the scan can prove for ``pattern``: a match contains at least one literal
    of EACH of them.  () when nothing is known.

    A cheap scan of the pattern text, not a full parse: runs of plain characters outside
    classes, through required groups, and the leading literals of a group's alternatives.
    Conservative: whatever it is unsure about, it leaves out.  Used for user patterns at load
    time, and by the tests to check the ``needles`` written in rules.toml.
    """
    try:
        required, _ = _needle_scan(pattern, 0, len(pattern))
    except (IndexError, ValueError):
        return ()
    return tuple(n for n in dict.fromkeys(required) if _selectivity(n) >= 3)


@cache
def pattern_needles(pattern: str) -> tuple[Needle, ...]:
    """The two most selective needles of a pattern, for the scanner's per-pattern check."""
    return tuple(sorted(needles_of(pattern), key=_selectivity, reverse=True)[:2])


def needle(pattern: str) -> Needle:
    """The most selective needle of ``pattern``, or () when none is known."""
    return max(needles_of(pattern), key=_selectivity, default=())


def _selectivity(literals: Needle) -> int:
    """How rare a needle is: its shortest member's length, a non-ASCII char counting 3."""
    if not literals:
        return 0
    return min(sum(1 if ch.isascii() else 3 for ch in lit) for lit in literals)


_QUANTIFIERS = "*?{"  # after these, the preceding item may be absent (or its count unknown)
_ZERO_WIDTH = ("^", "$", "\\b", "\\B", "\\A", "\\Z")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _needle_scan(p: str, i: int, end: int) -> tuple[list[Needle], Needle]:
    """(required needles, leading literals) of the sequence p[i:end].

    Both are empty when the sequence has a top-level alternation: then nothing is required.
    """
    required: list[Needle] = []
    run = ""
    leading: Needle | None = None

    def close_run() -> None:
        nonlocal run, leading
        if run:
            required.append((run,))
        leading = (run,) if leading is None else leading
        run = ""

    while i < end:
        c = p[i]
        if c == "|":
            return [], ()
        if c == "(":
            close = _closing(p, i, end)
            lookaround = p.startswith(_LOOKAROUND, i)
            inner, inner_lead = ([], ()) if lookaround else _group_needles(p, i, close)
            i = close + 1
            optional = i < end and p[i] in _QUANTIFIERS
            i = _skip_quantifier(p, i, end)
            if lookaround:  # zero-width: the literals around it stay adjacent
                continue
            if optional or not inner_lead or not all(inner_lead):
                close_run()
                required.extend(() if optional else inner)
                continue
            joined = tuple(run + lead for lead in inner_lead)  # "ab(?:cd|ef)": "abcd" or "abef"
            required.append(joined)
            required.extend(inner)
            leading = joined if leading is None else leading
            run = ""
            continue
        if c == "[":
            i = _skip_quantifier(p, _closing(p, i, end) + 1, end)
            close_run()
            continue
        if p.startswith(_ZERO_WIDTH, i):  # consumes nothing: neighbours stay adjacent
            i += 1 if c in "^$" else 2
            continue
        literal, width = _literal_at(p, i)
        i += width
        if literal is None or (i < end and p[i] in _QUANTIFIERS):
            i = _skip_quantifier(p, i, end)
            close_run()
            continue
        run += literal
        if i < end and p[i] == "+":
            i = _skip_quantifier(p, i, end)
            close_run()
    close_run()
    return required, leading or ()


def _group_needles(p: str, start: int, close: int) -> tuple[list[Needle], Needle]:
    """Required needles and leading literals of the group p[start:close+1]."""
    i = start + 1
    if p.startswith("?", i):
        if p.startswith(("?:", "?>"), i):  # an atomic group requires what a plain one does
            i += 2
        elif p.startswith("?P<", i):
            i = p.index(">", i) + 1
        else:
            return [], ()  # inline flags, comments, conditionals
    alternatives = _split_alternatives(p, i, close)
    if len(alternatives) == 1:
        return _needle_scan(p, i, close)
    leads: list[str] = []
    for a, b in alternatives:
        lead = _needle_scan(p, a, b)[1]
        if not lead or not all(lead):
            return [], ()  # one alternative starts with no literal: nothing is required
        leads.extend(lead)
    unique = tuple(dict.fromkeys(leads))
    return [unique], unique


def _split_alternatives(p: str, i: int, end: int) -> list[tuple[int, int]]:
    parts: list[tuple[int, int]] = []
    start = i
    while i < end:
        c = p[i]
        if c == "\\":
            i += 2
        elif c in "([":
            i = _closing(p, i, end) + 1
        elif c == "|":
            parts.append((start, i))
            i += 1
            start = i
        else:
            i += 1
    parts.append((start, end))
    return parts


def _closing(p: str, i: int, end: int) -> int:
    """Index of the ")" or "]" closing the group or class opened at p[i]."""
    if p[i] == "[":
        j = i + 1
        if j < end and p[j] == "^":
            j += 1
        if j < end and p[j] == "]":
            j += 1
        while j < end and p[j] != "]":
            j += 2 if p[j] == "\\" else 1
        if j >= end:
            raise IndexError("unclosed class")
        return j
    close = closing_paren(p, i, end, _skip_opaque)
    if close < 0:
        raise IndexError("unclosed group")
    return close


def _skip_opaque(p: str, i: int, end: int) -> int:
    """Past an escape or a character class at p[i]: a parenthesis inside either is a literal."""
    if p[i] == "\\":
        return i + 2
    if p[i] == "[":
        return _closing(p, i, end) + 1
    return i


_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


def _literal_at(p: str, i: int) -> tuple[str | None, int]:
    """(the literal character at p[i], its width in the pattern), or (None, width)."""
    c = p[i]
    if c == "\\":
        nxt = p[i + 1]
        if nxt in _ESCAPE_WIDTH:
            width = _ESCAPE_WIDTH[nxt]
            return chr(int(p[i + 2 : i + width], 16)), width
        if nxt == "n":
            return "\n", 2
        if nxt == "t":
            return "\t", 2
        if nxt.isalnum():
            return None, 2  # \d \w \s, back-references...
        return nxt, 2
    if c in ".^$)+*?{":
        return None, 1
    return c, 1


def _skip_quantifier(p: str, i: int, end: int) -> int:
    if i < end and p[i] == "{":
        close = p.find("}", i)
        i = close + 1 if close != -1 else i + 1
    elif i < end and p[i] in "*?+":
        i += 1
    if i < end and p[i] in "?+":  # lazy or possessive
        i += 1
    return i
