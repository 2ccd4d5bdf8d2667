"""Likely duplicates: two one-line lessons that say the same thing in other words.

``log`` merges a new occurrence by itself only when it is nearly sure (``certain``); when it is
not, it still names up to three *likely* entries (``likely``) so the agent can merge them with
``self-improve merge NEW OLD``; ``review`` groups likely duplicates among all entries
(``groups``).

A summary becomes a *profile* (``profile``): weighted terms, and which of them are rejected.

- **Terms.** Technical tokens (``.venv/bin/python``, ``--no-verify``, ``3.11``, ``requests.get``)
  and the ASCII words inside CJK text weigh most (``W_ANCHOR``); other words not in the
  stop lists (``store/lexicon.py``), stemmed, next (``W_RARE``): tool names such as pnpm are
  among them; words of the glossary become one concept per meaning, across English and
  Chinese (``W_CONCEPT``, generic ones ``W_GENERIC``); what is left of a CJK run after the
  glossary and the stop words gives character bigrams (``W_CJK``).
- **Rejected terms.** After a negation cue ("not", "never", "don't", "不要", "别"), up to the
  next clause boundary, a term is rejected ("use pnpm, not npm"): two lessons that prefer and
  reject the same term are opposites, however many words they share ("base images on alpine"
  vs "never use alpine for Python images").

``similarity`` is the cosine of two profiles (a shared term counts with the lower of its two
weights), times ``CONFLICT_PENALTY`` for opposites. ``certain`` also wants at least two meaningful
terms in common, the same technical tokens and negations, and no opposite. A word made of
letters and hyphens (``hand-edit``) is words, not a technical token. The thresholds were chosen
on the tune split of ``bench/data/paraphrases.jsonl`` (``bench/dedupe.py``).

Scanning a store (``DuplicateScan``) never parses every entry: the summary lines are found by one
regex (``FileScan.summaries``) and searched, joined, at C speed for the new summary's needles
(its terms' surfaces); only the lines that could share enough are profiled, at most
``MAX_PROFILED``, and only the entries of the best ones are parsed.
"""

from __future__ import annotations

import re  # not rx: never on a hook's path, and these patterns are compiled once per process
from self_improve.store import lexicon
from self_improve.store.entry import ACTIVE_STATUSES, Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from self_improve.store.scan import FileScan

W_ANCHOR = 2.5
W_PART = 0.6  # a part of a technical token (.venv/bin/python: venv, bin, python), times its weight
W_RARE = 2.0
W_CONCEPT = 1.5
W_GENERIC = 0.5
W_CJK = 0.7
W_NUMBER = 1.0
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

# Compiled on first use (``_rx``): a store in English never needs the CJK one, the slowest.
_PATTERNS = {
    "cjk": "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+",
    "token": r"(?P<word>[-.@#$/]*[^\W_][^\s,;!?()\[\]{}<>\"“”‘’'`=|*]*(?:['’][a-z]+)?)"
    r"|(?P<stop>[,;:!?()\[\]{}\"“”。，；：！？、（）]|\.(?!\w))",
    # letters or digits that NFKC changes (full-width, compatibility forms)
    "compat": "[\uf900-\ufaff\ufb00-\ufb4f\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff66-\uffdc]",
}
_COMPILED: dict[str, re.Pattern[str]] = {}


def _rx(name: str) -> re.Pattern[str]:
    found = _COMPILED.get(name)
    if found is None:
        found = _COMPILED[name] = re.compile(_PATTERNS[name])
    return found


_TRAILING = ".:-/'’"
_TECHNICAL = re.compile(r"[0-9._/@:+#$=-]")


