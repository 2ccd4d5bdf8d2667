"""One review: the proposals for a store, and applying them as steps.

The policy (``review/policy.py``) proposes; here the proposals become the same steps as
``promote``, ``retire`` and the archive (``review/promotion.py``, ``review/plan.py``), all
simulated before the first write, so a refusal changes nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from self_improve.errors import SelfImproveError
from self_improve.output import error_line
from self_improve.review import corrections as corrections_mod
from self_improve.review import drift as drift_mod
from self_improve.review.plan import ArchiveStep, Step, apply, simulate
from self_improve.review.candidates import ReviewPlan, plan_review
from self_improve.review.policy import Policy
from self_improve.review.promotion import place, plan_promotion, plan_retirement
from self_improve.review.report import heading
from self_improve.review.subject_paths import gone_check_for
from self_improve.review.targets import default_targets, in_openclaw_workspace
from self_improve.store.archive import archive_name
from self_improve.store.correction_queue import QueuedCorrection
from self_improve.store.entry import ACTIVE_STATUSES
from self_improve.store.lint import Problem
from self_improve.store.store import Store


def build_plan(store: Store, today: date) -> ReviewPlan:
    from self_improve.detect.rules import class_keys

    store._require()
    openclaw = in_openclaw_workspace(store)
    table = default_targets(store)  # read once: it parses the harnesses' settings files
    plan = plan_review(
        store.entries(),
        today,
        Policy.from_settings(store.setting),
        table,
        openclaw,
        classes=class_keys(),
        is_gone=gone_check_for(store),
    )
    # The policy's target is the default by the table; where the rule goes is decided with the
    # files in view (a rule already in CLAUDE.md stays there; a rule confined to a subtree goes
    # to a path-scoped rules file): the same answer ``promote`` gives (``promotion.place``).
    placed = tuple(replace(c, target=place(store, c.entry, c.rule.text, openclaw, table)) for c in plan.promote)
    return replace(plan, promote=placed)


@dataclass
class Outcome:
    lines: list[str] = field(default_factory=list)
    promoted: int = 0
    archived: int = 0
    retired: int = 0
    skipped: int = 0
    failed: int = 0
    reconciled: int = 0

    def counts(self) -> dict[str, int]:
        """The action counters this outcome adds to (``store/counters.py``)."""
        return {"rules_promoted": self.promoted, "rules_retired": self.retired, "entries_archived": self.archived}


def all_steps(store: Store, plan: ReviewPlan, today: date, outcome: Outcome) -> list[Step]:
    """Every proposal as steps (promotions without a usable rule are skipped, with a note)."""
    steps: list[Step] = []
    for candidate in plan.promote:
        if not candidate.rule.ok:
            outcome.skipped += 1
            outcome.lines.append(f"skipped {candidate.entry.id}: {candidate.rule.problem} (`self-improve promote {candidate.entry.id} --rule TEXT`)")
            continue
        promotion = plan_promotion(store, candidate.entry.id, candidate.rule.text, candidate.target, today)
        steps.extend(promotion.steps)
        outcome.promoted += 1
        outcome.lines.append(f"promoted {candidate.entry.id} to {promotion.target}")
    for retiring in plan.retire:
        retirement = plan_retirement(store, retiring.entry.id)
        steps.extend(retirement.steps)
        outcome.retired += 1
        where = " and ".join(retirement.targets) or "no instruction file"
        outcome.lines.append(f"retired {retiring.entry.id} from {where}")
    if plan.archive:
        steps.append(ArchiveStep(tuple(c.entry.id for c in plan.archive), today))
        for archived in plan.archive:
            outcome.archived += 1
            outcome.lines.append(f"archived {archived.entry.id} to .learnings/{archive_name(archived.year)}")
    return steps


def apply_steps(store: Store, steps: Sequence[Step]) -> None:
    """Simulate, then apply: any refusal stops everything before the first write."""
    simulate(store, steps)
    apply(store, steps)


def attempt(outcome: Outcome, action: Callable[[], None]) -> bool:
    """One answer's action; a refusal is one line and a failure counted, and the review goes on."""
    try:
        action()
        return True
    except SelfImproveError as exc:
        error_line(str(exc))
        outcome.failed += 1
        return False


def apply_all(store: Store, plan: ReviewPlan, today: date) -> Outcome:
    outcome = Outcome()
    apply_steps(store, all_steps(store, plan, today, outcome))
    return outcome


def dry_run_diff(store: Store, plan: ReviewPlan, reconciles: Sequence[drift_mod.Reconcile], today: date) -> str:
    """``review --dry-run``: the diff of every change ``--yes`` would make; what it would skip or
    only report goes to stderr, so stdout is the diff alone."""
    outcome = Outcome()
    steps = drift_mod.reconcile_steps(reconciles) + all_steps(store, plan, today, outcome)
    for line in outcome.lines:
        if line.startswith("skipped "):
            sys.stderr.write(line + "\n")
    for reconcile in reconciles:
        if not reconcile.action:
            sys.stderr.write(f"drift: {reconcile.drift.render()} ({reconcile.note})\n")
    return simulate(store, steps).diff()


def closing_lines(
    plan: ReviewPlan, problems: Sequence[Problem], reconciles: Sequence[drift_mod.Reconcile],
    queued: Sequence[QueuedCorrection], outcome: Outcome, done: Mapping[str, int],
) -> list[str]:
    """What the interactive review prints after the last question: what is left for a person
    (drift it cannot fix, lint problems) and the tally."""
    out: list[str] = []
    reports = [reconcile for reconcile in reconciles if not reconcile.action]
    if reports:  # damaged markers and refused fixes: for a person to fix
        out.append(heading("Drift", len(reports)))
        out += [f"  {reconcile.drift.render()} ({reconcile.note})" for reconcile in reports]
    if problems:
        out.append(heading("Lint", len(problems)))
        out += [f"  {problem.render()}" for problem in problems]
    if plan.empty and not any(reconcile.action for reconcile in reconciles) and not queued and not plan.merge:
        out.append("Nothing to promote, archive or retire.")
    else:
        out.append(
            f"Reviewed: {outcome.promoted} promoted, {outcome.archived} archived, {outcome.retired} retired, "
            f"{outcome.skipped} skipped" + (f", {outcome.reconciled} reconciled" if outcome.reconciled else "")
            + corrections_mod.outcome_text(done["logged"], done["dropped"])
            + (f", {done['merged']} merged" if done.get("merged") else "")
            + (f", {outcome.failed} failed" if outcome.failed else "")
        )
    return out


def user_scope_candidates(store: Store) -> list[dict[str, Any]]:
    """Active entries whose Pattern-Key also recurs in another project: lessons about the user
    or the machine rather than this project, proposed for the user-wide store."""
    from self_improve.store.store import projects_with_key

    if store.scope != "project":
        return []
    out = []
    for entry in store.entries():
        if not entry.pattern_key or entry.status not in ACTIVE_STATUSES:
            continue
        others = projects_with_key(entry.kind, entry.pattern_key, exclude=store.root)
        if others:
            out.append(
                {
                    "id": entry.id,
                    "summary": entry.summary,
                    "pattern_key": entry.pattern_key,
                    "projects": len(others) + 1,
                    "other_projects": [str(p) for p in others],
                    "command": f"self-improve show {entry.id} | self-improve import --scope user -",
                }
            )
    return out
