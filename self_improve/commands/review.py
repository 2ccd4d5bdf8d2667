"""``self-improve review [--json | --yes | --dry-run]``: promote, archive, retire, one delta each.

The policy (``review/policy.py``) proposes; this verb shows the proposals grouped (promote,
archive, retire, lint problems) and applies the ones chosen, each through the same steps as
``promote``, ``retire`` and the archive, so a refusal changes nothing.

- On a terminal it asks, candidate by candidate: promote / edit rule / change target / archive /
  skip / quit (archive and retire candidates: archive or retire / skip / quit).
- ``--json`` prints ``{"promote": [...], "archive": [...], "retire": [...], "lint": [...]}``,
  plus ``"drift": [...]`` when the rules blocks disagree with the store (``review/drift.py``).
- Drift is reconciled first (re-add a missing rule, remove a rule nobody promoted, re-hash a
  block edited by hand, keeping the edit); damaged markers are only reported.
- ``--yes`` applies every proposal without asking; ``--dry-run`` prints the unified diff of every
  file they would change, and changes nothing.
- Elsewhere (a pipe, an agent's shell) it prints the proposals and changes nothing.

After an interactive or ``--yes`` review, ``.learnings/.state/last-review`` records when it ran
and each error's count then, so :func:`pending_triage_count` can say how many errors came in
since. Tests pin "today" with ``SELF_IMPROVE_TODAY`` (or ``--today``) and force the interactive
mode with ``SELF_IMPROVE_INTERACTIVE=1`` (or ``--interactive``), answers read from stdin.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from self_improve.commands import lint as lint_command
from self_improve.commands._common import add_json_flag, add_scope_flag, store_from
from self_improve.commands.promote import (
    add_hidden_test_flags,
    ask,
    bump_actions,
    in_openclaw_workspace,
    is_interactive,
    normalise_target,
    plan_promotion,
    today_from,
)
from self_improve.commands.retire import plan_retirement
from self_improve.review import approval
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import colour, error_line, print_json
from self_improve.paths import STATE_DIR
from self_improve.review import drift as drift_mod
from self_improve.review.plan import ArchiveStep, Step, apply, simulate
from self_improve.review.policy import (
    ArchiveCandidate,
    Evidence,
    Policy,
    PromoteCandidate,
    RetireCandidate,
    ReviewPlan,
    TargetTable,
    pending_triage,
    plan_review,
    rule_problem,
)
from self_improve.store.archive import archive_name
from self_improve.store.entry import ACTIVE_STATUSES, Entry
from self_improve.store.lint import Problem
from self_improve.store.store import Store, iso, utcnow

LAST_REVIEW_FILE = "last-review"


# ---- last review and pending triage -----------------------------------------------------------------


def read_last_review(store: Store) -> dict[str, int] | None:
    """Each error's Recurrence-Count at the last review, or None if there was none (or it is
    unreadable: then every pending error counts, which errs on the side of a nudge)."""
    try:
        raw = store.fs.read(f"{STATE_DIR}/{LAST_REVIEW_FILE}", limit=16 << 20)
        data = json.loads(raw.decode("utf-8")) if raw else {}
        counts = data["counts"]
        return {str(key).upper(): int(value) for key, value in counts.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, SelfImproveError):
        return None


def record_review(store: Store) -> None:
    """Remember this review: its time and every error's count (what "since" is measured from)."""
    counts = {entry.id.upper(): entry.recurrence_count for entry in store.entries("error") if entry.id}
    data = {"reviewed_at": iso(utcnow()), "counts": counts}
    try:
        store.fs.replace(f"{STATE_DIR}/{LAST_REVIEW_FILE}", json.dumps(data, sort_keys=True).encode("utf-8"))
    except (OSError, SelfImproveError) as exc:
        error_line(f"could not record the review time: {exc}")


def pending_triage_count(store: Store) -> int:
    """Pending errors with an occurrence since the last review (all pending errors before the
    first review). For the "Pending triage: N errors recorded since last review" line; never
    raises, so a caller on a hot path can use it as it is."""
    try:
        if not store.exists():
            return 0
        return pending_triage(store.entries("error"), read_last_review(store))
    except (OSError, SelfImproveError):
        return 0


def pending_triage_line(count: int) -> str:
    from self_improve.harnesses.openclaw.block import pending_line

    return pending_line(count)


# ---- the proposals ---------------------------------------------------------------------------------


def build_plan(store: Store, today: date) -> ReviewPlan:
    store._require()
    return plan_review(
        store.entries(),
        today,
        Policy.from_settings(store.setting),
        TargetTable.from_settings(store.setting),
        in_openclaw_workspace(store),
    )


