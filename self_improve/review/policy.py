"""The promotion and forgetting policy: pure functions over entries, every threshold from config.

Nothing here reads or writes a file. ``review``, ``promote``, ``retire`` and ``stats`` feed it the
entries, today's date and the settings, and act on what it returns; ``review/candidates.py``
applies the rules below to a whole store.

**Promotion** (``promotion.*``). An entry is a candidate when all hold:

- its status is ``pending``, ``in_progress`` or ``resolved``, and nothing supersedes it;
- at least ``min_occurrences`` (3) of its recorded occurrences fall within the last
  ``window_days`` (30) days: day 30 counts, day 31 does not;
- those occurrences come from at least ``min_tasks`` (2) distinct tasks (sessions); the unknown
  task ``-`` never counts;
- it has not decayed (see below).

Occurrences are the ``- Occurrences: DATE/TASK, …`` metadata the store keeps. An entry in the
plain reference format has no such line: we fall back on ``Recurrence-Count`` (counted as in the
window when ``Last-Seen`` is) but such an entry cannot prove two tasks, so it is never a candidate
on evidence alone. ``Priority: critical`` does not bypass the rule: anyone can set it (``log
--priority critical``, a committed entry), so it only sorts a candidate first, flagged ``critical``.

**Forgetting** (``forgetting.*``).

- *Archive*: ``resolved``, ``wont_fix`` or ``retired`` entries last seen more than
  ``archive_after_days`` (90) days ago, unless a live entry's See Also points to them (references
  from entries archived in the same pass do not protect: a stale cluster goes together).
- *Decay*: a ``pending`` entry last seen more than ``decay_after_days`` (180) days ago no longer
  counts towards promotion (its history stays) and is listed for archiving.
- *Retire*: a promoted rule is proposed for retirement only on evidence against it:

  - harm outweighs help, self-reported marks and measured credit counted together:
    ``Harmful + Measured-Harmful > Helpful + Measured-Helpful`` (a tie keeps the rule);
  - ``Superseded-By`` names its successor;
  - its subject no longer exists: the project file its fingerprint names is gone
    (``review/subject_paths.py``, which answers "not gone" whenever it is unsure).

  Never age alone: a rule that works prevents its own recurrence, which is exactly why it is not
  seen. ``stale_after_days`` is still read (configs that set it stay valid) but retires nothing.
- *Revise*: a promoted rule whose fingerprint recurred after promotion
  (``Recurred-After-Promotion > 0``) is proposed for a better rule, with the occurrences since
  ``Promoted-On`` and its credit; never applied by ``review --yes``. A rule that is also a
  retire candidate is listed under retire only: the evidence against it settles it first.
- *Size cap*: above ``max_active_entries`` (200) active entries, the lowest-value ones are listed
  for archiving too: single occurrences before repeated ones, oldest first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, fields, replace
from datetime import date
from typing import Any, TypeVar

from self_improve.review import rule_text
from self_improve.store.archive import last_seen_day
from self_improve.store.entry import ACTION_SECTIONS, Entry
from self_improve.store.occurrences import distinct_tasks, within
from self_improve.store.settings import CLAUDE_RULES_TARGET, default

PROMOTABLE_STATUSES = frozenset({"pending", "in_progress", "resolved"})
# Text a rule may never contain: it would damage the managed block around it.
MARKER_TEXT = ("<!--", "-->", "self-improve:begin", "self-improve:end")
ACTION_TITLES = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+")


# ---- settings ------------------------------------------------------------------------------------


def _from_setting(key: str, convert: Callable[[Any], Any]) -> Any:
    """A field whose default is the settings table's (``store/settings.py``, the one copy of
    every default) and whose value :func:`_read_settings` takes from ``key``."""
    return field(default=convert(default(key)), metadata={"key": key, "convert": convert})


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value)


_T = TypeVar("_T")


def _read_settings(cls: type[_T], setting: Callable[[str], Any]) -> _T:
    return cls(**{f.name: f.metadata["convert"](setting(f.metadata["key"])) for f in fields(cls)})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Policy:
    """The thresholds of promotion and forgetting (``promotion.*`` and ``forgetting.*``)."""

    min_occurrences: int = _from_setting("promotion.min_occurrences", int)
    min_tasks: int = _from_setting("promotion.min_tasks", int)
    window_days: int = _from_setting("promotion.window_days", int)
    max_rule_chars: int = _from_setting("promotion.max_rule_chars", int)
    archive_after_days: int = _from_setting("forgetting.archive_after_days", int)
    decay_after_days: int = _from_setting("forgetting.decay_after_days", int)
    stale_after_days: int = _from_setting("forgetting.stale_after_days", int)  # retires nothing any more (see *Retire*)
    max_active_entries: int = _from_setting("forgetting.max_active_entries", int)

    @classmethod
    def from_settings(cls, setting: Callable[[str], Any]) -> Policy:
        return _read_settings(cls, setting)


@dataclass(frozen=True)
class TargetTable:
    """Where a rule goes by default (``targets.*``)."""

    learning: str = _from_setting("targets.learning", str)
    error: str = _from_setting("targets.error", str)
    feature: str = _from_setting("targets.feature", str)
    workflow_target: str = _from_setting("targets.workflow", str)
    workflow_areas: tuple[str, ...] = _from_setting("targets.workflow_areas", _strings)
    openclaw_behaviour: str = _from_setting("targets.openclaw_behaviour", str)
    openclaw_default: str = _from_setting("targets.openclaw_default", str)
    behaviour_categories: tuple[str, ...] = _from_setting("targets.behaviour_categories", _strings)

    @classmethod
    def from_settings(cls, setting: Callable[[str], Any]) -> TargetTable:
        return _read_settings(cls, setting)

    def for_harnesses(self, installed: Collection[str], chosen: Collection[str]) -> TargetTable:
        """The table with its defaults following the harnesses installed (``review/installed.py``).

        Each of ``targets.learning``, ``error``, ``feature`` and ``workflow`` that the user did
        not set (``chosen``: the keys their config sets) and whose value is one harness's file
        (Claude Code: our ``.claude/rules/self-improve.md``, or CLAUDE.md; Codex: AGENTS.md) goes
        to the other harness's file when only that one is installed: Claude Code alone,
        everything to the Claude rules file (workflows too); Codex alone, everything to
        AGENTS.md. So no default creates a file for a harness the user does not use. Both
        installed, or neither detected: the table as configured (workflows to AGENTS.md, the
        rest to the Claude rules file).
        """
        changes: dict[str, Any] = {}
        for name, key in _TARGET_FIELDS:
            if key not in chosen:
                changes[name] = harness_default(getattr(self, name), installed)
        return replace(self, **changes)


_TARGET_FIELDS = (("learning", "targets.learning"), ("error", "targets.error"), ("feature", "targets.feature"),
                  ("workflow_target", "targets.workflow"))
# The instruction files each harness reads; the first of a harness is where its rules go by default.
HARNESS_FILES = {CLAUDE_RULES_TARGET: "claude", "CLAUDE.md": "claude", "AGENTS.md": "codex"}


def harness_default(target: str, installed: Collection[str]) -> str:
    """``target``, or the other harness's default file when only that harness is installed."""
    owner = HARNESS_FILES.get(target)
    hooked = set(installed) & set(HARNESS_FILES.values())
    if owner is None or owner in hooked or len(hooked) != 1:
        return target
    return next(name for name, harness in HARNESS_FILES.items() if harness in hooked)


