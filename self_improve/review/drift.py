"""Tamper and drift: the managed rule blocks checked against the store, and the fixes as steps.

A rules block and the store say the same thing when every bullet in a block belongs to an entry
that is promoted, every promoted entry has its bullet in some instruction file, and each block's
content still matches the hash in its begin marker (``managed_block``). What :func:`find_drift`
reports, each naming a file and a line:

- ``hand_edit``: a block whose content no longer matches its hash (a block without a hash was
  written before blocks were hashed: it is not reported, and is hashed on its next edit);
- ``unknown_id`` / ``not_promoted``: a bullet whose ID is no entry of the store, or one that is
  not promoted (``promoted_to_skill`` still counts: ``extract-skill`` keeps the rule);
- ``missing_rule``: a ``promoted`` entry whose bullet is in no instruction file (reported at the
  entry's own line). Only entries with an occurrence history (the ``- Occurrences:`` line our
  store writes): the reference skill also marks entries ``promoted``, but its rules are prose in
  CLAUDE.md with no ID to find, and an imported reference store must not fail ``lint`` for that;
- ``damaged_markers``: a begin without an end, an end without a begin, nested or two blocks.

Instruction files are the usual ones (CLAUDE.md, our ``.claude/rules/self-improve.md`` and every
path-scoped ``.claude/rules/self-improve-*.md``, ``.claude/CLAUDE.md``, AGENTS.md,
.github/copilot-instructions.md, SOUL.md), the configured ``targets.*`` and every promoted
entry's ``**Promoted**`` file. Each is
read only when it is a regular file inside the project, reached without a symlink, and UTF-8:
anything else is not a file we could have written, and a FIFO must not hang ``lint``.

:func:`plan_reconcile` turns each finding into a proposal for ``review``: accept a hand edit by
re-hashing the block (the edited text is kept as it is), remove a bullet nobody promoted, or
write a missing bullet back from its entry's rule. Damaged markers are only reported: which
marker is wrong is for a person to say. A proposal that its own simulation refuses (the target
is a symlink, an unclosed fence...) is demoted to a report with the reason, so it can never stop
the rest of a review.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.errors import SelfImproveError
from self_improve.review import managed_block
from self_improve.review.plan import EntryEdit, Step, TargetEdit, apply, simulate
from self_improve.review.policy import PROMOTED_TO, Policy, default_target, promoted_to, propose_rule
from self_improve.review.promotion import header_promoted, promoted_field_is_ours, scoped_placement
from self_improve.review.targets import KNOWN_TARGETS, default_targets, in_openclaw_workspace, is_scoped_rules_file, normalised_or_none, rules_files
from self_improve.store.entry import Entry
from self_improve.store.lint import Problem
from self_improve.store.store import Store

HAND_EDIT = "hand_edit"
UNKNOWN_ID = "unknown_id"
NOT_PROMOTED = "not_promoted"
MISSING_RULE = "missing_rule"
DAMAGED = "damaged_markers"

RULE_STATUSES = frozenset({"promoted", "promoted_to_skill"})
"""Statuses whose entry may have a bullet in a block."""

_TARGET_SETTINGS = ("learning", "error", "feature", "workflow", "openclaw_behaviour", "openclaw_default")
_READ_LIMIT = 16 * 1024 * 1024  # an instruction file larger than this is not one we wrote


@dataclass(frozen=True)
class Drift:
    kind: str
    file: str  # relative POSIX path from the project root
    line: int  # 1-based
    reason: str
    entry_id: str = ""

    def problem(self) -> Problem:
        return Problem(self.file, self.line, self.reason)

    def render(self) -> str:
        return self.problem().render()


@dataclass(frozen=True)
class Reconcile:
    """One finding and what ``review`` proposes for it (``action`` "" = report only)."""

    drift: Drift
    action: str  # "rehash" | "remove" | "add" | ""
    steps: tuple[Step, ...]
    note: str  # the proposal in words, or why there is none
    content: tuple[str, ...] = ()  # a hand-edited block's lines as they are now
    rule: str = ""
    target: str = ""


# ---- reading the instruction files ---------------------------------------------------------------


def read_instruction(root: Path, relative: str) -> str | None:
    """The text of a regular UTF-8 file inside ``root``, never through a symlink; else None."""
    path = root / relative
    try:
        if not path.parent.resolve().is_relative_to(root.resolve()):
            return None
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # missing, a symlink (ELOOP), unreadable
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _READ_LIMIT:
            return None
        chunks = []
        while chunk := os.read(descriptor, 1 << 20):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        return None


def instruction_files(store: Store, entries: Iterable[Entry]) -> list[str]:
    """Where rule blocks may be, each once, in a stable order."""
    wanted: list[str] = list(rules_files(store))
    wanted += [str(store.setting(f"targets.{key}")) for key in _TARGET_SETTINGS]
    wanted += [promoted_to(entry) for entry in entries if entry.status in RULE_STATUSES and promoted_to(entry)]
    out: list[str] = []
    for raw in wanted:
        name = normalised_or_none(store, raw)
        if name is not None and name not in out:
            out.append(name)
    return out


# ---- finding drift ---------------------------------------------------------------------------------


def _store_entries(store: Store) -> tuple[list[Entry], dict[str, tuple[Entry, bool]]]:
    """The entries, and every ID (upper case) with its entry and whether it is archived."""
    from self_improve.store.archive import archived_entries

    entries = store.entries()
    known: dict[str, tuple[Entry, bool]] = {}
    for archived in archived_entries(store):
        known[archived.entry.id.upper()] = (archived.entry, True)
    for entry in entries:
        key = entry.id.upper()
        # Duplicates (lint reports them): the one that allows a rule wins.
        if key not in known or known[key][1] or entry.status in RULE_STATUSES:
            known[key] = (entry, False)
    return entries, known


def _bullet_drift(file: str, rule: managed_block.Rule, known: dict[str, tuple[Entry, bool]], store_name: str) -> Drift | None:
    found = known.get(rule.entry_id.upper())
    if found is None:
        reason = f"rule for {rule.entry_id}, which is not an entry in {store_name}/"
        return Drift(UNKNOWN_ID, file, rule.line, reason, rule.entry_id)
    entry, archived = found
    if entry.status in RULE_STATUSES and not archived:
        return None
    state = "archived" if archived else entry.status or "without a status"
    return Drift(NOT_PROMOTED, file, rule.line, f"rule for {rule.entry_id}, which is {state}, not promoted", rule.entry_id)


def _file_drift(file: str, scan: managed_block.BlockScan, known: dict[str, tuple[Entry, bool]], store_name: str) -> list[Drift]:
    if scan.damage_line is not None:
        return [Drift(DAMAGED, file, scan.damage_line, scan.damage)]
    out: list[Drift] = []
    for block in scan.blocks:
        if block.edited_by_hand:
            reason = f"rules block edited by hand: its content no longer matches sha:{block.stored_hash}"
            out.append(Drift(HAND_EDIT, file, block.begin_line, reason))
        for rule in block.rules:
            drift = _bullet_drift(file, rule, known, store_name)
            if drift is not None:
                out.append(drift)
    return out


def _rule_ids(scan: managed_block.BlockScan) -> set[str]:
    if scan.damage_line is not None:  # cannot tell blocks apart: any rule-shaped line counts
        return {entry_id.upper() for entry_id in scan.loose_ids}
    return {rule.entry_id.upper() for block in scan.blocks for rule in block.rules}


def rule_files_by_id(store: Store) -> dict[str, list[str]]:
    """Each ID (upper case) that has a rule bullet in one of the project's instruction files, and
    those files (with damaged markers, any rule-shaped line counts): the one reader the verbs
    that refuse a status without its rule share."""
    out: dict[str, list[str]] = {}
    for name, scan in scan_files(store, store.entries()).items():
        for entry_id in _rule_ids(scan):
            out.setdefault(entry_id, []).append(name)
    return out


def scan_files(store: Store, entries: Iterable[Entry]) -> dict[str, managed_block.BlockScan]:
    """Each readable instruction file's rules blocks, by relative path."""
    scans = {}
    for name in instruction_files(store, entries):
        text = read_instruction(store.root, name)
        if text is not None:
            scans[name] = managed_block.scan_rules(text)
    return scans


