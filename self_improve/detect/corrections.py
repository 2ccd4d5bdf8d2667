"""Is a user prompt a correction of the agent?

    class CorrectionHit:   # immutable record: CorrectionHit(pattern, language)
        pattern: str   # name of the pattern that matched, e.g. "en.thats-wrong", "de.restate"
        language: str  # the prompt's language: "en" | "zh" | "es" | "de" | "fr" | "ja" | "pt" | "ru"

    def detect_correction(prompt: Prompt) -> CorrectionHit | None

A correction tells the agent that what IT did or said was wrong ("no, that's wrong", "I told
you...", "you forgot the tests", 不对, 别用 X, 我说过, "eso está mal", "das stimmt nicht",
"tu as oublié", "você esqueceu", "ты забыл", 違います), restates an earlier instruction ("as I
said", 我再说一遍), states a house rule against what the agent did ("we never push to main",
"tabs only in Makefiles", "follow what is already there"), corrects a fact (an API, a version,
a name or a flag: "that option went away in 2.0", "the module is called yaml"), or disagrees
politely ("I'm not sure that's right", "I'd rather you didn't").  Talking about errors is not a
correction: "fix the error in foo.py", "why does this test fail?", "what's wrong with my query"
ask for work on the user's code and say nothing about the agent's behaviour; neither is a
judgement of somebody else's work (用户反馈价格不对, "the vendor SDK returns the wrong
timezone").

Decisions on borderline forms (tests/data/corrections*.jsonl hold labelled examples):
- "Actually, ..." with a comma is a correction: the user takes back or redirects what the agent
  is doing.  "actually run the tests" (no comma) is an instruction with emphasis: not one.
  "you didn't actually run the tests" is one, through "you didn't".
- "don't use X" alone can be the constraint of a first request; it counts only with a
  replacement ("don't use X, use Y"), or as "stop using X".  别用 X / 不要用 X counts, unless
  the prompt opens as a request for new work (写一个…，不要用 pandas).
- A leading "No," counts unless an answer follows ("No, I haven't", "No, just this file",
  "No, go ahead", "No, the old one can go", "No, not urgent") or nothing after it corrects
  anything (no negation, contrast, imperative of undoing, "that's", "I said"); likewise
  "Nein,", "Non,", "Não,", "Нет,", いや、.  Beyond those lists the model decides: a leading
  "No," counts only where its log-odds reach MODEL_NO_VETO ("No, the printer is a Zebra, so
  ZPL" answers; "No, the port is 8883, not 1883" corrects), except a bare "No." and "No, use X".
- A house rule in a prompt that opens as a request for new work ("Write a script ... Standard
  library only") is a constraint given up front, not a correction.  "No need to X" up
  front is an instruction; "no need for that" is a correction.
- A judgement word counts when it is aimed at the agent's work: at the start of a clause, after
  "that/this/it" or "you"; not after another subject (不对 after 价格, "está mal" after "el
  cálculo del IVA", 間違ってる after 計算が).
- A pattern that also fits a genuine question ("is this the wrong file?", 应该用哪个库？)
  is skipped when its sentence ends with a question mark; "why did you ...?" is always one.

Language (prompt_language.py): the prompt's script decides for zh, ja and ru, function words and
accents for the Latin languages; only the patterns of the likeliest languages are tried, and a
leading "No," only in the likeliest one, so "No, es un repo privado" never meets the English
"No," pattern.

Matching is on the case-folded prompt (str.casefold: ß is "ss"), with curly apostrophes
straightened; of a long prompt only the first 2,000 and last 500 characters are read.  A
sentence ends at a mark, a dot only before a blank ("config.py" ends nothing).  Each language
has a table of patterns (corrections_en.py, corrections_zh.py, ...) and a generated index
(corrections_en_index.py, ...: each pattern's first, cheapest needle group).  A pattern is
tried only when each of its needle groups has a literal in the prompt (bench/corrections_needles.py
derives them from the parsed regex; the tests check them); a prompt none of whose first groups
occurs never loads the table, let alone the regex machinery.  On a long prompt the index's
BY_GRAM (a needle's first three characters -> its patterns) picks the patterns to look at from
the prompt's 3-grams, so most patterns are not looked at at all.

Where no pattern matches, a model gives a second opinion (``corrections_model.py``: a logistic
regression over hashed words and classes of cue words, fitted on the tune and calib splits by
bench/train_corrections_model.py; the hit is "<lang>.model").

Every pattern is linear in the text (tests/detect/test_corrections_linear.py, timings in
bench/corrections_linear.py): blanks at a line start stay on that line (spanning blank lines
they were rescanned from each of them), "A then B in the same sentence" scans each sentence
once from its start (or looks at most a bounded number of characters ahead), and blanks before
a literal are matched possessively.
"""

from __future__ import annotations

from self_improve.detect import prompt_language
from self_improve.events import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from self_improve.events import Prompt