# ---- dates and evidence ----------------------------------------------------------------------------


def days_since(day: date | None, today: date) -> int | None:
    return None if day is None else (today - day).days


@dataclass(frozen=True)
class Evidence:
    """What the occurrence history proves about one entry, as of ``today``."""

    occurrences: int  # within the window
    tasks: int  # distinct known tasks among them
    total: int  # Recurrence-Count: every occurrence ever counted
    total_tasks: int  # distinct known tasks in the whole recorded history
    last_seen: str  # YYYY-MM-DD, or "" when unknown
    days_since_seen: int | None
    has_history: bool  # False: a reference-format entry without Occurrences (tasks unprovable)


def evidence(entry: Entry, today: date, window_days: int) -> Evidence:
    history = entry.occurrences
    last = last_seen_day(entry)
    age = days_since(last, today)
    if history:
        recent = within(history, today, window_days)
        occurrences, tasks = len(recent), distinct_tasks(recent)
    else:
        # Reference format: the count is all we have; it is "recent" if the last sighting is.
        occurrences = entry.recurrence_count if age is not None and 0 <= age <= window_days else 0
        tasks = 0
    return Evidence(
        occurrences=occurrences,
        tasks=tasks,
        total=entry.recurrence_count,
        total_tasks=distinct_tasks(history),
        last_seen=last.isoformat() if last else "",
        days_since_seen=age,
        has_history=bool(history),
    )


