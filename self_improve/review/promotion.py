"""Promoting one entry's rule into a managed block, and retiring it again, as planned steps.

The rule is a short prevention rule (at most ``promotion.max_rule_chars``): the one given, else
the newest line of the entry's Suggested Action / Suggested Fix. It lands as ``- RULE <!-- ID -->``
in the self-improve block of the target (``managed_block``, the one place that edits between our
markers), and the entry gets ``Status: promoted``, its target and, when the rule is new (a first
promotion or a rewritten rule), ``- Promoted-On: YYYY-MM-DD`` (the day ``stats`` measures the
rule from) with its ``Recurred-After-Promotion`` count cleared.

**Where the rule goes** (:func:`place`, the one answer for ``promote`` and ``review``): a rule of
ours already in a file stays there (a rule in CLAUDE.md from an earlier version is revised and
retired there, never copied); else ``--target``; else the default (``policy.default_target``:
Claude Code's is ``.claude/rules/self-improve.md``, a file wholly ours that Claude Code loads
like CLAUDE.md), narrowed for a rule confined to one subtree to the path-scoped
``.claude/rules/self-improve-<slug>.md`` (``subject_paths.scope_subtree``), created starting
with its ``paths:`` frontmatter. Block edits never touch that frontmatter; when the last rule
leaves a file we created, it goes, frontmatter and all (``block_file``), with the folders we
created for it.

**Where the target is written.** A ``Promoted`` line the user wrote is theirs and is never
rewritten (``- **Promoted**: SOUL.md (安全规则已强化)`` under ``### Resolution`` stays byte for
byte). Ours is ``**Promoted**: TARGET`` in the header block, the reference format's own place,
when the entry has no ``Promoted`` field at all, or when its header field is one we wrote (it
names exactly a file whose block holds the entry's bullet); otherwise, and from then on, it is
the metadata line ``- Promoted-To: TARGET`` (``policy.promoted_to`` reads it first).

Retiring removes exactly that entry's bullet from the blocks that hold it (when it was the last
bullet, the whole block goes, with the blank line we added before it, so the file is byte for
byte what it was before the first promotion) and sets ``Status: retired``. An entry promoted by
hand (no managed block holds its rule) only changes status, and says so: its rule is the user's
text, which we never edit. ``review --yes`` never retires one (``candidates.set_apart_hand_promoted``).
The entry stays, with its history; ``review`` archives it later.

Each change is a list of steps (``review/plan.py``): simulated first, so every refusal happens
before anything is written and ``--dry-run`` prints the exact diff, then applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from self_improve.errors import SelfImproveError, UsageError
from self_improve.review import managed_block
from self_improve.review.plan import EntryEdit, Step, TargetEdit
from self_improve.review.policy import (
    PROMOTABLE_STATUSES,
    PROMOTED_TO,
    Policy,
    TargetTable,
    clean_rule,
    default_target,
    promoted_to,
    propose_rule,
    rule_problem,
)
from self_improve.review.block_file import paths_frontmatter
from self_improve.review.subject_paths import scope_subtree
from self_improve.review.targets import (
    default_targets,
    in_openclaw_workspace,
    is_scoped_rules_file,
    normalise_target,
    normalised_or_none,
    rules_files,
    scoped_rules_name,
)
from self_improve.store.entry import Entry
from self_improve.store.settings import CLAUDE_RULES_TARGET
from self_improve.store.store import Store


@dataclass(frozen=True)
class Promotion:
    entry_id: str
    rule: str
    target: str
    previous_target: str  # a promoted entry moving to another file: "" otherwise
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Retirement:
    entry_id: str
    targets: tuple[str, ...]  # the files whose block holds the bullet (none: promoted by hand)
    steps: tuple[Step, ...]
    promoted_text: str = ""  # the entry's own Promoted value, as written (for the by-hand message)

    @property
    def by_hand(self) -> bool:
        """No managed block holds its rule: it lives in the user's own text, if anywhere."""
        return not self.targets

    def where(self) -> str:
        """Where the rule is, for the approval preview."""
        if self.targets:
            return " and ".join(self.targets)
        return f"your own text{self._named()}, which self-improve does not edit: only the status changes"

    def done_line(self) -> str:
        if self.targets:
            return f"retired {self.entry_id}: its rule is gone from {' and '.join(self.targets)}"
        if self.promoted_text:
            return f"retired {self.entry_id} (status only): its rule lives in your own text{self._named()}, which self-improve does not edit"
        return f"retired {self.entry_id} (status only): no self-improve block holds its rule, and self-improve does not edit your own text"

    def _named(self) -> str:
        return f" (Promoted: {self.promoted_text})" if self.promoted_text else ""


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


