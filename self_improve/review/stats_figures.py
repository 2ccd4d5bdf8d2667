"""Who recorded what, for ``stats``: the hooks, the agent or user, or nobody on this machine.

An entry's Occurrences alone cannot say who wrote them: a hook and ``self-improve log error``
write the same ``Source: error`` entry, and a file that arrived in a commit looks the same as one
written here. This machine's provenance ledger (``store/provenance.py``) can, so ``stats`` reads
it, and says "from elsewhere" for the rest rather than guess:

- an entry counts for whoever created it here (the ledger's ``new`` line): the hooks ("hook"),
  the agent or user ("agent", "cli"), else elsewhere (arrived in a commit, imported, or older
  than the ledger);
- an occurrence counts for whoever recorded it here, whichever entry it is in; the rest of the
  entry's ``Recurrence-Count`` (occurrences that arrived, and those folded past
  ``log.max_occurrences``) is elsewhere. So each column adds up to the store's totals.

An agent that names its own session (``log --session X``) is recorded under the unknown task
``-`` (the ledger will not let it invent evidence), so its occurrence matches no (day, task):
here, where nothing is evidence, a leftover occurrence is still credited to such a line of the
same day, or the agent's own lessons would read as "from elsewhere".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from self_improve.output import plural
from self_improve.store import provenance
from self_improve.store.entry import Entry

# The three origins ``stats`` shows, and the ledger's writers that belong to each.
ORIGINS = ("hooks", "agent_or_user", "elsewhere")
_ORIGIN_OF_WRITER = {"hook": "hooks", "agent": "agent_or_user", "cli": "agent_or_user"}
LABELS = {"hooks": "Recorded by the hooks", "agent_or_user": "Logged by the agent or user", "elsewhere": "From elsewhere"}
ELSEWHERE_NOTE = "arrived in a commit, imported, or older than this machine's ledger"


def _unmatched_agent_lines(entry: Entry, found: provenance.Provenance, records: list[provenance.LedgerLine]) -> dict[str, int]:
    """Occurrences left over after matching that a session-less CLI line of the same day wrote."""
    local = list(found.local)
    leftover_days: list[str] = []
    for occurrence in entry.occurrences:
        if occurrence in local:
            local.remove(occurrence)
        else:
            leftover_days.append(occurrence.date)
    credited: dict[str, int] = {}
    sessionless = [item for item in records if item.who in ("agent", "cli") and item.task == "-"]
    for item in sessionless:
        if item.date in leftover_days:
            leftover_days.remove(item.date)
            credited[item.who] = credited.get(item.who, 0) + 1
    return credited


def origins(entries: Iterable[Entry], ledger: provenance.Ledger) -> dict[str, Any]:
    """Entries and occurrences by origin, plus the ledger's writers one by one (``by_writer``)."""
    table = {origin: {"entries": 0, "occurrences": 0} for origin in ORIGINS}
    by_writer = {who: {"entries": 0, "occurrences": 0} for who in provenance.WHO}
    for entry in entries:
        records = ledger.records(entry.id)
        found = provenance.provenance_of(entry.occurrences, records)
        creator = found.logged_by
        table[_ORIGIN_OF_WRITER.get(creator, "elsewhere")]["entries"] += 1
        if creator:
            by_writer[creator]["entries"] += 1
        recorded = dict(found.recorded_by)
        for who, count in _unmatched_agent_lines(entry, found, records).items():
            recorded[who] = recorded.get(who, 0) + count
        here = 0
        for who, count in recorded.items():
            table[_ORIGIN_OF_WRITER[who]]["occurrences"] += count
            by_writer[who]["occurrences"] += count
            here += count
        # A hand-edited Recurrence-Count below what was recorded here must not go negative.
        table["elsewhere"]["occurrences"] += max(0, entry.recurrence_count - here)
    return {**table, "by_writer": by_writer}


def origin_lines(origin: dict[str, Any], hooks: dict[str, int] | None) -> list[str]:
    """The text of ``stats``: one line an origin, the hooks' own count of recorded errors beside theirs."""
    width = max(len(label) for label in LABELS.values())
    lines = []
    for name in ORIGINS:
        counts = origin[name]
        text = f"{plural(counts['entries'], 'entry', 'entries')}, {plural(counts['occurrences'], 'occurrence')}"
        if name == "hooks" and hooks is not None:
            scanned = hooks.get("errors_scanned", 0)
            by_scan = f", {scanned} of them by `scan` from past sessions" if scanned else ""
            text += f" (errors recorded: {hooks['errors_recorded']}{by_scan})"
        if name == "elsewhere":
            text += f" ({ELSEWHERE_NOTE})"
        lines.append(f"{LABELS[name] + ':':<{width + 1}}  {text}")
    return lines