def _common_json(entry: Entry, proof: Evidence) -> dict[str, Any]:
    return {
        "id": entry.id,
        "kind": entry.kind,
        "summary": entry.summary,
        "status": entry.status,
        "priority": entry.priority,
        "occurrences": proof.total,
        "tasks": proof.total_tasks,
        "last_seen": proof.last_seen,
        "file": entry.file,
        "line": entry.line,
    }


def promote_json(candidate: PromoteCandidate, policy: Policy) -> dict[str, Any]:
    return {
        **_common_json(candidate.entry, candidate.proof),
        "window_occurrences": candidate.proof.occurrences,
        "window_tasks": candidate.proof.tasks,
        "window_days": policy.window_days,
        "has_task_history": candidate.proof.has_history,
        "critical": candidate.critical,
        "meets_rule": candidate.meets_rule,
        "rule": candidate.rule.text or None,
        "rule_problem": candidate.rule.problem or None,
        "target": candidate.target,
    }


def archive_json(candidate: ArchiveCandidate) -> dict[str, Any]:
    return {
        **_common_json(candidate.entry, candidate.proof),
        "reason": candidate.reason,
        "why": candidate.why,
        "archive_file": f".learnings/{archive_name(candidate.year)}",
    }


def retire_json(candidate: RetireCandidate) -> dict[str, Any]:
    return {
        **_common_json(candidate.entry, candidate.proof),
        "reason": "; ".join(candidate.reasons),
        "reasons": list(candidate.reasons),
        "target": candidate.target,
        "helpful": candidate.entry.helpful,
        "harmful": candidate.entry.harmful,
    }


def review_json(plan: ReviewPlan, problems: list[Problem], policy: Policy, store: Store | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "promote": [promote_json(c, policy) for c in plan.promote],
        "archive": [archive_json(c) for c in plan.archive],
        "retire": [retire_json(c) for c in plan.retire],
        "lint": [{"file": p.file, "line": p.line, "reason": p.reason} for p in problems],
    }
    moves = user_scope_candidates(store) if store is not None else []
    if moves:  # only when there is one, so the four documented groups stay the whole answer
        out["user_scope"] = moves
    return out


def user_scope_candidates(store: Store) -> list[dict[str, Any]]:
    """Active entries whose Pattern-Key also recurs in another project: lessons about the user
    or the machine rather than this project, proposed for the user-wide store."""
    from self_improve.store.registry import projects_with_key

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


# ---- text ------------------------------------------------------------------------------------------


def _times(n: int) -> str:
    return f"{n} time{'s' if n != 1 else ''}"


def _tasks(n: int) -> str:
    return f"{n} task{'s' if n != 1 else ''}"


def evidence_line(candidate: PromoteCandidate, policy: Policy) -> str:
    proof = candidate.proof
    last = f", last {proof.last_seen}" if proof.last_seen else ""
    if proof.has_history:
        seen = f"seen {_times(proof.occurrences)} in {_tasks(proof.tasks)} within {policy.window_days} days ({proof.total} in total){last}"
    else:
        seen = f"seen {_times(proof.total)}{last}; no task history (a reference-format entry), so 2 tasks cannot be proven"
    return f"critical; {seen}" if candidate.critical else seen


def promote_lines(
    candidate: PromoteCandidate, policy: Policy, rule: str | None = None, target: str | None = None, provenance: str = ""
) -> list[str]:
    flag = colour("[critical] ", "red") if candidate.critical else ""
    shown_rule = rule if rule is not None else candidate.rule.text
    lines = [
        f"  {colour(candidate.entry.id, 'bold')}  {flag}{candidate.entry.summary}",
        f"      {evidence_line(candidate, policy)}",
    ]
    if shown_rule and (rule is not None or candidate.rule.ok):
        lines.append(f"      rule:   {shown_rule}")
    else:
        lines.append(f"      rule:   (none) {candidate.rule.problem}")
    lines.append(f"      target: {target or candidate.target}")
    if provenance:
        lines.append(f"      {provenance}")
    return lines


def archive_lines(candidate: ArchiveCandidate) -> list[str]:
    return [
        f"  {colour(candidate.entry.id, 'bold')}  {candidate.entry.summary}",
        f"      {candidate.reason} -> .learnings/{archive_name(candidate.year)}",
    ]


def retire_lines(candidate: RetireCandidate) -> list[str]:
    where = f"; rule in {candidate.target}" if candidate.target else ""
    return [
        f"  {colour(candidate.entry.id, 'bold')}  {candidate.entry.summary}",
        f"      {'; '.join(candidate.reasons)}{where}",
    ]