@dataclass(frozen=True)
class _Survey:
    drifts: list[Drift]
    scans: dict[str, managed_block.BlockScan]
    unpromoted: dict[tuple[str, int], Entry]  # promoted entries without a bullet, by (file, line)


def _survey(store: Store) -> _Survey:
    store._require()
    entries, known = _store_entries(store)
    scans = scan_files(store, entries)
    store_name = store.relative(store.dir)
    drifts: list[Drift] = []
    present: set[str] = set()
    for name, scan in scans.items():
        drifts += _file_drift(name, scan, known, store_name)
        present |= _rule_ids(scan)
    unpromoted = {}
    for entry in entries:
        if entry.status == "promoted" and _our_promotion(entry) and entry.occurrences and entry.id.upper() not in present:
            where = f" to {promoted_to(entry)}" if promoted_to(entry) else ""
            reason = f"{entry.id} is promoted{where} but no instruction file holds its rule"
            drifts.append(Drift(MISSING_RULE, entry.file, entry.line, reason, entry.id))
            unpromoted[(entry.file, entry.line)] = entry
    return _Survey(drifts, scans, unpromoted)


def _our_promotion(entry: Entry) -> bool:
    """Whether the entry's promotion is one of ours, so its rule may be written back: ours write
    Promoted-On or Promoted-To, or (before those) a header ``**Promoted**:`` naming a target file
    and nothing else. A user's own line (``- **Promoted**: SOUL.md (安全规则已强化)`` under a
    section) is theirs: their rule lives in their text, and we never write one for it."""
    header = header_promoted(entry)
    return bool(entry.promoted_on or entry.meta(PROMOTED_TO).strip()) or header in KNOWN_TARGETS or is_scoped_rules_file(header or "")


