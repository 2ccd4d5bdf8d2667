"""``self-improve promote ID [--target FILE] [--rule TEXT]``: one rule into one managed block.

The rule is a short prevention rule (at most ``promotion.max_rule_chars``): ``--rule``, else the
newest line of the entry's Suggested Action / Suggested Fix. It lands as ``- RULE <!-- ID -->``
in the self-improve block of the target (through ``review/managed_block.py``, the one place that
edits between our markers), and the entry gets ``Status: promoted`` and ``**Promoted**: TARGET``.

The change is planned as steps (``review/plan.py``): simulated first, so every refusal happens
before anything is written and ``--dry-run`` prints the exact diff, then applied.

Approval (``review/approval.py``): run from inside an agent session, promote (and retire) only
propose: they print the rule, the target and the command the user runs in their own terminal,
change nothing and exit 0; ``--yes`` does not bypass that, ``promotion.agent_may_promote = true``
in the user-level config does. Elsewhere, with ``promotion.require_approval`` (the default, and
honoured only from the user-level config) they refuse unless ``--yes`` is given or they run on a
terminal, where they ask.

Targets: a Markdown file inside the project, not in ``.learnings/`` or any ``.git/``, and
neither it nor a directory on the way to it a symlink (a repo's ``targets.*`` setting must not
aim a rule at a git hook, or through a link at a file outside).
"""

from __future__ import annotations

import argparse
import os
import posixpath
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from self_improve.commands._common import add_scope_flag, store_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.review import approval, managed_block
from self_improve.review.plan import (
    EntryEdit,
    Step,
    TargetEdit,
    apply,
    simulate,
)
from self_improve.review.policy import (
    PROMOTABLE_STATUSES,
    Policy,
    TargetTable,
    clean_rule,
    default_target,
    is_openclaw_workspace,
    propose_rule,
    rule_problem,
)
from self_improve.store.entry import Entry
from self_improve.store.store import Store

# Where a rule may already live when an entry does not say (reference entries promoted by hand).
KNOWN_TARGETS = ("CLAUDE.md", "AGENTS.md", ".github/copilot-instructions.md", "SOUL.md")
OPENCLAW_MARKER_FILES = ("SOUL.md", "IDENTITY.md")


# ---- shared CLI helpers --------------------------------------------------------------------------------


def today_from(args: argparse.Namespace) -> date:
    """``--today`` (hidden) or ``$SELF_IMPROVE_TODAY``, for stable tests and goldens; else today."""
    value = getattr(args, "today", None) or os.environ.get("SELF_IMPROVE_TODAY", "")
    if not value:
        return date.today()
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"today must be a date YYYY-MM-DD, not {value!r}") from None


def add_hidden_test_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--today", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--interactive", action="store_true", help=argparse.SUPPRESS)


def is_interactive(args: argparse.Namespace) -> bool:
    """On a terminal (stdin and stdout), or forced for tests by --interactive / SELF_IMPROVE_INTERACTIVE=1."""
    if getattr(args, "interactive", False) or os.environ.get("SELF_IMPROVE_INTERACTIVE") == "1":
        return True
    return sys.stdin.isatty() and sys.stdout.isatty()


