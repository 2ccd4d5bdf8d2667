"""What several verbs share, so that no verb imports another: finding the store, flags, who
is calling, asking a person, counting actions, and the install targets.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import home_path
from self_improve.store.entry import Entry
from self_improve.store.location import find_root
from self_improve.store.store import Store, match_id

if TYPE_CHECKING:
    from self_improve.review.plan import Step
    from self_improve.harnesses.base import Installer as Harness
    from self_improve.harnesses.installer import FileChange, Target


def store_from(args: argparse.Namespace) -> Store:
    if getattr(args, "scope", None) == "user":
        store = Store.user()
        if not store.exists() and not getattr(args, "dry_run", False):
            store.init()  # the user store needs no `init` ritual: it is created on first use (a dry run writes nothing)
        return store
    store = Store(find_root(explicit=getattr(args, "root", None)))
    if store.dir.is_dir() or store.dir.is_symlink():
        store.check_trusted()  # the trust model holds for reading too: nothing of a link is read
    return store


def add_scope_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        choices=["project", "user"],
        default="project",
        help="project (.learnings/ of this project, the default) or user (~/.local/share/self-improve/, "
        "for lessons that belong to you, not to one project)",
    )


def selected_entries(args: argparse.Namespace, store: Store) -> list[Entry]:
    """The entries a listing verb shows (``Entry.is_listed``: no heading, no cut-off header),
    ``--kind`` and ``--status`` filters, in file order."""
    store._require()
    return [e for e in store.entries(args.kind) if e.is_listed and (args.status is None or e.status == args.status)]


# ---- IDs as the user gives them ------------------------------------------------------------------


def full_id(store: Store, wanted: str) -> str:
    """The full ID that ``wanted`` names among the live and the archived entries
    (``store.match_id``: exact, else a unique suffix of at least 3 characters); ``wanted`` as
    given when it names none, so that the verb's own refusal names it. An ambiguous one is refused."""
    return full_ids(store, [wanted])[0]


def full_ids(store: Store, wanted: Sequence[str]) -> list[str]:
    """:func:`full_id` of each, in order and each once; every one is resolved (and an ambiguous
    one refused) before the verb plans anything, so a bad ID changes nothing. The store is read
    once, the archive only when an ID is not a live one exactly."""
    from self_improve.store import archive as archive_mod

    ids = [entry.id for entry in store.entries()]
    live = {entry_id.upper(): entry_id for entry_id in ids if entry_id}
    every: list[str] | None = None
    out = []
    for item in wanted:
        exact = live.get(item.strip().upper())
        if exact is None:
            if every is None:
                every = ids + [archived.entry.id for archived in archive_mod.archived_entries(store)]
            exact = match_id(item, every)
        out.append(exact or item)
    return list(dict.fromkeys(out))


def live_entries(store: Store, wanted: Sequence[str]) -> list[Entry]:
    """The live entries the IDs name (:func:`full_ids`), each once, in order. An archived one is
    refused first, saying how to bring it back, then an unknown one: all before the verb plans
    anything. The store is parsed here once for all of them, not once or twice an ID."""
    from self_improve.store import archive as archive_mod

    ids = full_ids(store, wanted)
    live = {entry.id.upper(): entry for entry in store.entries() if entry.id}
    for entry_id in ids:
        if entry_id.upper() not in live:
            archive_mod.refuse_if_archived(store, entry_id)
    found: dict[str, Entry] = {}
    for entry_id in ids:
        entry = live.get(entry_id.upper()) or store.get(entry_id)  # store.get: the unknown-ID refusal
        found.setdefault(entry.id.upper(), entry)
    return list(found.values())


def shown_path(store: Store, path: Path) -> str:
    """A file as a verb prints it: relative to the project, or from ``~`` in the user scope."""
    if store.scope == "user":
        return home_path(path.absolute())
    return store.relative(path)


def shown_target(store: Store, target: str) -> str:
    """An instruction file (relative to the store's root) as a verb prints it."""
    return shown_path(store, store.root / target) if store.scope == "user" else target


def shown_store_file(store: Store, name: str) -> str:
    """A file of the store (``ERRORS.md``, ``archive/2026.md``) as a verb prints it."""
    return home_path(store.dir / name) if store.scope == "user" else f".learnings/{name}"


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def add_dry_run_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every file that would change; change nothing")