LANGUAGES = ("en", "zh", "es", "de", "fr", "ja", "pt", "ru")


class CorrectionHit(Frozen):
    """Which correction pattern matched (e.g. "en.i-told-you"), and the prompt's language."""

    __slots__ = ("pattern", "language")
    pattern: str
    language: str

    def __init__(self, pattern: str, language: str) -> None:
        self._set(pattern, language)


class _Pattern(Frozen):
    """A named correction regex; ``skip_questions``: ignore a match whose sentence ends in "?"."""

    __slots__ = ("name", "regex", "skip_questions")
    name: str  # "<lang>.<what>"
    regex: str
    skip_questions: bool

    def __init__(self, name: str, regex: str, skip_questions: bool = False) -> None:
        self._set(name, regex, skip_questions)

    @property
    def language(self) -> str:
        return self.name.split(".", 1)[0]


Row = tuple  # (name, regex, skip_questions): a pattern as the language tables hold it


def _table(lang: str) -> Any:
    """The module of ``lang``'s patterns (corrections_<lang>.py), imported on first use."""
    return __import__(f"self_improve.detect.corrections_{lang}", fromlist=["PATTERNS"])


def _index(lang: str) -> Any:
    """The needles of ``lang``'s patterns (corrections_<lang>_index.py): a prompt none of whose
    patterns has all its needles never loads the regexes."""
    return __import__(f"self_improve.detect.corrections_{lang}_index", fromlist=["FIRST"])


def __getattr__(name: str) -> Any:
    """``PATTERNS``: every pattern of every language as a :class:`_Pattern` (for the tests and
    the benchmarks; the hot path reads the rows of one language)."""
    if name == "PATTERNS":
        return tuple(_Pattern(*row) for lang in LANGUAGES for row in _table(lang).PATTERNS)
    raise AttributeError(name)


def needles(name: str) -> tuple[tuple[str, ...], ...]:
    """The needle groups of the pattern ``name``: it is tried only when each group has a literal
    in the prompt."""
    lang = name.split(".", 1)[0]
    index, table = _index(lang), _table(lang)
    groups = {n: (first, *rest) for n, first, rest in zip(index.NAMES, index.FIRST, table.REST, strict=True)}
    return groups.get(name, ())


# ---- matching -------------------------------------------------------------------------------------

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
# A sentence ends at a mark; a dot only before a blank or the end ("config.py" is no end).
_SENTENCE_END = r"[?？!。！\n]|\.(?!\S)"


# A correction is said in a sentence or two; a long prompt is mostly pasted material (logs,
# code), so only its start and its end are read.
HEAD_CHARS = 2000
TAIL_CHARS = 500


_COMPILED: dict[str, Any] = {}


def _compile(regex: str) -> Any:
    """Compiled once per process (``rx``: once per machine); the regex machinery is loaded only
    once a needle has matched, so a prompt that is clearly no correction costs none at all."""
    found = _COMPILED.get(regex)
    if found is None:
        from self_improve import rx

        found = _COMPILED[regex] = rx.compile(regex, rx.MULTILINE)
    return found


def _normalise(text: str) -> str:
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = f"{text[:HEAD_CHARS]}\n{text[-TAIL_CHARS:]}"
    return text.translate(_APOSTROPHES).casefold()


def _in_question(text: str, end: int, seen: list[int] | None = None) -> bool:
    """Does the sentence holding position ``end`` end with a question mark?

    ``seen`` ([searched from, stop found]) carries the last search over: the many matches of
    one long sentence then cost one scan to its end, not one each (quadratic).
    """
    if seen is not None and seen[0] <= end <= seen[1]:
        stop = seen[1]
    else:
        found = _compile(_SENTENCE_END).search(text, end)
        stop = found.start() if found is not None else len(text)
        if seen is not None:
            seen[:] = (end, stop)
    return stop < len(text) and text[stop] in "?？"


def _matches(text: str, regex: str, skip_questions: bool, veto: str | None, veto_at: str | None,
             seen: list[int]) -> bool:
    """Has ``regex`` a match that counts: not in a question (when ``skip_questions``), not where
    ``veto_at`` matches at its start, and in a prompt where ``veto`` does not occur?"""
    for match in _compile(regex).finditer(text):
        if skip_questions and _in_question(text, match.end(), seen):
            continue
        if veto_at is not None and _compile(veto_at).match(text, match.start()) is not None:
            continue
        return veto is None or _compile(veto).search(text) is None
    return False


