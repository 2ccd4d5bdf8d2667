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

# Which section holds the summary, the details and the suggested action, per kind.
SUMMARY_SECTIONS = ("Summary", "Requested Capability")
DETAILS_SECTIONS = ("Details", "Context", "User Context")
ACTION_SECTIONS = ("Suggested Action", "Suggested Fix", "Suggested Implementation")

# The entry-ID grammar, the one copy: TYPE-YYYYMMDD-SUFFIX, ASCII only (``\\d`` would admit other
# scripts' digits). ``ID_REGEX`` is for embedding in other patterns (a promoted rule's bullet).
ID_REGEX = r"(?:LRN|ERR|FEAT)-[0-9]{8}-[A-Za-z0-9]+"
ID_PATTERN = re.compile(r"^(LRN|ERR|FEAT)-([0-9]{8})-([A-Za-z0-9]+)$")


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