def find_drift(store: Store) -> list[Drift]:
    """Every disagreement between the rules blocks and the store; reads only."""
    return _survey(store).drifts


# ---- reconciling -------------------------------------------------------------------------------------


def _readd(store: Store, entry: Entry, drift: Drift) -> Reconcile:
    proposal = propose_rule(entry, Policy.from_settings(store.setting).max_rule_chars)
    if not proposal.ok:
        return Reconcile(drift, "", (), f"cannot write it back: {proposal.problem}")
    target = normalised_or_none(store, promoted_to(entry)) if promoted_to(entry) else None
    if target is None:
        target = normalised_or_none(store, default_target(entry, default_targets(store), in_openclaw_workspace(store)))
    if target is None:
        return Reconcile(drift, "", (), "cannot write it back: no instruction file to write it to")
    entry_key, rule = entry.id, proposal.text
    scoped = scoped_placement(store, entry, rule) if is_scoped_rules_file(target) else None
    front = scoped.frontmatter if scoped is not None and scoped.target == target else ""  # a scoped file gone with its rule
    steps: list[Step] = [TargetEdit(target, lambda t: managed_block.upsert_rule(t or front, entry_key, rule))]
    if promoted_to(entry) != target:
        if promoted_field_is_ours(store, entry):
            steps.append(EntryEdit(entry_key, lambda e: e.with_field("Promoted", target)))
        else:  # the user's own Promoted line stays as they wrote it
            steps.append(EntryEdit(entry_key, lambda e: e.with_metadata(PROMOTED_TO, target)))
    return Reconcile(drift, "add", tuple(steps), f"add its rule back to {target}: {rule}", rule=rule, target=target)


def _proposal(store: Store, drift: Drift, survey: _Survey) -> Reconcile:
    scan = survey.scans.get(drift.file)
    blocks = scan.blocks if scan is not None else ()
    if drift.kind == HAND_EDIT:
        content = next((b.content for b in blocks if b.begin_line == drift.line), ())
        step = TargetEdit(drift.file, managed_block.rehash)
        return Reconcile(drift, "rehash", (step,), f"accept the edit as it is: re-hash the block in {drift.file}", content=content)
    if drift.kind in (UNKNOWN_ID, NOT_PROMOTED):
        entry_key = drift.entry_id
        text = next((r.text for b in blocks for r in b.rules if r.line == drift.line), "")
        step = TargetEdit(drift.file, lambda t: managed_block.remove_rule(t, entry_key))
        note = f"remove the rule for {entry_key} from {drift.file}: {text}"
        return Reconcile(drift, "remove", (step,), note, rule=text, target=drift.file)
    if drift.kind == MISSING_RULE:
        return _readd(store, survey.unpromoted[(drift.file, drift.line)], drift)
    return Reconcile(drift, "", (), "fix the markers by hand; nothing is changed automatically")


