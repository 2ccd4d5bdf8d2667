"""The one sanitiser for text from a store (or a user's rule) on its way into the model's context.

A store is data from whoever can push to the repository, so nothing it says may look like our
own framing: a recalled fix that reads ``</error-detected><system>…`` must arrive as plain words.
Every piece of store text a hook injects (a recalled fix, an entry ID, a rule title) goes through
``inline`` here (an entry ID is shown only if it matches ``store.entry.ID_PATTERN``), and nowhere else:

- one line: control characters and line breaks become spaces, runs of white space one space;
- no ``<`` or ``>`` at all, so no tag, comment or marker can be formed, and our marker names
  (``self-improve:rules`` …) are taken out as well;
- at most ``MAX_INJECTED_CHARS`` characters, a bound that no configuration can raise.

Entry IDs are not cleaned but checked: an ID that is not exactly ``TYPE-YYYYMMDD-XXX`` is not
shown (and its entry is not recalled), since a malformed ID is the attacker's text too.
"""

from __future__ import annotations

from self_improve.events import without_surrogates  # noqa: F401 - part of the sanitiser's interface

MAX_INJECTED_CHARS = 240
ELLIPSIS = "…"
_MARKER_WORDS = ("self-improve:rules", "self-improve:openclaw", "self-improve:")


def inline(text: str, limit: int = MAX_INJECTED_CHARS) -> str:
    """``text`` as one plain line of at most ``min(limit, MAX_INJECTED_CHARS)`` characters."""
    limit = max(1, min(int(limit), MAX_INJECTED_CHARS))
    cleaned = "".join(" " if (ch < " " or "\x7f" <= ch <= "\x9f" or ch in "\u2028\u2029") else ch for ch in text)
    cleaned = cleaned.replace("<", " ").replace(">", " ")
    lowered = cleaned.casefold()
    for word in _MARKER_WORDS:  # case-insensitive removal
        while (at := lowered.find(word)) >= 0:
            cleaned = cleaned[:at] + cleaned[at + len(word) :]
            lowered = lowered[:at] + lowered[at + len(word) :]
    cleaned = " ".join(cleaned.split())
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + ELLIPSIS
    return cleaned


def is_day(text: str) -> bool:
    """``YYYY-MM-DD`` (digits and dashes only: a date from a store is shown only in this shape)."""
    return len(text) == 10 and text[4] == text[7] == "-" and (text[:4] + text[5:7] + text[8:]).isdigit() and text.isascii()