def plan_promotion(
    store: Store, entry_id: str, rule: str | None = None, target: str | None = None, today: date | None = None
) -> Promotion:
    """The steps that promote one entry; refuses (raising) on anything it cannot do. ``today``
    (the caller's, e.g. review's ``--today``; else :func:`store_today`) is written as
    ``- Promoted-On:`` when the rule is new."""
    store._require()
    entry = store.get(entry_id)
    check_promotable(entry)
    policy = Policy.from_settings(store.setting)
    text = choose_rule(entry, rule, policy.max_rule_chars)
    openclaw = in_openclaw_workspace(store)
    holding = rule_files(store, entry) if entry.status == "promoted" else ()
    previous = holding[0] if holding else ""  # only a bullet of ours can be moved
    if target is not None:
        wanted = target
    elif previous:
        wanted = previous  # re-promoting (a new rule, say) keeps the rule where it is
    else:
        wanted = place(store, entry, text, openclaw)
    chosen = normalise_target(store, wanted, openclaw)
    scoped = scoped_placement(store, entry, text) if is_scoped_rules_file(chosen) else None
    front = scoped.frontmatter if scoped is not None and scoped.target == chosen else ""  # a new scoped file starts with it
    if previous == chosen:
        previous = ""
    entry_key = entry.id
    # A new rule (a first promotion, or a rewrite after it recurred) starts a new measurement:
    # Promoted-On is today and the recurrences counted against the rule it replaces are cleared.
    # Moving the same rule to another file, or promoting it again unchanged, keeps both.
    # A promoted rule whose bullet we cannot find (removed by hand) is taken to be the same rule.
    # An entry promoted before Promoted-On existed keeps its unknown day rather than a made-up one.
    # An entry the user promoted by hand (no bullet, no Promoted-On) gets its first rule of ours.
    old_rule = current_rule(store, entry) if entry.status == "promoted" else ""
    fresh = entry.status != "promoted" or (old_rule != "" and old_rule != text) or (not holding and not entry.promoted_on)
    day = (today or store_today()).isoformat()
    field_is_ours = promoted_field_is_ours(store, entry)

    def mark_promoted(e: Entry) -> Entry:
        e = e if e.status == "promoted" else e.with_status("promoted")  # a decorated status stays as written
        e = e.with_field("Promoted", chosen) if field_is_ours else e.with_metadata(PROMOTED_TO, chosen)
        if fresh:
            e = e.with_metadata("Promoted-On", day)
            if e.recurred_after_promotion:
                e = e.with_metadata("Recurred-After-Promotion", "0")
        return e

    steps: list[Step] = [TargetEdit(chosen, lambda t: managed_block.upsert_rule(t or front, entry_key, text))]
    if previous:
        steps.append(TargetEdit(previous, lambda t: managed_block.remove_rule(t, entry_key)))
    steps.append(EntryEdit(entry_key, mark_promoted))
    return Promotion(entry.id, text, chosen, previous, tuple(steps))


@dataclass(frozen=True)
class Scoped:
    """A path-scoped rules file for one rule: its name and the frontmatter it starts with."""

    target: str
    frontmatter: str


def scoped_placement(store: Store, entry: Entry, rule: str) -> Scoped | None:
    """The path-scoped rules file for this rule (``subject_paths.scope_subtree`` decides, and
    answers "no" at the first doubt); None when it is not scoped, or when a file of that name
    exists but does not start with the very frontmatter (another subtree of the same slug, or
    a file the user changed): then the rule goes to the unscoped rules file."""
    if store.scope != "project":
        return None
    subtree = scope_subtree(store.root, entry, rule)
    if not subtree:
        return None
    try:
        front = paths_frontmatter(subtree)
    except ValueError:
        return None
    name = scoped_rules_name(subtree)
    path = store.root / name
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return None
    if path.is_file():
        try:
            if not path.read_bytes().decode("utf-8").startswith(front):
                return None
        except (OSError, UnicodeDecodeError):
            return None
    return Scoped(name, front)


def place(store: Store, entry: Entry, rule: str, openclaw: bool | None = None, table: TargetTable | None = None) -> str:
    """Where the entry's rule goes when ``--target`` does not say.

    A rule of ours already in a file stays there (CLAUDE.md included: never a second copy); a
    promoted entry keeps the file its record names; else the default target
    (``policy.default_target``), and when that is the Claude rules file and the rule is
    confined to one subtree, the path-scoped rules file (:func:`scoped_placement`). ``openclaw``
    and ``table`` (``targets.default_targets``) are read from the files when not given: a caller
    placing many rules reads them once."""
    holding = rule_files(store, entry)
    if holding:
        return holding[0]
    named = normalised_or_none(store, promoted_to(entry)) if entry.status == "promoted" and promoted_to(entry) else None
    if named is not None:
        return named
    if openclaw is None:
        openclaw = in_openclaw_workspace(store)
    wanted = default_target(entry, table if table is not None else default_targets(store), openclaw)
    if wanted == CLAUDE_RULES_TARGET:
        scoped = scoped_placement(store, entry, rule)
        if scoped is not None:
            return scoped.target
    return wanted