def is_decayed(entry: Entry, today: date, policy: Policy) -> bool:
    """A pending entry unseen for longer than ``decay_after_days``: it no longer counts."""
    age = days_since(last_seen_day(entry), today)
    return entry.status == "pending" and age is not None and age > policy.decay_after_days


def meets_promotion_rule(proof: Evidence, policy: Policy) -> bool:
    return proof.occurrences >= policy.min_occurrences and proof.tasks >= policy.min_tasks


def superseded_by(entry: Entry) -> str:
    return entry.meta("Superseded-By").strip()


PROMOTED_TO = "Promoted-To"
"""Our own record of where an entry's rule is, when the entry's ``**Promoted**`` line is the
user's (``review/promotion.py``): a metadata line, so the user's words stay as they are."""


def promoted_to(entry: Entry) -> str:
    """The file that holds the entry's rule by our record: ``- Promoted-To:``, else ``**Promoted**``."""
    return entry.promoted  # Promoted-To first (store/entry_model.py): one reader


def is_critical(entry: Entry) -> bool:
    return entry.priority == "critical"


# ---- the rule and its target ---------------------------------------------------------------------


@dataclass(frozen=True)
class RuleProposal:
    """The prevention rule we would write, or why there is none (``problem`` non-empty).

    ``source``: the line the rule was taken from, as displayed (the ledger records fix lines whole);
    ``section_title`` / ``section``: the action section as written, shown when the entry
    "needs a rule" so that a person can write one from it."""

    text: str
    problem: str = ""
    source: str = ""
    section_title: str = ""
    section: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def clean_rule(text: str) -> str:
    """One line, single spaces, without a leading list marker (the block adds its own bullet)."""
    one_line = " ".join(text.split())
    return _LIST_MARKER.sub("", one_line, count=1).strip()


def rule_problem(text: str, max_chars: int, source: str = "--rule") -> str:
    """Why ``text`` cannot be promoted as a rule; "" when it can."""
    if "\n" in text or "\r" in text:
        return f"{source} must be one line"
    if not text.strip():
        return f"{source} is empty"
    if rule_text.is_garbled(text):
        return f"{source} holds undecodable text (U+FFFD or bytes that were not UTF-8): write it again"
    for marker in MARKER_TEXT:
        if marker in text:
            return f"{source} contains marker text {marker!r}: remove it"
    if len(text) > max_chars:
        return f"{source} is {len(text)} characters, over promotion.max_rule_chars ({max_chars}): write a shorter one"
    from self_improve.detect.redact import find_secret  # instruction files are committed: no secret goes in

    secret = find_secret(text)
    if secret is not None:
        return f"{source} still holds a secret ({secret}): remove it"
    return ""


NEEDS_A_RULE = "needs a rule"


