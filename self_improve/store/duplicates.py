"""Likely duplicates: two one-line lessons that say the same thing in other words.

``log`` merges a new occurrence by itself only when it is nearly sure (``certain``); when it is
not, it still names up to three *likely* entries (``likely``) so the agent can merge them with
``self-improve merge NEW OLD``; ``review`` groups likely duplicates among all entries
(``groups``).

A summary becomes a *profile* (``store/profile.py``): weighted terms, and which of them are
rejected.

``similarity`` is the cosine of two profiles (a shared term counts with the lower of its two
weights), times ``CONFLICT_PENALTY`` for opposites. ``certain`` also wants at least two meaningful
terms in common, the same technical tokens and negations, and no opposite. The thresholds were
chosen on the tune split of ``bench/data/paraphrases.jsonl`` (``bench/dedupe.py``).

Scanning a store (``DuplicateScan``) never parses every entry: the summary lines are found by one
regex (``FileScan.summaries``) and searched, joined, at C speed for the new summary's needles
(its terms' surfaces); only the lines that could share enough are profiled, at most
``MAX_PROFILED``, and only the entries of the best ones are parsed.
"""

from __future__ import annotations

import re  # not rx: never on a hook's path, and these patterns are compiled once per process

from self_improve.store.entry import ACTIVE_STATUSES, Entry
from self_improve.store.profile import W_GENERIC, Profile, glossary, profile, searchable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from self_improve.store.scan import FileScan

CONFLICT_PENALTY = 0.8
# The thresholds, chosen on the tune split of bench/data/paraphrases.jsonl (bench/dedupe.py):
CERTAIN = 0.75  # `log` merges by itself (with the conditions of ``certain``)
MIN_SHARED = 3.0
LIKELY = 0.35  # `log` names the entry as a candidate (at most MAX_LIKELY, best first)
MAX_LIKELY = 3
MAX_PROFILED = 60  # log profiles at most this many summary lines, the most promising first
MIN_SHARED_LIKELY = 2.5  # one tool name in common is not enough ("npm test", "use npm now")
GROUP = 0.30  # `review` joins two entries into one group of likely duplicates
MAX_GROUP = 5
GROUP_POSTINGS = 40  # a term in more entries than this joins no pair by itself (it still counts in scores)


def similarity(a: Profile, b: Profile) -> float:
    """How likely two summaries are one lesson, from 0 to 1: the cosine of their weighted terms
    (a shared term counts with the lower of its two weights), less for opposites."""
    shared = _shared(a, b)
    if not shared:
        return 0.0
    score = shared / (a.total * b.total) ** 0.5
    return score * CONFLICT_PENALTY if conflict(a, b) else score


def _shared(a: Profile, b: Profile) -> float:
    if len(b.terms) < len(a.terms):
        a, b = b, a
    total = 0.0
    for term, weight in a.terms.items():
        other = b.terms.get(term)
        if other is not None:
            total += weight if weight < other else other
    return total


def conflict(a: Profile, b: Profile) -> bool:
    """One rejects a tool, a name or a technical token that the other keeps: the glossary's
    concepts do not count (a verb such as "edit" is negated in one wording of a rule and not in
    another: "never edit applied migrations", "applied migrations are immutable")."""
    for term in a.rejected ^ b.rejected:
        if term[0] != "=" and term.isascii() and term in a.terms and term in b.terms:
            return True
    return False


def certain(a: Profile, b: Profile) -> bool:
    """Nearly sure to be one lesson: very similar, sharing at least two meaningful terms, with the
    same technical tokens and negations, and no opposite."""
    if a.anchors != b.anchors or a.negated != b.negated or conflict(a, b):
        return False
    return similarity(a, b) >= CERTAIN and _shared(a, b) >= MIN_SHARED


def needles(wanted: Profile) -> list[tuple[float, tuple[str, ...]]]:
    """Each term of ``wanted`` worth a search, with its weight and the substrings of which a
    summary line that has the term contains one (stems are prefixes, concepts bring all their
    surfaces): the weights of the terms whose needles a line contains bound what it shares."""
    lex = glossary()
    out = []
    for term, weight in wanted.terms.items():
        if weight <= W_GENERIC:
            continue
        found = tuple(lex.surfaces.get(term, ())) if term.startswith("=") else (term,)
        out.append((weight, found))
    return out


