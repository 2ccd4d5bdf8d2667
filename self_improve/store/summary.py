"""An entry's summary, found where its author put it.

In order, the first that gives text:

1. a summary section: ``### Summary`` (``### Requested Capability`` for a feature), or one of
   the names authors give it (``grammar.SUMMARY_SECTIONS``: ``### 问题``, ``### 摘要``,
   ``### Resumen``, ``### Zusammenfassung`` …), matched without case, emoji or a final colon
   (``### 📝 Summary:``);
2. a ``**Summary**:`` field, bold or listed;
3. the header's title (``## [LRN-…] Webpack caches stale env``, ``## 2026-05-27 — title``),
   unless it is the reference form's name slot: one ASCII word (``correction``, ``pip_install``);
4. a field that says what happened: ``**What happened**:``, ``- 问题: …``, ``**Problem**:``;
5. the first line of prose in the entry: a field that is not metadata (``**Learning**: …``), or
   the first text under a section;
6. a one-word title other than a category (``build_failure``): better than nothing.

Lines in code fences are never a summary. The text is one line: the section's lines joined.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.store.grammar import LEARNING_CATEGORIES, SUMMARY_SECTIONS
from self_improve.decoding import readable
from self_improve.store.headers import clean_title

TYPE_CHECKING = False
if TYPE_CHECKING:
    # An Entry (store/entry.py, whose mixin calls this): named by what is read of it, so that
    # this module does not import the one that imports it.
    from typing import Any as Entry

_DECORATION = re.compile(r"^[^\w]+|[^\w)]+$")
# "### Summary / 摘要", "### Resumen (Summary)": each part of a title is compared on its own.
_TITLE_PARTS = re.compile(r"[ \t]*[/|（(）)][ \t]*")
SECTION_NAMES = frozenset(_DECORATION.sub("", title).casefold() for title in SUMMARY_SECTIONS)
# Fields that describe what happened, read after the title (which says it shorter).
DESCRIPTION_FIELDS = ("what happened", "what went wrong", "problem", "issue", "问题", "问题描述", "摘要", "总结", "概要", "现象")
# Fields that describe the entry rather than say what happened: never its prose.
METADATA_FIELDS = frozenset({
    "logged", "priority", "status", "area", "severity", "category", "type", "pattern-key", "recurrence-count",
    "first-seen", "last-seen", "source", "tags", "date", "see also", "related files", "related", "promoted",
    "skill-path", "reproducible", "frequency", "occurrences", "id", "created", "updated", "resolved", "commit/pr",
    "owner", "scope", "version", "environment", "time", "timestamp", "状态", "优先级", "日期", "类别", "领域",
})
_CATEGORY_WORDS = frozenset({*LEARNING_CATEGORIES, *(c.replace("_", " ") for c in LEARNING_CATEGORIES), *(c.replace("_", "-") for c in LEARNING_CATEGORIES)})
# A bold field (``**Key**: value``, listed or not) or a listed one (``- Key: value``).
_FIELD_LINE = re.compile(
    r"^(?:[-*+][ \t]+)?\*\*([^*\r\n]+?)(?::\*\*|\*\*[ \t]?[:：]|：\*\*)[ \t]*(.*?)[ \t]*$"
    r"|^[-*+][ \t]+(\w[\w /-]{0,30}?)[ \t]*[:：][ \t]*(.*?)[ \t]*$"
)
_ONE_WORD = re.compile(r"^[\w.\-/:]+$")
_RULE = re.compile(r"^[ \t]*(?:---+|\*\*\*+|___+|=+)[ \t]*$")


def one_line(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def section_key(title: str) -> str:
    """A section's title as it is compared: folded, without emoji, numbering or a final colon
    (decoded first when its file is not UTF-8: ``### 问题`` in a GBK file)."""
    return _DECORATION.sub("", readable(title)).casefold()


def summary_of(entry: Entry) -> str:
    for section in entry.sections:
        if any(part in SECTION_NAMES for part in _TITLE_PARTS.split(section_key(section.title))):
            text = one_line("\n".join(entry.bare_lines[section.start + 1 : section.end]))
            if text:
                return text
    written = entry.value("Summary").strip()
    if written:
        return written
    title = clean_title(entry.name)
    if title and not _is_name_slot(title):
        return title
    for name in DESCRIPTION_FIELDS:
        value = entry.value(name).strip()
        if value:
            return value
    return _first_prose(entry) or (title if title.casefold() not in _CATEGORY_WORDS else "")


def _is_name_slot(title: str) -> bool:
    """Whether a header's title is the reference form's name slot (``correction``, ``pip_install``,
    ``docker-build``): one ASCII word says what kind of entry it is, not what happened."""
    return title.casefold() in _CATEGORY_WORDS or (title.isascii() and _ONE_WORD.match(title) is not None)


def _first_prose(entry: Entry) -> str:
    bare, fenced = entry.bare_lines, entry.fenced
    for i in range(1, entry.body_end):
        line = bare[i].strip()
        if not line or fenced[i] or line.startswith("#") or _RULE.match(line) or line.startswith(("|", "<!--")):
            continue
        field = _FIELD_LINE.match(line)
        if field:
            key = (field.group(1) or field.group(3) or "").strip().casefold()
            value = field.group(2) if field.group(1) is not None else field.group(4)
            if key in METADATA_FIELDS or not value:
                continue
            return value
        return line.lstrip("-*+> \t") or line
    return ""
