"""Fenced code blocks, by CommonMark's rules (0.31, section 4.5): the one fence grammar.

Text inside a fence is the user's, never ours: a header line or a marker there is not an entry or
a block. Every reader of ``.learnings/`` files and of CLAUDE.md/AGENTS.md asks this module, so a
store parser and a block merger can never disagree about where a fence is.

- An opening fence is at least three backticks or tildes, indented by at most three spaces (a
  tab is four columns of indent, so a tab-indented run is indented code, not a fence). After a
  backtick fence, the info string may not contain a backtick.
- A closing fence is the same character, at least as long, indented by at most three spaces, and
  followed by nothing but spaces and tabs.
- A fence left open runs to the end of the text.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

_OPENING = re.compile(r" {0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)")
# A line can open or close a fence only if it starts with one of these.
FIRST_CHARS = frozenset(" `~")


def opening_fence(line: str) -> str | None:
    """The fence run (```` ``` ````, ``~~~~`` …) if ``line`` (without its line ending) opens a fence."""
    match = _OPENING.fullmatch(line)
    if match is None or (match["fence"][0] == "`" and "`" in match["info"]):
        return None
    return match["fence"]


def closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes the fence opened by the run ``fence``."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    run = len(stripped) - len(stripped.lstrip(fence[0]))
    return run >= len(fence) and not stripped[run:].strip(" \t")


class FenceTracker:
    """Fed the lines of a text in order (without line endings), tells which are fenced code."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: str | None = None

    @property
    def is_open(self) -> bool:
        return self._open is not None

    def inside_after(self, bare_line: str) -> bool:
        """Feed one line; True if it belongs to a fence (its opening and closing lines included)."""
        if self._open is not None:
            if closes(bare_line, self._open):
                self._open = None
            return True
        self._open = opening_fence(bare_line)
        return self._open is not None
