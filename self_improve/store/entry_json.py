"""An entry as JSON: the one shape ``list --json``, ``show --json`` and ``export --json`` print.

One function, so that a field has one type wherever an entry is printed: a consumer that reads
``occurrences`` from ``review --json`` (a number, ``review/report.py``) reads a number here too.
The dated history that ``export`` used to print as ``occurrences`` is ``history``
(``DATE/TASK`` strings). ``import`` reads only ``text`` (``commands/import_.py``).
"""

from __future__ import annotations

from typing import Any

from self_improve.store.archive_record import last_seen_day
from self_improve.store.entry import Entry
from self_improve.store.occurrences import distinct_tasks


def last_seen(entry: Entry) -> str:
    """The latest day it is known to have happened (YYYY-MM-DD, "" if unknown): the day
    ``review`` ages it by, ``list --since`` filters on and the table shows."""
    day = last_seen_day(entry)
    return day.isoformat() if day else ""


def entry_json(entry: Entry) -> dict[str, Any]:
    """Every field of an entry; ``form`` is how its header is written (``reference``,
    ``bare-id``, ``level-3``, ``dated``: ``id`` is "" for a dated one)."""
    return {
        "id": entry.id,
        "form": entry.form,
        "kind": entry.kind,
        "category": entry.category,
        "status": entry.status,
        "priority": entry.priority,
        "area": entry.area,
        "summary": entry.summary,
        "pattern_key": entry.pattern_key,
        "recurrence_count": entry.recurrence_count,
        "occurrences": entry.recurrence_count,  # a number, as in review's candidates
        "history": [item.render() for item in entry.occurrences],
        "tasks": distinct_tasks(entry.occurrences),
        "first_seen": entry.first_seen,
        "last_seen": last_seen(entry),
        "logged": entry.logged,
        "promoted": entry.promoted,
        "see_also": list(entry.see_also),
        "helpful": entry.helpful,
        "harmful": entry.harmful,
        "file": entry.file,
        "line": entry.line,
        "details": entry.details,
        "suggested_action": entry.suggested_action,
        "text": entry.text,
    }
