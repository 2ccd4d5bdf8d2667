"""The human approves: who may change an instruction file, and on what evidence.

Two gates, both deterministic, neither readable from a project's config:

1. **Agent sessions only propose.** Run from inside an agent session (the caller, which the
   command layer learns from ``harnesses/agent_env`` and passes to :func:`agent_gate`),
   ``promote``, ``retire``, ``extract-skill`` and the promotion and retirement part of
   ``review --yes`` change nothing: they print the proposal and the exact command the user runs
   in their own terminal, and exit 0 (proposing is what the agent was asked to do; a failing
   exit would be recorded by our own hook as an error, and invite the agent to find a way
   around). ``--yes`` does not bypass it: the agent can type ``--yes`` but not into a terminal.
   ``promotion.agent_may_promote = true`` in the user-level config turns the gate off.
   Retiring is gated too: removing a rule the user approved (say "never push to main") changes
   what the agent does as much as adding one; the agent flags a bad rule with ``mark --harmful``
   and review proposes it to the user.
2. **``review --yes`` promotes only what this machine saw.** A candidate is promoted without a
   question only when the evidence rule holds on occurrences recorded by our hooks or CLI on this
   machine (``store/provenance.py``) *and* its rule text (the fix line) was recorded here too.
   Entries from a commit, with occurrences a forger can write, or with a fix a commit changed,
   are listed with their provenance: the user promotes them with ``self-improve promote ID``.
   Imports are no local evidence, nor are tasks an agent names itself (``log --session X``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from self_improve.review.candidates import PromoteCandidate, ReviewPlan
from self_improve.review.policy import Policy
from self_improve.store import config as config_mod
from self_improve.store import provenance as provenance_mod
from self_improve.store.entry import Entry
from self_improve.store.occurrences import distinct_tasks, within
from self_improve.store.store import Store, latest_action

WRITERS = {"hook": "the hook", "cli": "the CLI", "agent": "the CLI in an agent session", "import": "an import"}


# ---- gate 1: agent sessions -------------------------------------------------------------------


def agent_gate(caller: str) -> str:
    """The harness whose session this is when changes must only be proposed; "" when allowed.

    ``caller`` is the harness whose agent session runs this command, "" for a person (the
    command layer asks ``harnesses/agent_env``)."""
    if not caller or config_mod.user_setting("promotion.agent_may_promote") is True:
        return ""
    return caller


def nothing_changed_line(harness: str) -> str:
    return f"Nothing changed: inside {harness} this only proposes; a person approves every change to instruction files."


def held_back_line(harness: str) -> str:
    return f"Instruction files unchanged: inside {harness}, review --yes only proposes promotions and retirements; a person approves them."


def ask_user_line(command: str) -> str:
    return f"Ask the user to run, in their own terminal: {command}"


# ---- gate 2: evidence recorded on this machine ---------------------------------------------------


@dataclass(frozen=True)
class Assessment:
    """One promotion candidate's provenance, and whether ``review --yes`` may promote it."""

    provenance: provenance_mod.Provenance
    window_occurrences_here: int
    window_tasks_here: int
    meets_rule_here: bool
    fix_recorded_here: bool

    @property
    def yes_may_promote(self) -> bool:
        return self.meets_rule_here and self.fix_recorded_here


class Assessor:
    """Reads this project's ledger once, then assesses candidates against it."""

    def __init__(self, store: Store, today: date, policy: Policy) -> None:
        self.ledger = provenance_mod.Ledger.load(str(store.root))
        self.today = today
        self.policy = policy

    def assess(self, entry: Entry) -> Assessment:
        found = provenance_mod.provenance_of(entry.occurrences, self.ledger.records(entry.id))
        recent = within(found.local, self.today, self.policy.window_days)
        tasks = distinct_tasks(recent)
        fix = latest_action(entry) or entry.observed_fix  # the text the rule is made of (policy.propose_rule)
        return Assessment(
            provenance=found,
            window_occurrences_here=len(recent),
            window_tasks_here=tasks,
            meets_rule_here=len(recent) >= self.policy.min_occurrences and tasks >= self.policy.min_tasks,
            fix_recorded_here=bool(fix) and found.fix_recorded_here(fix),
        )

    def line(self, entry: Entry) -> str:
        return provenance_line(entry, self.assess(entry))

    def as_json(self, entry: Entry) -> dict[str, Any]:
        return provenance_json(entry, self.assess(entry))

    def split_for_yes(self, plan: ReviewPlan, gate: str, command: Callable[..., str]) -> tuple[ReviewPlan, list[str]]:
        """The part of the plan ``review --yes`` applies, and one line per proposal it holds back.

        ``command(*verb)`` renders the user's command. Inside an agent session (``gate``) no
        promotion or retirement is applied; elsewhere only promotions proven on this machine.
        """
        held: list[str] = []
        kept: list[PromoteCandidate] = []
        for candidate in plan.promote:
            entry_id = candidate.entry.id
            if gate:
                held.append(f"proposed {entry_id}: promote to {candidate.target} (`{command('promote', entry_id)}`)")
            elif not candidate.rule.ok or self.assess(candidate.entry).yes_may_promote:
                kept.append(candidate)  # one without a rule: applying it reports it as skipped
            else:
                held.append(
                    f"not promoted {entry_id}: {self.line(candidate.entry)}; "
                    f"to promote it anyway, read it and run `{command('promote', entry_id)}`"
                )
        retire = plan.retire
        if gate:
            held.extend(f"proposed {c.entry.id}: retire its rule (`{command('retire', c.entry.id)}`)" for c in retire)
            retire = ()
        return replace(plan, promote=tuple(kept), retire=retire), held


def _occurrences(n: int) -> str:
    return f"{n} occurrence{'s' if n != 1 else ''}"


def provenance_line(entry: Entry, assessment: Assessment) -> str:
    """One line: who logged it, and how many of its occurrences this machine recorded."""
    found = assessment.provenance
    if found.logged_by:
        who = f"logged by {WRITERS.get(found.logged_by, found.logged_by)} on this machine"
    elif found.imported:
        who = "merged in by an import on this machine"
    else:
        who = "not logged on this machine (it arrived in a commit, or predates provenance records)"
    total = len(found.local) + found.arrived
    here = f"{len(found.local)} of {_occurrences(total)} recorded here" if total else "no occurrence history"
    if found.recorded_by:
        here += " (" + ", ".join(f"{v} by {WRITERS.get(k, k)}" for k, v in sorted(found.recorded_by.items())) + ")"
    parts = [f"provenance: {who}", here]
    if (latest_action(entry) or entry.observed_fix) and not assessment.fix_recorded_here:
        parts.append("its fix was not recorded here")
    return "; ".join(parts)


def provenance_json(entry: Entry, assessment: Assessment) -> dict[str, Any]:
    found = assessment.provenance
    return {
        "logged_by": found.logged_by or None,
        "logged_here": found.logged_here,
        "imported": found.imported,
        "occurrences_recorded_here": len(found.local),
        "occurrences_not_recorded_here": found.arrived,
        "recorded_by": dict(sorted(found.recorded_by.items())),
        "window_occurrences_here": assessment.window_occurrences_here,
        "window_tasks_here": assessment.window_tasks_here,
        "meets_rule_here": assessment.meets_rule_here,
        "fix_recorded_here": assessment.fix_recorded_here,
        "review_yes_promotes": assessment.yes_may_promote,
        "line": provenance_line(entry, assessment),
    }