def groups(
    items: Sequence[tuple[str, str]], threshold: float | None = None, max_size: int | None = None, keys: Sequence[str] = ()
) -> list[tuple[tuple[int, ...], float]]:
    """Likely duplicate groups among ``items`` (ID, summary), as indexes in their order, with the
    group's weakest link: pairs at or above ``threshold`` are joined best first (single link),
    a group never grows past ``max_size``, and never holds two different ``keys`` (Pattern-Keys,
    "" for none).

    Only pairs that share MIN_SHARED_LIKELY in terms that at most GROUP_POSTINGS items have are
    scored, so a large store is not compared pair by pair."""
    threshold = GROUP if threshold is None else threshold
    max_size = MAX_GROUP if max_size is None else max_size
    profiles = [profile(summary) for _, summary in items]
    postings: dict[str, list[tuple[int, float]]] = {}
    for index, found in enumerate(profiles):
        for term, weight in found.terms.items():
            if weight > W_GENERIC:
                postings.setdefault(term, []).append((index, weight))
    # What each pair shares in the terms that at most GROUP_POSTINGS entries have: only pairs that
    # share MIN_SHARED_LIKELY of those are scored (a large store is never compared pair by pair).
    shared: dict[tuple[int, int], float] = {}
    for members in postings.values():
        if len(members) > GROUP_POSTINGS:
            continue
        for i, (first, mine) in enumerate(members):
            for second, theirs in members[i + 1 :]:
                pair = (first, second)
                shared[pair] = shared.get(pair, 0.0) + (mine if mine < theirs else theirs)
    edges = []
    for (first, second), common in shared.items():
        if common < MIN_SHARED_LIKELY:
            continue
        score = similarity(profiles[first], profiles[second])
        if score >= threshold:
            edges.append((score, first, second))
    edges.sort(key=lambda edge: (-edge[0], edge[1], edge[2]))
    parent = list(range(len(items)))
    size = [1] * len(items)
    low = [1.0] * len(items)
    key_of = [key.casefold() for key in keys] if keys else [""] * len(items)

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for score, first, second in edges:
        a, b = root(first), root(second)
        if a == b or size[a] + size[b] > max_size:
            continue
        if key_of[a] and key_of[b] and key_of[a] != key_of[b]:
            continue
        if b < a:
            a, b = b, a
        parent[b] = a
        size[a] += size[b]
        low[a] = min(low[a], low[b], score)
        key_of[a] = key_of[a] or key_of[b]
    members_of: dict[int, list[int]] = {}
    for index in range(len(items)):
        members_of.setdefault(root(index), []).append(index)
    out = [(tuple(members), round(low[top], 2)) for top, members in members_of.items() if len(members) > 1]
    out.sort(key=lambda group: group[0][0])
    return out


class DuplicateGroup:
    """Entries of one kind that may be one lesson: the first (in file order) keeps it."""

    __slots__ = ("entries", "score")

    def __init__(self, entries: tuple[Entry, ...], score: float) -> None:
        self.entries = entries
        self.score = score

    @property
    def into(self) -> Entry:
        return self.entries[0]


def duplicate_groups(entries: Sequence[Entry]) -> list[DuplicateGroup]:
    """Likely duplicates among the active entries that were not merged away, kind by kind."""
    out: list[DuplicateGroup] = []
    by_kind: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.status in ACTIVE_STATUSES and not entry.meta("Superseded-By").strip() and entry.summary:
            by_kind.setdefault(entry.kind, []).append(entry)
    for kind in sorted(by_kind):
        members = by_kind[kind]
        found = groups([(e.id, e.summary) for e in members], keys=[e.pattern_key for e in members])
        out.extend(DuplicateGroup(tuple(members[i] for i in indexes), score) for indexes, score in found)
    return out


# ---- a store file ----------------------------------------------------------------------------------


