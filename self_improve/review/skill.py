"""An entry turned into a skill: ``DIR/NAME/SKILL.md`` and the entry marked ``promoted_to_skill``.

The skill is a new file (``plan.NewFile``: it must not exist yet); the entry gets
``Status: promoted_to_skill`` and ``**Skill-Path**``. Its rule, if it has one, stays where it is.
"""

from __future__ import annotations

import json

from self_improve.errors import SelfImproveError, UsageError
from self_improve.review.plan import EntryEdit, NewFile, Step
from self_improve.review.policy import ACTION_TITLES, PROMOTABLE_STATUSES
from self_improve.store.entry import Entry
from self_improve.store.store import Store

MAX_DESCRIPTION = 1024  # what Claude Code and OpenClaw accept for a skill description


def _yaml_string(text: str) -> str:
    """A YAML scalar that is always read back as this exact string (JSON is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def skill_markdown(name: str, entry: Entry, entry_file: str) -> str:
    summary = entry.summary.strip()
    description = summary if len(summary) <= MAX_DESCRIPTION else summary[: MAX_DESCRIPTION - 1].rstrip() + "…"
    when = [f"When this comes up again: {summary.rstrip('.')}."]
    hints = []
    if entry.area:
        hints.append(f"Area: {entry.area}.")
    if entry.pattern_key:
        hints.append(f"Pattern-Key: `{entry.pattern_key}`.")
    if hints:
        when.append(" ".join(hints))
    lines = [
        "---",
        f"name: {name}",
        f"description: {_yaml_string(description)}",
        "---",
        "",
        f"# {summary}",
        "",
        "## When to use",
        *when,
        "",
        "## Steps",
        *entry.suggested_action.strip("\n").splitlines(),
        "",
    ]
    if entry.details.strip():
        lines.extend(["## Details", *entry.details.strip("\n").splitlines(), ""])
    lines.extend(["## Source", f"Extracted by `self-improve extract-skill` from {entry.id} ({entry_file}).", ""])
    return "\n".join(lines)


def plan_extraction(store: Store, entry: Entry, name: str, output_dir: str) -> tuple[str, list[Step]]:
    """The skill's directory (relative to the project root) and the steps that write it."""
    if entry.status not in PROMOTABLE_STATUSES:
        hint = f": retire its rule first (`self-improve retire {entry.id}`)" if entry.status == "promoted" else ""
        raise SelfImproveError(f"{entry.id} is {entry.status}: only pending, in_progress or resolved entries can become a skill{hint}")
    if not entry.suggested_action.strip():
        title = ACTION_TITLES.get(entry.kind, "Suggested Action")
        raise UsageError(f"{entry.id} has no {title}: a skill needs steps; add them to the entry first")
    if not entry.summary.strip():
        raise UsageError(f"{entry.id} has no summary to describe the skill")
    skill_path = f"{output_dir}/{name}" if output_dir != "." else name
    directory = store.root / skill_path
    if directory.exists() or directory.is_symlink():
        raise SelfImproveError(f"skill {skill_path} already exists: choose another NAME or remove it first")
    steps: list[Step] = [
        NewFile(f"{skill_path}/SKILL.md", skill_markdown(name, entry, entry.file)),
        EntryEdit(entry.id, lambda e: e.with_status("promoted_to_skill").with_field("Skill-Path", skill_path)),
    ]
    return skill_path, steps
