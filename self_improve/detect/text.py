"""The output a detector scans: windowed, cleaned and case-folded; and excerpts of it.

    def prepare(output: str, head: int, tail: int) -> Text
    class Text:  original (clean, for excerpts), folded (for matching), excerpt(folded_offset)
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import lru_cache  # functools.lru_cache, without importing functools

EXCERPT_MAX = 200


@lru_cache(maxsize=1)
def _ansi() -> re.Pattern[str]:
    return re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


class Text:
    """The scanned text: ``original`` (clean, for excerpts) and ``folded`` (for matching)."""

    __slots__ = ("original", "folded", "_source")

    def __init__(self, original: str, folded: str) -> None:
        self.original = original
        self.folded = folded
        # Folding keeps offsets unless a char folds to several (ß -> ss): then map them back.
        self._source = None if len(folded) == len(original) else original

    def to_original(self, offset: int) -> int:
        if self._source is None:
            return offset
        low, high = 0, len(self._source)  # binary search on the folded length of prefixes
        while low < high:
            mid = (low + high + 1) // 2
            if len(self._source[:mid].casefold()) <= offset:
                low = mid
            else:
                high = mid - 1
        return low

    def excerpt(self, folded_offset: int) -> str:
        """<= 200 chars from the hit on, as one line, redacted.

        Redaction comes first, on the original text (its lines intact) around a bounded window, and
        the cut after: a secret that crosses either edge of the window is replaced whole, and the
        final cut never falls inside a [REDACTED…] tag, so no part of a secret is ever kept.
        """
        if folded_offset < 0:
            return ""
        from self_improve.detect.redact import redact, shorten

        original = self.original
        anchor = min(self.to_original(folded_offset), len(original))
        start = original.rfind("\n", 0, anchor) + 1
        if anchor - start > 60:  # a long line: start shortly before the hit, at a blank if one is near
            blank = max(original.rfind(" ", anchor - 100, anchor - 40), original.rfind("\t", anchor - 100, anchor - 40))
            start = blank + 1 if blank >= 0 else anchor - 40
        end = min(len(original), start + 4 * EXCERPT_MAX)
        piece = " ".join(redact(original, window=(start, end)).split())
        return shorten(piece, EXCERPT_MAX)


def prepare(output: str, head: int, tail: int) -> Text:
    text = _window(output, head, tail)
    if "\x1b" in text:
        text = _ansi().sub("", text)
    if "\r" in text:  # CRLF endings, and progress bars that redraw a line with a bare CR
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return Text(text, text.lower() if text.isascii() else text.casefold())


def _window(output: str, head: int, tail: int) -> str:
    """The first ``head`` and last ``tail`` characters of a big output, cut at line ends so that
    no partial line can pose as a line start."""
    if len(output) <= head + tail:
        return output
    first = output[:head]
    cut = first.rfind("\n")
    first = first[:cut] if cut > 0 else first
    last = output[-tail:]
    cut = last.find("\n")
    last = last[cut + 1 :] if cut != -1 else last
    return first + "\n" + last
