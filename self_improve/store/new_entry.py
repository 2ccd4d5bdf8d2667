"""An entry we write from scratch, rendered in the reference skill's layout."""

from __future__ import annotations

from dataclasses import dataclass

from self_improve.store.grammar import PREFIX_TO_KIND

@dataclass(frozen=True)
class NewEntry:
    """Structured content of an entry we write from scratch, in the reference skill's layout."""

    id: str
    category: str
    logged: str
    priority: str = "medium"
    status: str = "pending"
    area: str = ""
    summary: str = ""
    details: str = ""
    action: str = ""
    error_excerpt: str = ""
    metadata: tuple[tuple[str, str], ...] = ()

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
