"""Scans of one learnings file's text at C speed, so that ``log`` never parses every entry of a
large file: the entry a request merges into, the entry a new one should point to, and whether an
ID is taken.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.detect.pattern_keys import same_key
from self_improve.store.entry import ACTIVE_STATUSES, ID_PATTERN, SUMMARY_SECTIONS, Entry, entry_offsets, split_lines
from self_improve.store.similarity import similarity, tokens

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: typing stays off their hot path
    from collections.abc import Iterable
    from typing import TypeVar

    T = TypeVar("T")

RELATED_THRESHOLD = 0.5
# A Pattern-Key line with a non-ASCII character in its value; the label's case is ignored, the
# value's classes are not (IGNORECASE would let the Kelvin sign pass for an ASCII "k"). Linear:
# from a line start it reads the line up to its first non-ASCII character.
# The label in either form: ``- Pattern-Key:``, ``**Pattern-Key**:``, ``- **Pattern-Key:**``.
_KEY_LABEL = r"(?:[-*][ \t]+)?(?:\*\*(?i:pattern-key)(?::\*\*|\*\*[ \t]?:)|(?<=[ \t])(?i:pattern-key):)"
_NON_ASCII_KEY_LINE = re.compile(rf"(?m)^{_KEY_LABEL}[\x00-\x09\x0b-\x7f]*[^\x00-\x7f]")
# The summary is one line under "### Summary" (or "### Requested Capability" for features, or a
# translation of it: grammar.SUMMARY_SECTIONS). The pattern starts with a literal newline so re
# can search for it at C speed (an entry's sections never start a file, so a match at offset 0 is
# not needed).
_SUMMARY_LINE = re.compile(
    r"(?i)\n###[ \t]+(?:" + "|".join(re.escape(title) for title in SUMMARY_SECTIONS) + r")[ \t]*:?[ \t]*\r?\n(?:[ \t]*\r?\n)*([^\r\n]*)"
)


class FileScan:
    """C-speed scans of one file's text, so that `log` never parses every entry of a large file.

    Entry boundaries (which need the fence-aware scan) are only computed once a candidate is hit.
    """

    def __init__(self, text: str, wanted: frozenset[str]) -> None:
        self.text = text
        self.wanted = wanted
        self._offsets: list[int] | None = None
        self._similar: list[tuple[float, int]] | None = None
        self._summaries: list[tuple[int, str]] | None = None

    @property
    def offsets(self) -> list[int]:
        if self._offsets is None:
            self._offsets = entry_offsets(self.text)
        return self._offsets

    def summaries(self) -> list[tuple[int, str]]:
        """Every summary line (position of its line, text), found once: ``similar`` and the
        likely duplicates (``store/duplicates.py``) both go through them."""
        if self._summaries is None:
            self._summaries = [(hit.start() + 1, hit.group(1)) for hit in _SUMMARY_LINE.finditer(self.text)]
        return self._summaries

    def entry_at(self, position: int) -> tuple[tuple[int, int], Entry] | None:
        offsets = self.offsets
        index = _bisect_right(offsets, position) - 1
        if index < 0:
            return None
        span = (offsets[index], offsets[index + 1] if index + 1 < len(offsets) else len(self.text))
        return span, Entry(tuple(split_lines(self.text[span[0] : span[1]])))

    def keyed(self, key: str) -> list[tuple[tuple[int, int], Entry]]:
        """Entries whose metadata has this Pattern-Key, in any spelling of it (``same_key``).

        The search runs on the raw text for the folded key: IGNORECASE finds every ASCII
        spelling of an ASCII key (whose fold is its lower case); a key line with a non-ASCII
        character (a Chinese key, full-width letters, a decomposed accent, written by hand or by
        an older version) is only found by folding it, so when the text has any such line those
        lines are candidates too. Each candidate is then compared folded."""
        from self_improve.detect.pattern_keys import folded

        wanted = folded(key)
        out: list[tuple[tuple[int, int], Entry]] = []
        pattern = rf"(?m)^{_KEY_LABEL}[ \t]*`?(?i:{re.escape(wanted)})`?[ \t]*\r?$"
        hits = [hit.start() for hit in re.finditer(pattern, self.text)]
        if not self.text.isascii():
            hits = sorted({*hits, *(hit.start() for hit in _NON_ASCII_KEY_LINE.finditer(self.text))})
        for position in hits:
            found = self.entry_at(position)
            if found is not None and (not out or out[-1][0] != found[0]):
                if folded(found[1].pattern_key) == wanted:
                    out.append(found)
        return out

    def active_keyed(self, key: str) -> tuple[int, int] | None:
        """The span of the first active entry with this Pattern-Key: what a request with that key
        merges into before any similar summary is considered."""
        for span, entry in self.keyed(key):
            if entry.status in ACTIVE_STATUSES and ID_PATTERN.match(entry.id):
                return span
        return None

    def similar(self, threshold: float) -> list[tuple[tuple[int, int], Entry]]:
        """Entries whose summary line scores at least ``threshold`` (at least RELATED_THRESHOLD)."""
        if self._similar is None:
            self._similar = []
            required = _required_tokens(self.wanted, RELATED_THRESHOLD)
            for position, line in self.summaries():
                # re's IGNORECASE is not full case folding, and a non-ASCII character may fold
                # into an ASCII token ("ß" -> "ss"): only ASCII lines are pre-filtered.
                if required and line.isascii():
                    lowered = line.lower()
                    if not any(token in lowered for token in required):
                        continue
                score = similarity(self.wanted, tokens(line))
                if score >= RELATED_THRESHOLD:
                    self._similar.append((score, position))
        out = []
        for score, position in self._similar:
            if score >= threshold and (found := self.entry_at(position)) is not None:
                out.append(found)
        return out


def _bisect_right(items: list[int], value: int) -> int:
    """``bisect.bisect_right``: the module is a C extension, and loading it costs a hook that
    records a failure more than this search ever will."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if value < items[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _required_tokens(wanted: frozenset[str], threshold: float) -> tuple[str, ...]:
    """Tokens of which a summary reaching ``threshold`` must contain at least one: a cheap
    pre-filter before exact scoring. Jaccard >= t needs at least ceil(t*|A|) of the wanted
    tokens, so any |A| - ceil(t*|A|) + 1 of them must include one the candidate has
    (pigeonhole). () when a wanted token is not ASCII (then every line is scored)."""
    if not wanted or not all(token.isascii() for token in wanted):
        return ()
    need = int(-(-(threshold * len(wanted)) // 1))  # math.ceil, without importing math
    return tuple(sorted(wanted, key=lambda t: (-len(t), t))[: len(wanted) - need + 1])


class IdsIn:
    """``candidate in ids`` without listing every ID of a large file."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __contains__(self, candidate: object) -> bool:
        # The reference form and the near-misses that carry an ID (``store/headers.py``).
        header = rf"###?[ \t]+\[?[ \t]*{re.escape(str(candidate))}(?![A-Za-z0-9])"
        # "\n" first: a literal start lets re search at C speed instead of trying every line.
        return re.search(rf"(?i)\n{header}", self.text) is not None or re.match(rf"(?i)\ufeff?{header}", self.text) is not None


def closest(candidates: Iterable[tuple[T, Entry]], wanted: frozenset[str], pattern_key: str, threshold: float) -> T | None:
    """Among active candidates with no Pattern-Key or this one, the first whose summary is the
    most similar to ``wanted``, if it reaches ``threshold``; each candidate comes with its handle."""
    best: tuple[float, T] | None = None
    for handle, entry in candidates:
        # An entry without a proper ID (dated, cut-off) is the user's: a log never rewrites it.
        if entry.status not in ACTIVE_STATUSES or not ID_PATTERN.match(entry.id):
            continue
        if entry.pattern_key and not same_key(entry.pattern_key, pattern_key):
            continue
        score = similarity(wanted, tokens(entry.summary))
        if score >= threshold and (best is None or score > best[0]):
            best = (score, handle)
    return best[1] if best else None


def related(scan: FileScan) -> str:
    """See Also for a new entry: the closest entry that is similar but below the merge threshold."""
    if len(scan.wanted) < 3:
        return ""
    scored = [(similarity(scan.wanted, tokens(entry.summary)), entry.id) for _, entry in scan.similar(RELATED_THRESHOLD)]
    return max(scored)[1] if scored else ""