def store_today() -> date:
    """The day by the store's clock (``SELF_IMPROVE_NOW``, what dates the occurrences), for a
    caller that has no "today" of its own; ``review`` passes its own (``--today``)."""
    from self_improve.clock import utcnow

    return utcnow().date()


def header_promoted(entry: Entry) -> str | None:
    """The value of a ``Promoted`` field in the entry's header block (where promote writes
    it), stripped; None when the entry has none, or has it elsewhere (a user's line in a section)."""
    found = entry.fields.get("promoted")
    if found is None:
        return None
    index, value = found
    header_end = entry.sections[0].start if entry.sections else entry.body_end
    return value.strip() if index < header_end else None


def promoted_field_is_ours(store: Store, entry: Entry) -> bool:
    """Whether promote may write its target as the ``**Promoted**`` field: there is none yet, or
    the one in the header block is ours (it names exactly a file whose block holds the entry's
    bullet) and no ``- Promoted-To:`` line took over. Anything else is the user's own line."""
    if entry.meta(PROMOTED_TO).strip():
        return False
    if entry.fields.get("promoted") is None:
        return True
    value = header_promoted(entry)
    name = normalised_or_none(store, value) if value else None
    return value is not None and name == value and name in rule_files(store, entry)


def rule_files(store: Store, entry: Entry) -> tuple[str, ...]:
    """The instruction files whose managed block holds the entry's bullet: the one our record
    names, else any of the usual ones. None: the entry was promoted by hand (or its bullet was
    removed by hand)."""
    named = normalised_or_none(store, promoted_to(entry)) if promoted_to(entry) else None
    # Damaged markers in the file our record names: we cannot tell, so it counts as holding the
    # rule, and the edit that would remove it refuses with the damage (fix them by hand first).
    if named is not None and _holds_rule(store, named, entry.id, if_damaged=True):
        return (named,)
    return files_with_rule(store, entry.id)


def promoted_by_us(store: Store, entry: Entry) -> bool:
    """A promoted entry whose rule is a bullet of ours (``review`` retires only those by --yes)."""
    return bool(rule_files(store, entry))


def _holds_rule(store: Store, name: str, entry_id: str, if_damaged: bool = False) -> bool:
    path = store.root / name
    if not path.is_file() or path.is_symlink():
        return False
    try:
        return managed_block.has_rule(path.read_bytes().decode("utf-8"), entry_id)  # no newline translation
    except managed_block.ManagedBlockError:
        return if_damaged
    except (OSError, UnicodeDecodeError):
        return False


def current_rule(store: Store, entry: Entry) -> str:
    """The text of the entry's bullet in the file our record names (else in the usual
    instruction files); "" when there is none or it cannot be read."""
    named = normalised_or_none(store, promoted_to(entry)) if promoted_to(entry) else None
    for name in (named,) if named is not None else files_with_rule(store, entry.id):
        path = store.root / name
        if not path.is_file() or path.is_symlink():
            continue
        try:
            rules = managed_block.list_rules(path.read_bytes().decode("utf-8"))
        except (OSError, UnicodeDecodeError, managed_block.ManagedBlockError):
            continue
        for rule in rules:
            if rule.entry_id.upper() == entry.id.upper():
                return rule.text.strip()
    return ""


def files_with_rule(store: Store, entry_id: str) -> tuple[str, ...]:
    """Known instruction files (our rules files included) holding a bullet for this ID."""
    return tuple(name for name in rules_files(store) if _holds_rule(store, name, entry_id))


def plan_retirement(store: Store, entry_id: str) -> Retirement:
    """Remove the entry's bullets and mark it retired. Promoted by hand (no bullet of ours), the
    status alone changes: the user's rule is their text, which we never edit."""
    store._require()
    entry = store.get(entry_id)
    if entry.status != "promoted":
        raise SelfImproveError(f"{entry.id} is {entry.status}, not promoted: only a promoted rule can be retired")
    targets = rule_files(store, entry)
    entry_key = entry.id
    steps: list[Step] = [TargetEdit(target, lambda t: managed_block.remove_rule(t, entry_key)) for target in targets]
    steps.append(EntryEdit(entry_key, lambda e: e.with_status("retired")))
    return Retirement(entry.id, targets, tuple(steps), promoted_text=entry.promoted)
