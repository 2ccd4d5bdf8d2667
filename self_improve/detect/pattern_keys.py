"""The Pattern-Key alphabet and its normal form: the one place that says which keys may be
written and when two spellings are the same key.

    def canonical(key: str) -> str      # how a key is written: stripped, NFKC ("ｔｏｏｌｓ.ｐｍ" -> "tools.pm")
    def folded(key: str) -> str         # how keys are compared: NFKC, case folded ("Tools.PM" -> "tools.pm")
    def same_key(a: str, b: str) -> bool
    def key_problem(key: str) -> str    # why a key may not be written; "" when it may

A key is a non-empty run of letters and digits of any script (``工具.包管理器``, ``outils.gestionnaire``)
and ``. _ - : / @ +``. Anything else is refused when a key is written: blanks, control and
format characters (bidi overrides, zero-width joiners), invisible fillers, quotes, ``<``, ``>``,
backticks and other punctuation, because a key reaches the model's context (``self-improve keys``,
a nudge's command) and the agent's shell unquoted. NFKC is applied first, so full-width
``ｔｏｏｌｉｎｇ`` is written as ``tooling`` and a full-width ``＜`` is refused like ``<``.

Comparison is Unicode's NFKC_Casefold in effect (NFKC, full case folding, NFKC again), so the
same key in two spellings (``Tooling.PM``, ``ｔｏｏｌｉｎｇ.pm``, a composed or decomposed ``é``)
is one key for merging, recall, review and ``keys``, whoever wrote it: an older version, a hook
or a person editing the file. The stored spelling keeps its case (``KeyError@app/models.py:load``).

ASCII keys (every key a hook writes) take a path that imports nothing: ``unicodedata`` is loaded
only for a key that has a non-ASCII character.
"""

from __future__ import annotations

KEY_PUNCTUATION = "._-:/@+"
ASCII_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" + KEY_PUNCTUATION)
# Letters and marks that render as nothing (Default_Ignorable code points of categories L and M):
# two keys that look the same must be the same key, so these are refused.
_INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0]
    + list(range(0xFE00, 0xFE10))  # variation selectors
    + list(range(0xE0100, 0xE01F0))  # variation selectors supplement
)
PROBLEM = "use letters, digits and . _ - : / @ + (no blanks, quotes, < > or backticks)"


def canonical(key: str) -> str:
    """``key`` as it is written into an entry: stripped and in NFKC (case kept)."""
    key = key.strip()
    if key.isascii():
        return key
    import unicodedata

    return unicodedata.normalize("NFKC", key).strip()


def folded(key: str) -> str:
    """``key`` as keys are compared: NFKC, case folded, NFKC again (a fold may leave a string
    that NFKC changes, as Unicode's NFKC_Casefold accounts for)."""
    key = key.strip()
    if key.isascii():
        return key.lower()  # what casefold() gives for ASCII
    import unicodedata

    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", key).casefold()).strip()


def same_key(a: str, b: str) -> bool:
    return folded(a) == folded(b)


def key_problem(key: str) -> str:
    """Why ``key`` may not be written as a Pattern-Key ("" when it may), judged on its canonical
    form: every character an ASCII letter, digit or ``. _ - : / @ +``, or a visible letter, mark
    or digit of another script."""
    key = canonical(key)
    if not key:
        return "it is empty"
    if key.isascii():
        return "" if all(ch in ASCII_ALPHABET for ch in key) else PROBLEM
    import unicodedata

    for ch in key:
        if ch in ASCII_ALPHABET:
            continue
        if ch.isascii() or ord(ch) in _INVISIBLE or unicodedata.category(ch)[0] not in "LMN":
            return PROBLEM
    return ""


def is_valid_key(key: str) -> bool:
    return not key_problem(key)
