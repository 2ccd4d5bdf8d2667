"""The three-way merge machinery every merge of ours is built on.

A merge is a pure ``(base, ours, theirs) -> MergeResult`` function over whole texts. The only
impure one is :func:`git_text_merge`, which runs ``git merge-file`` on temp files; the merge
driver passes it in, and every merge defaults to the pure :func:`plain_text_merge`.
:func:`merge_keyed` is the one algorithm behind every structured level (entries in a file, parts
of an entry, lines of a field list, bullets of a rules block).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

OURS_MARKER = "<<<<<<< ours"
SEPARATOR_MARKER = "======="
THEIRS_MARKER = ">>>>>>> theirs"


@dataclass(frozen=True)
class MergeResult:
    """The merged text and where it conflicts (empty when the merge is clean)."""

    text: str
    conflicts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # things worth a line on stderr that are not conflicts

    @property
    def clean(self) -> bool:
        return not self.conflicts


TextMerge = Callable[[str, str, str], MergeResult]
"""A line-level three-way merge of plain text: ``(base, ours, theirs) -> MergeResult``."""


# ---- plain text --------------------------------------------------------------------------------


def terminated(text: str, eol: str) -> str:
    """``text`` with a final line ending (``eol``) unless it is empty or already has one."""
    return text if not text or text.endswith("\n") else text + eol


def dominant_eol(text: str) -> str:
    """CRLF when more lines end so than with a bare LF; LF otherwise (ties, no newline at all)."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf * 2 > text.count("\n") else "\n"


def conflict_lines(ours: Sequence[str], theirs: Sequence[str], eol: str) -> tuple[str, ...]:
    """Both versions between git-style markers; every line ends with a line ending."""
    return (
        OURS_MARKER + eol,
        *(terminated(line, eol) for line in ours),
        SEPARATOR_MARKER + eol,
        *(terminated(line, eol) for line in theirs),
        THEIRS_MARKER + eol,
    )


def both_texts(ours: str, theirs: str, eol: str) -> str:
    """Two whole texts as one conflict: nothing of either side is lost."""
    return "".join(conflict_lines([ours], [theirs], eol))


def one_side_changed(base: str, ours: str, theirs: str) -> MergeResult | None:
    """The changed side when the other is still the base (ours when neither changed); else None."""
    if ours == base:
        return MergeResult(theirs)
    if theirs == base:
        return MergeResult(ours)
    return None


def plain_text_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """The pure fallback: one-sided changes merge; anything else is one whole-text conflict."""
    if ours == theirs:
        return MergeResult(ours)
    return one_side_changed(base, ours, theirs) or MergeResult(both_texts(ours, theirs, dominant_eol(ours)), ("text",))


def git_text_merge(base: str, ours: str, theirs: str) -> MergeResult:
    """``git merge-file -p`` on the three texts (git's own line merge); the pure fallback if git fails."""
    if ours == theirs:
        return MergeResult(ours)
    if (taken := one_side_changed(base, ours, theirs)) is not None:
        return taken
    with tempfile.TemporaryDirectory(prefix="self-improve-merge-") as scratch:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(scratch, name)
            with open(path, "wb") as handle:
                handle.write(text.encode("utf-8", "surrogateescape"))
            paths.append(path)
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
                capture_output=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return plain_text_merge(base, ours, theirs)
    # Exit status: 0 clean, N > 0 conflicts (capped at 127), negative (255) on error.
    if done.returncode < 0 or done.returncode > 127:
        return plain_text_merge(base, ours, theirs)
    text = done.stdout.decode("utf-8", "surrogateescape")
    return MergeResult(text, ("text",) * min(done.returncode, 1))


# ---- a keyed three-way sequence merge ----------------------------------------------------------

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def merge_keyed(
    base: Sequence[tuple[K, V]],
    ours: Sequence[tuple[K, V]],
    theirs: Sequence[tuple[K, V]],
    both_changed: Callable[[K, V | None, V, V], V],
    *,
    theirs_new_at_end: bool,
) -> list[V]:
    """Three-way merge of sequences of keyed items (keys unique within each sequence).

    Present on both sides: a side equal to base yields to the other; else ``both_changed``.
    Present on one side: kept, unless base had it unchanged (then the other side deleted it).
    Order: ours' order; theirs' new items at the end, or (``theirs_new_at_end=False``) after the
    item before them in theirs and after ours' own insertions at that place.
    """
    b, o, t = dict(base), dict(ours), dict(theirs)

    def merged(key: K) -> tuple[bool, V | None]:
        if key in o and key in t:
            if key in b and o[key] == b[key]:
                return True, t[key]
            if key in b and t[key] == b[key]:
                return True, o[key]
            return True, both_changed(key, b.get(key), o[key], t[key])
        side = o if key in o else t
        if key in b and side[key] == b[key]:
            return False, None  # deleted on the other side, unchanged here
        return True, side[key]

    values: dict[K, V] = {}
    order: list[K] = []
    for key, _ in ours:
        keep, value = merged(key)
        if keep:
            values[key] = value  # type: ignore[assignment]
            order.append(key)
    last_anchor = -1
    for key, _ in theirs:
        if key in o:
            if key in values and not theirs_new_at_end:  # index() is linear: only where anchors matter
                last_anchor = order.index(key)
            continue
        keep, value = merged(key)
        if not keep:
            continue
        values[key] = value  # type: ignore[assignment]
        if theirs_new_at_end:
            order.append(key)
            continue
        last_anchor += 1
        # Both sides inserted after the same item: ours' insertions first, then theirs'.
        while last_anchor < len(order) and order[last_anchor] not in b and order[last_anchor] not in t:
            last_anchor += 1
        order.insert(last_anchor, key)
    return [values[key] for key in order]


def with_ordinals(keys: Iterable[Hashable]) -> list[tuple[Hashable, int]]:
    """Make keys unique by numbering repeats: the n-th ``x`` on each side is the same item."""
    seen: Counter[Hashable] = Counter()
    out = []
    for key in keys:
        out.append((key, seen[key]))
        seen[key] += 1
    return out
