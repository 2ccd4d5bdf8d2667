"""What ``review`` shows: the proposals as JSON and as text, from what was already read.

``--json`` prints ``{"promote": [...], "archive": [...], "retire": [...], "revise": [...], "lint": [...]}``
(``revise``: promoted rules that recurred after promotion, ``review/revise.py``, listed as
"Revise" and never applied by ``--yes``), plus
``"user_scope"``, ``"drift"``, ``"class_level"`` and ``"classes"`` when there are some; the listing
groups the same proposals (promote, archive, retire, reconcile, lint) for a person. Corrections the
hooks caught that no lesson came of yet (``review/corrections.py``) come first in the listing and
as ``"corrections"`` in the JSON, when there are some. A lesson whose rule inverts a promoted one
(``review/contradictions.py``) is listed after the retirements and is ``"contradictions"`` in the
JSON, when there are some: a proposed supersede, never applied by ``--yes``. Groups of likely
duplicates (``store/duplicates.py``) are ``"merge"`` in the JSON and "Merge" in the listing, when
there are some: each with the ``self-improve merge NEW OLD`` commands that make it one entry,
never applied by ``--yes`` either. Retire candidates promoted by hand (their rule is the user's
own text, ``candidates.set_apart_hand_promoted``) are ``"retire_by_hand"`` in the JSON and
"Retire by hand" in the listing, when there are some: only a person retires them. A promotion
without a usable rule has ``"rule": null``, ``"rule_problem": "needs a rule: …"`` and
``"rule_section": {"title", "text"}`` (the section as written); the listing shows the same.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from self_improve.output import colour, display_text
from self_improve.review import approval
from self_improve.review import corrections as corrections_mod
from self_improve.review import drift as drift_mod
from self_improve.review import fingerprints
from self_improve.review.candidates import ArchiveCandidate, PromoteCandidate, RetireCandidate, ReviewPlan
from self_improve.review.contradictions import SupersedeProposal, not_applied_line
from self_improve.review.policy import Evidence, Policy
from self_improve.review.revise import ReviseProposal
from self_improve.store.archive import archive_name
from self_improve.store.correction_queue import QueuedCorrection
from self_improve.store.duplicates import DuplicateGroup
from self_improve.store.entry import Entry
from self_improve.store.lint import Problem


def tolerate_undecodable_output() -> None:
    """Text read from a file that is not UTF-8 holds lone surrogates, which a strict stream
    cannot encode: shown as ``?`` (``review``, ``promote``, ``retire``), never a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a closed or detached stream: nothing to protect
                pass


# ---- JSON ------------------------------------------------------------------------------------------


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
        # "needs a rule": the section as written, for the person (or agent) who writes one.
        **({"rule_section": {"title": candidate.rule.section_title, "text": candidate.rule.section}} if not candidate.rule.ok else {}),
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
        "measured_helpful": candidate.entry.measured_helpful,
        "measured_harmful": candidate.entry.measured_harmful,
        "recurred_after_promotion": candidate.entry.recurred_after_promotion,
    }


def review_json(
    plan: ReviewPlan,
    problems: Sequence[Problem],
    policy: Policy,
    *,
    user_scope: Sequence[dict[str, Any]] = (),
    assessor: approval.Assessor | None = None,
    reconciles: Sequence[drift_mod.Reconcile] = (),
    corrections: Sequence[QueuedCorrection] = (),
    contradictions: Sequence[SupersedeProposal] = (),
    revisions: Sequence[ReviseProposal] = (),
) -> dict[str, Any]:
    """The five documented groups; ``user_scope``, ``drift``, ``class_level`` (entries counted by
    class before fingerprints) and ``classes`` (several mistakes of one class) only when there is some."""
    out: dict[str, Any] = {
        "promote": [promote_json(c, policy) for c in plan.promote],
        "archive": [archive_json(c) for c in plan.archive],
        "retire": [retire_json(c) for c in plan.retire],
        "revise": [revision.as_json() for revision in revisions],
        "lint": [{"file": p.file, "line": p.line, "reason": p.reason} for p in problems],
    }
    if user_scope:
        out["user_scope"] = list(user_scope)
    if assessor is not None:
        for item, candidate in zip(out["promote"], plan.promote, strict=True):
            item["provenance"] = assessor.as_json(candidate.entry)
    if reconciles:
        out["drift"] = [drift_mod.reconcile_json(r) for r in reconciles]
    if plan.class_level:
        out["class_level"] = [fingerprints.class_level_json(item) for item in plan.class_level]
    if plan.aggregates:
        out["classes"] = [fingerprints.aggregate_json(item, policy.window_days) for item in plan.aggregates]
    if corrections:
        out["corrections"] = corrections_mod.corrections_json(corrections)
    if contradictions:  # proposed supersedes (``review/contradictions.py``)
        out["contradictions"] = [proposal.as_json() for proposal in contradictions]
    if plan.merge:
        out["merge"] = [merge_json(group) for group in plan.merge]
    if plan.retire_by_hand:  # promoted by hand: for a person, never applied by --yes
        out["retire_by_hand"] = [{**retire_json(c), "reason": by_hand_text(c)} for c in plan.retire_by_hand]
    return out


def not_applied_lines(contradictions: Sequence[SupersedeProposal], revisions: Sequence[ReviseProposal]) -> list[str]:
    """What ``--yes`` and the interactive review say of the proposals they never apply."""
    return [not_applied_line(proposal) for proposal in contradictions] + [revision.not_applied_line() for revision in revisions]


def merge_commands(group: DuplicateGroup) -> list[str]:
    """The commands that make a group one entry: each other entry merged into the first."""
    return [f"self-improve merge {entry.id} {group.into.id}" for entry in group.entries[1:]]


