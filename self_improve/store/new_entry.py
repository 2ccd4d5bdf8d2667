"""An entry we write from scratch, rendered in the reference skill's layout."""

from __future__ import annotations

from self_improve.events import Frozen
from self_improve.store.grammar import PREFIX_TO_KIND


class NewEntry(Frozen):
    """Structured content of an entry we write from scratch, in the reference skill's layout.

    A slotted record (``events.Frozen``), not a dataclass: the hooks build one for each new error."""

    __slots__ = ("id", "category", "logged", "priority", "status", "area", "summary", "details", "action",
                 "error_excerpt", "metadata")
    id: str
    category: str
    logged: str
    priority: str
    status: str
    area: str
    summary: str
    details: str
    action: str
    error_excerpt: str
    metadata: tuple[tuple[str, str], ...]

    def __init__(self, id: str, category: str, logged: str, priority: str = "medium", status: str = "pending",
                 area: str = "", summary: str = "", details: str = "", action: str = "", error_excerpt: str = "",
                 metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self._set(id, category, logged, priority, status, area, summary, details, action, error_excerpt, metadata)

    @property
    def kind(self) -> str:
        return PREFIX_TO_KIND[self.id.split("-", 1)[0]]


def render_new(entry: NewEntry, eol: str = "\n") -> str:
    """The reference layout; the sections depend on the kind (learning, error, feature)."""
    out = [f"## [{entry.id}] {entry.category}".rstrip(), "", f"**Logged**: {entry.logged}"]
    out.append(f"**Priority**: {entry.priority}")
    out.append(f"**Status**: {entry.status}")
    if entry.area:
        out.append(f"**Area**: {entry.area}")
    out.append("")

    def section(title: str, body: str) -> None:
        out.extend([f"### {title}", *(body.splitlines() or [""]), ""])

    if entry.kind == "learning":
        section("Summary", entry.summary)
        section("Details", entry.details)
        section("Suggested Action", entry.action)
    elif entry.kind == "error":
        section("Summary", entry.summary)
        fence = "```"
        while fence in entry.error_excerpt:
            fence += "`"
        out.extend(["### Error", fence, *entry.error_excerpt.splitlines(), fence, ""])
        section("Context", entry.details)
        section("Suggested Fix", entry.action)
    else:
        section("Requested Capability", entry.summary)
        section("User Context", entry.details)
        section("Complexity Estimate", "medium")
        section("Suggested Implementation", entry.action)
    out.append("### Metadata")
    out.extend(f"- {key}: {value}" for key, value in entry.metadata)
    out.extend(["", "---"])
    return eol.join(out) + eol
