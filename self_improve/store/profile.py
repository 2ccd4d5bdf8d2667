"""A one-line lesson as weighted terms (``profile``), for ``store/duplicates.py`` to compare.

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

A word made of letters and hyphens (``hand-edit``) is words, not a technical token. The weights
were chosen on the tune split of ``bench/data/paraphrases.jsonl`` (``bench/dedupe.py``).
"""

from __future__ import annotations

import re  # not rx: never on a hook's path, and these patterns are compiled once per process

from self_improve.memo import lru_cache
from self_improve.store import lexicon

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

W_ANCHOR = 2.5
W_PART = 0.6  # a part of a technical token (.venv/bin/python: venv, bin, python), times its weight
W_RARE = 2.0
W_CONCEPT = 1.5
W_GENERIC = 0.5
W_CJK = 0.7
W_NUMBER = 1.0

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


# ``stem``, remembered: the same words recur in every summary of a store.
_stem = lru_cache(maxsize=100_000)(stem)


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


def glossary() -> _Lexicon:
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


def profile(text: str) -> Profile:
    """The profile of a summary (remembered: ``review`` and ``log`` compare each with many)."""
    return _profiled(text)


def normalise(text: str) -> str:
    """NFKC (for text that is not ASCII), case-folded."""
    if not text.isascii():
        import unicodedata

        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


@lru_cache(maxsize=50_000)
def _profiled(text: str) -> Profile:
    lex = glossary()
    norm = normalise(text)
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
    """The terms of one summary, collected token by token (``_profiled``)."""

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


def searchable(text: str) -> str:
    """``text`` as ``normalise`` would make it, for a substring search of a profile's needles (a
    store's summary lines, joined): full NFKC only where it changes a letter or a digit
    (full-width, compatibility forms), since the needles are never punctuation and NFKC of a
    large text is slow."""
    if not text.isascii() and _rx("compat").search(text):
        return normalise(text)
    return text.casefold()