def _checked(store: Store, reconcile: Reconcile) -> Reconcile:
    """The proposal, or a report-only one when its own simulation refuses it."""
    if not reconcile.steps:
        return reconcile
    try:
        simulate(store, reconcile.steps)
    except SelfImproveError as exc:
        why = str(exc).removeprefix(f"{reconcile.drift.file}: ")  # the drift line names the file already
        return Reconcile(reconcile.drift, "", (), f"cannot be fixed automatically: {why}")
    return reconcile


def plan_reconcile(store: Store) -> list[Reconcile]:
    """A proposal for every finding of :func:`find_drift`, in the same order except that
    re-hashing comes last: a bullet removed or added first is then part of what the user
    accepts, and may even make the block match its hash again (see :func:`refreshed`)."""
    survey = _survey(store)
    proposals = [_checked(store, _proposal(store, drift, survey)) for drift in survey.drifts]
    return sorted(proposals, key=lambda reconcile: reconcile.action == "rehash")


def refreshed(store: Store, reconcile: Reconcile) -> Reconcile | None:
    """A re-hash proposal against the file as it is now (earlier proposals may have changed
    it): with the block's current lines, or None when the block matches its hash again."""
    if reconcile.action != "rehash":
        return reconcile
    text = read_instruction(store.root, reconcile.drift.file)
    if text is None:
        return None
    scan = managed_block.scan_rules(text)
    edited = [block for block in scan.blocks if block.edited_by_hand]
    if scan.damage_line is not None or not edited:
        return None
    drift = Drift(HAND_EDIT, reconcile.drift.file, edited[0].begin_line, reconcile.drift.reason)
    return Reconcile(drift, "rehash", reconcile.steps, reconcile.note, content=edited[0].content)


def reconcile_steps(reconciles: Sequence[Reconcile]) -> list[Step]:
    return [step for reconcile in reconciles for step in reconcile.steps]


def reconcile_json(reconcile: Reconcile) -> dict[str, Any]:
    drift = reconcile.drift
    return {
        "kind": drift.kind,
        "file": drift.file,
        "line": drift.line,
        "reason": drift.reason,
        "id": drift.entry_id or None,
        "action": reconcile.action or None,
        "proposal": reconcile.note,
        "rule": reconcile.rule or None,
        "target": reconcile.target or None,
    }


def reconcile_lines(reconcile: Reconcile) -> list[str]:
    """How ``review`` lists one proposal: the finding, then what it would do."""
    lines = [f"  {reconcile.drift.render()}"]
    if reconcile.content:
        lines.append("      the block now reads:")
        lines += [f"      | {line}" for line in reconcile.content]
    lines.append(f"      -> {reconcile.note}")
    return lines


def done_line(reconcile: Reconcile) -> str:
    """What ``review`` prints once a proposal was applied."""
    drift = reconcile.drift
    if reconcile.action == "rehash":
        return f"re-hashed the rules block in {drift.file} (the hand edit is kept)"
    if reconcile.action == "remove":
        return f"removed the rule for {drift.entry_id} from {drift.file}: {reconcile.rule}"
    return f"added the rule for {drift.entry_id} back to {reconcile.target}"


def apply_reconciles(store: Store, reconciles: Sequence[Reconcile]) -> list[str]:
    """Apply every proposal (``review --yes``): all simulated together first, so a refusal
    changes nothing; the lines say what was done."""
    chosen = [reconcile for reconcile in reconciles if reconcile.action]
    steps = reconcile_steps(chosen)
    simulate(store, steps)
    apply(store, steps)
    return [done_line(reconcile) for reconcile in chosen]


def held_line(reconcile: Reconcile) -> str:
    """A proposal not applied by ``review --yes`` inside an agent session."""
    return f"proposed, not applied: {reconcile.drift.render()} -> {reconcile.note}"
