"""``self-improve retire ID [--yes] [--dry-run]``: take one promoted rule back out.

Removes exactly that entry's bullet from the managed block of the file its ``**Promoted**`` field
names and sets ``Status: retired`` (``review/promotion.py``).

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
    )
    parser.add_argument("id")
    add_yes_flag(parser)
    add_dry_run_flag(parser)
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    retirement = plan_retirement(store, args.id)
    simulation = simulate(store, retirement.steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    where = " and ".join(retirement.targets) or "no instruction file"
    harness = agent_gate()
    if harness:
        print_proposal(
            harness,
            [f"proposed: retire {retirement.entry_id}", f"rule in: {where}"],
            user_command(args, store, "retire", retirement.entry_id),
        )
        return 0
    require_approval(store, args, [f"rule in: {where}"], f"Retire {retirement.entry_id}?", f"self-improve retire {retirement.entry_id}")
    removed = [label for label in (simulation.label(change.path) for change in simulation.changes()) if label in retirement.targets]
    apply(store, retirement.steps)
    bump_actions(store, rules_retired=1)
    if removed:
        print(f"retired {retirement.entry_id}: its rule is gone from {' and '.join(removed)}")
    else:
        print(f"retired {retirement.entry_id} (its rule was not in {where})")
    return 0
