"""The words of the entry grammar (kinds, statuses, priorities, section titles, the ID) and the
line handling every parser of ``.learnings/`` shares: lines keep their own endings.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

# Lines with their endings, only ``\n`` ending one: the diff of a planned change and every parser
# of our Markdown split text the same way (``"".join`` gives it back exactly; CRLF keeps ``\r\n``).
from self_improve.lines import lines_of as split_lines  # noqa: F401 - re-exported through store.entry

KINDS: dict[str, tuple[str, str]] = {
    # kind: (ID prefix, file name)
    "learning": ("LRN", "LEARNINGS.md"),
    "error": ("ERR", "ERRORS.md"),
    "feature": ("FEAT", "FEATURE_REQUESTS.md"),
}
PREFIX_TO_KIND = {prefix: kind for kind, (prefix, _) in KINDS.items()}
FILE_TO_KIND = {file_name: kind for kind, (_, file_name) in KINDS.items()}

STATUSES = (
    "pending",
    "in_progress",
    "resolved",
    "wont_fix",
    "promoted",
    "promoted_to_skill",
    "retired",
    "archived",
)
# Entries a new occurrence merges into; the others are closed for good.
ACTIVE_STATUSES = frozenset({"pending", "in_progress", "resolved", "promoted"})
PRIORITIES = ("low", "medium", "high", "critical")
LEARNING_CATEGORIES = ("correction", "insight", "knowledge_gap", "best_practice")

# Which section holds the summary, the details and the suggested action, per kind. The summary
# section also goes by the names real authors give it (``store/summary.py`` reads them all; the
# first two are the reference skill's, the ones we write).
SUMMARY_SECTIONS = (
    "Summary", "Requested Capability", "Problem", "What happened", "What went wrong", "TL;DR",
    "问题", "问题描述", "问题概述", "核心问题", "摘要", "总结", "概要", "概述", "简述", "现象", "問題", "要約", "요약", "문제",
    "Resumen", "Problema", "Zusammenfassung", "Résumé", "Resume", "Problème", "Sommario", "Riepilogo", "Resumo",
    "Sommaire", "Samenvatting", "Podsumowanie", "Özet", "Sammanfattning", "Сводка", "Резюме", "Суть", "Проблема",
    "Краткое описание",
)
DETAILS_SECTIONS = ("Details", "Context", "User Context")
ACTION_SECTIONS = ("Suggested Action", "Suggested Fix", "Suggested Implementation")

# The entry-ID grammar, the one copy: TYPE-YYYYMMDD-SUFFIX, ASCII only (``\\d`` would admit other
# scripts' digits). ``ID_REGEX`` is for embedding in other patterns (a promoted rule's bullet).
ID_REGEX = r"(?:LRN|ERR|FEAT)-[0-9]{8}-[A-Za-z0-9]+"
ID_PATTERN = re.compile(r"^(LRN|ERR|FEAT)-([0-9]{8})-([A-Za-z0-9]+)$")
# What a near-miss header may carry instead of ``[ID]``: an ID, or the skill's template one
# (``LRN-YYYYMMDD-XXX``, which ``lint`` reports as a leftover).
LOOSE_ID_REGEX = r"(?:LRN|ERR|FEAT)-(?:[0-9]{8}|YYYYMMDD)-[A-Za-z0-9]+"


def is_template_id(entry_id: str) -> bool:
    """The skill's placeholder (``LRN-YYYYMMDD-XXX``, or one with only the date filled in), which
    ``lint`` reports as a leftover. Our own IDs are lower case, and one in 36**3 of them ends in
    ``-xxx`` (``ids.new_id`` no longer draws it, older releases could): that is a lesson."""
    if "YYYYMMDD" in entry_id.upper():
        return True
    return entry_id.upper().endswith("-XXX") and not entry_id.endswith("-xxx")


def strip_eol(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def eol_of(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\n"):
        return "\n"
    if line.endswith("\r"):
        return "\r"
    return ""


# A bold field (``**Key**: value``, listed or not; ASCII or full-width colon) and a listed one
# (``- Key: value``): group 1 is the key, group 2 the value.
BOLD_FIELD = re.compile(r"^(?:[-*][ \t]+)?\*\*([^*\r\n]+?)(?::\*\*|\*\*[ \t]?[:：]|：\*\*)[ \t]?(.*?)[ \t]*$")
META_LINE = re.compile(r"^[-*][ \t]+([A-Za-z][A-Za-z0-9 _/-]*?)[ \t]?[:：][ \t]?(.*?)[ \t]*$")
# Other spellings of a field name (Chinese ones, spaces for hyphens): read as the reference name.
FIELD_ALIASES = {
    "status": ("状态",), "priority": ("优先级",), "severity": ("严重程度", "严重性"),
    "pattern-key": ("pattern key", "pattern_key"), "recurrence-count": ("recurrence count", "recurrence_count"),
    "first-seen": ("first seen",), "last-seen": ("last seen",),
}