def add_yes_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="do it without asking (needed off a terminal when promotion.require_approval is on)")


# ---- who is calling --------------------------------------------------------------------------------


def caller_harness() -> str:
    """The harness whose agent session runs this command ("an agent" for a bare ``AI_AGENT``),
    or "" when a person runs it (``harnesses/agent_env``)."""
    from self_improve.harnesses.agent_env import agent_harness

    return agent_harness()


def cli_writer() -> str:
    """Who the provenance ledger says recorded what this command logs: "agent" or "cli"."""
    return "agent" if caller_harness() else "cli"


def agent_gate() -> str:
    """The harness to only propose in (``approval.agent_gate`` for this caller); "" when allowed."""
    from self_improve.review import approval

    return approval.agent_gate(caller_harness())


def user_command(args: argparse.Namespace, store: Store, *verb: str) -> str:
    """The exact command the user runs to do what was proposed (shell-quoted)."""
    parts = ["self-improve"]
    if getattr(args, "root", None):
        parts += ["--root", str(store.root)]
    parts += verb
    if store.scope == "user":
        parts += ["--scope", "user"]
    return shlex.join(parts)


def scope_suffix(store: Store) -> str:
    """`` --scope user`` for a command a verb prints about the user store, else ""."""
    return " --scope user" if store.scope == "user" else ""


def print_proposal(harness: str, what: Sequence[str], command: str) -> None:
    from self_improve.review import approval

    for line in what:
        print(line)
    print(approval.nothing_changed_line(harness))
    print(approval.ask_user_line(command))


# ---- asking a person -------------------------------------------------------------------------------


def today_from(args: argparse.Namespace) -> date:
    """``--today`` (hidden) or ``$SELF_IMPROVE_TODAY``, for stable tests and goldens; else today."""
    value = getattr(args, "today", None) or os.environ.get("SELF_IMPROVE_TODAY", "")
    if not value:
        return date.today()
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"today must be a date YYYY-MM-DD, not {value!r}") from None


def since_day(value: str) -> date:
    """A ``--since YYYY-MM-DD`` argument (``type=since_day``) of ``list`` and ``report``."""
    try:
        return date.fromisoformat(value)
    except ValueError:
        # argparse turns this into a one-line usage error that names the verb.
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, not {value!r}") from None


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


# ---- applying and counting -------------------------------------------------------------------------


def bump_actions(store: Store, **counts: int) -> None:
    """Add to the action counters (``store/counters.py``); a failure here never fails the
    action it counts."""
    from self_improve.store import counters

    wanted = {name: by for name, by in counts.items() if by}
    if not wanted:
        return
    from self_improve.clock import utcnow

    try:  # promote and retire are also tallied for their day, for `stats --curve`
        counters.bump_counted(store.fs, wanted, utcnow().date().isoformat())
    except (OSError, SelfImproveError):
        return


def apply_counted(store: Store, steps: Sequence[Step], **counts: int) -> bool:
    """Apply planned steps without asking (the caller has the approval) and count the action;
    False, with nothing written, when they change nothing. Every refusal comes first."""
    from self_improve.review.plan import apply, simulate

    if not simulate(store, steps).changed:
        return False
    apply(store, steps)
    bump_actions(store, **counts)
    return True


# ---- install and uninstall ---------------------------------------------------------------------------

HARNESS_HELP = "claude (default), codex, openclaw, a comma list, all (every harness with an installer) or none"
INSTALL_SCOPES = ("user", "project", "local")


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--harness", default="claude", metavar="NAME", help=HARNESS_HELP)
    parser.add_argument(
        "--scope",
        choices=INSTALL_SCOPES,
        help="user (default), project (shared settings in the repo) or local (this project, this machine; "
        "the default when --project is given)",
    )
    parser.add_argument("--project", metavar="DIR", help="the project for project/local scopes (default: --root or .)")
    parser.add_argument(
        "--workspace",
        metavar="DIR",
        help="the OpenClaw workspace (default: $OPENCLAW_WORKSPACE_DIR, else ~/.openclaw/workspace)",
    )
    parser.add_argument("--dry-run", action="store_true", help="print the diff of every change and write nothing")
    parser.add_argument(
        "--git",
        action="store_true",
        help="instead of hooks: (un)register the merge driver for .learnings/ and managed blocks in this git repository",
    )