def ask(prompt: str) -> str | None:
    """One answer from stdin (None at end of input). Echoed when stdin is not a terminal, so a
    scripted session reads like the one a person would see."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        sys.stdout.write("\n")
        return None
    answer = line.rstrip("\r\n")
    if not sys.stdin.isatty():
        sys.stdout.write(answer + "\n")
    return answer.strip()


def confirm(prompt: str) -> bool:
    answer = ask(f"{prompt} [y/N] ")
    return answer is not None and answer.casefold() in ("y", "yes")


def require_approval(store: Store, args: argparse.Namespace, preview: Sequence[str], question: str, how: str) -> None:
    """promotion.require_approval: --yes, or a yes on a terminal; else refuse, changing nothing."""
    if getattr(args, "yes", False) or not store.setting("promotion.require_approval"):
        return
    if is_interactive(args):
        for line in preview:
            print(line)
        if not confirm(question):
            raise SelfImproveError("cancelled: nothing changed")
        return
    raise SelfImproveError(f"promotion.require_approval is on: ask the user, then run `{how} --yes` (nothing changed)")


def bump_actions(store: Store, **counts: int) -> None:
    from self_improve.commands.stats import bump_action_counters

    bump_action_counters(store, counts)


# ---- targets ---------------------------------------------------------------------------------------


def in_openclaw_workspace(store: Store) -> bool:
    return is_openclaw_workspace(name for name in OPENCLAW_MARKER_FILES if (store.root / name).is_file())


def normalise_target(store: Store, raw: str, openclaw: bool | None = None) -> str:
    """A target as a clean POSIX path relative to the project root, or a one-line refusal."""
    text = raw.strip()
    if not text:
        raise UsageError("--target must not be empty")
    if "\n" in text or "\r" in text:
        raise UsageError("--target must be one line")
    path = Path(text)
    if path.is_absolute():
        for root in (store.root, store.root.resolve()):
            if path.is_relative_to(root):
                path = path.relative_to(root)
                break
        else:
            raise SelfImproveError(f"refusing to edit {text}: it is outside the project root {store.root}")
    normal = posixpath.normpath(path.as_posix())
    if normal == ".." or normal.startswith("../"):
        raise SelfImproveError(f"refusing to edit {text}: it is outside the project root {store.root}")
    if not normal.casefold().endswith(".md"):
        raise UsageError(f"target {text} is not a Markdown file: choose e.g. CLAUDE.md, AGENTS.md or .github/copilot-instructions.md")
    if normal.split("/", 1)[0] == ".learnings":
        raise UsageError(f"target {text} is inside .learnings/: choose an instruction file such as CLAUDE.md or AGENTS.md")
    if ".git" in (part.casefold() for part in normal.split("/")):
        raise SelfImproveError(f"refusing to edit {store.root / normal}: it is inside .git/")
    check_no_symlink(store, normal)
    if openclaw is None:
        openclaw = in_openclaw_workspace(store)
    if openclaw and posixpath.basename(normal).casefold() == "tools.md":
        raise UsageError("OpenClaw does not read TOOLS.md: promote tool gotchas into AGENTS.md (its ## Tools section)")
    return normal


def check_no_symlink(store: Store, normal: str) -> None:
    """Refuse a target that is a symlink, or lies below one, or is not a regular file.

    lstat, component by component from the project root: a link inside the project that points
    back inside it is refused too (``CLAUDE.md -> .git/config``), as is anything not a file.
    """
    path = store.root
    shown = store.root / normal
    parts = normal.split("/")
    for index, part in enumerate(parts):
        path = path / part
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return  # the rest does not exist yet: it is created as plain directories and a file
        except OSError as exc:
            raise SelfImproveError(f"refusing to edit {shown}: cannot check {store.relative(path)}: {exc.strerror}") from None
        if stat.S_ISLNK(info.st_mode):
            what = "it" if index == len(parts) - 1 else store.relative(path)
            raise SelfImproveError(f"refusing to edit {shown}: {what} is a symlink")
        last = index == len(parts) - 1
        if last and not stat.S_ISREG(info.st_mode):
            raise SelfImproveError(f"refusing to edit {shown}: it is not a regular file")
        if not last and not stat.S_ISDIR(info.st_mode):
            raise SelfImproveError(f"refusing to edit {shown}: {store.relative(path)} is not a directory")


# ---- promote ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Promotion:
    entry_id: str
    rule: str
    target: str
    previous_target: str  # a promoted entry moving to another file: "" otherwise
    steps: tuple[Step, ...]


def check_promotable(entry: Entry) -> None:
    if entry.status not in PROMOTABLE_STATUSES | {"promoted"}:
        raise SelfImproveError(
            f"{entry.id} is {entry.status}: only pending, in_progress, resolved or promoted entries can be promoted"
        )


def choose_rule(entry: Entry, rule: str | None, max_chars: int) -> str:
    if rule is not None:
        text = rule.strip()
        problem = rule_problem(text, max_chars)
        if problem:
            raise UsageError(problem)
        return clean_rule(text)
    proposal = propose_rule(entry, max_chars)
    if not proposal.ok:
        raise UsageError(proposal.problem)
    return proposal.text


def plan_promotion(store: Store, entry_id: str, rule: str | None = None, target: str | None = None) -> Promotion:
    """The steps that promote one entry; refuses (raising) on anything it cannot do."""
    store._require()
    entry = store.get(entry_id)
    check_promotable(entry)
    policy = Policy.from_settings(store.setting)
    text = choose_rule(entry, rule, policy.max_rule_chars)
    openclaw = in_openclaw_workspace(store)
    previous = ""
    if entry.status == "promoted" and entry.promoted:
        try:
            previous = normalise_target(store, entry.promoted, openclaw=False)
        except SelfImproveError:
            previous = ""  # not a file we could have written: nothing of ours to take back
    if target is not None:
        wanted = target
    elif previous:
        wanted = previous  # re-promoting (a new --rule, say) keeps the rule where it is
    else:
        wanted = default_target(entry, TargetTable.from_settings(store.setting), openclaw)
    chosen = normalise_target(store, wanted, openclaw)
    if previous == chosen:
        previous = ""
    entry_key = entry.id
    steps: list[Step] = [TargetEdit(chosen, lambda t: managed_block.upsert_rule(t, entry_key, text))]
    if previous:
        steps.append(TargetEdit(previous, lambda t: managed_block.remove_rule(t, entry_key)))
    steps.append(EntryEdit(entry_key, lambda e: e.with_status("promoted").with_field("Promoted", chosen)))
    return Promotion(entry.id, text, chosen, previous, tuple(steps))


def promote_entry(store: Store, entry_id: str, rule: str | None = None, target: str | None = None) -> Promotion | None:
    """Promote without asking (the caller has the approval); None when it was already done."""
    promotion = plan_promotion(store, entry_id, rule, target)
    if not simulate(store, promotion.steps).changed:
        return None
    apply(store, promotion.steps)
    bump_actions(store, rules_promoted=1)
    return promotion


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "promote",
        help="promote an entry into CLAUDE.md / AGENTS.md as a short prevention rule",
        description="Write the entry's prevention rule as one bullet in the self-improve block of the target "
        "(created if missing; nothing outside the markers changes) and mark the entry promoted.",
    )
    parser.add_argument("id")
    parser.add_argument("--target", default=None, metavar="FILE", help="instruction file (default: from targets.* in the config)")
    parser.add_argument("--rule", default=None, metavar="TEXT", help="the rule (default: the entry's newest Suggested Action / Fix line)")
    parser.add_argument("--yes", action="store_true", help="do it without asking (needed off a terminal when promotion.require_approval is on)")
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every file that would change; change nothing")
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
    store = store_from(args)
    promotion = plan_promotion(store, args.id, args.rule, args.target)
    simulation = simulate(store, promotion.steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    if not simulation.changed:
        print(f"{promotion.entry_id} is already promoted to {promotion.target}: nothing changed")
        return 0
    preview = [f"rule:   {promotion.rule}", f"target: {promotion.target}"]
    harness = approval.agent_gate()
    if harness:
        approval.print_proposal(
            harness,
            [f"proposed: promote {promotion.entry_id} to {promotion.target}", *preview],
            approval.user_command(args, store, *promote_verb(args, promotion.entry_id)),
        )
        return 0
    entry = store.get(promotion.entry_id)
    preview.append(approval.Assessor(store, today_from(args), Policy.from_settings(store.setting)).line(entry))
    require_approval(store, args, preview, f"Promote {promotion.entry_id}?", f"self-improve promote {promotion.entry_id}")
    apply(store, promotion.steps)
    bump_actions(store, rules_promoted=1)
    moved = f" (moved from {promotion.previous_target})" if promotion.previous_target else ""
    print(f"promoted {promotion.entry_id} to {promotion.target}{moved}")
    return 0