def propose_rule(entry: Entry, max_chars: int) -> RuleProposal:
    """One sentence of the entry's suggested action, as a short rule; never its details.

    The sentence is chosen by ``review/rule_text.py``: the newest line's first sentence (where
    ``log --action`` appends a fix) when it is a rule, else the first imperative sentence of the
    section; never a code fence, a numbered step, a fragment or garbled text. The section of a
    GBK file is read as GB18030 first (``output.display_text``), so its Chinese is a rule like any
    other; what decodes to nothing readable (U+FFFD, lone surrogates) never is. Without one, the
    fix the hooks observed (``- Observed-Fix:``, from exit codes) is the rule, named by its
    mistake when that fits: an agent that never logs still gets rules. Without either the
    proposal "needs a rule": its problem says so and it carries the section, for a person to
    write one (``--rule``); we never invent one from a fragment.
    """
    from self_improve.output import display_text  # a GBK file's text as its author wrote it

    found = entry.section(*ACTION_SECTIONS)
    title = found.title if found is not None else ACTION_TITLES.get(entry.kind, "Suggested Action")
    section = display_text(entry.suggested_action)
    where = f"the {title} of {entry.id}"
    distilled = rule_text.distill(section, lambda text: rule_problem(clean_rule(text), max_chars, source=where))
    if distilled.text:
        return RuleProposal(clean_rule(distilled.text), source=distilled.source)
    if entry.observed_fix and not rule_text.is_garbled(entry.observed_fix):
        from self_improve.detect.subjects import describe

        observed = clean_rule(entry.observed_fix)
        named = f"{describe(entry.pattern_key)}: {observed}" if entry.pattern_key else observed
        text = named if len(named) <= max_chars else observed
        problem = rule_problem(text, max_chars, source=f"the Observed-Fix of {entry.id}")
        if not problem:
            return RuleProposal(text, source=entry.observed_fix)
    if distilled.problem:
        why = f"{distilled.problem} (or pass --rule TEXT)"
    elif rule_text.is_garbled(section):
        why = f"{where} is not readable text (bytes that are neither UTF-8 nor GB18030): pass --rule TEXT"
    elif section.strip():
        why = f"no sentence of {where} is a rule on its own (an imperative sentence, not a fragment): pass --rule TEXT"
    else:
        why = f"{entry.id} has no {title} to turn into a rule: pass --rule TEXT"
    return RuleProposal("", f"{NEEDS_A_RULE}: {why}", section_title=title, section=section)


def is_openclaw_workspace(root_file_names: Iterable[str]) -> bool:
    """OpenClaw creates SOUL.md and IDENTITY.md in its workspace on first run; no other harness
    uses those names, so either one at the project root means "this is an OpenClaw workspace"."""
    names = set(root_file_names)
    return "SOUL.md" in names or "IDENTITY.md" in names


def default_target(entry: Entry, table: TargetTable, openclaw: bool) -> str:
    """Where the entry's rule goes unless ``--target`` says otherwise.

    ``table`` is the store's, already following the harnesses installed (``targets.default_targets``).
    Workflows (entries of an area in ``targets.workflow_areas``) go to AGENTS.md. In an OpenClaw
    workspace, behaviour (learnings of a category in ``targets.behaviour_categories``) goes to
    SOUL.md and everything else, tool gotchas included, to AGENTS.md: OpenClaw does not read
    TOOLS.md. Elsewhere the kind decides (``.claude/rules/self-improve.md`` by default, which
    ``review/promotion.place`` may narrow to a path-scoped rules file).
    """
    if openclaw:
        if entry.kind == "learning" and entry.category.strip() in table.behaviour_categories:
            return table.openclaw_behaviour
        return table.openclaw_default
    if entry.area and entry.area.casefold() in {a.casefold() for a in table.workflow_areas}:
        return table.workflow_target
    return {"learning": table.learning, "error": table.error, "feature": table.feature}.get(entry.kind, table.learning)
