"""``self-improve extract-skill NAME --from ID [--output-dir DIR] [--dry-run]``.

Turns an entry whose fix is a procedure rather than a one-line rule into a skill:
``DIR/NAME/SKILL.md`` with ``name`` and ``description`` frontmatter, a short "When to use", the steps
(the entry's suggested action), its details, and the source entry's ID. The entry gets
``Status: promoted_to_skill`` and ``**Skill-Path**: DIR/NAME``. An existing skill is never
overwritten.

``DIR`` (``--output-dir``) defaults to where the project's agent loads skills from: ``.claude/skills``
when self-improve is installed for Claude Code here (``review/installed.py``, as for the rule
targets) and the project is no OpenClaw workspace, else ``skills`` (OpenClaw's workspace skills).

Run from inside an agent session it only proposes (``review/approval.py``): a skill is an
instruction file the agent will load, so a person runs the printed command.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import sys
from pathlib import Path, PurePosixPath

from self_improve.commands._common import add_dry_run_flag, agent_gate, print_proposal, store_from, user_command
from self_improve.errors import UsageError
from self_improve.review.plan import apply, simulate
from self_improve.review.skill import plan_extraction

SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
DEFAULT_OUTPUT_DIR = "skills"  # OpenClaw's workspace skills, and where no harness is detected
CLAUDE_OUTPUT_DIR = ".claude/skills"  # where Claude Code loads a project's skills


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


def default_output_dir(root: Path) -> str:
    """Where the project's agent loads skills from (see the module doc)."""
    from self_improve.review.installed import installed_harnesses

    found = installed_harnesses(root)
    return CLAUDE_OUTPUT_DIR if "claude" in found and "openclaw" not in found else DEFAULT_OUTPUT_DIR


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "extract-skill", help="turn an entry into a skill: DIR/NAME/SKILL.md",
        epilog="examples:\n"
        "  self-improve extract-skill release-checklist --from LRN-20260301-abc --dry-run",
    )
    parser.add_argument("name", metavar="NAME", help="skill name: lower-case words joined by hyphens")
    parser.add_argument("--from", dest="entry_id", required=True, metavar="ID", help="the entry to extract")
    parser.add_argument("--output-dir", metavar="DIR",
                        help=f"relative skills directory (default: {CLAUDE_OUTPUT_DIR} where self-improve is installed for Claude Code, else {DEFAULT_OUTPUT_DIR})")
    add_dry_run_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    name = check_name(args.name)
    store = store_from(args)
    store._require()
    output_dir = check_output_dir(args.output_dir) if args.output_dir is not None else default_output_dir(store.root)
    entry = store.get(args.entry_id)
    skill_path, steps = plan_extraction(store, entry, name, output_dir)
    simulation = simulate(store, steps)
    if args.dry_run:
        sys.stdout.write(simulation.diff())
        return 0
    harness = agent_gate()
    if harness:
        verb = ["extract-skill", name, "--from", entry.id]
        if args.output_dir is not None:
            verb += ["--output-dir", output_dir]
        print_proposal(harness, [f"proposed: extract {entry.id} into {skill_path}/SKILL.md"], user_command(args, store, *verb))
        return 0
    apply(store, steps)
    print(f"extracted {entry.id} into {skill_path}/SKILL.md")
    return 0