def stem(word: str) -> str:
    """A crude stem that is always a prefix of the word, so it can be searched for as a substring:
    one of -ing, -ed, -es, -s, -e stripped, then at most 6 characters."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            word = word[: -len(suffix)]
            break
    return word[:6]


_STEMS: dict[str, str] = {}


def _stem(word: str) -> str:
    """``stem``, remembered (the same words recur in every summary of a store)."""
    found = _STEMS.get(word)
    if found is None:
        if len(_STEMS) > 100_000:
            _STEMS.clear()
        found = _STEMS[word] = stem(word)
    return found


class _Lexicon:
    """The glossary, loaded once: English stems and phrases, and a CJK dictionary for longest match."""

    def __init__(self) -> None:
        self.words: dict[str, tuple[str, ...]] = {}  # stem -> concepts
        self.phrases: dict[tuple[str, ...], tuple[str, ...]] = {}  # stems -> concepts
        self.cjk: dict[str, tuple[str, ...]] = {}  # CJK surface -> concepts ("" for stop / cue)
        self.generic: set[str] = set()
        self.surfaces: dict[str, list[str]] = {}  # concept -> needles (stems and CJK surfaces)
        for line in lexicon.CONCEPT_TEXT.strip().splitlines():
            name, *surfaces = line.split("|")
            if name.startswith("~"):
                name = name[1:]
                self.generic.add(name)
            concept = "=" + name
            needles = self.surfaces.setdefault(concept, [])
            for surface in surfaces:
                surface = surface.strip().casefold()
                if not surface:
                    continue
                if _is_cjk(surface[0]):
                    self.cjk[surface] = (*self.cjk.get(surface, ()), concept)
                    needles.append(surface)
                    continue
                parts = tuple(stem(part) for part in surface.replace("-", " ").split())
                if len(parts) == 1:
                    self.words[parts[0]] = (*self.words.get(parts[0], ()), concept)
                    needles.append(parts[0])
                else:
                    self.phrases[parts] = (*self.phrases.get(parts, ()), concept)
                    needles.append(parts[0])
        for surface in (*lexicon.CJK_STOP, *lexicon.CJK_NEGATIONS, *lexicon.CJK_CONTRASTS):
            self.cjk.setdefault(surface, ())
        self.cjk_negations = frozenset(lexicon.CJK_NEGATIONS)
        self.longest = max(len(surface) for surface in self.cjk)
        self.stop = lexicon.STOP
        self.negations = lexicon.NEGATIONS
        self.contrasts = frozenset(tuple(c.split()) for c in lexicon.CONTRASTS)
        self.negation_phrases = frozenset(tuple(p.split()) for p in lexicon.NEGATION_PHRASES)
        self.cue_heads = frozenset(cue[0] for cue in self.contrasts | self.negation_phrases)
        self.phrase_heads = frozenset(phrase[0] for phrase in self.phrases)


_LEXICON: _Lexicon | None = None


def _lexicon() -> _Lexicon:
    global _LEXICON
    if _LEXICON is None:
        _LEXICON = _Lexicon()
    return _LEXICON


def _is_cjk(char: str) -> bool:
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u4dbf" or "\u4e00" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


class Profile:
    """What a summary says, as terms: see the module docstring."""

    __slots__ = ("anchors", "negated", "rejected", "terms", "text", "total")

    def __init__(self, text: str, terms: dict[str, float], anchors: frozenset[str], rejected: frozenset[str],
                 negated: bool) -> None:
        self.text = text
        self.terms = terms
        self.anchors = anchors
        self.rejected = rejected
        self.negated = negated
        self.total = sum(terms.values())


_CACHE: dict[str, Profile] = {}


def profile(text: str) -> Profile:
    found = _CACHE.get(text)
    if found is None:
        if len(_CACHE) > 50_000:
            _CACHE.clear()
        found = _CACHE[text] = _profile(text)
    return found


def _normalise(text: str) -> str:
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def _profile(text: str) -> Profile:
    lex = _lexicon()
    norm = _normalise(text)
    stream: list[tuple[str, str]] = []  # ("w", word) | ("c", CJK run) | ("b", clause boundary)
    token = _rx("token")
    for is_cjk, piece in _pieces(norm):
        if is_cjk:
            stream.append(("c", piece))
            continue
        for hit in token.finditer(piece):
            _take(hit, stream)
    walk = _Walk(lex, any(kind == "c" for kind, _ in stream))
    n = 0
    while n < len(stream):
        kind, value = stream[n]
        n += 1
        if kind == "b":
            walk.negating = False
        elif kind == "c":
            walk.cjk(value)
        else:
            following = []
            for later_kind, later in stream[n : n + 2]:
                if later_kind != "w":
                    break
                following.append(later)
            n += walk.word(value, following)
    return Profile(text, walk.terms, frozenset(walk.anchors), frozenset(walk.rejected - walk.kept), walk.negated)


def _pieces(norm: str) -> list[tuple[bool, str]]:
    """The text as CJK runs (True) and the rest (False), in order."""
    if norm.isascii():
        return [(False, norm)]
    out: list[tuple[bool, str]] = []
    at = 0
    for hit in _rx("cjk").finditer(norm):
        if hit.start() > at:
            out.append((False, norm[at : hit.start()]))
        out.append((True, hit.group()))
        at = hit.end()
    if at < len(norm):
        out.append((False, norm[at:]))
    return out


def _take(hit: re.Match[str], stream: list[tuple[str, str]]) -> None:
    """One token of a non-CJK piece: a word (trailing punctuation off, ``'s`` off; a final ``.`` or
    ``:`` ends the clause), or a clause boundary."""
    value = hit.group()
    if hit.lastgroup != "word":
        stream.append(("b", value))
        return
    stripped = value.rstrip(_TRAILING)
    if stripped.endswith(("'s", "’s")):
        stripped = stripped[:-2]
    if stripped:
        stream.append(("w", stripped.replace("’", "'")))
    if value[len(stripped) :][:1] in (".", ":"):
        stream.append(("b", value[-1]))


# English words that still mean something inside CJK text, where the ASCII words are code and tools
_CJK_CONTEXT_STOP = frozenset({"a", "an", "the", "of", "and", "to", "is", "are", "or"})
# A negation covers the terms after it up to one of these (or a clause boundary).
_SCOPE_ENDS = frozenset({
    "for", "in", "on", "at", "with", "when", "because", "so", "but", "and", "or", "to", "into", "inside", "under",
    "unless", "until", "while", "where", "which", "that", "after", "before", "if", "since", "as", "then", "y", "und", "et", "e", "и", "para", "pour", "für", "для",
})


class _Walk:
    """The terms of one summary, collected token by token (``_profile``)."""

    def __init__(self, lex: _Lexicon, has_cjk: bool) -> None:
        self.lex = lex
        self.has_cjk = has_cjk
        self.terms: dict[str, float] = {}
        self.anchors: set[str] = set()
        self.rejected: set[str] = set()
        self.kept: set[str] = set()
        self.negated = False
        self.negating = False

    def add(self, term: str, weight: float) -> None:
        if weight > self.terms.get(term, 0.0):
            self.terms[term] = weight
        (self.rejected if self.negating else self.kept).add(term)

    def concepts(self, concepts: Iterable[str], scale: float = 1.0) -> None:
        for concept in concepts:
            self.add(concept, (W_GENERIC if concept[1:] in self.lex.generic else W_CONCEPT) * scale)

    def negate(self) -> None:
        self.negated = self.negating = True

    def cjk(self, run: str) -> None:
        for piece, concepts in _segment(run, self.lex):
            if piece in self.lex.cjk_negations:
                self.negate()
            elif concepts is None:  # text the glossary does not know: character bigrams
                for bigram in _bigrams(piece):
                    self.add(bigram, W_CJK)
            else:
                self.concepts(concepts)

    def word(self, word: str, following: list[str]) -> int:
        """Take one word (and a phrase it starts); returns how many following words were used."""
        lex = self.lex
        if word in lex.negations or word.endswith("n't"):
            self.negate()
            return 0
        words = [word, *following]
        if word in lex.cue_heads:  # "instead of", "rather than", "do not", "statt"
            for size in (3, 2, 1):
                if len(words) >= size and (tuple(words[:size]) in lex.contrasts or tuple(words[:size]) in lex.negation_phrases):
                    self.negate()
                    return size - 1
        if following and _stem(word) in lex.phrase_heads:  # "pull request", "lock file"
            for size in (3, 2):
                if len(words) >= size:
                    concepts = lex.phrases.get(tuple(_stem(w) for w in words[:size]))
                    if concepts:
                        self.concepts(concepts)
                        return size - 1
        if self.negating and word in _SCOPE_ENDS:
            self.negating = False
        if _TECHNICAL.search(word):
            self.technical(word)
            return 0
        if word in (_CJK_CONTEXT_STOP if self.has_cjk else lex.stop) or len(word) < 2:
            return 0
        self.plain(word, 1.0)
        return 0

    def plain(self, word: str, scale: float) -> None:
        key = _stem(word)
        concepts = self.lex.words.get(key)
        if concepts:
            self.concepts(concepts, scale)
        else:
            self.add(key, W_RARE * scale)

    def technical(self, token: str) -> None:
        """A technical token: itself, and its parts at half weight (``.venv/bin/python``: venv,
        bin, python); a number weighs little (it tells lessons apart, it does not join them)."""
        digits = token.rstrip("%")
        if digits.replace(".", "").isdigit():
            self.anchors.add(digits)
            self.add(digits, W_NUMBER)
            return
        lex = self.lex
        whole = lex.words.get(token)
        if whole is None and "-" in token.strip("-"):  # hand-edit, utf-8: a glossary phrase, or one word
            whole = lex.phrases.get(tuple(_stem(part) for part in token.split("-")))
            if whole is None and _HYPHENATED.fullmatch(token):
                whole = lex.words.get(_stem(token.replace("-", "")))
        if whole:  # the glossary knows the token (utf-8, ci/cd, re-run, lock-file)
            self.concepts(whole)
            return
        if _HYPHENATED.fullmatch(token):
            for part in token.split("-"):
                if len(part) >= 2 and part not in lex.stop:
                    self.plain(part, 1.0)
            return
        tail = _TAIL.search(token)
        if tail is not None and len(tail.group()) > 3:  # f-strings and f-string are one token
            token = token[: tail.start()] + stem(tail.group())
        self.anchors.add(token)
        self.add(token, W_ANCHOR)
        for part in _PARTS.findall(token):
            if part.isdigit():
                self.add(part, W_NUMBER)
            elif len(part) >= 2 and part not in self.lex.stop:
                self.plain(part, W_PART)


_PARTS = re.compile(r"[^\W\d_]+|\d+")
_TAIL = re.compile(r"[^\W\d_]+$")
_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def _segment(run: str, lex: _Lexicon) -> list[tuple[str, tuple[str, ...] | None]]:
    """Forward longest match of the glossary, stop words and cues over one CJK run; text between
    matches comes as one piece with ``None``."""
    out: list[tuple[str, tuple[str, ...] | None]] = []
    pending = ""
    i = 0
    while i < len(run):
        for size in range(min(lex.longest, len(run) - i), 0, -1):
            piece = run[i : i + size]
            concepts = lex.cjk.get(piece)
            if concepts is not None:
                if pending:
                    out.append((pending, None))
                    pending = ""
                out.append((piece, concepts))
                i += size
                break
        else:
            pending += run[i]
            i += 1
    if pending:
        out.append((pending, None))
    return out


def _bigrams(piece: str) -> list[str]:
    if len(piece) == 1:
        return [piece]
    return [piece[i : i + 2] for i in range(len(piece) - 1)]


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
    lex = _lexicon()
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
                # Full NFKC only where it changes a letter or a digit (full-width, compatibility
                # forms): the needles are never punctuation, and NFKC of a large text is slow.
                blob = _normalise(joined) if not joined.isascii() and _rx("compat").search(joined) else joined.casefold()
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
