"""``self-improve promote ID [--target FILE] [--rule TEXT]``: one rule into one managed block.

The rule is ``--rule``, else the newest line of the entry's Suggested Action / Suggested Fix; the
plan and its steps are ``review/promotion.py``, the targets ``review/targets.py``. ``ID`` may be
a unique suffix (``_common.full_id``); with ``--scope user`` the target is named from ``~``.

Approval (``review/approval.py``): run from inside an agent session, promote (and retire) only
propose: they print the rule, the target and the command the user runs in their own terminal,
change nothing and exit 0; ``--yes`` does not bypass that, ``promotion.agent_may_promote = true``
in the user-level config does. Elsewhere, with ``promotion.require_approval`` (the default, and
honoured only from the user-level config) they refuse unless ``--yes`` is given or they run on a
terminal, where they ask.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import (
    add_dry_run_flag,
    add_hidden_test_flags,
    add_scope_flag,
    add_yes_flag,
    agent_gate,
    apply_counted,
    bump_actions,
    print_proposal,
    require_approval,
    full_id,
    shown_target,
    store_from,
    today_from,
    user_command,
)
from self_improve.review import approval
from self_improve.review.plan import apply, simulate
from self_improve.review.report import tolerate_undecodable_output
from self_improve.review.policy import Policy
from self_improve.review.promotion import Promotion, plan_promotion
from self_improve.store.store import Store


def promote_entry(store: Store, entry_id: str, rule: str | None = None, target: str | None = None) -> Promotion | None:
    """Promote without asking (the caller has the approval); None when it was already done."""
    promotion = plan_promotion(store, entry_id, rule, target)
    return promotion if apply_counted(store, promotion.steps, rules_promoted=1) else None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "promote",
        help="promote an entry into the rules the agent reads (.claude/rules/self-improve.md, AGENTS.md, …) as a short prevention rule",
        description="Write the entry's prevention rule as one bullet in the self-improve block of the target "
        "(created if missing; nothing outside the markers changes) and mark the entry promoted.",
        epilog="examples:\n"
        "  self-improve promote LRN-20260301-abc --dry-run\n"
        "  self-improve promote LRN-20260301-abc --target AGENTS.md --rule \"Run pnpm, never npm\" --yes",
    )
    parser.add_argument("id")
    parser.add_argument("--target", default=None, metavar="FILE", help="instruction file (default: from targets.* in the config)")
    parser.add_argument("--rule", default=None, metavar="TEXT", help="the rule (default: the entry's newest Suggested Action / Fix line)")
    add_yes_flag(parser)
    add_dry_run_flag(parser)
    add_hidden_test_flags(parser)
    add_scope_flag(parser)
    parser.set_defaults(func=run)


def promote_verb(args: argparse.Namespace, entry_id: str) -> list[str]:
    """``promote ID`` with the agent's own --rule / --target, so the user gets what was shown."""
    verb = ["promote", entry_id]
    if args.rule is not None:
        verb += ["--rule", args.rule]
    if args.target is not None:
        verb += ["--target", args.target]
    return verb


def run(args: argparse.Namespace) -> int:
    tolerate_undecodable_output()
    store = store_from(args)
    store._require()
    promotion = plan_promotion(store, full_id(store, args.id), args.rule, args.target)
    simulation = simulate(store, promotion.steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    if not simulation.changed:
        print(f"{promotion.entry_id} is already promoted to {shown_target(store, promotion.target)}: nothing changed")
        return 0
    target = shown_target(store, promotion.target)
    preview = [f"rule:   {promotion.rule}", f"target: {target}"]
    harness = agent_gate()
    if harness:
        print_proposal(
            harness,
            [f"proposed: promote {promotion.entry_id} to {target}", *preview],
            user_command(args, store, *promote_verb(args, promotion.entry_id)),
        )
        return 0
    entry = store.get(promotion.entry_id)
    preview.append(approval.Assessor(store, today_from(args), Policy.from_settings(store.setting)).line(entry))
    require_approval(store, args, preview, f"Promote {promotion.entry_id}?", f"self-improve promote {promotion.entry_id}")
    apply(store, promotion.steps)
    bump_actions(store, rules_promoted=1)
    moved = f" (moved from {shown_target(store, promotion.previous_target)})" if promotion.previous_target else ""
    print(f"promoted {promotion.entry_id} to {target}{moved}")
    return 0
