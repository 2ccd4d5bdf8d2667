"""Occurrence history: what makes "≥3 occurrences in ≥2 tasks within 30 days" computable from disk.

Each entry keeps ``- Occurrences: DATE/TASK, …`` (oldest first), bounded to the last N, plus the
totals ``Recurrence-Count``, ``First-Seen`` and ``Last-Seen``. When the bound is hit we drop the
oldest occurrence whose task appears again later in the list, so task diversity (the second half
of the promotion rule) survives the trimming; only when every task is unique does the oldest go.
"""

from __future__ import annotations

from self_improve.events import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: no dataclasses, datetime or typing at run time
    from collections.abc import Iterable
    from datetime import date


class Occurrence(Frozen):
    __slots__ = ("date", "task")
    date: str  # YYYY-MM-DD
    task: str  # short hash of the harness session id, or "-" when unknown

    def __init__(self, date: str, task: str) -> None:
        self._set(date, task)

    def render(self) -> str:
        return f"{self.date}/{self.task}"


def parse_occurrences(value: str) -> tuple[Occurrence, ...]:
    out: list[Occurrence] = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        date, _, task = item.partition("/")
        out.append(Occurrence(date.strip(), task.strip() or "-"))
    return tuple(out)


def add(history: Iterable[Occurrence], new: Occurrence, keep: int) -> tuple[Occurrence, ...]:
    items = [*history, new]
    keep = max(1, keep)
    while len(items) > keep:
        later_tasks: dict[str, int] = {}
        for item in items:
            later_tasks[item.task] = later_tasks.get(item.task, 0) + 1
        for index, item in enumerate(items):
            if later_tasks[item.task] > 1:
                del items[index]
                break
        else:
            del items[0]
    return tuple(items)


def distinct_tasks(history: Iterable[Occurrence]) -> int:
    return len({item.task for item in history if item.task and item.task != "-"})


def within(history: Iterable[Occurrence], today: date, days: int) -> tuple[Occurrence, ...]:
    """Occurrences on or after ``today - days`` (day ``days`` counts; day ``days + 1`` does not)."""
    from datetime import date, timedelta

    start = today - timedelta(days=days)
    out = []
    for item in history:
        try:
            when = date.fromisoformat(item.date)
        except ValueError:
            continue
        if start <= when <= today:
            out.append(item)
    return tuple(out)
