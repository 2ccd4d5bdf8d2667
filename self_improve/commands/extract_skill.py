"""``self-improve extract-skill NAME --from ID [--output-dir DIR] [--dry-run]``.

Turns an entry whose fix is a procedure rather than a one-line rule into a skill:
``DIR/NAME/SKILL.md`` (``skills/`` by default, where OpenClaw looks; pass ``.claude/skills`` for
Claude Code) with ``name`` and ``description`` frontmatter, a short "When to use", the steps
(the entry's suggested action), its details, and the source entry's ID. The entry gets
``Status: promoted_to_skill`` and ``**Skill-Path**: DIR/NAME``. An existing skill is never
overwritten.

Run from inside an agent session it only proposes (``review/approval.py``): a skill is an
instruction file the agent will load, so a person runs the printed command.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
from pathlib import PurePosixPath

from self_improve.commands._common import store_from
from self_improve.review import approval
from self_improve.errors import SelfImproveError, UsageError
from self_improve.review.plan import EntryEdit, NewFile, Step, apply, confined, simulate
from self_improve.review.policy import ACTION_TITLES, PROMOTABLE_STATUSES
from self_improve.store.entry import Entry

SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DEFAULT_OUTPUT_DIR = "skills"
MAX_DESCRIPTION = 1024  # what Claude Code and OpenClaw accept for a skill description


def check_name(name: str) -> str:
    if not SKILL_NAME.match(name) or len(name) > 64:
        raise UsageError(f"invalid skill name {name!r}: use lower-case letters and digits joined by single hyphens, e.g. fix-import-errors")
    return name


def check_output_dir(raw: str) -> str:
    text = raw.strip()
    if not text:
        raise UsageError("--output-dir must not be empty")
    path = PurePosixPath(text.replace("\\", "/"))
    if path.is_absolute():
        raise UsageError(f"--output-dir {raw} must be a relative path inside the project")
    if ".." in path.parts:
        raise UsageError(f"--output-dir {raw} must not contain ..")
    normal = posixpath.normpath(path.as_posix())
    if normal.split("/", 1)[0] == ".learnings":
        raise UsageError(f"--output-dir {raw} is inside .learnings/: choose e.g. skills or .claude/skills")
    return normal


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


def plan_extraction(store_entry: Entry, name: str, output_dir: str) -> tuple[str, list[Step]]:
    entry = store_entry
    if entry.status not in PROMOTABLE_STATUSES:
        hint = f": retire its rule first (`self-improve retire {entry.id}`)" if entry.status == "promoted" else ""
        raise SelfImproveError(f"{entry.id} is {entry.status}: only pending, in_progress or resolved entries can become a skill{hint}")
    if not entry.suggested_action.strip():
        title = ACTION_TITLES.get(entry.kind, "Suggested Action")
        raise UsageError(f"{entry.id} has no {title}: a skill needs steps; add them to the entry first")
    if not entry.summary.strip():
        raise UsageError(f"{entry.id} has no summary to describe the skill")
    skill_path = f"{output_dir}/{name}" if output_dir != "." else name
    steps: list[Step] = [
        NewFile(f"{skill_path}/SKILL.md", skill_markdown(name, entry, entry.file)),
        EntryEdit(entry.id, lambda e: e.with_status("promoted_to_skill").with_field("Skill-Path", skill_path)),
    ]
    return skill_path, steps


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("extract-skill", help="turn an entry into a skill: DIR/NAME/SKILL.md")
    parser.add_argument("name", metavar="NAME", help="skill name: lower-case words joined by hyphens")
    parser.add_argument("--from", dest="entry_id", required=True, metavar="ID", help="the entry to extract")
    parser.add_argument("--output-dir", default=DEFAULT_OUTPUT_DIR, metavar="DIR", help=f"relative skills directory (default: {DEFAULT_OUTPUT_DIR})")
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every file that would change; change nothing")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = check_name(args.name)
    output_dir = check_output_dir(args.output_dir)
    store = store_from(args)
    store._require()
    entry = store.get(args.entry_id)
    skill_path, steps = plan_extraction(entry, name, output_dir)
    directory = confined(store, skill_path)
    if directory.exists() or directory.is_symlink():
        raise SelfImproveError(f"skill {skill_path} already exists: choose another NAME or remove it first")
    simulation = simulate(store, steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    harness = approval.agent_gate()
    if harness:
        verb = ["extract-skill", name, "--from", entry.id]
        if output_dir != DEFAULT_OUTPUT_DIR:
            verb += ["--output-dir", output_dir]
        approval.print_proposal(harness, [f"proposed: extract {entry.id} into {skill_path}/SKILL.md"], approval.user_command(args, store, *verb))
        return 0
    apply(store, steps)
    print(f"extracted {entry.id} into {skill_path}/SKILL.md")
    return 0
