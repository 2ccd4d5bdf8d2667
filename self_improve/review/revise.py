"""Revision proposals: a promoted rule whose fingerprint recurred after promotion did not do its
job, so ``review`` proposes a better one, with what it knows of it: the occurrences since
``Promoted-On``, its credit (self-reported marks and measured, apart), the rule as it stands, and
the commands that change it (``self-improve promote ID --rule TEXT``, which writes a new
Promoted-On and clears the recurrence count, or ``self-improve retire ID``).

Only ever proposed: ``review --yes`` never rewrites nor retires a rule because of a recurrence;
the words of a better rule are for a person, or the agent through the CLI, to find. Which rules
qualify is ``review/candidates.revise_candidates``; this module adds the rule's text (read from
the instruction files) and the commands, and renders both forms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from self_improve.output import colour
from self_improve.review.candidates import ReviseCandidate, ReviewPlan
from self_improve.store.store import Store

NEW_RULE_PLACEHOLDER = "NEW RULE"
SHOWN_OCCURRENCES = 5  # the newest ones in the listing; the JSON has them all


@dataclass(frozen=True)
class ReviseProposal:
    candidate: ReviseCandidate
    rule: str  # the bullet's text in its instruction file, "" when it cannot be found
    rewrite_command: str
    retire_command: str

    def as_json(self) -> dict[str, Any]:
        entry = self.candidate.entry
        return {
            "id": entry.id,
            "summary": entry.summary,
            "pattern_key": entry.pattern_key,
            "target": self.candidate.target,
            "rule": self.rule,
            "promoted_on": entry.promoted_on or None,
            "recurred_after_promotion": entry.recurred_after_promotion,
            "occurrences_since": [item.render() for item in self.candidate.since],
            "helpful": entry.helpful,
            "harmful": entry.harmful,
            "measured_helpful": entry.measured_helpful,
            "measured_harmful": entry.measured_harmful,
            "reasons": list(self.candidate.reasons),
            "commands": [self.rewrite_command, self.retire_command],
        }

    def lines(self) -> list[str]:
        entry = self.candidate.entry
        key = f"[{entry.pattern_key}] " if entry.pattern_key else ""
        since = self.candidate.since
        shown = ", ".join(item.render() for item in since[-SHOWN_OCCURRENCES:])
        more = f" (and {len(since) - SHOWN_OCCURRENCES} earlier)" if len(since) > SHOWN_OCCURRENCES else ""
        recurred, credit = self.candidate.reasons[0], self.candidate.reasons[1]
        where = f"rule in {self.candidate.target}" if self.candidate.target else "rule"
        return [
            f"  {colour(entry.id, 'bold')}  {entry.summary}",
            f"      {key}{recurred}{': ' + shown + more if shown else ''}",
            f"      {credit}",
            f"      {where}: {self.rule or '(not found in its file)'}",
            f"      to rewrite it: {self.rewrite_command}",
            f"      to retire it:  {self.retire_command}",
        ]

    def not_applied_line(self) -> str:
        """What ``review --yes`` and the interactive review say of one: never applied for you."""
        return f"revise (not applied): {self.candidate.entry.id} recurred after promotion; to rewrite its rule: {self.rewrite_command}"


def proposals(candidates: Sequence[ReviseCandidate], rules: Mapping[str, str], command: Callable[..., str]) -> list[ReviseProposal]:
    """Each candidate with its rule text (``rules``: by upper-case entry ID) and its commands
    (``command(*verb)``: ``user_command``, so they carry ``--root``/``--scope`` as given)."""
    return [
        ReviseProposal(
            candidate,
            rules.get(candidate.entry.id.upper(), ""),
            command("promote", candidate.entry.id, "--rule", NEW_RULE_PLACEHOLDER),
            command("retire", candidate.entry.id),
        )
        for candidate in candidates
    ]


def revise_proposals(store: Store, plan: ReviewPlan, command: Callable[..., str]) -> list[ReviseProposal]:
    """The plan's revise candidates as proposals; reads the instruction files only when there are some."""
    if not plan.revise:
        return []
    from self_improve.review.contradictions import rules_in_blocks

    return proposals(plan.revise, rules_in_blocks(store, store.entries()), command)
