"""The candidates of one review: what the policy (``review/policy.py``) proposes to promote,
archive, retire and revise among a store's entries. Pure functions, no file is read or written
(whether a rule's subject is gone from the project is asked of the ``is_gone`` passed in).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from self_improve.review.fingerprints import ClassAggregate, ClassLevelEntry, class_aggregates, class_level_entries, is_class_level

from self_improve.review.policy import (
    PROMOTABLE_STATUSES,
    Evidence,
    Policy,
    RuleProposal,
    TargetTable,
    days_since,
    default_target,
    evidence,
    is_critical,
    is_decayed,
    meets_promotion_rule,
    promoted_to,
    propose_rule,
    superseded_by,
)
from self_improve.review.subject_paths import never_gone, subject_path
from self_improve.store.archive import archive_year, has_unclosed_fence, last_seen_day
from self_improve.store.duplicates import DuplicateGroup, duplicate_groups
from self_improve.store.entry import ACTIVE_STATUSES, ID_PATTERN, Entry
from self_improve.store.occurrences import Occurrence

CLOSED_STATUSES = frozenset({"resolved", "wont_fix", "retired"})
# Entries whose See Also keeps their targets out of the archive: everything still in use.
LIVE_STATUSES = ACTIVE_STATUSES | {"promoted_to_skill"}
# Never proposed by the size cap: a live rule, work in progress, or what the user flagged.
_SIZE_CAP_EXEMPT_STATUSES = frozenset({"promoted", "promoted_to_skill", "in_progress"})


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
    meets_rule: bool  # the evidence qualifies it: always True, a candidate meets the rule, critical or not
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
    # Promoted by hand: no managed block holds its rule, which lives in the user's own text.
    # Only a person retires it (``self-improve retire ID``); ``review --yes`` never does.
    by_hand: bool = False


@dataclass(frozen=True)
class ReviseCandidate:
    entry: Entry
    since: tuple[Occurrence, ...]  # occurrences on or after Promoted-On (none when unknown)
    reasons: tuple[str, ...]
    target: str  # the file holding the rule (its Promoted field)


@dataclass(frozen=True)
class ReviewPlan:
    promote: tuple[PromoteCandidate, ...]
    archive: tuple[ArchiveCandidate, ...]
    retire: tuple[RetireCandidate, ...]
    active_entries: int
    size_cap: int
    # For people, never proposals: entries counted by class before fingerprints, and classes with
    # several different mistakes (``review/fingerprints.py``).
    class_level: tuple[ClassLevelEntry, ...] = ()
    aggregates: tuple[ClassAggregate, ...] = ()
    # Likely duplicates, for a person to merge or not (``store/duplicates.py``); never applied by --yes.
    merge: tuple[DuplicateGroup, ...] = ()
    # Rules that recurred after promotion, for a person to rewrite; never applied by --yes.
    revise: tuple[ReviseCandidate, ...] = ()
    # Retire candidates promoted by hand (``set_apart_hand_promoted``): for a person, never --yes.
    retire_by_hand: tuple[RetireCandidate, ...] = ()

    @property
    def over_cap(self) -> bool:
        return self.active_entries > self.size_cap

    @property
    def empty(self) -> bool:
        """Nothing ``--yes`` would apply (revisions and merges are only ever proposed)."""
        return not (self.promote or self.archive or self.retire)


def promote_candidates(
    entries: Sequence[Entry], today: date, policy: Policy, targets: TargetTable, openclaw: bool,
    classes: Collection[str] = frozenset(),
) -> list[PromoteCandidate]:
    """Entries that meet the promotion rule: critical ones first, then by strength of evidence.

    An entry counted by class (``classes``: the detector's Pattern-Keys) is never one: its count
    is that of many mistakes (``review/fingerprints.py``)."""
    found: list[PromoteCandidate] = []
    for entry in usable(entries):
        if entry.status not in PROMOTABLE_STATUSES or superseded_by(entry) or is_class_level(entry, classes):
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


def credit_line(entry: Entry) -> str:
    """Self-reported and measured credit side by side: "harmful 1 + measured 2 > helpful 0 + measured 1"."""
    harmful, helpful = entry.harmful + entry.measured_harmful, entry.helpful + entry.measured_helpful
    relation = ">" if harmful > helpful else "<" if harmful < helpful else "="
    return (
        f"harmful {entry.harmful} + measured {entry.measured_harmful} {relation} "
        f"helpful {entry.helpful} + measured {entry.measured_helpful}"
    )


def harm_outweighs_help(entry: Entry) -> bool:
    """Self-reported marks and measured credit count alike; a tie keeps the rule."""
    return entry.harmful + entry.measured_harmful > entry.helpful + entry.measured_helpful


def retire_candidates(
    entries: Sequence[Entry], today: date, policy: Policy, is_gone: Callable[[str], bool] = never_gone
) -> list[RetireCandidate]:
    """Promoted rules with evidence against them (``review/policy.py``, *Retire*): harm outweighs
    help, superseded, or the file its fingerprint names is gone (``is_gone``:
    ``review/subject_paths.py``). Never age: a rule that works prevents the very occurrences
    that would show it is still needed."""
    found: list[RetireCandidate] = []
    for entry in usable(entries):
        if entry.status != "promoted":
            continue
        proof = evidence(entry, today, policy.window_days)
        reasons: list[str] = []
        if harm_outweighs_help(entry):
            reasons.append(credit_line(entry))
        if superseded_by(entry):
            reasons.append(f"superseded by {superseded_by(entry)}")
        path = subject_path(entry.pattern_key)
        if path and is_gone(path):
            reasons.append(f"its subject is gone: {path} no longer exists in the project")
        if reasons:
            found.append(RetireCandidate(entry, proof, tuple(reasons), promoted_to(entry)))
    found.sort(key=lambda c: c.entry.id)
    return found


def occurrences_since(entry: Entry) -> tuple[Occurrence, ...]:
    """The recorded occurrences on or after ``Promoted-On`` (that day counts: the day's review may
    have come after them, we cannot tell); none when the day is unknown."""
    start = _day(entry.promoted_on)
    if start is None:
        return ()
    return tuple(item for item in entry.occurrences if (when := _day(item.date)) is not None and when >= start)


def revise_candidates(entries: Sequence[Entry], exclude: Iterable[str] = ()) -> list[ReviseCandidate]:
    """Promoted rules whose fingerprint recurred after promotion: the rule did not prevent it, so
    a person (or the agent, through ``promote ID --rule``) should say it better. Only proposed:
    ``review --yes`` never rewrites nor retires a rule because of a recurrence. ``exclude``: the
    retire candidates, which are listed there only (evidence against a rule settles it first)."""
    skip = {entry_id.upper() for entry_id in exclude}
    found: list[ReviseCandidate] = []
    for entry in usable(entries):
        recurred = entry.recurred_after_promotion
        if entry.status != "promoted" or recurred <= 0 or entry.id.upper() in skip:
            continue
        since = f" (promoted {entry.promoted_on})" if entry.promoted_on else " (promotion day unknown)"
        reasons = [f"recurred {recurred} time{'s' if recurred != 1 else ''} after promotion{since}", credit_line(entry)]
        found.append(ReviseCandidate(entry, occurrences_since(entry), tuple(reasons), promoted_to(entry)))
    found.sort(key=lambda c: (-c.entry.recurred_after_promotion, c.entry.id))
    return found


def set_apart_hand_promoted(plan: ReviewPlan, promoted_by_us: Callable[[Entry], bool]) -> ReviewPlan:
    """The plan with every retire candidate whose rule is in no managed block of ours
    (``promoted_by_us`` says False: the user promoted it by hand, in their own words) moved to
    ``retire_by_hand``: ``review`` lists it for a person and ``review --yes`` leaves it alone,
    since retiring it would flip its status while the user's rule stays where they wrote it."""
    by_us = [promoted_by_us(c.entry) for c in plan.retire]  # reads files: once per candidate
    ours = tuple(c for c, mine in zip(plan.retire, by_us, strict=True) if mine)
    theirs = tuple(replace(c, by_hand=True) for c, mine in zip(plan.retire, by_us, strict=True) if not mine)
    return replace(plan, retire=ours, retire_by_hand=plan.retire_by_hand + theirs)


def plan_review(
    entries: Sequence[Entry], today: date, policy: Policy, targets: TargetTable, openclaw: bool,
    classes: Collection[str] = frozenset(), is_gone: Callable[[str], bool] = never_gone,
) -> ReviewPlan:
    promote = promote_candidates(entries, today, policy, targets, openclaw, classes)
    retire = retire_candidates(entries, today, policy, is_gone)
    revise = revise_candidates(entries, exclude=[c.entry.id for c in retire])
    # One proposal per entry: promotion wins over archiving (a critical, old, resolved entry).
    archive, active = archive_candidates(entries, today, policy, exclude=[c.entry.id for c in promote])
    return ReviewPlan(
        tuple(promote), tuple(archive), tuple(retire), active, policy.max_active_entries,
        class_level=tuple(class_level_entries(usable(entries), classes)),
        aggregates=tuple(class_aggregates(entries, today, policy.window_days)),
        merge=tuple(duplicate_groups(usable(entries))),
        revise=tuple(revise),
    )


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None