def _line_bounds(terms: list[tuple[float, tuple[str, ...]]], blob: str) -> tuple[dict[int, float], float]:
    """For each line of ``blob`` (the summary lines, normalised, one per line) that has a needle,
    the total weight of the terms whose needles it has; and
    the weight of the terms left out because their needles are in a quarter of the lines or more
    (every line may have them: counting them would cost more than it tells)."""
    from itertools import accumulate

    ascii_only = blob.isascii()
    lengths = [len(line) + 1 for line in blob.split("\n")]  # normalising keeps the newlines
    index_at = {offset: index for index, offset in enumerate(accumulate(lengths, initial=0))}
    common = max(50, len(lengths) // 4)
    slack = 0.0
    bounds: dict[int, float] = {}
    find, rfind = blob.find, blob.rfind
    for weight, surfaces in terms:
        hit: set[int] = set()
        for needle in _minimal(surfaces, ascii_only):
            at = find(needle)
            while at != -1 and len(hit) < common:
                hit.add(index_at[rfind("\n", 0, at) + 1])
                end = find("\n", at)
                at = find(needle, end) if end != -1 else -1
        if len(hit) >= common:
            slack += weight
            continue
        for index in hit:
            bounds[index] = bounds.get(index, 0.0) + weight
    return bounds, slack


def _minimal(surfaces: tuple[str, ...], ascii_only: bool) -> list[str]:
    """The needles worth searching: none that contains another (a line with "deleti" has "delet"),
    and no non-ASCII one in ASCII text."""
    kept: list[str] = []
    for needle in sorted(set(surfaces), key=len):
        if ascii_only and not needle.isascii():
            continue
        if not any(shorter in needle for shorter in kept):
            kept.append(needle)
    return kept


class DuplicateScan:
    """The entries of one file's text that may be the lesson ``summary`` is (``Store.log``).

    Candidates are active entries with no Pattern-Key or ``key``; one superseded by another entry
    stands for the entry that replaced it (``self-improve merge`` keeps the other one's text)."""

    def __init__(self, scan: FileScan, summary: str, key: str) -> None:
        self.scan = scan
        self.wanted = profile(summary)
        self.key = key.casefold()
        self._scored: list[tuple[float, int, str]] | None = None  # score, position, summary line

    def _lines(self) -> list[tuple[float, int, str]]:
        """(score, position, summary line) of the lines at or above LIKELY, best first.

        The summary lines are joined into one casefolded text, searched at C speed for each
        term's needles; only lines whose needles could share MIN_SHARED_LIKELY, and reach LIKELY
        (cosine <= sqrt(shared / wanted total)), are profiled, at most MAX_PROFILED of them, the
        most promising first."""
        if self._scored is None:
            found: list[tuple[float, int, str]] = []
            terms = needles(self.wanted)
            summaries = self.scan.summaries() if terms else []
            if summaries:
                positions = [position for position, _ in summaries]
                lines = [line for _, line in summaries]
                joined = "\n".join(lines)
                blob = searchable(joined)
                bounds, slack = _line_bounds(terms, blob)
                need = max(MIN_SHARED_LIKELY, LIKELY * LIKELY * self.wanted.total) - slack
                # Most promising first: what a line may share, for its length (cosine is per heft).
                promising = sorted(
                    (-bound / (len(lines[index]) + 20) ** 0.5, index) for index, bound in bounds.items() if bound >= need
                )
                for _, index in promising[:MAX_PROFILED]:
                    other = profile(lines[index].strip())
                    score = similarity(self.wanted, other)
                    if score >= LIKELY and _shared(self.wanted, other) >= MIN_SHARED_LIKELY:
                        found.append((score, positions[index], lines[index].strip()))
            found.sort(key=lambda item: (-item[0], item[1]))
            self._scored = found
        return self._scored

    def _entries(self) -> Iterator[tuple[float, str, tuple[tuple[int, int], Entry]]]:
        """(score, summary line, (span, entry)) best first; each entry once."""
        seen: set[int] = set()
        for score, position, line in self._lines():
            found = _entry_near(self.scan, position, line)
            if found is None:
                continue
            found = self._successor(found)
            if found is None or found[0][0] in seen:
                continue
            seen.add(found[0][0])
            yield score, line, found

    def _successor(self, found: tuple[tuple[int, int], Entry]) -> tuple[tuple[int, int], Entry] | None:
        """The entry itself when it can take the occurrence; the one that superseded it (up to
        three hops) when it was merged away; else None. An entry of another Pattern-Key cannot
        take it, except as the successor of a merged entry when the request has no key (a
        person said the two are one lesson)."""
        for hop in range(4):
            span, entry = found
            if entry.status not in ACTIVE_STATUSES:
                return None
            successor = entry.meta("Superseded-By").strip()
            if not successor:
                key = entry.pattern_key.casefold()
                if key and key != self.key and (hop == 0 or self.key):
                    return None
                return found
            located = entry_by_id(self.scan, successor)
            if located is None:
                return None
            found = located
        return None

    def opposite(self, span: tuple[int, int]) -> bool:
        """The entry at ``span`` matched by its summary says the opposite ("use yarn, not npm" and
        "use npm, not yarn": the same words), so it may not take the occurrence. An entry of the
        request's own Pattern-Key is never opposite: the key decides."""
        found = self.scan.entry_at(span[0])
        if found is None or (self.key and found[1].pattern_key.casefold() == self.key):
            return False
        return conflict(self.wanted, profile(found[1].summary))

    def certain(self) -> tuple[int, int] | None:
        """The span of the entry this summary certainly repeats, if any."""
        for score, line, (span, _) in self._entries():
            if score < CERTAIN:
                return None
            if certain(self.wanted, profile(line)):
                return span
        return None

    def likely(self, limit: int | None = None) -> list[tuple[str, str, float]]:
        """Up to ``limit`` entries (ID, summary, score) that may be the same lesson, best first."""
        limit = MAX_LIKELY if limit is None else limit
        out: list[tuple[str, str, float]] = []
        for score, _, (_, entry) in self._entries():
            if len(out) >= limit:
                break
            out.append((entry.id, entry.summary, round(score, 2)))
        return out


_HEADER_AFTER_NEWLINE = re.compile(r"\n##[ \t]+\[")
_FENCE = re.compile(r"(?m)^ {0,3}(?:```|~~~)")


def _entry_near(scan: FileScan, position: int, line: str) -> tuple[tuple[int, int], Entry] | None:
    """The entry whose summary line starts at ``position``, without finding every entry of the file:
    the nearest header before it and the next one after it, when no code fence is in between
    (else, or when that is not the entry, the fence-aware ``FileScan.entry_at``)."""
    text = scan.text
    start = text.rfind("\n##", 0, position)
    while start != -1 and not _HEADER_AFTER_NEWLINE.match(text, start):
        start = text.rfind("\n##", 0, start)
    start = start + 1 if start != -1 else 0
    following = _HEADER_AFTER_NEWLINE.search(text, position)
    end = following.start() + 1 if following is not None else len(text)
    chunk = text[start:end]
    if not _FENCE.search(chunk):
        from self_improve.store.entry import entry_offsets, split_lines

        entry = Entry(tuple(split_lines(chunk)))
        # The fast path sees only reference headers: a chunk holding a near-miss or dated header
        # is two entries, and a merge into it would write across both.
        if entry.id and entry.summary == " ".join(line.split()) and entry_offsets(chunk) == [0]:
            return (start, end), entry
    return scan.entry_at(position)


def entry_by_id(scan: FileScan, entry_id: str) -> tuple[tuple[int, int], Entry] | None:
    """The entry of this ID in the scanned text (its header line), if there is one."""
    header = rf"(?im)^##[ \t]+\[[ \t]*{re.escape(entry_id)}[ \t]*\]"
    for hit in re.finditer(header, scan.text):
        found = scan.entry_at(hit.start())
        if found is not None and found[0][0] == hit.start() and found[1].id.upper() == entry_id.upper():
            return found
    return None


def successor(scan: FileScan, span: tuple[int, int], key: str) -> tuple[int, int] | None:
    """The span of the entry that superseded the one at ``span`` (after ``self-improve merge``),
    when that entry can take an occurrence of ``key``; else None."""
    found = scan.entry_at(span[0])
    if found is None:
        return None
    located = DuplicateScan(scan, "", key)._successor(found)
    return located[0] if located is not None else None


def keyed_successor(scan: FileScan, key: str) -> tuple[int, int] | None:
    """The first active entry of this Pattern-Key, in file order, that can take an occurrence:
    itself, or the entry it was merged into; one merged into a closed entry is passed over."""
    finder = DuplicateScan(scan, "", key)
    for found in scan.keyed(key):
        if found[1].status not in ACTIVE_STATUSES:
            continue
        located = finder._successor(found)
        if located is not None:
            return located[0]
    return None
