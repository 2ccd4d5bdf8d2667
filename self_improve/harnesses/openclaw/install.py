"""OpenClaw: install our skill and the reminder block into the agent workspace, in Python alone.

    self-improve install --harness openclaw [--workspace DIR] [--dry-run | --status]

The workspace is ``--workspace``, else ``$OPENCLAW_WORKSPACE_DIR``, else ``~/.openclaw/workspace``.
Two things go in (see /work/shared/openclaw/README.md for what was verified on OpenClaw 2026.9.6):

1. **The skill** (``openclaw/skill.py``), copied to ``<workspace>/skills/self-improvement/``
   and recognised as ours by its stamp.
2. **The reminder block** in ``<workspace>/AGENTS.md`` (``self_improve.harnesses.openclaw.block``), which
   OpenClaw injects verbatim into every system prompt. Exactly one block after any number of
   runs, no user byte outside the markers changes, uninstall gives the file back byte for byte.
   Refused, with nothing written:

   - *occupied*: the user already keeps a self-improvement reminder of their own: a
     self-improvement heading or "self-improvement reminder" in ``AGENTS.md`` or ``SOUL.md``
     (both injected; ``check_occupied``), a ``SELF_IMPROVEMENT_REMINDER.md`` in the workspace
     (the reference handler's name for it, reachable through the bundled
     ``bootstrap-extra-files`` hook), or an OpenClaw hook named ``self-improvement`` in
     ``<state>/hooks/`` or ``<workspace>/hooks/`` (the reference handler itself, which injects
     that file under the Gateway);
   - *size*: ``AGENTS.md`` with the block would exceed OpenClaw's 20,000-character per-file
     limit, past which OpenClaw silently cuts the middle of the file.

**We never create or delete AGENTS.md.** Verified on OpenClaw 2026.9.6: every ``agent`` run seeds
its default ``AGENTS.md`` template (the workspace conventions and the first-run onboarding) into a
workspace that has none, whether the workspace existed or not, and leaves an existing one alone.
An ``AGENTS.md`` we created would hold only our block and keep that template out for good; one
we deleted would get the template back on the next run. So a workspace without ``AGENTS.md``
means "OpenClaw has not run here yet": install puts the skill in, records the workspace
(``pending.py``) and says, in one line, that the next ``watch`` or ``sweep`` pass after OpenClaw's
first run adds the block (:func:`ensure_blocks`; the next install does too); exit 0, since
nothing is left for the user to do but run OpenClaw. Without a workspace at all there is no
OpenClaw here: install skips it with a message and writes nothing (``--harness all`` on a
machine without OpenClaw must not fail). Uninstall drops the record, and leaves an empty file
where the block was the only content (an empty ``AGENTS.md`` was the user's before install:
install never creates one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from self_improve.changes import label_for
from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.installer import FileChange, Manifest, Target, checkout_root, load_manifest, unchanged
from self_improve.harnesses.openclaw import NAME, default_workspace, state_dir
from self_improve.harnesses.openclaw.block import (
    AGENTS_FILE,
    has_block,
    install_text,
    pending_line,
    shown_pending_count,
    uninstall_text,
)
from self_improve.harnesses.openclaw import pending
from self_improve.harnesses.openclaw.skill import (
    INSTALLED_BY,
    NOTHING_WRITTEN,
    SkillFolder,
    plan_skill_install,
    plan_skill_uninstall,
    skill_sources,
    skill_state,
)
from self_improve.review.managed_block import (
    OPENCLAW_FILE_LIMIT,
    OPENCLAW_MARKER,
    FileEdit,
    ManagedBlockError,
    check_occupied,
    edit_file,
    fits_limit,
    javascript_length,
)
from self_improve.user_edit import read_only_problem

REMINDER_FILE = "SELF_IMPROVEMENT_REMINDER.md"
REFERENCE_HOOK = "self-improvement"
# Injected files where a reminder of the user's own would duplicate ours. USER.md and MEMORY.md
# are injected too, but describe the human and their notes: a "Self-improvement" heading there is
# far more likely a topic than a reminder to the agent.
OCCUPIABLE_FILES = ("AGENTS.md", "SOUL.md")
_HOOK_NAME = re.compile(r"^name:\s*[\"']?self-improvement[\"']?\s*$", re.MULTILINE)


@dataclass(frozen=True)
class BlockChange(FileChange):
    """AGENTS.md, written through ``managed_block.edit_file`` (symlink and root checks, the file's
    mode kept) with the same pure edit the plan ran in dry-run mode; an emptied file stays."""

    root: Path = Path()
    edit: Callable[[str], str] = str

    def preflight(self) -> None:
        # Not FileChange's: edit_file refuses a symlinked AGENTS.md rather than writing through it.
        problem = read_only_problem(str(self.path)) if self.changed else None
        if problem is not None:
            raise SelfImproveError(f"{NAME}: {problem}; {NOTHING_WRITTEN}")

    def apply(self) -> None:
        if not self.changed:
            return
        try:
            # keep_empty: an emptied AGENTS.md stays, empty; OpenClaw would seed its template
            # into the gap, where the user had an empty AGENTS.md of their own.
            edit_file(self.path, self.root, self.edit, keep_empty=True)
        except ManagedBlockError as exc:
            raise SelfImproveError(f"{NAME}: {_named(exc, self.path, self.root)}") from None
        if self.edit is install_text and pending.is_waiting(self.root):
            pending.forget(self.root)  # the block is in: nothing waits any more


# --------------------------------------------------------------------------- the block


def _dry_edit(path: Path, workspace: Path, edit: Callable[[str], str]) -> FileEdit:
    try:
        return edit_file(path, workspace, edit, dry_run=True)
    except ManagedBlockError as exc:
        raise SelfImproveError(f"{NAME}: {_named(exc, path, workspace)}; {NOTHING_WRITTEN}") from None


def _named(exc: ManagedBlockError, path: Path, workspace: Path) -> str:
    """The refusal with its file named in full: ``edit_file`` names it from the workspace
    (``AGENTS.md: …``), and a workspace is not where the user ran the command."""
    message, relative = str(exc), label_for(path, workspace.resolve())
    return f"{path}: {message[len(relative) + 2:]}" if message.startswith(f"{relative}: ") else message


def _text(data: bytes | None) -> str:
    return "" if data is None else data.decode("utf-8")


def plan_block_install(workspace: Path) -> FileChange:
    path = workspace / AGENTS_FILE
    result = _dry_edit(path, workspace, install_text)
    after = _text(result.after)
    if not fits_limit(after):
        raise SelfImproveError(
            f"{NAME}: {path} would be {javascript_length(after):,} characters with the reminder block, over "
            f"OpenClaw's {OPENCLAW_FILE_LIMIT:,}-character limit (OpenClaw would silently cut the middle of "
            f"the file); shorten it, then install again; {NOTHING_WRITTEN}"
        )
    if not result.changed:
        summary = f"{NAME}: reminder block in {path} is up to date"
    elif has_block(_text(result.before)):
        summary = f"{NAME}: update the reminder block in {path}"
    else:
        summary = f"{NAME}: add the reminder block to {path}"
    return BlockChange(path, result.before, result.after, summary=summary, root=workspace, edit=install_text)


def plan_block_uninstall(workspace: Path) -> FileChange:
    path = workspace / AGENTS_FILE
    if not path.exists() and not path.is_symlink():
        return unchanged(path, f"{NAME}: no {path}: no reminder block to remove")
    result = _dry_edit(path, workspace, uninstall_text)
    after = b"" if result.after is None else result.after  # never delete: see the module doc
    if not result.changed:
        summary = f"{NAME}: nothing of ours in {path}"
    elif not after:
        summary = f"{NAME}: remove the reminder block from {path} (it held nothing else: it stays, empty)"
    else:
        summary = f"{NAME}: remove the reminder block from {path}"
    return BlockChange(path, result.before, after, summary=summary, root=workspace, edit=uninstall_text)


# --------------------------------------------------------------------------- occupied


def _reference_hooks(hooks_dir: Path) -> list[Path]:
    """Hooks named self-improvement (folder or HOOK.md ``name:``) in one OpenClaw hooks folder."""
    found = []
    for hook_md in sorted(hooks_dir.glob("*/HOOK.md")) if hooks_dir.is_dir() else []:
        try:
            head = hook_md.read_text(encoding="utf-8", errors="replace")[:4096]
        except OSError:
            continue
        if hook_md.parent.name == REFERENCE_HOOK or _HOOK_NAME.search(head):
            found.append(hook_md.parent)
    return found


def occupied_reason(workspace: Path, state: Path) -> str | None:
    """Why the user already has their own self-improvement reminder, or None (see module doc)."""
    reminder = workspace / REMINDER_FILE
    if reminder.exists():
        return f"{reminder} exists: you keep your own self-improvement reminder"
    for hooks_dir in (state / "hooks", workspace / "hooks"):
        for hook in _reference_hooks(hooks_dir):
            return f"the OpenClaw hook {hook} injects its own self-improvement reminder"
    for name in OCCUPIABLE_FILES:
        path = workspace / name
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # missing, or unreadable: AGENTS.md's own edit reports the latter
        try:
            reason = check_occupied(text, marker_name=OPENCLAW_MARKER)
        except ManagedBlockError as exc:
            return f"{path}: {exc}"
        if reason is not None:
            return f"{path}: {reason}"
    return None


# --------------------------------------------------------------------------- the installer


@dataclass
class OpenClawInstaller:
    manifest: Manifest
    root: Path  # the checkout whose skill/ we copy
    workspace: Path | None = None  # --workspace; None: $OPENCLAW_WORKSPACE_DIR or ~/.openclaw/workspace
    env: Mapping[str, str] | None = None  # None: os.environ (tests pass their own)
    name: str = NAME
    scopes: tuple[str, ...] = ("user",)

    def scope_for(self, requested: str | None, project_given: bool) -> str:
        # One workspace per user; a project is not a place OpenClaw reads instructions from.
        if requested in (None, "user"):
            return "user"
        raise UsageError(f"{NAME}: no {requested!r} scope: OpenClaw reads one workspace per user (choose it with --workspace)")

    # -- where --

    def _env(self) -> Mapping[str, str]:
        return os.environ if self.env is None else self.env

    def workspace_for(self, target: Target) -> Path:
        return self.workspace if self.workspace is not None else default_workspace(self._env(), target.home)

    def state_for(self, target: Target) -> Path:
        return state_dir(self._env(), target.home)

    def skill_dir(self, workspace: Path) -> Path:
        return workspace / "skills" / str(self.manifest.option(NAME, "skill_dir"))

    def _skill_folder(self, workspace: Path) -> SkillFolder:
        return SkillFolder.read(workspace, self.skill_dir(workspace))

    def _sources(self) -> dict[str, bytes]:
        return skill_sources(self.root / self.manifest.skill_path)

    # -- plans --

    def plan_install(self, target: Target) -> list[FileChange]:
        workspace = self.workspace_for(target)
        if not workspace.is_dir():
            return [unchanged(workspace, _not_set_up(workspace, f"no workspace at {workspace}"))]
        agents = workspace / AGENTS_FILE
        state = self.state_for(target)
        if reason := occupied_reason(workspace, state):
            raise SelfImproveError(
                f"{NAME}: {reason}; remove it to use ours, or keep yours and skip --harness {NAME}; {NOTHING_WRITTEN}"
            )
        skill = plan_skill_install(self._skill_folder(workspace), self._sources(), self.manifest.version)
        if not agents.exists() and not agents.is_symlink():
            # Before OpenClaw's first run: the skill now, the block once OpenClaw has seeded
            # its AGENTS.md (we never create that file; see the module doc).
            return [skill, pending.PendingBlock(agents, None, None, summary=waiting_line(agents), workspace=workspace, state=state)]
        return [skill, plan_block_install(workspace)]

    def plan_uninstall(self, target: Target) -> list[FileChange]:
        workspace = self.workspace_for(target)
        if not workspace.is_dir():
            return [unchanged(workspace, f"{NAME}: no workspace at {workspace}: nothing installed")]
        changes = [plan_skill_uninstall(self._skill_folder(workspace)), plan_block_uninstall(workspace)]
        if pending.is_waiting(workspace):
            summary = f"{NAME}: no longer waiting to add the reminder block to {workspace / AGENTS_FILE}"
            changes.append(pending.PendingBlock(workspace, None, None, summary=summary, workspace=workspace, wanted=False))
        return changes

    # -- status --

    def status(self, target: Target) -> list[str]:
        workspace = self.workspace_for(target)
        if not workspace.is_dir():
            return [f"✗ {NAME}: no workspace at {workspace} (run OpenClaw once, or pass --workspace)"]
        if not (workspace / AGENTS_FILE).exists():
            waits = "; the next `self-improve watch` or `sweep` pass then adds the reminder block" if pending.is_waiting(workspace) else ""
            return [self._skill_status(workspace), f"✗ {NAME}: {workspace} has no {AGENTS_FILE} yet (run OpenClaw once: it seeds one{waits})"]
        return [self._skill_status(workspace), self._block_status(workspace), *self._refusal_status(target)]

    def _skill_status(self, workspace: Path) -> str:
        folder = self._skill_folder(workspace)
        where = folder.directory
        state, detail = skill_state(folder, self._sources(), self.manifest.version)
        if state == "current":
            return f"✓ {NAME}: skill {where} ({INSTALLED_BY} {detail})"
        if state == "outdated":
            return f"✗ {NAME}: skill {where} is out of date (run `self-improve install --harness {NAME}`)"
        what = {"missing": "not installed", "foreign": "a skill self-improve did not install is there",
                "edited": f"{detail} edited since install"}[state]
        return f"✗ {NAME}: skill {where}: {what}"

    def _block_status(self, workspace: Path) -> str:
        path = workspace / AGENTS_FILE
        try:
            text = path.read_bytes().decode("utf-8") if path.is_file() else ""
        except (OSError, UnicodeDecodeError) as exc:
            return f"✗ {NAME}: {path} cannot be read: {exc}"
        if not has_block(text):
            return f"✗ {NAME}: no reminder block in {path}"
        size = f"{javascript_length(text):,}/{OPENCLAW_FILE_LIMIT:,} characters"
        if not fits_limit(text):
            return f"✗ {NAME}: {path} is {size}: OpenClaw cuts its middle"
        if install_text(text) != text:
            return f"✗ {NAME}: reminder block in {path} is out of date (run `self-improve install --harness {NAME}`)"
        return f"✓ {NAME}: reminder block in {path} ({size}; {pending_line(shown_pending_count(text))})"

    def _refusal_status(self, target: Target) -> list[str]:
        try:
            self.plan_install(target)
        except SelfImproveError as exc:
            reason = str(exc).removeprefix(f"{NAME}: ").removesuffix(f"; {NOTHING_WRITTEN}")
            return [f"✗ {NAME}: install would refuse: {reason}"]
        return []

    def notes(self, target: Target) -> list[str]:
        if not self.workspace_for(target).is_dir():
            return []
        return [
            (
                f"{NAME}: run `self-improve watch` (or `self-improve sweep` now and then) to record failing "
                "commands from OpenClaw's transcripts and keep the block's Pending triage line current"
            )
        ]


def waiting_line(agents: Path) -> str:
    """What an install before OpenClaw's first run says about the block, in one line."""
    return (
        f"{NAME}: {agents} does not exist yet: OpenClaw seeds it on its first run, and the next "
        "`self-improve watch` or `sweep` pass after that adds the reminder block (so does `self-improve install --harness openclaw`)"
    )