def size_cap_line(plan: ReviewPlan) -> str:
    return (
        f"  Size cap: {plan.active_entries} active entries, over forgetting.max_active_entries ({plan.size_cap}); "
        "the lowest-value ones are listed for archiving"
    )


def heading(title: str, count: int) -> str:
    return colour(f"{title} ({count})", "bold")


def render_listing(
    plan: ReviewPlan, problems: list[Problem], policy: Policy, triage: int, assessor: approval.Assessor | None = None,
    reconciles: Sequence[drift_mod.Reconcile] = (),
) -> str:
    out: list[str] = []
    if triage:
        out += [pending_triage_line(triage), ""]
    if plan.promote:
        out.append(heading("Promote", len(plan.promote)))
        for promote in plan.promote:
            out += promote_lines(promote, policy, provenance=assessor.line(promote.entry) if assessor else "")
        out.append("")
    if plan.archive or plan.over_cap:
        out.append(heading("Archive", len(plan.archive)))
        if plan.over_cap:
            out.append(size_cap_line(plan))
        for archived in plan.archive:
            out += archive_lines(archived)
        out.append("")
    if plan.retire:
        out.append(heading("Retire", len(plan.retire)))
        for retired in plan.retire:
            out += retire_lines(retired)
        out.append("")
    if reconciles:
        out.append(heading("Reconcile", len(reconciles)))
        for reconcile in reconciles:
            out += drift_mod.reconcile_lines(reconcile)
        out.append("")
    if problems:
        out.append(heading("Lint", len(problems)))
        out += [f"  {problem.render()}" for problem in problems]
        out.append("")
    if plan.empty and not problems and not reconciles:
        out.append("Nothing to review: no entry to promote, archive or retire, and no lint problem.")
    elif not plan.empty or any(reconcile.action for reconcile in reconciles):
        out.append(
            "Run `self-improve review --yes` to apply them (it promotes only what was recorded on this machine), "
            "or run it in a terminal to choose one by one."
        )
    return "\n".join(out) + "\n"


# ---- applying ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    lines: list[str] = field(default_factory=list)
    promoted: int = 0
    archived: int = 0
    retired: int = 0
    skipped: int = 0
    failed: int = 0
    reconciled: int = 0


def all_steps(store: Store, plan: ReviewPlan, today: date, outcome: Outcome) -> list[Step]:
    """Every proposal as steps (promotions without a usable rule are skipped, with a note)."""
    steps: list[Step] = []
    for candidate in plan.promote:
        if not candidate.rule.ok:
            outcome.skipped += 1
            outcome.lines.append(f"skipped {candidate.entry.id}: {candidate.rule.problem} (`self-improve promote {candidate.entry.id} --rule TEXT`)")
            continue
        promotion = plan_promotion(store, candidate.entry.id, candidate.rule.text, candidate.target)
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


def apply_all(store: Store, plan: ReviewPlan, today: date) -> Outcome:
    outcome = Outcome()
    steps = all_steps(store, plan, today, outcome)
    simulate(store, steps)  # any refusal stops the whole review before the first write
    apply(store, steps)
    bump_actions(store, rules_promoted=outcome.promoted, rules_retired=outcome.retired, entries_archived=outcome.archived)
    return outcome


def _apply_one(store: Store, steps: list[Step]) -> None:
    simulate(store, steps)
    apply(store, steps)


class Quit(Exception):
    """The user answered q (or stdin ended)."""


def _choose(prompt: str, choices: str) -> str:
    while True:
        answer = ask(prompt)
        if answer is None:
            raise Quit
        answer = answer.casefold()[:1]
        if answer in choices:
            if answer == "q":
                raise Quit
            return answer
        print(f"  please answer one of: {', '.join(choices)}")


def _attempt(outcome: Outcome, action: Callable[[], None]) -> bool:
    try:
        action()
        return True
    except SelfImproveError as exc:
        error_line(str(exc))
        outcome.failed += 1
        return False


