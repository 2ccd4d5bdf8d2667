"""Scoring of the credit figures bench/replay.py prints: pure functions of what the agent was shown.

Judged against the trace's ground truth (which mistake each failure is, and its fix commands),
never against our keys or fingerprints:
- a recalled fix is *right* for a mistake when its text contains every one of the mistake's fix
  commands (an observed fix: "Last time: `pip install pyyaml`, then `python3 app.py` passed.") or
  is the fix text the cooperating agent logged for it;
- it is *wrong* when it is not right and is another mistake's (contains that one's fix commands,
  or is its logged text); a fix of a mistake fixed earlier in the same chain of failures (the
  previous link, repeated before the retry) is not counted wrong;
- a *repeat* is a scripted attempt at a mistake that occurred earlier in the trace, counted whether
  or not it was prevented; it got the right fix *before* the command when a promoted rule in
  CLAUDE.md or the `<known-mistakes>` list at the session's first prompt named the fix (the agent
  ran the fix first; the mistake was not made); *with the command* when only the pre-bash hook
  gave it (Claude Code 2.1.328 shows a PreToolUse hook's context after the command ran, with its
  result: verified in tests/e2e/test_claude_credit.py, so it cannot prevent that command); *just
  in time* when post-bash gave it after the failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


class GroundTruth(Protocol):
    fix: tuple[str, ...]
    logged_fix: str


def collapse(text: str) -> str:
    return " ".join(text.split())


def same_text(injected_text: str, fix: str) -> bool:
    """Whether a recalled fix is ``fix``: equal after collapsing white space, or a prefix of it
    cut with an ellipsis (the hook's length cap)."""
    got, want = collapse(injected_text), collapse(fix)
    if got == want:
        return True
    return got.endswith("…") and len(got) > 1 and want.startswith(got[:-1].rstrip())


def names_fix(text: str, mistake: GroundTruth) -> bool:
    """Whether ``text`` (a recalled fix or a rule) names this mistake's fix."""
    flat = collapse(text)
    return all(collapse(command) in flat for command in mistake.fix) or same_text(text, mistake.logged_fix)


def owners(text: str, mistakes: Mapping[str, GroundTruth]) -> list[str]:
    """The mistakes whose fix ``text`` names, in trace order."""
    return [name for name, mistake in mistakes.items() if names_fix(text, mistake)]


@dataclass
class Occurrence:
    """One scripted attempt at a mistake, as one agent lived it."""

    mistake: str  # the ground truth: a key of the trace's MISTAKES
    where: str = ""  # "session N" for the report
    prevented: bool = False  # a rule or the first prompt's list named its fix: the agent fixed first, the command passed
    prevented_by: str = ""  # "rule" (CLAUDE.md) or "prompt" (<known-mistakes> at the session's first prompt)
    before: str | None = None  # the Known fix text pre-bash gave with the failing command
    after: str | None = None  # the Known fix text post-bash gave after the failure
    exempt: tuple[str, ...] = ()  # mistakes fixed earlier in the same chain
    logged: bool = False  # the agent logged this mistake's fix after it
    failed_again: bool = False  # it followed a fix and the same mistake failed again


@dataclass
class CreditScore:
    attempts: int = 0  # scripted attempts at a mistake
    repeats: int = 0  # ... at a mistake that occurred earlier (prevented or not)
    before_rule: int = 0  # repeats prevented by a promoted rule naming the fix
    before_prompt: int = 0  # repeats prevented by the first prompt's <known-mistakes> list naming the fix
    with_command_pre_bash: int = 0  # repeats whose failing command got the right fix from pre-bash (shown with its result)
    just_in_time: int = 0  # repeats given the right fix by post-bash only, after the failure
    missed_no_fix: int = 0  # repeats given no fix at all
    missed_wrong_fix: int = 0  # repeats given only a fix that is not theirs
    wrong_fixes: int = 0  # recalled texts that are another mistake's fix (goal 0)
    unrelated_fixes: int = 0  # recalled texts that are no mistake's fix
    failures_run: int = 0  # failing commands the agent ran (a prevented mistake is none)
    logged: int = 0  # fixes the agent logged
    wrong_details: list[str] = field(default_factory=list)

    @property
    def before(self) -> int:
        return self.before_rule + self.before_prompt

    @property
    def right(self) -> int:
        return self.before + self.with_command_pre_bash + self.just_in_time


def score_credit(occurrences: Sequence[Occurrence], mistakes: Mapping[str, GroundTruth]) -> CreditScore:
    """Score one agent's occurrences, in trace order."""
    out = CreditScore()
    seen: set[str] = set()
    for occ in occurrences:
        out.attempts += 1
        out.logged += occ.logged
        out.failures_run += (not occ.prevented) + occ.failed_again
        right_before = occ.before is not None and names_fix(occ.before, mistakes[occ.mistake])
        right_after = occ.after is not None and names_fix(occ.after, mistakes[occ.mistake])
        for when, text, right in (("with", occ.before, right_before), ("after", occ.after, right_after)):
            if text is None or right:
                continue
            others = [name for name in owners(text, mistakes) if name not in occ.exempt]
            if others:
                out.wrong_fixes += 1
                out.wrong_details.append(f"{occ.where + ': ' if occ.where else ''}{occ.mistake} was given "
                                         f"the fix of {' and '.join(others)} {when} the command: {text!r}")
            elif not owners(text, mistakes):
                out.unrelated_fixes += 1
        if occ.mistake in seen:
            out.repeats += 1
            if occ.prevented and occ.prevented_by == "prompt":
                out.before_prompt += 1
            elif occ.prevented:
                out.before_rule += 1
            elif right_before:
                out.with_command_pre_bash += 1
            elif right_after:
                out.just_in_time += 1
            elif occ.before is None and occ.after is None:
                out.missed_no_fix += 1
            else:
                out.missed_wrong_fix += 1
        seen.add(occ.mistake)
    return out


# The goals; printed next to the figures, met or not.
GOAL_NON_COOPERATING = 0.80  # of repeats given the right fix, before, with the command or just in time
GOAL_COOPERATING = 0.95
GOAL_BEFORE_SHARE = 0.5  # cooperating: at least half of the right fixes before the command


def goals(score: CreditScore, cooperating: bool) -> list[tuple[str, str, bool]]:
    """(goal, figure, met) for one agent."""
    share = score.right / score.repeats if score.repeats else 0.0
    if not cooperating:
        return [(f">= {GOAL_NON_COOPERATING:.0%} of repeats get the right fix", f"{score.right}/{score.repeats} = {share:.0%}",
                 share >= GOAL_NON_COOPERATING)]
    before = score.before / score.right if score.right else 0.0
    return [
        (f">= {GOAL_COOPERATING:.0%} of repeats get the right fix", f"{score.right}/{score.repeats} = {share:.0%}",
         share >= GOAL_COOPERATING),
        (f">= {GOAL_BEFORE_SHARE:.0%} of those before the command", f"{score.before}/{score.right} = {before:.0%}",
         score.right > 0 and before >= GOAL_BEFORE_SHARE),
    ]


def managed_rules(block_text: str) -> dict[str, str]:
    """``{entry id: rule text}`` of a managed block's ``- RULE <!-- ID -->`` lines."""
    rules: dict[str, str] = {}
    for line in block_text.splitlines():
        line = line.strip()
        if not line.startswith("- ") or not line.endswith("-->") or "<!--" not in line:
            continue
        text, _, comment = line[2:].rpartition("<!--")
        entry_id = comment.removesuffix("-->").strip().split()[0] if comment.strip() != "-->" else ""
        if entry_id:
            rules[entry_id] = text.strip()
    return rules


def working_rules_retired(retired: Sequence[str], rules: Mapping[str, str], mistakes: Mapping[str, GroundTruth]) -> list[str]:
    """The retired ids whose rule names a mistake's right fix: rules that work, retired anyway."""
    return [entry_id for entry_id in retired if entry_id in rules and owners(rules[entry_id], mistakes)]
