"""Field values as their authors meant them: decorated statuses, priorities, annotated counts, days.

Real entries decorate their values (``✅ resolved (2026-03-17 15:05)``, ``**Severity**: HIGH``,
``Recurrence-Count: 3+``, ``First-Seen: 2026-03-17T09:12:00+08:00``). The reader maps each to the
value it names; the text in the file is never changed by reading it.

- **Status**: the first status word outside parentheses names it (then inside them, then an
  emoji; after an arrow, ``pending → resolved``, the status it moved to): ``✅ resolved (2026-03-17)`` is resolved, ``open`` and ``active`` are pending, ``fixed``
  and ``done`` are resolved, ``WIP`` is in_progress, ``won't fix`` is wont_fix; a negated word
  (``not fixed``, ``unresolved``) is pending. A value naming none is returned folded, as it is,
  so ``lint`` can report it.
- **Priority** (and ``Severity`` when there is no Priority): ``HIGH``/``高`` is high, ``P0``
  critical, ``P1`` high, ``P2`` medium, ``P3``/``P4`` low, ``major``/``minor`` high/low.
- **Counts**: the leading whole number, whatever follows (``3+``, ``8+``, ``2 (…)``).
  :func:`raised_count` writes a new number keeping the annotation a user would keep: a ``+``
  ("at least") stays (``3+`` → ``4+``), and so does a unit (``3 times`` → ``4 times``) or a note
  about something else (``5 (flaky CI)`` → ``6 (flaky CI)``); a note that counts (a digit, an ordinal, "times",
  "occurrence", 第/次) described the old number and would now be false, so it goes
  (``2 (this is the second occurrence)`` → ``3``).
- **Days**: the date at the start of a timestamp (``2026-03-17 15:05``, ``2026/3/17``) as
  ``YYYY-MM-DD``.

Pure string functions with ``rx`` patterns: the hooks read statuses on every recorded failure.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.store.grammar import PRIORITIES, STATUSES

_STATUS_SET = frozenset(STATUSES)
_PRIORITY_SET = frozenset(PRIORITIES)

# Words and phrases, after folding and turning every run of non-letters into one space.
_STATUS_WORDS = {
    "promoted to skill": "promoted_to_skill", "wont fix": "wont_fix", "won't fix": "wont_fix",
    "will not fix": "wont_fix", "wontfix": "wont_fix", "not fixed": "pending", "not resolved": "pending",
    "not done": "pending", "unresolved": "pending", "unfixed": "pending", "in progress": "in_progress",
    "pending": "pending", "open": "pending", "new": "pending", "todo": "pending", "active": "pending",
    "reopened": "pending", "recurring": "pending", "wip": "in_progress", "ongoing": "in_progress",
    "investigating": "in_progress", "resolved": "resolved", "fixed": "resolved", "done": "resolved",
    "solved": "resolved", "closed": "resolved", "complete": "resolved", "completed": "resolved",
    "mitigated": "resolved", "promoted": "promoted", "rejected": "wont_fix", "declined": "wont_fix",
    "ignored": "wont_fix", "retired": "retired", "archived": "archived", "in review": "in_progress",
    "reviewing": "in_progress", "blocked": "pending", "deferred": "pending", "on hold": "pending", "backlog": "pending",
    "planned": "pending", "verified": "resolved", "implemented": "resolved", "shipped": "resolved",
    "released": "resolved", "applied": "resolved", "obsolete": "retired", "deprecated": "retired",
}
_STATUS_CJK = {
    "已解决": "resolved", "已修复": "resolved", "已完成": "resolved", "已处理": "resolved", "已解決": "resolved",
    "解决": "resolved", "完成": "resolved", "未解决": "pending", "待处理": "pending", "待解决": "pending",
    "待定": "pending", "新建": "pending", "进行中": "in_progress", "处理中": "in_progress", "修复中": "in_progress",
    "已晋升": "promoted", "已提升": "promoted", "已推广": "promoted", "不修复": "wont_fix", "不予修复": "wont_fix",
    "已归档": "archived", "已退役": "retired", "已废弃": "retired", "已关闭": "resolved", "待办": "pending",
}
_STATUS_EMOJI = {"✅": "resolved", "✔": "resolved", "☑": "resolved", "🟢": "resolved", "🔄": "in_progress",
                 "⏳": "in_progress", "🚧": "in_progress"}
_PRIORITY_WORDS = {
    "critical": "critical", "crit": "critical", "blocker": "critical", "highest": "critical",
    "p0": "critical", "high": "high", "p1": "high", "major": "high", "medium": "medium", "med": "medium",
    "moderate": "medium", "normal": "medium", "p2": "medium", "low": "low", "minor": "low", "lowest": "low",
    "trivial": "low", "p3": "low", "p4": "low",
}
_PRIORITY_CJK = {"紧急": "critical", "严重": "critical", "致命": "critical", "重要": "high", "高": "high", "中": "medium",
                 "低": "low"}


def _vocabulary(words: dict[str, str], cjk: dict[str, str]) -> re.Pattern[str]:
    # Longest first, so "not fixed" wins over "fixed" at the same place; a word stands alone.
    spelled = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    chinese = "|".join(re.escape(w) for w in sorted(cjk, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9'])(?:{spelled})(?![a-z0-9'])|{chinese}")


_STATUS_TERMS = _vocabulary(_STATUS_WORDS, _STATUS_CJK)
_PRIORITY_TERMS = _vocabulary(_PRIORITY_WORDS, _PRIORITY_CJK)
_NOT_LETTERS = re.compile(r"[^a-z0-9'\u3400-\u9fff]+")
_PARENTHESISED = re.compile(r"[(（\[【][^)）\]】]*[)）\]】]?")


def _named(value: str, pattern: re.Pattern[str], table: dict[str, str]) -> str:
    """The value the first term of ``pattern`` in ``value`` names: outside parentheses first."""
    folded = value.casefold()
    for text in (_PARENTHESISED.sub(" ", folded), folded):
        found = pattern.search(" " + _NOT_LETTERS.sub(" ", text) + " ")
        if found:
            return table[found.group(0)]
    return ""


_ARROW = re.compile(r"→|->|=>|⇒|⟶")


def status_of(value: str) -> str:
    """The status ``value`` names; "" when empty; the folded value when it names none."""
    plain = value.strip().casefold()
    if plain in _STATUS_SET or not plain:
        return plain
    moved = _ARROW.split(plain)
    if len(moved) > 1 and moved[-1].strip():  # "pending → resolved": where it moved to
        plain = moved[-1].strip()
    named = _named(plain, _STATUS_TERMS, {**_STATUS_WORDS, **_STATUS_CJK})
    if named:
        return named
    for emoji, status in _STATUS_EMOJI.items():
        if emoji in plain:
            return status
    return plain


def priority_of(value: str) -> str:
    """The priority ``value`` names, or "" when it names none (or is empty)."""
    plain = value.strip().casefold()
    if plain in _PRIORITY_SET or not plain:
        return plain
    return _named(plain, _PRIORITY_TERMS, {**_PRIORITY_WORDS, **_PRIORITY_CJK})


_LEADING_NUMBER = re.compile(r"^[ \t]*[~≈≥>约]?[ \t]*([0-9]+)")
_COUNTING_NOTE = re.compile(
    r"(?i)[0-9]|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|once|twice|thrice"
    r"|times?|occurrences?|occurred)\b|[第次回]"
)


# A unit after the number stays true of the new one ("3 times" -> "4 times").
_UNITS = frozenset({"times", "time", "x", "×", "次", "回", "mal", "veces", "fois"})


def count_of(value: str) -> int | None:
    """The whole number a count's value starts with (``3+`` → 3), or None."""
    match = _LEADING_NUMBER.match(value)
    return int(match.group(1)) if match else None


def raised_count(value: str, count: int) -> str:
    """``value`` with its number replaced by ``count``, keeping the annotations that stay true."""
    match = _LEADING_NUMBER.match(value)
    if match is None:
        return str(count)
    prefix, note = value[: match.start(1)].strip(), value[match.end(1) :].rstrip()
    kept = ""
    if note.startswith("+"):
        kept, note = "+", note[1:]
    if note.strip() and (note.strip().casefold() in _UNITS or not _COUNTING_NOTE.search(note)):
        kept += note
    return f"{prefix}{count}{kept}"


_DAY = re.compile(r"^[ \t]*\**[ \t]*([0-9]{4})[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})(?![0-9])")


def day_of(value: str) -> str:
    """The day a date or timestamp starts with, as ``YYYY-MM-DD``; "" when it starts with none."""
    match = _DAY.match(value)
    if match is None:
        return ""
    year, month, day = match.groups()
    return f"{year}-{int(month):02d}-{int(day):02d}"