def review_promote(
    store: Store, candidate: PromoteCandidate, policy: Policy, today: date, outcome: Outcome, position: str, provenance: str = ""
) -> None:
    rule = candidate.rule.text if candidate.rule.ok else ""
    target = candidate.target
    while True:
        print(colour(f"Promote {position}", "blue"))
        for line in promote_lines(candidate, policy, rule or None, target, provenance):
            print(line)
        answer = _choose("  [p]romote, [e]dit rule, change [t]arget, [a]rchive, [s]kip, [q]uit? ", "petasq")
        if answer == "p":
            if not rule:
                print("  no rule yet: choose e to write one")
                continue

            def promote(rule: str = rule, target: str = target) -> None:
                promotion = plan_promotion(store, candidate.entry.id, rule, target)
                _apply_one(store, list(promotion.steps))

            if _attempt(outcome, promote):
                outcome.promoted += 1
                bump_actions(store, rules_promoted=1)
                print(f"  promoted {candidate.entry.id} to {target}")
            return
        if answer == "e":
            new_rule = ask("  rule: ")
            if new_rule is None:
                raise Quit
            problem = rule_problem(new_rule.strip(), policy.max_rule_chars, source="the rule")
            if problem:
                print(f"  {problem}")
            else:
                rule = new_rule.strip()
            continue
        if answer == "t":
            new_target = ask("  target: ")
            if new_target is None:
                raise Quit
            try:
                target = normalise_target(store, new_target)
            except SelfImproveError as exc:
                print(f"  {exc}")
            continue
        if answer == "a":
            if _attempt(outcome, lambda: _apply_one(store, [ArchiveStep((candidate.entry.id,), today)])):
                outcome.archived += 1
                bump_actions(store, entries_archived=1)
                print(f"  archived {candidate.entry.id}")
            return
        outcome.skipped += 1
        return


def review_archive(store: Store, candidate: ArchiveCandidate, today: date, outcome: Outcome, position: str) -> None:
    print(colour(f"Archive {position}", "blue"))
    for line in archive_lines(candidate):
        print(line)
    if _choose("  [a]rchive, [s]kip, [q]uit? ", "asq") == "a":
        if _attempt(outcome, lambda: _apply_one(store, [ArchiveStep((candidate.entry.id,), today)])):
            outcome.archived += 1
            bump_actions(store, entries_archived=1)
            print(f"  archived {candidate.entry.id} to .learnings/{archive_name(candidate.year)}")
    else:
        outcome.skipped += 1


def review_retire(store: Store, candidate: RetireCandidate, outcome: Outcome, position: str) -> None:
    print(colour(f"Retire {position}", "blue"))
    for line in retire_lines(candidate):
        print(line)
    if _choose("  [r]etire, [s]kip, [q]uit? ", "rsq") == "r":
        if _attempt(outcome, lambda: _apply_one(store, list(plan_retirement(store, candidate.entry.id).steps))):
            outcome.retired += 1
            bump_actions(store, rules_retired=1)
            print(f"  retired {candidate.entry.id}")
    else:
        outcome.skipped += 1


def review_reconcile(store: Store, reconcile: drift_mod.Reconcile, outcome: Outcome, position: str) -> None:
    """One drift proposal: the finding, the exact diff, then apply / skip / quit."""
    current = drift_mod.refreshed(store, reconcile)
    if current is None:  # an earlier answer already made the block match its hash again
        return
    reconcile = current
    print(colour(f"Reconcile {position}", "blue"))
    for line in drift_mod.reconcile_lines(reconcile):
        print(line)
    try:
        sys.stdout.write(simulate(store, list(reconcile.steps)).diff())
    except SelfImproveError as exc:  # the file changed since the proposal was made
        error_line(str(exc))
        outcome.failed += 1
        return
    if _choose("  [a]pply, [s]kip, [q]uit? ", "asq") == "a":
        if _attempt(outcome, lambda: _apply_one(store, list(reconcile.steps))):
            outcome.reconciled += 1
            print(f"  {drift_mod.done_line(reconcile)}")
    else:
        outcome.skipped += 1


def interactive(
    store: Store, plan: ReviewPlan, problems: list[Problem], policy: Policy, today: date, triage: int,
    assessor: approval.Assessor | None = None, reconciles: Sequence[drift_mod.Reconcile] = (),
) -> Outcome:
    outcome = Outcome()
    if triage:
        print(pending_triage_line(triage))
    if plan.over_cap:
        print(size_cap_line(plan).strip())
    actionable = [reconcile for reconcile in reconciles if reconcile.action]
    try:
        for n, reconcile in enumerate(actionable, 1):
            review_reconcile(store, reconcile, outcome, f"{n}/{len(actionable)}")
        for n, promote in enumerate(plan.promote, 1):
            provenance = assessor.line(promote.entry) if assessor else ""
            review_promote(store, promote, policy, today, outcome, f"{n}/{len(plan.promote)}", provenance)
        for n, archived in enumerate(plan.archive, 1):
            review_archive(store, archived, today, outcome, f"{n}/{len(plan.archive)}")
        for n, retired in enumerate(plan.retire, 1):
            review_retire(store, retired, outcome, f"{n}/{len(plan.retire)}")
    except Quit:
        print("quit")
    reports = [reconcile for reconcile in reconciles if not reconcile.action]
    if reports:  # damaged markers and refused fixes: for a person to fix
        print(heading("Drift", len(reports)))
        for reconcile in reports:
            print(f"  {reconcile.drift.render()} ({reconcile.note})")
    if problems:
        print(heading("Lint", len(problems)))
        for problem in problems:
            print(f"  {problem.render()}")
    if plan.empty and not actionable:
        print("Nothing to promote, archive or retire.")
    else:
        print(
            f"Reviewed: {outcome.promoted} promoted, {outcome.archived} archived, {outcome.retired} retired, "
            f"{outcome.skipped} skipped" + (f", {outcome.reconciled} reconciled" if outcome.reconciled else "")
            + (f", {outcome.failed} failed" if outcome.failed else "")
        )
    return outcome


