"""Promoting one entry's rule into a managed block, and retiring it again, as planned steps.

The rule is a short prevention rule (at most ``promotion.max_rule_chars``): the one given, else
the newest line of the entry's Suggested Action / Suggested Fix. It lands as ``- RULE <!-- ID -->``
in the self-improve block of the target (``managed_block``, the one place that edits between our
markers), and the entry gets ``Status: promoted``, ``**Promoted**: TARGET`` and, when the rule is
new (a first promotion or a rewritten rule), ``- Promoted-On: YYYY-MM-DD`` (the day ``stats``
measures the rule from) with its ``Recurred-After-Promotion`` count cleared.

Retiring removes exactly that entry's bullet from the block of the file its ``**Promoted**``
field names (when it was the last bullet, the whole block goes, with the blank line we added
before it, so the file is byte for byte what it was before the first promotion) and sets
``Status: retired``. The entry stays, with its history; ``review`` archives it later.

Each change is a list of steps (``review/plan.py``): simulated first, so every refusal happens
before anything is written and ``--dry-run`` prints the exact diff, then applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from self_improve.errors import SelfImproveError, UsageError
from self_improve.review import managed_block
from self_improve.review.plan import EntryEdit, Step, TargetEdit
from self_improve.review.policy import (
    PROMOTABLE_STATUSES,
    Policy,
    TargetTable,
    clean_rule,
    default_target,
    propose_rule,
    rule_problem,
)
from self_improve.review.targets import KNOWN_TARGETS, in_openclaw_workspace, normalise_target, normalised_or_none
from self_improve.store.entry import Entry
from self_improve.store.store import Store


@dataclass(frozen=True)
class Promotion:
    entry_id: str
    rule: str
    target: str
    previous_target: str  # a promoted entry moving to another file: "" otherwise
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Retirement:
    entry_id: str
    targets: tuple[str, ...]  # the files whose block holds (or held) the bullet
    steps: tuple[Step, ...]


def check_promotable(entry: Entry) -> None:
    if entry.status not in PROMOTABLE_STATUSES | {"promoted"}:
        raise SelfImproveError(
            f"{entry.id} is {entry.status}: only pending, in_progress, resolved or promoted entries can be promoted"
        )


def choose_rule(entry: Entry, rule: str | None, max_chars: int) -> str:
    if rule is not None:
        text = rule.strip()
        problem = rule_problem(text, max_chars)
        if problem:
            raise UsageError(problem)
        return clean_rule(text)
    proposal = propose_rule(entry, max_chars)
    if not proposal.ok:
        raise UsageError(proposal.problem)
    return proposal.text


def plan_promotion(
    store: Store, entry_id: str, rule: str | None = None, target: str | None = None, today: date | None = None
) -> Promotion:
    """The steps that promote one entry; refuses (raising) on anything it cannot do. ``today``
    (the caller's, e.g. review's ``--today``; else :func:`store_today`) is written as
    ``- Promoted-On:`` when the rule is new."""
    store._require()
    entry = store.get(entry_id)
    check_promotable(entry)
    policy = Policy.from_settings(store.setting)
    text = choose_rule(entry, rule, policy.max_rule_chars)
    openclaw = in_openclaw_workspace(store)
    previous = ""
    if entry.status == "promoted" and entry.promoted:
        # Not a file we could have written: nothing of ours to take back.
        previous = normalised_or_none(store, entry.promoted) or ""
    if target is not None:
        wanted = target
    elif previous:
        wanted = previous  # re-promoting (a new rule, say) keeps the rule where it is
    else:
        wanted = default_target(entry, TargetTable.from_settings(store.setting), openclaw)
    chosen = normalise_target(store, wanted, openclaw)
    if previous == chosen:
        previous = ""
    entry_key = entry.id
    # A new rule (a first promotion, or a rewrite after it recurred) starts a new measurement:
    # Promoted-On is today and the recurrences counted against the rule it replaces are cleared.
    # Moving the same rule to another file, or promoting it again unchanged, keeps both.
    # A promoted rule whose bullet we cannot find (removed by hand) is taken to be the same rule.
    # An entry promoted before Promoted-On existed keeps its unknown day rather than a made-up one.
    old_rule = current_rule(store, entry) if entry.status == "promoted" else ""
    fresh = entry.status != "promoted" or (old_rule != "" and old_rule != text)
    day = (today or store_today()).isoformat()

    def mark_promoted(e: Entry) -> Entry:
        e = e.with_status("promoted").with_field("Promoted", chosen)
        if fresh:
            e = e.with_metadata("Promoted-On", day)
            if e.recurred_after_promotion:
                e = e.with_metadata("Recurred-After-Promotion", "0")
        return e

    steps: list[Step] = [TargetEdit(chosen, lambda t: managed_block.upsert_rule(t, entry_key, text))]
    if previous:
        steps.append(TargetEdit(previous, lambda t: managed_block.remove_rule(t, entry_key)))
    steps.append(EntryEdit(entry_key, mark_promoted))
    return Promotion(entry.id, text, chosen, previous, tuple(steps))


def store_today() -> date:
    """The day by the store's clock (``SELF_IMPROVE_NOW``, what dates the occurrences), for a
    caller that has no "today" of its own; ``review`` passes its own (``--today``)."""
    from self_improve.clock import utcnow

    return utcnow().date()


def current_rule(store: Store, entry: Entry) -> str:
    """The text of the entry's bullet in the file its Promoted field names (else in the usual
    instruction files); "" when there is none or it cannot be read."""
    named = normalised_or_none(store, entry.promoted) if entry.promoted else None
    for name in (named,) if named is not None else files_with_rule(store, entry.id):
        path = store.root / name
        if not path.is_file() or path.is_symlink():
            continue
        try:
            rules = managed_block.list_rules(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, managed_block.ManagedBlockError):
            continue
        for rule in rules:
            if rule.entry_id.upper() == entry.id.upper():
                return rule.text.strip()
    return ""


def files_with_rule(store: Store, entry_id: str) -> tuple[str, ...]:
    """Known instruction files holding a bullet for this ID (for entries promoted by hand)."""
    found = []
    for name in KNOWN_TARGETS:
        path = store.root / name
        if path.is_file() and not path.is_symlink():
            try:
                if managed_block.has_rule(path.read_text(encoding="utf-8"), entry_id):
                    found.append(name)
            except (OSError, UnicodeDecodeError, managed_block.ManagedBlockError):
                continue
    return tuple(found)


def plan_retirement(store: Store, entry_id: str) -> Retirement:
    store._require()
    entry = store.get(entry_id)
    if entry.status != "promoted":
        raise SelfImproveError(f"{entry.id} is {entry.status}, not promoted: only a promoted rule can be retired")
    named = normalised_or_none(store, entry.promoted)
    # No Promoted field, or not a file we could have written (promoted by hand): look for the
    # bullet in the usual instruction files.
    targets = (named,) if named is not None else files_with_rule(store, entry.id)
    entry_key = entry.id
    steps: list[Step] = [TargetEdit(target, lambda t: managed_block.remove_rule(t, entry_key)) for target in targets]
    steps.append(EntryEdit(entry_key, lambda e: e.with_status("retired")))
    return Retirement(entry.id, targets, tuple(steps))
