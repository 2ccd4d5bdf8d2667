"""What one ``log`` call records: the request, its checks, the new entry it appends, and the
merge of one more occurrence into an entry that matched.

Pure functions over text and entries; ``Store.log`` does the reading, locking and writing.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

from self_improve.clock import datetime_classes, utcnow  # noqa: F401 - utcnow: imported from here
from self_improve.errors import UsageError
from self_improve.events import Frozen
from self_improve.store import occurrences as occ
from self_improve.store.entry import KINDS, LEARNING_CATEGORIES, PRIORITIES, SUMMARY_SECTIONS, Entry, NewEntry
from self_improve.store.tolerant import day_of, raised_count

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks log through here: no dataclasses, datetime or typing at run time
    from datetime import datetime
    from typing import Any

PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}


class LogRequest(Frozen):
    """One ``log`` call (a slotted record, ``events.Frozen``: the hooks build one per failure)."""

    __slots__ = ("kind", "summary", "pattern_key", "category", "priority", "area", "details", "action", "files",
                 "tags", "source", "session", "excerpt", "see_also", "now", "logged_by")
    kind: str
    summary: str
    pattern_key: str
    category: str
    priority: str
    area: str
    details: str
    action: str
    files: str
    tags: str
    source: str
    session: str
    excerpt: str
    see_also: str
    now: datetime | None
    # Who records it, for the provenance ledger: "hook", "import"; "" = the CLI (then "agent"
    # when it runs inside an agent session, else "cli").
    logged_by: str

    def __init__(self, kind: str, summary: str, pattern_key: str = "", category: str = "", priority: str = "",
                 area: str = "", details: str = "", action: str = "", files: str = "", tags: str = "",
                 source: str = "", session: str = "", excerpt: str = "", see_also: str = "",
                 now: datetime | None = None, logged_by: str = "") -> None:
        self._set(kind, summary, pattern_key, category, priority, area, details, action, files, tags, source,
                  session, excerpt, see_also, now, logged_by)


class LogResult(Frozen):
    __slots__ = ("entry_id", "created", "recurrence_count", "tasks", "file", "candidates")
    entry_id: str
    created: bool
    recurrence_count: int
    tasks: int
    file: str
    # A new entry that may repeat existing ones: (ID, summary, score) of each, best first
    # (``store/duplicates.py``); `self-improve merge NEW OLD` merges one.
    candidates: tuple[tuple[str, str, float], ...]

    def __init__(self, entry_id: str, created: bool, recurrence_count: int, tasks: int, file: str,
                 candidates: tuple[tuple[str, str, float], ...] = ()) -> None:
        self._set(entry_id, created, recurrence_count, tasks, file, candidates)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "created": self.created,
            "merged": not self.created,
            "recurrence_count": self.recurrence_count,
            "tasks": self.tasks,
            "file": self.file,
            "candidates": [{"id": i, "summary": s, "score": score} for i, s, score in self.candidates],
        }


def iso(now: datetime) -> str:
    return now.astimezone(datetime_classes()[1]).strftime("%Y-%m-%dT%H:%M:%SZ")


_FREE_TEXT = ("summary", "details", "action", "excerpt", "area", "files", "tags", "source", "see_also", "category")


def clean_text(text: str) -> str:
    """What may be stored of a free text: lone surrogates replaced (so every file stays UTF-8),
    then every secret redacted (``detect/redact.py``). Idempotent."""
    from self_improve.detect.redact import redact
    from self_improve.detect.sanitise import without_surrogates

    return redact(without_surrogates(text))


def cleaned(request: LogRequest) -> LogRequest:
    """The request with every free-text field through ``clean_text``: whatever the agent or a
    hook passes, the store never keeps a secret, whichever field it came in."""
    changes: dict[str, Any] = {name: clean_text(getattr(request, name)) for name in _FREE_TEXT if getattr(request, name)}
    if request.pattern_key:  # written in its one canonical spelling (``detect/pattern_keys.py``)
        from self_improve.detect.pattern_keys import canonical

        changes["pattern_key"] = canonical(request.pattern_key) or request.pattern_key  # a blank one is refused
    return request._replace(**changes)


def validate(request: LogRequest) -> None:
    if request.kind not in KINDS:
        raise UsageError(f"unknown kind {request.kind!r}: choose learning, error or feature")
    if not request.summary.strip():
        raise UsageError("the summary must not be empty")
    if "\n" in request.summary or "\r" in request.summary:
        raise UsageError("the summary must be one line")
    if request.priority and request.priority not in PRIORITIES:
        raise UsageError(f"invalid priority {request.priority!r}: choose {', '.join(PRIORITIES)}")
    if request.kind == "learning" and request.category and request.category not in LEARNING_CATEGORIES:
        raise UsageError(f"invalid category {request.category!r} for a learning: choose {', '.join(LEARNING_CATEGORIES)}")
    if request.pattern_key:  # judged in its canonical spelling, the one ``cleaned`` writes
        from self_improve.detect.pattern_keys import key_problem

        if problem := key_problem(request.pattern_key):
            raise UsageError(f"invalid Pattern-Key {request.pattern_key!r}: {problem}")
    for name in ("category", "area", "files", "tags", "source", "see_also"):
        value = getattr(request, name)
        if "\n" in value or "\r" in value:
            raise UsageError(f"--{name.replace('_', '-')} must be one line")


def _default_category(request: LogRequest) -> str:
    if request.category:
        return request.category
    if request.kind == "learning":
        return "insight"
    if request.kind == "error":
        return request.pattern_key or "command"
    return re.sub(r"[^a-z0-9]+", "_", request.summary.casefold()).strip("_")[:40] or "capability"


def new_entry(request: LogRequest, entry_id: str, now: datetime, occurrence: occ.Occurrence, see_also: str) -> NewEntry:
    day = now.strftime("%Y-%m-%d")
    metadata: list[tuple[str, str]] = [
        ("Source", request.source or ("error" if request.kind == "error" else "conversation")),
    ]
    if request.files:
        metadata.append(("Related Files", request.files))
    if request.tags:
        metadata.append(("Tags", request.tags))
    if see_also:
        metadata.append(("See Also", see_also))
    if request.pattern_key:
        metadata.append(("Pattern-Key", request.pattern_key))
    if request.kind == "error":
        metadata.append(("Reproducible", "unknown"))
    if request.kind == "feature":
        metadata.append(("Frequency", "first_time"))
    metadata.extend(
        [
            ("Recurrence-Count", "1"),
            ("First-Seen", day),
            ("Last-Seen", day),
            ("Occurrences", occurrence.render()),
        ]
    )
    if request.excerpt and request.kind != "error":
        metadata.append(("Last-Excerpt", _one_line(request.excerpt)))
    return NewEntry(
        id=entry_id,
        category=_default_category(request),
        logged=iso(now),
        priority=request.priority or "medium",
        area=request.area,
        summary=request.summary.strip(),
        details=request.details,
        action=request.action,
        error_excerpt=request.excerpt,
        metadata=tuple(metadata),
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def is_fix_only(entry: Entry, request: LogRequest, occurrence: occ.Occurrence) -> bool:
    """A fix for the incident just recorded, not a new incident.

    The hook records each failure itself; when the agent then runs the printed
    ``self-improve log error --pattern-key K --action FIX`` in the same task on the same day, that
    call describes the same occurrence, so it adds the fix without counting again.
    """
    history = entry.occurrences
    return bool(request.action.strip()) and occurrence.task != "-" and bool(history) and history[-1] == occurrence


def merge_occurrence(entry: Entry, request: LogRequest, occurrence: occ.Occurrence, keep: int) -> Entry:
    """One more occurrence: count, Last-Seen, the task, and the new fix if one was given."""
    if is_fix_only(entry, request, occurrence):
        return _with_summary(_with_action(entry, request.action.strip()), request)
    entry = _with_summary(entry, request)
    history = occ.add(entry.occurrences, occurrence, keep)
    # The count keeps the annotation that stays true ("3+" -> "4+"; ``tolerant.raised_count``).
    count = raised_count(entry.meta_or_field("Recurrence-Count"), entry.recurrence_count + 1)
    first = min(filter(None, (entry.first_seen, occurrence.date)))
    last = max(filter(None, (entry.last_seen, occurrence.date)))
    updated = entry.with_metadata("Recurrence-Count", count)
    updated = _with_day(_with_day(updated, "First-Seen", first), "Last-Seen", last)
    updated = updated.with_metadata("Occurrences", ", ".join(o.render() for o in history))
    if request.excerpt:
        updated = updated.with_metadata("Last-Excerpt", _one_line(request.excerpt))
    if request.pattern_key and not updated.pattern_key:
        updated = updated.with_metadata("Pattern-Key", request.pattern_key)
    if request.kind == "feature" and updated.meta("Frequency"):
        updated = updated.with_metadata("Frequency", "recurring")
    if request.priority and PRIORITY_RANK.get(request.priority, -1) > PRIORITY_RANK.get(updated.priority, -1):
        updated = updated.with_field("Priority", request.priority)
    if request.action.strip():
        updated = _with_action(updated, request.action.strip())
    if request.see_also and request.see_also not in updated.see_also:
        joined = ", ".join((*updated.see_also, request.see_also))
        updated = updated.with_metadata("See Also", joined)
    return recurred(updated)


def _with_day(entry: Entry, key: str, day: str) -> Entry:
    """Set a day field, leaving a timestamp that already names that day as its author wrote it."""
    if day_of(entry.meta_or_field(key)) == day:
        return entry
    return entry.with_metadata(key, day)


def recurred(entry: Entry) -> Entry:
    """A new occurrence of a promoted or resolved entry: its rule or its fix did not hold.

    A promoted one counts ``Recurred-After-Promotion`` (``review`` proposes revising its rule);
    a resolved one counts ``Recurred-After-Resolution`` and is pending again."""
    if entry.status == "promoted":
        return entry.with_metadata("Recurred-After-Promotion", str(entry.recurred_after_promotion + 1))
    if entry.status == "resolved":
        counted = entry.with_metadata("Recurred-After-Resolution", str(entry.recurred_after_resolution + 1))
        return counted.with_status("pending")
    return entry


def _with_summary(entry: Entry, request: LogRequest) -> Entry:
    """The agent's own summary in place of the hook's generic title ("Module or package not
    found"), when that title is all the entry has; a summary somebody wrote is never replaced."""
    summary = " ".join(request.summary.split())
    if not summary or summary == entry.summary:
        return entry
    from self_improve.detect.rules import load_rules
    from self_improve.detect.subjects import split

    generic = load_rules().title(split(entry.pattern_key)[0])  # a fingerprint's class
    if entry.summary != generic or summary == generic:
        return entry
    section = entry.section(*SUMMARY_SECTIONS)
    return entry.with_section(section.title if section is not None else "Summary", [summary])


def _with_action(entry: Entry, action: str) -> Entry:
    """Record a fix: fill an empty action section, or add the new fix as its latest line."""
    titles = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}
    section = entry.section(*titles.values())
    title = section.title if section is not None else titles.get(entry.kind, "Suggested Action")
    current = entry.section_text(title).strip()
    if current == action or action in current.splitlines():
        return entry
    body = action.splitlines() if not current else [*current.splitlines(), *action.splitlines()]
    return entry.with_section(title, body)


def latest_action(entry: Entry) -> str:
    """The newest fix line of an entry (fixes added by ``log --action`` accumulate, newest last)."""
    lines = [line.strip() for line in entry.suggested_action.splitlines() if line.strip()]
    return lines[-1] if lines else ""