def merge_json(group: DuplicateGroup) -> dict[str, Any]:
    return {
        "ids": [entry.id for entry in group.entries],
        "summaries": [entry.summary for entry in group.entries],
        "score": group.score,
        "into": group.into.id,
        "commands": merge_commands(group),
    }


def merge_lines(group: DuplicateGroup) -> list[str]:
    lines = [f"  {colour(entry.id, 'bold')}  {entry.summary}" for entry in group.entries]
    lines.append(f"      likely one lesson (score {group.score:.2f}); to merge into {group.into.id}:")
    lines += [f"      {command}" for command in merge_commands(group)]
    return lines


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
        lines.append(f"      rule:   {shown_rule}")  # in full: the person approves every word
    else:
        lines.append(f"      rule:   (none) {candidate.rule.problem}")
        if candidate.rule.section.strip():
            lines.append(f"      its {candidate.rule.section_title} reads:")
            lines += [f"      | {line}".rstrip() for line in candidate.rule.section.splitlines()]
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
    if candidate.by_hand:
        return [
            f"  {colour(candidate.entry.id, 'bold')}  {candidate.entry.summary}",
            f"      {'; '.join(candidate.reasons)}",
            f"      {by_hand_text(candidate)}; review --yes never retires it: `self-improve retire {candidate.entry.id}` does",
        ]
    where = f"; rule in {candidate.target}" if candidate.target else ""
    return [
        f"  {colour(candidate.entry.id, 'bold')}  {candidate.entry.summary}",
        f"      {'; '.join(candidate.reasons)}{where}",
    ]


def by_hand_text(candidate: RetireCandidate) -> str:
    named = f" (Promoted: {candidate.entry.promoted})" if candidate.entry.promoted else ""
    return f"promoted by hand: its rule lives in your own text{named}, which self-improve does not edit"


def by_hand_yes_lines(plan: ReviewPlan) -> list[str]:
    """What ``review --yes`` says of the retire candidates it leaves to a person."""
    return [
        f"not retired {c.entry.id}: {by_hand_text(c)}; to retire the entry, run `self-improve retire {c.entry.id}` yourself"
        for c in plan.retire_by_hand
    ]


def size_cap_line(plan: ReviewPlan) -> str:
    return (
        f"  Size cap: {plan.active_entries} active entries, over forgetting.max_active_entries ({plan.size_cap}); "
        "the lowest-value ones are listed for archiving"
    )


def no_menu_note(stdin_tty: bool, stdout_tty: bool) -> str:
    """Why a person at a terminal gets the listing instead of the menu ("" with no terminal at
    all: a script or an agent, for whom the listing is the answer)."""
    if stdin_tty == stdout_tty:
        return ""
    which = "output" if stdin_tty else "input"
    return f"the review menu needs a terminal for its input and output, and the {which} is not one: listing the proposals instead"


def heading(title: str, count: int) -> str:
    return colour(f"{title} ({count})", "bold")


def _section(title: str, items: Sequence[Any], lines: Callable[[Any], list[str]]) -> list[str]:
    """A titled section of the listing (its heading counts the items), or nothing without items."""
    if not items:
        return []
    return [heading(title, len(items)), *(line for item in items for line in lines(item)), ""]


def render_listing(
    plan: ReviewPlan, problems: list[Problem], policy: Policy, triage_line: str, assessor: approval.Assessor | None = None,
    reconciles: Sequence[drift_mod.Reconcile] = (), corrections: Sequence[QueuedCorrection] = (),
    contradictions: Sequence[SupersedeProposal] = (),
    revisions: Sequence[ReviseProposal] = (),
) -> str:
    """The whole listing; ``triage_line`` ("" for none) comes first, then the queued corrections."""
    out: list[str] = []
    if triage_line:
        out += [triage_line, ""]
    out += corrections_mod.listing_lines(corrections)
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
    out += _section("Retire", plan.retire, retire_lines)
    out += _section("Retire by hand (promoted in your own text; never applied by --yes)", plan.retire_by_hand, retire_lines)
    out += _section("Revise (recurred after promotion; never applied by --yes)", revisions, lambda revision: revision.lines())
    out += _section("Contradicts a promoted rule (proposed supersede)", contradictions, lambda proposal: proposal.lines())
    out += _section("Likely duplicates (merge them if they say one lesson)", plan.merge, merge_lines)
    out += _section("Reconcile", reconciles, drift_mod.reconcile_lines)
    if plan.class_level:
        out.append(heading("Counted by class (not proposed)", len(plan.class_level)))
        for item in plan.class_level:
            out.append(f"  {item.entry.id}  [{item.entry.pattern_key}]  {fingerprints.class_level_reason(item)}")
        out.append("")
    if plan.aggregates:
        out.append(heading("Mistakes by class (for you; never a rule)", len(plan.aggregates)))
        out += [fingerprints.aggregate_line(item, policy.window_days) for item in plan.aggregates]
        out.append("")
    if problems:
        out.append(heading("Lint", len(problems)))
        out += [f"  {problem.render()}" for problem in problems]
        out.append("")
    if plan.empty and not problems and not reconciles and not corrections and not contradictions and not plan.merge and not revisions \
            and not plan.retire_by_hand:
        out.append("Nothing to review: no entry to promote, archive or retire, and no lint problem.")
    elif not plan.empty or any(reconcile.action for reconcile in reconciles):
        out.append(
            "Run `self-improve review --yes` to apply them (it promotes only what was recorded on this machine), "
            "or run it in a terminal to choose one by one."
        )
    return display_text("\n".join(out) + "\n")  # a GBK file's text as its author wrote it