def ensure_blocks() -> list[str]:
    """Add the block to every workspace ``pending`` records whose AGENTS.md OpenClaw has seeded
    since (the plan of install, refusals included); one line per workspace settled: added, or
    refused (reported once, then dropped: ``install`` explains it again). Nothing else is
    touched. Never raises: a ``sweep`` pass must go on."""
    pairs = pending.waiting()
    lines = []
    for workspace, state in pairs:
        agents = workspace / AGENTS_FILE
        if not agents.is_file():
            continue  # not seeded yet: ask again next pass
        try:
            if has_block(agents.read_bytes().decode("utf-8")):
                line = ""  # the next install put it in meanwhile
            elif reason := occupied_reason(workspace, state):
                line = f"{NAME}: did not add the reminder block to {agents}: {reason}"
            else:
                change = plan_block_install(workspace)
                change.preflight()
                change.apply()
                line = f"{NAME}: added the reminder block to {agents} (OpenClaw has seeded it)"
        except (OSError, UnicodeDecodeError, SelfImproveError) as exc:
            line = f"{NAME}: did not add the reminder block to {agents}: {str(exc).removeprefix(f'{NAME}: ')}"
        try:
            pending.forget(workspace)
        except (OSError, SelfImproveError):
            pass  # asked again next pass, when the block is in place: nothing is written twice
        if line:
            lines.append(line)
    return lines


def _not_set_up(workspace: Path, what: str) -> str:
    return (
        f"{NAME}: skipped: {what}; run OpenClaw once so it seeds the workspace and its own AGENTS.md "
        "(or pass --workspace DIR), then install again"
    )


def installer(root: Path | None = None, python: str | None = None) -> OpenClawInstaller:
    """``python`` is for the hook installers' sake: OpenClaw runs no hook of ours."""
    root = root or checkout_root()
    return OpenClawInstaller(manifest=load_manifest(root), root=root)
