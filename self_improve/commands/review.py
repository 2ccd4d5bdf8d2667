"""``self-improve review [--json | --yes | --dry-run]``: promote, archive, retire, one delta each.

The proposals, their steps and their rendering are ``review/`` (``session``, ``report``,
``drift``, ``approval``, ``triage``); this verb chooses how to show and apply them:

- On a terminal it asks, candidate by candidate: promote / edit rule / change target / archive /
  skip / quit (archive and retire candidates: archive or retire / skip / quit).
- ``--json`` prints the proposals (``review/report.py``).
- Drift is reconciled first (re-add a missing rule, remove a rule nobody promoted, re-hash a
  block edited by hand, keeping the edit); damaged markers are only reported.
- ``--yes`` applies every proposal without asking; ``--dry-run`` prints the unified diff of every
  file they would change, and changes nothing.
- Elsewhere (a pipe, an agent's shell) it prints the proposals and changes nothing.
- Corrections the hooks queued that no lesson came of yet (``review/corrections.py``) are listed
  first and, on a terminal, walked through last: log / edit / drop / skip / quit. Inside an agent
  session they are only listed, with the ``log`` command that makes one a lesson (and confirms
  it); ``--yes`` and ``--dry-run`` leave the queue as it is.
- Groups of likely duplicates (``store/duplicates.py``) are listed with the ``self-improve merge``
  commands that make each one entry; on a terminal: merge into the first / skip / quit. ``--yes``
  never merges: a person judges whether two wordings are one lesson.
- Promoted rules that recurred after promotion (``review/revise.py``) are listed under "Revise"
  with the ``promote ID --rule`` and ``retire ID`` commands; ``--yes`` and the interactive walk
  only name them: the words of a better rule are for a person (or the agent, via the CLI).

After an interactive or ``--yes`` review, ``.learnings/.state/last-review`` records when it ran
(``review/triage.py``). Tests pin "today" with ``SELF_IMPROVE_TODAY`` (or ``--today``) and force
the interactive mode with ``SELF_IMPROVE_INTERACTIVE=1`` (or ``--interactive``), answers read
from stdin.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import date

from self_improve.commands._common import (
    add_hidden_test_flags,
    add_json_flag,
    add_scope_flag,
    agent_gate,
    ask,
    bump_actions,
    cli_writer,
    is_interactive,
    store_from,
    today_from,
    user_command,
)
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import colour, error_line, print_json
from self_improve.review import approval
from self_improve.review import corrections as corrections_mod
from self_improve.review import drift as drift_mod
from self_improve.review.plan import ArchiveStep, simulate
from self_improve.review.candidates import ArchiveCandidate, PromoteCandidate, RetireCandidate, ReviewPlan, set_apart_hand_promoted
from self_improve.review.policy import Policy, rule_problem
from self_improve.review.problems import store_problems
from self_improve.review.prompt import ask_prefilled
from self_improve.review.revise import revise_proposals
from self_improve.review.promotion import plan_promotion, plan_retirement, promoted_by_us
from self_improve.review.contradictions import supersede_proposals
from self_improve.review.report import (
    archive_lines, by_hand_yes_lines, merge_lines, no_menu_note, not_applied_lines, promote_lines, render_listing, retire_lines,
    review_json, size_cap_line, tolerate_undecodable_output,
)
from self_improve.review.session import (
    Outcome, apply_all, apply_steps, attempt, build_plan, closing_lines, dry_run_diff, user_scope_candidates,
)
from self_improve.review.targets import normalise_target
from self_improve.review.triage import pending_triage_count, record_review
from self_improve.store.archive import archive_name
from self_improve.store.combine import merge_entries
from self_improve.store.correction_queue import QueuedCorrection
from self_improve.store.duplicates import DuplicateGroup
from self_improve.store.lint import Problem
from self_improve.store.store import Store


def pending_triage_line(count: int) -> str:
    """The line the OpenClaw reminder block shows too, so both say it the same way."""
    from self_improve.harnesses.openclaw.block import pending_line

    return pending_line(count) if count else ""


# ---- the interactive walk-through --------------------------------------------------------------------


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
                promotion = plan_promotion(store, candidate.entry.id, rule, target, today)
                apply_steps(store, list(promotion.steps))

            if attempt(outcome, promote):
                outcome.promoted += 1
                bump_actions(store, rules_promoted=1)
                print(f"  promoted {candidate.entry.id} to {target}")
            return
        if answer == "e":
            new_rule = ask_prefilled(ask, "  rule: ", rule)
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
            if attempt(outcome, lambda: apply_steps(store, [ArchiveStep((candidate.entry.id,), today)])):
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
        if attempt(outcome, lambda: apply_steps(store, [ArchiveStep((candidate.entry.id,), today)])):
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
        if attempt(outcome, lambda: apply_steps(store, list(plan_retirement(store, candidate.entry.id).steps))):
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
        if attempt(outcome, lambda: apply_steps(store, list(reconcile.steps))):
            outcome.reconciled += 1
            print(f"  {drift_mod.done_line(reconcile)}")
    else:
        outcome.skipped += 1


def review_correction(store: Store, item: QueuedCorrection, outcome: Outcome, done: dict[str, int], position: str) -> None:
    """One queued correction: log it (its excerpt as the summary), edit (summary and action
    first), drop it from the queue, skip, quit."""
    print(colour(f"Correction {position}", "blue"))
    for line in corrections_mod.item_lines(item):
        print(line)
    answer = _choose("  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? ", "ledsq")
    if answer == "s":
        outcome.skipped += 1
        return
    if answer == "d":
        gone: list[bool] = []
        if attempt(outcome, lambda: gone.append(corrections_mod.drop_item(store, item))):
            done["dropped"] += int(gone[0])
            print("  dropped from the queue; nothing logged" if gone[0] else "  already out of the queue")
        return
    summary = action = ""
    if answer == "e":
        asked = ask("  summary (empty: the excerpt): ")
        if asked is None:
            raise Quit
        summary = asked
        asked = ask('  action, "do X, not Y" (empty: none): ')
        if asked is None:
            raise Quit
        action = asked
    logged: list[str] = []

    def log() -> None:
        result = corrections_mod.log_item(store, item, cli_writer(), summary, action)
        logged.append(f"  logged {result.entry_id} in {result.file}" if result.created
                      else f"  merged into {result.entry_id}: seen {result.recurrence_count} times in {result.tasks} task(s)")

    if attempt(outcome, log):
        done["logged"] += 1
        print(logged[0])


def review_merge(store: Store, group: DuplicateGroup, outcome: Outcome, done: dict[str, int], position: str) -> None:
    """One group of likely duplicates: merge the others into the first (``store/combine.py``), or skip."""
    print(colour(f"Merge {position}", "blue"))
    for line in merge_lines(group):
        print(line)
    if _choose(f"  [m]erge into {group.into.id}, [s]kip, [q]uit? ", "msq") != "m":
        outcome.skipped += 1
        return
    others = [entry.id for entry in group.entries[1:]]

    def merge() -> None:
        for entry_id in others:
            merge_entries(store, entry_id, group.into.id)
            done["merged"] = done.get("merged", 0) + 1

    if attempt(outcome, merge):
        print(f"  merged {', '.join(others)} into {group.into.id}")


def interactive(
    store: Store, plan: ReviewPlan, problems: list[Problem], policy: Policy, today: date, triage: int,
    assessor: approval.Assessor | None = None, reconciles: Sequence[drift_mod.Reconcile] = (),
    queued: Sequence[QueuedCorrection] = (),
) -> Outcome:
    outcome = Outcome()
    done = {"logged": 0, "dropped": 0}  # queued corrections
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
        for n, retired in enumerate(retiring := plan.retire + plan.retire_by_hand, 1):  # a person may retire either
            review_retire(store, retired, outcome, f"{n}/{len(retiring)}")
        for n, item in enumerate(queued, 1):
            review_correction(store, item, outcome, done, f"{n}/{len(queued)}")
        for n, group in enumerate(plan.merge, 1):
            review_merge(store, group, outcome, done, f"{n}/{len(plan.merge)}")
    except Quit:
        print("quit")
    for line in closing_lines(plan, problems, reconciles, queued, outcome, done):
        print(line)
    return outcome


# ---- the verb ----------------------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "review",
        help="propose promotions, archiving and retirements; apply the ones chosen",
        description="Group the candidates (promote, archive, retire) and lint problems. On a terminal, "
        "choose one by one; --yes applies them all; --dry-run prints the diff; --json prints them.",
        epilog="examples:\n"
        "  self-improve review\n"
        "  self-improve review --dry-run",
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
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C at a question: end the prompt's line; what was applied stays
        sys.stdout.write("\n")
        return 130  # main's code for an interrupt (128 + SIGINT)


def _run(args: argparse.Namespace) -> int:
    # --json never writes, so --dry-run adds nothing to it, but is accepted like on every writing verb.
    if args.json and args.yes:
        raise UsageError("--json only lists the proposals: use it without --yes")
    store, today = store_from(args), today_from(args)
    tolerate_undecodable_output()
    plan = set_apart_hand_promoted(build_plan(store, today), lambda entry: promoted_by_us(store, entry))  # never --yes
    policy = Policy.from_settings(store.setting)
    problems = store_problems(store)  # rule drift has its own group
    reconciles = drift_mod.plan_reconcile(store)
    assessor = approval.Assessor(store, today, policy)  # provenance, from this machine's ledger
    queued = corrections_mod.pending(store)  # corrections caught that no lesson came of yet
    # Lessons that invert a promoted rule: proposed supersedes, never applied here.
    contradictions = supersede_proposals(store, lambda *verb: user_command(args, store, *verb))
    # Rules that recurred after promotion: proposed rewrites, never applied here.
    revisions = revise_proposals(store, plan, lambda *verb: user_command(args, store, *verb))
    if args.json:
        print_json(review_json(plan, problems, policy, user_scope=user_scope_candidates(store), assessor=assessor, reconciles=reconciles,
                               corrections=queued, contradictions=contradictions, revisions=revisions))
        return 0
    if args.dry_run:
        sys.stdout.write(dry_run_diff(store, plan, reconciles, today))
        return 0
    triage = pending_triage_count(store)
    gate = agent_gate()  # inside an agent session: promotions and retirements are only proposed
    if args.yes:
        # Drift fixes write instruction files too (accepting a hand edit most of all): inside an
        # agent session they are only proposed, like promotions.
        actionable = [reconcile for reconcile in reconciles if reconcile.action]
        reconciled = [] if gate else drift_mod.apply_reconciles(store, actionable)
        plan, held = assessor.split_for_yes(plan, gate, lambda *verb: user_command(args, store, *verb))
        held = [drift_mod.held_line(reconcile) for reconcile in actionable if gate] + held + by_hand_yes_lines(plan)
        outcome = apply_all(store, plan, today)
        bump_actions(store, **outcome.counts())
        record_review(store)
        for line in reconciled + outcome.lines + held:
            print(line)
        if gate and held:
            print(approval.held_back_line(gate))
            print(approval.ask_user_line(user_command(args, store, "review")))
        if not outcome.lines and not held and not reconciled:
            print("Nothing to promote, archive or retire.")
        for problem in problems:
            print(f"lint: {problem.render()}")
        for reconcile in reconciles:
            if not reconcile.action:
                print(f"drift: {reconcile.drift.render()} ({reconcile.note})")
        if queued:
            print(corrections_mod.yes_line(len(queued)))
        for line in not_applied_lines(contradictions, revisions):
            print(line)
        return 0
    if is_interactive(args) and not gate:  # an agent can pipe answers: it gets the listing
        outcome = interactive(store, plan, problems, policy, today, triage, assessor, reconciles, queued)
        for line in not_applied_lines(contradictions, revisions):
            print(line)
        record_review(store)
        return 1 if outcome.failed else 0
    note = "" if gate else no_menu_note(sys.stdin.isatty(), sys.stdout.isatty())
    if note:  # on stderr: `review | cat` shows it, a script reading the listing never sees it
        sys.stderr.write(f"self-improve: note: {note}\n")
    sys.stdout.write(
        render_listing(plan, problems, policy, pending_triage_line(triage), assessor, reconciles, queued, contradictions, revisions)
    )
    if gate and (plan.promote or plan.retire):
        print(approval.ask_user_line(user_command(args, store, "review")) + f" (inside {gate}, review only proposes)")
    for move in user_scope_candidates(store):
        print(
            f"user scope: {move['id']} [{move['pattern_key']}] recurs in {move['projects']} projects; "
            f"to keep it for all of them: {move['command']}"
        )
    return 0
