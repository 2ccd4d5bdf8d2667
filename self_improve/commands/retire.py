"""``self-improve retire ID... [--yes] [--dry-run]``: take promoted rules back out.

Removes exactly that entry's bullet from the managed blocks that hold it and sets
``Status: retired`` (``review/promotion.py``). An entry promoted by hand (no managed block holds
its rule) only changes status, and the message says so: its rule is the user's own text, which
self-improve never edits. ``review --yes`` never retires such an entry; a person does, here.

Run from inside an agent session it only proposes, as ``promote`` does (``review/approval.py``):
removing a rule the user approved changes what the agent does as much as adding one. An agent
that finds a rule wrong says so with ``mark ID --harmful``; ``review`` then proposes retiring it.

Several IDs (or unique suffixes of them, ``_common.full_id``) are all or nothing: every one is
planned, and every refusal made, before any file is written; then one line per entry. With
``--scope user`` the rules are found in the user-level files the user store promotes to
(``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``), and named from ``~``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from self_improve.commands._common import (
    add_dry_run_flag,
    add_hidden_test_flags,
    add_scope_flag,
    add_yes_flag,
    agent_gate,
    apply_counted,
    bump_actions,
    full_ids,
    print_proposal,
    require_approval,
    shown_target,
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
        help="remove promoted rules from their managed blocks and mark the entries retired",
        epilog="examples:\n"
        "  self-improve retire LRN-20260301-abc --dry-run\n"
        "  self-improve retire abc xyz --scope user --yes",
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="entry IDs (or unique suffixes of them)")
    add_scope_flag(parser)
    add_yes_flag(parser)
    add_dry_run_flag(parser)
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def shown(store: Store, retirement: Retirement) -> Retirement:
    """The retirement with its files named as this scope prints them (``~/.claude/CLAUDE.md``)."""
    return dataclasses.replace(retirement, targets=tuple(shown_target(store, target) for target in retirement.targets))


def run(args: argparse.Namespace) -> int:
    tolerate_undecodable_output()
    store = store_from(args)
    store._require()
    retirements = [plan_retirement(store, entry_id) for entry_id in full_ids(store, args.ids)]  # every refusal first
    retirements = list({r.entry_id.upper(): r for r in retirements}.values())  # one ID given twice is retired once
    steps = [step for retirement in retirements for step in retirement.steps]
    simulation = simulate(store, steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    ids = [retirement.entry_id for retirement in retirements]
    where = [f"rule in: {shown(store, retirement).where()}" for retirement in retirements]
    if len(retirements) > 1:
        where = [f"{retirement.entry_id} {line}" for retirement, line in zip(retirements, where, strict=True)]
    harness = agent_gate()
    if harness:
        print_proposal(
            harness,
            [f"proposed: retire {' '.join(ids)}", *where],
            user_command(args, store, "retire", *ids),
        )
        return 0
    require_approval(store, args, where, f"Retire {', '.join(ids)}?", f"{user_command(args, store, 'retire', *ids)}")
    apply(store, steps)
    bump_actions(store, rules_retired=len(retirements))
    for retirement in retirements:
        print(shown(store, retirement).done_line())
    return 0