def detect_correction(prompt: Prompt) -> CorrectionHit | None:
    """The first correction pattern that matches the prompt (a leading "No," unless the model
    vetoes it), else the model's verdict, or None."""
    text = _normalise(prompt.text or "")
    if not text.strip():
        return None
    languages = prompt_language.languages(text)
    found = _by_patterns(text, languages)
    if found is not None and not is_leading_no(found.pattern):
        return found  # the model is asked only about a leading "No," and where no pattern matched
    from self_improve.detect import corrections_model as model

    logit = model.correction_logit(text)
    if found is not None and logit < model.MODEL_NO_VETO and answers_can_veto(text):
        # A leading "No," answers a question as often as it rejects what the agent did ("No, the
        # printer is a Zebra, so ZPL" / "No, the port is 8883, not 1883"): the words after it decide,
        # and the model reads them better than a list of answers can. Another pattern may stand.
        found = _by_patterns(text, languages, skip_leading_no=True)
    if found is not None:
        return found
    if logit >= model.MODEL_THRESHOLD:
        return CorrectionHit(f"{languages[0]}.model", languages[0])
    return None


def is_leading_no(pattern: str) -> bool:
    """Is ``pattern`` one of the "<lang>.no" patterns (a leading "No," / "Nein," / いや、)?"""
    return pattern.endswith(".no")


# "No, use X": a replacement for what the agent did, whatever the model makes of the rest.
_USE = frozenset({"use", "usa", "utiliza", "usá", "usar", "nimm", "benutze", "verwende", "nutze", "utilise",
                  "utilisez", "prends", "prenez", "используй", "используйте", "возьми", "бери"})
_USE_JA = ("を使って", "を使え", "を使用して", "使ってください")


def answers_can_veto(text: str) -> bool:
    """Can the model's veto of a leading "No," apply to ``text`` (case-folded)? Not to a bare
    "No." / "Nein!" (nothing after it for the model to read), nor to "No, use X" (the replacement
    of what the agent did: the decision of this module's docstring)."""
    words = text.translate(prompt_language.PUNCTUATION).split()
    if _USE.intersection(words[1:3]) or any(verb in text[:40] for verb in _USE_JA):
        return False
    # Japanese writes no spaces: いや、 and what follows it are one "word"
    return len(words) > 1 or (text.lstrip()[:1] >= "\u3040" and len(text.strip()) > 6)


def detect_correction_by_patterns(prompt: Prompt, skip_leading_no: bool = False) -> CorrectionHit | None:
    """detect_correction without the model (for its training and the benchmarks); with
    ``skip_leading_no``, what it falls back on when the model vetoes a leading "No,"."""
    text = _normalise(prompt.text or "")
    return _by_patterns(text, prompt_language.languages(text), skip_leading_no) if text.strip() else None


GRAMS_FROM = 300  # from this length on, a needle is looked up in the text's 3-grams first


def _by_patterns(text: str, languages: tuple[str, ...], skip_leading_no: bool = False) -> CorrectionHit | None:
    seen = [len(text) + 1, len(text) + 1]  # nothing searched yet
    grams: set[str] = set()
    if len(text) < GRAMS_FROM:
        contains = text.__contains__

        def holds(group: tuple[str, ...]) -> bool:
            """Does the text hold a literal of ``group``? (A scan of a short text is cheap.)"""
            return any(map(contains, group))
    else:
        # A needle occurs only where its first three characters do: on a long prompt, the
        # text's 3-grams pick the patterns to look at (each index's BY_GRAM), and a set lookup
        # rules most needles out for less than a scan of the text each.
        grams = {text[i:i + 3] for i in range(len(text) - 2)}
        known: dict[str, bool] = {}  # needle -> in the text (many patterns share a needle)

        def holds(group: tuple[str, ...]) -> bool:
            """Does the text hold a literal of ``group``?"""
            for needle in group:
                found = known.get(needle)
                if found is None:
                    found = known[needle] = (len(needle) < 3 or needle[:3] in grams) and needle in text
                if found:
                    return True
            return False

    # A leading "No," is read in the likeliest language only ("No, no usamos Docker en local" is a
    # Spanish answer, whatever the English "No," pattern makes of it), unless no word decided it.
    no_in = languages if languages == prompt_language.LATIN else languages[:1]
    for lang in languages:
        index = _index(lang)
        firsts = index.FIRST
        skip_no = skip_leading_no or lang not in no_in
        if len(text) < GRAMS_FROM:
            positions: Any = range(len(firsts))
        else:
            # Only the patterns one of whose first needles starts with a 3-gram of the text (or
            # has a needle shorter than that) can hold: the others are never looked at.
            found_at = set(index.SHORT)
            for gram in index.BY_GRAM.keys() & grams:
                found_at.update(index.BY_GRAM[gram])
            positions = sorted(found_at)
        for position in positions:
            if not holds(firsts[position]) or (skip_no and is_leading_no(index.NAMES[position])):
                continue
            table = _table(lang)
            if not all(holds(group) for group in table.REST[position]):
                continue
            name, regex, skip_questions = table.PATTERNS[position]
            if _matches(text, regex, skip_questions, table.UNLESS.get(name), table.UNLESS_AT.get(name), seen):
                return CorrectionHit(name, lang)
    return None