PlanFn = Callable[["Harness", "Target"], "list[FileChange]"]


def resolve_targets(args: argparse.Namespace, harnesses: list[Harness]) -> list[tuple[Harness, Target]]:
    from self_improve.harnesses.installer import Target, home_dir

    project_given = args.project is not None
    project = Path(args.project or getattr(args, "root", None) or os.getcwd()).expanduser().absolute()
    if not project.is_dir():
        raise SelfImproveError(f"--project {project} is not a directory")
    home = home_dir()
    use_workspace(getattr(args, "workspace", None), harnesses)
    return [(h, Target(h.scope_for(args.scope, project_given), project, home)) for h in harnesses]


def use_workspace(workspace: str | None, harnesses: list[Harness]) -> None:
    """Hand ``--workspace`` to the harnesses that have one (OpenClaw's ``workspace`` attribute)."""
    if workspace is None:
        return
    takers = [h for h in harnesses if hasattr(h, "workspace")]
    if not takers:
        raise UsageError("--workspace applies to --harness openclaw only")
    path = Path(workspace).expanduser().absolute()
    if not path.is_dir():
        raise SelfImproveError(f"--workspace {path} is not a directory")
    for harness in takers:
        harness.workspace = path  # hasattr above: not part of the Harness protocol


def execute(args: argparse.Namespace, plan: PlanFn, *, notes: bool) -> int:
    """Plan every harness, then print (dry run) or write; shared by install and uninstall."""
    from self_improve.harnesses.installer import apply
    from self_improve.harnesses.registry import select

    harnesses = select(args.harness)
    if not harnesses:
        print("no harness selected (--harness none): nothing to do")
        return 0
    targets = resolve_targets(args, harnesses)
    plans = [(harness, target, plan(harness, target)) for harness, target in targets]  # may refuse: nothing written yet
    changes = [change for _, _, planned in plans for change in planned]
    if args.dry_run:
        for change in changes:
            print(change.diff() if change.changed else change.summary, end="" if change.changed else "\n")
        print("(dry run: nothing was written)")
        return 0
    lines = [summary_line(change) for change in changes]  # before apply: it decides the backup note
    apply(changes)
    for line in lines:
        print(line)
    if notes:
        for harness, target, _ in plans:
            for note in harness.notes(target):
                print(f"note: {note}")
    return 0


def summary_line(change: FileChange) -> str:
    if change.changed and change.backup is not None and change.before is not None and not change.backup.exists():
        return f"{change.summary} (backup of the original: {change.backup})"
    return change.summary


def run_git(args: argparse.Namespace, *, install: bool) -> int:
    """``--git``: the merge driver in this clone's git config and our lines in .gitattributes."""
    from self_improve.store.git_setup import install_git, uninstall_git

    root = find_root(explicit=args.project or getattr(args, "root", None))
    setup = install_git(root, dry_run=args.dry_run) if install else uninstall_git(root, dry_run=args.dry_run)
    prefix = "would: " if args.dry_run else ""
    for change in setup.changes:
        print(f"{prefix}{change}")
    if not setup.changes:
        print(f"git merge driver: {'already installed' if install else 'not installed'} in {root}")
    return 0


# ---- OpenClaw transcripts: sweep and watch ---------------------------------------------------------


def add_transcript_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--state-dir",
        metavar="DIR",
        help="OpenClaw state dir (default: $OPENCLAW_STATE_DIR, else ~/.openclaw)",
    )
    parser.add_argument(
        "--offsets",
        metavar="FILE",
        help="where read positions are kept "
        "(default: $XDG_STATE_HOME/self-improve/openclaw-offsets.json)",
    )


def transcript_paths(args: argparse.Namespace) -> tuple[Path, Path]:
    """OpenClaw's state directory and the offsets file, from the flags or their defaults."""
    from self_improve.harnesses import openclaw as openclaw
    from self_improve.harnesses.openclaw.transcripts import default_offsets_path

    state = Path(args.state_dir).expanduser() if args.state_dir else openclaw.state_dir()
    offsets = Path(args.offsets).expanduser() if args.offsets else default_offsets_path()
    return state, offsets
