"""Near-identical summaries: case-folded word tokens compared with Jaccard similarity."""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> frozenset[str]:
    # str.casefold is full Unicode case folding (ß -> ss), unlike lower().
    return frozenset(_TOKEN.findall(text.casefold()))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0
