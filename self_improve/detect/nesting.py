"""Matching parentheses in the two small languages detect reads: regex patterns and shell lines."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def closing_paren(text: str, i: int, end: int, skip: Callable[[str, int, int], int]) -> int:
    """Index of the ")" that closes the "(" at ``text[i]``, or -1 when none does before ``end``.

    ``skip(text, j, end)`` is where the scan goes on when something opaque to parentheses starts
    at ``j`` (an escape, a quoted string, a character class), or ``j`` itself when nothing does.
    """
    depth, j = 0, i
    while j < end:
        after = skip(text, j, end)
        if after != j:
            j = after
            continue
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1
