"""``self-improve retire ID [--yes] [--dry-run]``: take one promoted rule back out.

Removes exactly that entry's bullet from the managed blocks that hold it and sets
``Status: retired`` (``review/promotion.py``). An entry promoted by hand (no managed block holds
its rule) only changes status, and the message says so: its rule is the user's own text, which
self-improve never edits. ``review --yes`` never retires such an entry; a person does, here.

Run from inside an agent session it only proposes, as ``promote`` does (``review/approval.py``):
removing a rule the user approved changes what the agent does as much as adding one. An agent
that finds a rule wrong says so with ``mark ID --harmful``; ``review`` then proposes retiring it.
"""

from __future__ import annotations

import argparse
import sys

from self_improve.commands._common import (
    add_dry_run_flag,
    add_hidden_test_flags,
    add_yes_flag,
    agent_gate,
    apply_counted,
    bump_actions,
    print_proposal,
    require_approval,
    store_from,
    user_command,
)
from self_improve.review.plan import apply, simulate
from self_improve.review.report import tolerate_undecodable_output
from self_improve.review.promotion import Retirement, plan_retirement
from self_improve.store.store import Store


def retire_entry(store: Store, entry_id: str) -> Retirement:
    """Retire without asking (the caller has the approval)."""
    retirement = plan_retirement(store, entry_id)
    apply_counted(store, retirement.steps, rules_retired=1)
    return retirement


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "retire",
        help="remove a promoted rule from its managed block and mark the entry retired",
        epilog="examples:\n"
        "  self-improve retire LRN-20260301-abc --dry-run\n"
        "  self-improve retire LRN-20260301-abc --yes",
    )
    parser.add_argument("id")
    add_yes_flag(parser)
    add_dry_run_flag(parser)
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    tolerate_undecodable_output()
    store = store_from(args)
    retirement = plan_retirement(store, args.id)
    simulation = simulate(store, retirement.steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    where = retirement.where()
    harness = agent_gate()
    if harness:
        print_proposal(
            harness,
            [f"proposed: retire {retirement.entry_id}", f"rule in: {where}"],
            user_command(args, store, "retire", retirement.entry_id),
        )
        return 0
    require_approval(store, args, [f"rule in: {where}"], f"Retire {retirement.entry_id}?", f"self-improve retire {retirement.entry_id}")
    apply(store, retirement.steps)
    bump_actions(store, rules_retired=1)
    print(retirement.done_line())
    return 0
