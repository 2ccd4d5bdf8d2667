"""The promotion and forgetting policy: pure functions over entries, every threshold from config.

Nothing here reads or writes a file. ``review``, ``promote``, ``retire`` and ``stats`` feed it the
entries, today's date and the settings, and act on what it returns.

**Promotion** (``promotion.*``). An entry is a candidate when all hold:

- its status is ``pending``, ``in_progress`` or ``resolved``, and nothing supersedes it;
- at least ``min_occurrences`` (3) of its recorded occurrences fall within the last
  ``window_days`` (30) days: day 30 counts, day 31 does not;
- those occurrences come from at least ``min_tasks`` (2) distinct tasks (sessions); the unknown
  task ``-`` never counts;
- it has not decayed (see below).

Occurrences are the ``- Occurrences: DATE/TASK, …`` metadata the store keeps. An entry in the
plain reference format has no such line: we fall back on ``Recurrence-Count`` (counted as in the
window when ``Last-Seen`` is) but such an entry cannot prove two tasks, so it is never a candidate
on evidence alone. ``Priority: critical`` does not bypass the rule: anyone can set it (``log
--priority critical``, a committed entry), so it only sorts a candidate first, flagged ``critical``.

**Forgetting** (``forgetting.*``).

- *Archive*: ``resolved``, ``wont_fix`` or ``retired`` entries last seen more than
  ``archive_after_days`` (90) days ago, unless a live entry's See Also points to them (references
  from entries archived in the same pass do not protect: a stale cluster goes together).
- *Decay*: a ``pending`` entry last seen more than ``decay_after_days`` (180) days ago no longer
  counts towards promotion (its history stays) and is listed for archiving.
- *Retire*: a promoted rule whose entry has ``Harmful > Helpful``, or ``Superseded-By``, or was
  last seen more than ``stale_after_days`` (180) days ago.
- *Size cap*: above ``max_active_entries`` (200) active entries, the lowest-value ones are listed
  for archiving too: single occurrences before repeated ones, oldest first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from self_improve.store.archive import archive_year, has_unclosed_fence, last_seen_day
from self_improve.store.entry import ACTIVE_STATUSES, ID_PATTERN, Entry
from self_improve.store.occurrences import distinct_tasks, within
from self_improve.store.store import latest_action

PROMOTABLE_STATUSES = frozenset({"pending", "in_progress", "resolved"})
CLOSED_STATUSES = frozenset({"resolved", "wont_fix", "retired"})
# Entries whose See Also keeps their targets out of the archive: everything still in use.
LIVE_STATUSES = ACTIVE_STATUSES | {"promoted_to_skill"}
# Never proposed by the size cap: a live rule, work in progress, or what the user flagged.
_SIZE_CAP_EXEMPT_STATUSES = frozenset({"promoted", "promoted_to_skill", "in_progress"})
# Text a rule may never contain: it would damage the managed block around it.
MARKER_TEXT = ("<!--", "-->", "self-improve:begin", "self-improve:end")
ACTION_TITLES = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+")


# ---- settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """The thresholds of promotion and forgetting (``promotion.*`` and ``forgetting.*``)."""

    min_occurrences: int = 3
    min_tasks: int = 2
    window_days: int = 30
    max_rule_chars: int = 200
    archive_after_days: int = 90
    decay_after_days: int = 180
    stale_after_days: int = 180
    max_active_entries: int = 200

    @classmethod
    def from_settings(cls, setting: Callable[[str], Any]) -> Policy:
        return cls(
            min_occurrences=int(setting("promotion.min_occurrences")),
            min_tasks=int(setting("promotion.min_tasks")),
            window_days=int(setting("promotion.window_days")),
            max_rule_chars=int(setting("promotion.max_rule_chars")),
            archive_after_days=int(setting("forgetting.archive_after_days")),
            decay_after_days=int(setting("forgetting.decay_after_days")),
            stale_after_days=int(setting("forgetting.stale_after_days")),
            max_active_entries=int(setting("forgetting.max_active_entries")),
        )


@dataclass(frozen=True)
class TargetTable:
    """Where a rule goes by default (``targets.*``)."""

    learning: str = "CLAUDE.md"
    error: str = "CLAUDE.md"
    feature: str = "CLAUDE.md"
    workflow_target: str = "AGENTS.md"
    workflow_areas: tuple[str, ...] = ("infra", "config", "tests")
    openclaw_behaviour: str = "SOUL.md"
    openclaw_default: str = "AGENTS.md"
    behaviour_categories: tuple[str, ...] = ("correction", "best_practice")

    @classmethod
    def from_settings(cls, setting: Callable[[str], Any]) -> TargetTable:
        return cls(
            learning=str(setting("targets.learning")),
            error=str(setting("targets.error")),
            feature=str(setting("targets.feature")),
            workflow_target=str(setting("targets.workflow")),
            workflow_areas=tuple(str(a) for a in setting("targets.workflow_areas")),
            openclaw_behaviour=str(setting("targets.openclaw_behaviour")),
            openclaw_default=str(setting("targets.openclaw_default")),
            behaviour_categories=tuple(str(c) for c in setting("targets.behaviour_categories")),
        )


# ---- dates and evidence ----------------------------------------------------------------------------


def days_since(day: date | None, today: date) -> int | None:
    return None if day is None else (today - day).days


@dataclass(frozen=True)
class Evidence:
    """What the occurrence history proves about one entry, as of ``today``."""

    occurrences: int  # within the window
    tasks: int  # distinct known tasks among them
    total: int  # Recurrence-Count: every occurrence ever counted
    total_tasks: int  # distinct known tasks in the whole recorded history
    last_seen: str  # YYYY-MM-DD, or "" when unknown
    days_since_seen: int | None
    has_history: bool  # False: a reference-format entry without Occurrences (tasks unprovable)


def evidence(entry: Entry, today: date, window_days: int) -> Evidence:
    history = entry.occurrences
    last = last_seen_day(entry)
    age = days_since(last, today)
    if history:
        recent = within(history, today, window_days)
        occurrences, tasks = len(recent), distinct_tasks(recent)
    else:
        # Reference format: the count is all we have; it is "recent" if the last sighting is.
        occurrences = entry.recurrence_count if age is not None and 0 <= age <= window_days else 0
        tasks = 0
    return Evidence(
        occurrences=occurrences,
        tasks=tasks,
        total=entry.recurrence_count,
        total_tasks=distinct_tasks(history),
        last_seen=last.isoformat() if last else "",
        days_since_seen=age,
        has_history=bool(history),
    )


def is_decayed(entry: Entry, today: date, policy: Policy) -> bool:
    """A pending entry unseen for longer than ``decay_after_days``: it no longer counts."""
    age = days_since(last_seen_day(entry), today)
    return entry.status == "pending" and age is not None and age > policy.decay_after_days


def meets_promotion_rule(proof: Evidence, policy: Policy) -> bool:
    return proof.occurrences >= policy.min_occurrences and proof.tasks >= policy.min_tasks


def superseded_by(entry: Entry) -> str:
    return entry.meta("Superseded-By").strip()


def is_critical(entry: Entry) -> bool:
    return entry.priority == "critical"


# ---- the rule and its target ---------------------------------------------------------------------


@dataclass(frozen=True)
class RuleProposal:
    """The prevention rule we would write, or why there is none (``problem`` non-empty)."""

    text: str
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def clean_rule(text: str) -> str:
    """One line, single spaces, without a leading list marker (the block adds its own bullet)."""
    one_line = " ".join(text.split())
    return _LIST_MARKER.sub("", one_line, count=1).strip()


def rule_problem(text: str, max_chars: int, source: str = "--rule") -> str:
    """Why ``text`` cannot be promoted as a rule; "" when it can."""
    if "\n" in text or "\r" in text:
        return f"{source} must be one line"
    if not text.strip():
        return f"{source} is empty"
    for marker in MARKER_TEXT:
        if marker in text:
            return f"{source} contains marker text {marker!r}: remove it"
    if len(text) > max_chars:
        return f"{source} is {len(text)} characters, over promotion.max_rule_chars ({max_chars}): write a shorter one"
    from self_improve.detect.redact import find_secret  # instruction files are committed: no secret goes in

    secret = find_secret(text)
    if secret is not None:
        return f"{source} still holds a secret ({secret}): remove it"
    return ""


def propose_rule(entry: Entry, max_chars: int) -> RuleProposal:
    """The newest line of the entry's suggested action, as a short rule; never its details.

    A rule says what to do (or what to do instead). The details of an incident are not a rule, so
    when the action is missing or too long we refuse and ask for ``--rule`` instead of guessing.
    """
    title = ACTION_TITLES.get(entry.kind, "Suggested Action")
    text = clean_rule(latest_action(entry))
    if not text:
        return RuleProposal("", f"{entry.id} has no {title} to turn into a rule: pass --rule TEXT")
    problem = rule_problem(text, max_chars, source=f"the {title} of {entry.id}")
    if problem:
        return RuleProposal(text, f"{problem} (or pass --rule TEXT)")
    return RuleProposal(text)


def is_openclaw_workspace(root_file_names: Iterable[str]) -> bool:
    """OpenClaw creates SOUL.md and IDENTITY.md in its workspace on first run; no other harness
    uses those names, so either one at the project root means "this is an OpenClaw workspace"."""
    names = set(root_file_names)
    return "SOUL.md" in names or "IDENTITY.md" in names


def default_target(entry: Entry, table: TargetTable, openclaw: bool) -> str:
    """Where the entry's rule goes unless ``--target`` says otherwise.

    Workflows (entries of an area in ``targets.workflow_areas``) go to AGENTS.md. In an OpenClaw
    workspace, behaviour (learnings of a category in ``targets.behaviour_categories``) goes to
    SOUL.md and everything else, tool gotchas included, to AGENTS.md: OpenClaw does not read
    TOOLS.md. Elsewhere the kind decides (CLAUDE.md by default).
    """
    if openclaw:
        if entry.kind == "learning" and entry.category.strip() in table.behaviour_categories:
            return table.openclaw_behaviour
        return table.openclaw_default
    if entry.area and entry.area.casefold() in {a.casefold() for a in table.workflow_areas}:
        return table.workflow_target
    return {"learning": table.learning, "error": table.error, "feature": table.feature}.get(entry.kind, table.learning)


# ---- candidates ------------------------------------------------------------------------------------


def usable(entries: Sequence[Entry]) -> list[Entry]:
    """Entries with a well-formed ID that no other entry shares: only those can be acted on by ID
    (``lint`` reports the others)."""
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry.id.upper()] = counts.get(entry.id.upper(), 0) + 1
    return [entry for entry in entries if ID_PATTERN.match(entry.id) and counts[entry.id.upper()] == 1]


@dataclass(frozen=True)
class PromoteCandidate:
    entry: Entry
    proof: Evidence
    critical: bool  # Priority: critical (sorts first; never a reason on its own)
    meets_rule: bool  # the evidence qualifies it (always True since critical stopped bypassing it)
    rule: RuleProposal
    target: str


@dataclass(frozen=True)
class ArchiveCandidate:
    entry: Entry
    proof: Evidence
    why: str  # "stale" | "decayed" | "size_cap" | "marked"
    reason: str  # one line for people
    year: str  # the archive file: .learnings/archive/<year>.md


@dataclass(frozen=True)
class RetireCandidate:
    entry: Entry
    proof: Evidence
    reasons: tuple[str, ...]
    target: str  # the file holding the rule (its Promoted field)


@dataclass(frozen=True)
class ReviewPlan:
    promote: tuple[PromoteCandidate, ...]
    archive: tuple[ArchiveCandidate, ...]
    retire: tuple[RetireCandidate, ...]
    active_entries: int
    size_cap: int

    @property
    def over_cap(self) -> bool:
        return self.active_entries > self.size_cap

    @property
    def empty(self) -> bool:
        return not (self.promote or self.archive or self.retire)


def promote_candidates(
    entries: Sequence[Entry], today: date, policy: Policy, targets: TargetTable, openclaw: bool
) -> list[PromoteCandidate]:
    """Entries that meet the promotion rule: critical ones first, then by strength of evidence."""
    found: list[PromoteCandidate] = []
    for entry in usable(entries):
        if entry.status not in PROMOTABLE_STATUSES or superseded_by(entry):
            continue
        proof = evidence(entry, today, policy.window_days)
        meets = meets_promotion_rule(proof, policy) and not is_decayed(entry, today, policy)
        if not meets:  # critical or not: a self-set priority proves nothing
            continue
        found.append(
            PromoteCandidate(
                entry=entry,
                proof=proof,
                critical=is_critical(entry),
                meets_rule=meets,
                rule=propose_rule(entry, policy.max_rule_chars),
                target=default_target(entry, targets, openclaw),
            )
        )
    found.sort(key=lambda c: (not c.critical, -c.proof.occurrences, -c.proof.tasks, c.entry.id))
    return found


def _referenced_ids(entries: Iterable[Entry], excluded: set[str]) -> set[str]:
    out: set[str] = set()
    for entry in entries:
        if entry.status in LIVE_STATUSES and entry.id.upper() not in excluded:
            out.update(ref.upper() for ref in entry.see_also if ref.upper() != entry.id.upper())
    return out


def archive_candidates(
    entries: Sequence[Entry], today: date, policy: Policy, exclude: Iterable[str] = ()
) -> tuple[list[ArchiveCandidate], int]:
    """Archive candidates (and the number of active entries, for the size cap message)."""
    skip = {entry_id.upper() for entry_id in exclude}
    eligible = usable(entries)
    reasons: dict[str, tuple[str, str]] = {}
    for entry in eligible:
        key = entry.id.upper()
        if key in skip or has_unclosed_fence(entry):
            continue
        age = days_since(last_seen_day(entry), today)
        if entry.status == "archived":
            reasons[key] = ("marked", "status is archived but it is still in the learnings files")
        elif entry.status in CLOSED_STATUSES and age is not None and age > policy.archive_after_days:
            reasons[key] = ("stale", f"{entry.status}, last seen {age} days ago (over {policy.archive_after_days})")
        elif is_decayed(entry, today, policy):
            reasons[key] = (
                "decayed",
                f"pending, no occurrence for {age} days (over {policy.decay_after_days}): it no longer counts towards promotion",
            )
    # A live entry that points at a candidate keeps it, unless that entry goes too: repeat until
    # stable, so a cluster of stale entries that cite each other is archived together.
    while True:
        protected = _referenced_ids(entries, excluded=set(reasons)) & set(reasons)
        if not protected:
            break
        for key in protected:
            del reasons[key]

    active = [entry for entry in entries if entry.status in ACTIVE_STATUSES]
    excess = len(active) - policy.max_active_entries
    going = sum(1 for entry in active if entry.id.upper() in reasons)
    if excess - going > 0:
        referenced = _referenced_ids(entries, excluded=set())
        ranked = sorted(
            (
                entry
                for entry in eligible
                if entry.status in ACTIVE_STATUSES
                and entry.id.upper() not in reasons
                and entry.id.upper() not in skip
                and entry.id.upper() not in referenced
                and entry.status not in _SIZE_CAP_EXEMPT_STATUSES
                and not is_critical(entry)
                and not has_unclosed_fence(entry)
            ),
            key=lambda e: (e.recurrence_count > 1, (last_seen_day(e) or date.min), e.id),
        )
        for entry in ranked[: excess - going]:
            count = entry.recurrence_count
            seen = last_seen_day(entry)
            reasons[entry.id.upper()] = (
                "size_cap",
                f"lowest value while over the size cap: seen {count} time{'s' if count != 1 else ''}, last {seen or 'unknown'}",
            )

    by_id = {entry.id.upper(): entry for entry in eligible}
    order = {"marked": 0, "stale": 1, "decayed": 2, "size_cap": 3}
    candidates = [
        ArchiveCandidate(
            entry=by_id[key],
            proof=evidence(by_id[key], today, policy.window_days),
            why=why,
            reason=reason,
            year=archive_year(by_id[key], today),
        )
        for key, (why, reason) in reasons.items()
    ]
    # Size-cap candidates keep their value ranking; the others go oldest first.
    rank = {key: n for n, key in enumerate(reasons)}
    candidates.sort(
        key=lambda c: (order[c.why], rank[c.entry.id.upper()] if c.why == "size_cap" else 0, c.proof.last_seen, c.entry.id)
    )
    return candidates, len(active)


def retire_candidates(entries: Sequence[Entry], today: date, policy: Policy) -> list[RetireCandidate]:
    found: list[RetireCandidate] = []
    for entry in usable(entries):
        if entry.status != "promoted":
            continue
        proof = evidence(entry, today, policy.window_days)
        reasons: list[str] = []
        if entry.harmful > entry.helpful:
            reasons.append(f"harmful {entry.harmful} > helpful {entry.helpful}")
        if superseded_by(entry):
            reasons.append(f"superseded by {superseded_by(entry)}")
        age = proof.days_since_seen
        helped = days_since(_day(entry.meta("Last-Helpful")), today)
        if age is not None and age > policy.stale_after_days and (helped is None or helped > policy.stale_after_days):
            # A rule that works prevents its own recurrence: a recent `mark --helpful` keeps it.
            reasons.append(f"not seen for {age} days (over {policy.stale_after_days})")
        if reasons:
            found.append(RetireCandidate(entry, proof, tuple(reasons), entry.promoted))
    found.sort(key=lambda c: c.entry.id)
    return found


def plan_review(
    entries: Sequence[Entry], today: date, policy: Policy, targets: TargetTable, openclaw: bool
) -> ReviewPlan:
    promote = promote_candidates(entries, today, policy, targets, openclaw)
    retire = retire_candidates(entries, today, policy)
    # One proposal per entry: promotion wins over archiving (a critical, old, resolved entry).
    archive, active = archive_candidates(entries, today, policy, exclude=[c.entry.id for c in promote])
    return ReviewPlan(tuple(promote), tuple(archive), tuple(retire), active, policy.max_active_entries)


# ---- triage -------------------------------------------------------------------------------------


def pending_triage(entries: Iterable[Entry], counts_at_review: Mapping[str, int] | None) -> int:
    """Pending errors that gained an occurrence since the last review (all of them if none yet).

    ``counts_at_review`` maps an entry ID to its Recurrence-Count when the review ran; an entry
    missing from it is new since then.
    """
    count = 0
    for entry in entries:
        if entry.kind != "error" or entry.status != "pending":
            continue
        if counts_at_review is None or entry.recurrence_count > counts_at_review.get(entry.id.upper(), 0):
            count += 1
    return count


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None