# ---- the verb ----------------------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "review",
        help="propose promotions, archiving and retirements; apply the ones chosen",
        description="Group the candidates (promote, archive, retire) and lint problems. On a terminal, "
        "choose one by one; --yes applies them all; --dry-run prints the diff; --json prints them.",
    )
    add_json_flag(parser)
    parser.add_argument(
        "--yes", action="store_true",
        help="apply the proposals without asking; promotes only what was recorded on this machine, and nothing inside an agent session",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the unified diff of every file the proposals would change; change nothing")
    add_hidden_test_flags(parser)
    add_scope_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json and (args.yes or args.dry_run):
        raise UsageError("--json only lists the proposals: use it without --yes and --dry-run")
    store = store_from(args)
    today = today_from(args)
    plan = build_plan(store, today)
    policy = Policy.from_settings(store.setting)
    problems = lint_command.collect_store(store)  # rule drift has its own group
    reconciles = drift_mod.plan_reconcile(store)
    assessor = approval.Assessor(store, today, policy)  # provenance, from this machine's ledger
    if args.json:
        data = review_json(plan, problems, policy, store)
        for item, candidate in zip(data["promote"], plan.promote):
            item["provenance"] = assessor.as_json(candidate.entry)
        if reconciles:  # like user_scope: only when there is some
            data["drift"] = [drift_mod.reconcile_json(r) for r in reconciles]
        print_json(data)
        return 0
    if args.dry_run:
        outcome = Outcome()
        steps = drift_mod.reconcile_steps(reconciles) + all_steps(store, plan, today, outcome)
        for line in outcome.lines:
            if line.startswith("skipped "):
                sys.stderr.write(line + "\n")
        for reconcile in reconciles:
            if not reconcile.action:
                sys.stderr.write(f"drift: {reconcile.drift.render()} ({reconcile.note})\n")
        sys.stdout.write(simulate(store, steps).diff())
        return 0
    triage = pending_triage_count(store)
    gate = approval.agent_gate()  # inside an agent session: promotions and retirements are only proposed
    if args.yes:
        # Drift fixes write instruction files too (accepting a hand edit most of all): inside an
        # agent session they are only proposed, like promotions.
        actionable = [reconcile for reconcile in reconciles if reconcile.action]
        reconciled = [] if gate else drift_mod.apply_reconciles(store, actionable)
        plan, held = assessor.split_for_yes(plan, gate, lambda *verb: approval.user_command(args, store, *verb))
        held = [drift_mod.held_line(reconcile) for reconcile in actionable if gate] + held
        outcome = apply_all(store, plan, today)
        record_review(store)
        for line in reconciled + outcome.lines + held:
            print(line)
        if gate and held:
            print(approval.held_back_line(gate))
            print(approval.ask_user_line(approval.user_command(args, store, "review")))
        if not outcome.lines and not held and not reconciled:
            print("Nothing to promote, archive or retire.")
        for problem in problems:
            print(f"lint: {problem.render()}")
        for reconcile in reconciles:
            if not reconcile.action:
                print(f"drift: {reconcile.drift.render()} ({reconcile.note})")
        return 0
    if is_interactive(args) and not gate:  # an agent can pipe answers: it gets the listing
        outcome = interactive(store, plan, problems, policy, today, triage, assessor, reconciles)
        record_review(store)
        return 1 if outcome.failed else 0
    sys.stdout.write(render_listing(plan, problems, policy, triage, assessor, reconciles))
    if gate and (plan.promote or plan.retire):
        print(approval.ask_user_line(approval.user_command(args, store, "review")) + f" (inside {gate}, review only proposes)")
    for move in user_scope_candidates(store):
        print(
            f"user scope: {move['id']} [{move['pattern_key']}] recurs in {move['projects']} projects; "
            f"to keep it for all of them: {move['command']}"
        )
    return 0
