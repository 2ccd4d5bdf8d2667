"""``self-improve retire ID [--yes] [--dry-run]``: take one promoted rule back out.

Removes exactly that entry's bullet from the managed block of the file its ``**Promoted**`` field
names (when it was the last bullet, the whole block goes, with the blank line we added before it,
so the file is byte for byte what it was before the first promotion) and sets ``Status: retired``.
The entry stays, with its history; ``review`` archives it later.

Run from inside an agent session it only proposes, as ``promote`` does (``review/approval.py``):
removing a rule the user approved changes what the agent does as much as adding one. An agent
that finds a rule wrong says so with ``mark ID --harmful``; ``review`` then proposes retiring it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from self_improve.commands._common import store_from
from self_improve.commands.promote import (
    KNOWN_TARGETS,
    add_hidden_test_flags,
    bump_actions,
    normalise_target,
    require_approval,
)
from self_improve.errors import SelfImproveError
from self_improve.review import approval, managed_block
from self_improve.review.plan import EntryEdit, Step, TargetEdit, apply, simulate
from self_improve.store.store import Store


@dataclass(frozen=True)
class Retirement:
    entry_id: str
    targets: tuple[str, ...]  # the files whose block holds (or held) the bullet
    steps: tuple[Step, ...]


def _files_with_rule(store: Store, entry_id: str) -> tuple[str, ...]:
    """Known instruction files holding a bullet for this ID (for entries promoted by hand)."""
    found = []
    for name in KNOWN_TARGETS:
        path = store.root / name
        if path.is_file() and not path.is_symlink():
            try:
                if managed_block.has_rule(path.read_text(encoding="utf-8"), entry_id):
                    found.append(name)
            except (OSError, UnicodeDecodeError, managed_block.ManagedBlockError):
                continue
    return tuple(found)


def plan_retirement(store: Store, entry_id: str) -> Retirement:
    store._require()
    entry = store.get(entry_id)
    if entry.status != "promoted":
        raise SelfImproveError(f"{entry.id} is {entry.status}, not promoted: only a promoted rule can be retired")
    try:
        targets: tuple[str, ...] = (normalise_target(store, entry.promoted, openclaw=False),)
    except SelfImproveError:
        # No Promoted field, or not a file we could have written (promoted by hand): look for
        # the bullet in the usual instruction files.
        targets = _files_with_rule(store, entry.id)
    entry_key = entry.id
    steps: list[Step] = [TargetEdit(target, lambda t: managed_block.remove_rule(t, entry_key)) for target in targets]
    steps.append(EntryEdit(entry_key, lambda e: e.with_status("retired")))
    return Retirement(entry.id, targets, tuple(steps))


def retire_entry(store: Store, entry_id: str) -> Retirement:
    """Retire without asking (the caller has the approval)."""
    retirement = plan_retirement(store, entry_id)
    simulate(store, retirement.steps)  # every refusal before the first write
    apply(store, retirement.steps)
    bump_actions(store, rules_retired=1)
    return retirement


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "retire",
        help="remove a promoted rule from its managed block and mark the entry retired",
    )
    parser.add_argument("id")
    parser.add_argument("--yes", action="store_true", help="do it without asking (needed off a terminal when promotion.require_approval is on)")
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every file that would change; change nothing")
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
    harness = approval.agent_gate()
    if harness:
        approval.print_proposal(
            harness,
            [f"proposed: retire {retirement.entry_id}", f"rule in: {where}"],
            approval.user_command(args, store, "retire", retirement.entry_id),
        )
        return 0
    require_approval(store, args, [f"rule in: {where}"], f"Retire {retirement.entry_id}?", f"self-improve retire {retirement.entry_id}")
    removed = [label for label in (simulation.label(path) for path, _, _ in simulation.changes()) if label in retirement.targets]
    apply(store, retirement.steps)
    bump_actions(store, rules_retired=1)
    if removed:
        print(f"retired {retirement.entry_id}: its rule is gone from {' and '.join(removed)}")
    else:
        print(f"retired {retirement.entry_id} (its rule was not in {where})")
    return 0
