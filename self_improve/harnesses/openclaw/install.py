"""OpenClaw: install our skill and the reminder block into the agent workspace, in Python alone.

    self-improve install --harness openclaw [--workspace DIR] [--dry-run | --status]

The workspace is ``--workspace``, else ``$OPENCLAW_WORKSPACE_DIR``, else ``~/.openclaw/workspace``.
Two things go in (see /work/shared/openclaw/README.md for what was verified on OpenClaw 2026.9.6):

1. **The skill**, copied to ``<workspace>/skills/self-improvement/`` (``SKILL.md`` and
   ``references/``). OpenClaw lists workspace skills in the prompt by name, description and
   location; the agent reads the body on demand. Ours is recognised by ``.self-improve-stamp``
   in that folder: our name, version, the content hash, each file's sha256, and the folders
   install created. Rules:

   - a folder there without our stamp (someone else's skill): refused, nothing written;
   - ours, and one of its files was edited since install: refused (install would overwrite the
     edit); a file the user *added* to the folder is kept, and one of ours they deleted comes back;
   - ours and current: nothing is written; ours and older: only the changed files and the stamp.
   - uninstall removes exactly the stamped files, the stamp and the folders install created (if
     they are empty then). Without our stamp, or with an edited file, uninstall leaves the whole
     folder alone and says so: it never deletes a byte the user wrote.

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
we deleted would get the template back on the next run. So a workspace without ``AGENTS.md`` (or
without a workspace at all) means "OpenClaw has not set it up yet": install skips it with a
message and writes nothing (``--harness all`` on a machine without OpenClaw must not fail either),
and uninstall leaves an empty file where the block was the only content (an empty ``AGENTS.md``
was the user's before install: install never creates one).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.installer import (
    FileChange,
    Manifest,
    Target,
    checkout_root,
    load_manifest,
)
from self_improve.harnesses.openclaw.block import AGENTS_FILE, has_block, install_text, pending_line, shown_pending_count, uninstall_text
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

NAME = "openclaw"
STAMP_NAME = ".self-improve-stamp"
INSTALLED_BY = "self-improve"
REMINDER_FILE = "SELF_IMPROVEMENT_REMINDER.md"
REFERENCE_HOOK = "self-improvement"
# Injected files where a reminder of the user's own would duplicate ours. USER.md and MEMORY.md
# are injected too, but describe the human and their notes: a "Self-improvement" heading there is
# far more likely a topic than a reminder to the agent.
OCCUPIABLE_FILES = ("AGENTS.md", "SOUL.md")
_HOOK_NAME = re.compile(r"^name:\s*[\"']?self-improvement[\"']?\s*$", re.MULTILINE)
_NOTHING_WRITTEN = "self-improve wrote nothing"


# --------------------------------------------------------------------------- the stamp


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Stamp:
    """What ``.self-improve-stamp`` records about the skill folder we installed."""

    version: str
    files: dict[str, str]  # path relative to the skill folder (posix) -> "sha256:..."
    created: tuple[str, ...] = ()  # folders install created, relative to the workspace (posix)
    name: str = "self-improvement"

    @property
    def content_hash(self) -> str:
        return _sha("".join(f"{path}\0{digest}\n" for path, digest in sorted(self.files.items())).encode())

    def to_bytes(self) -> bytes:
        data = {
            "installed_by": INSTALLED_BY,
            "name": self.name,
            "version": self.version,
            "hash": self.content_hash,
            "files": dict(sorted(self.files.items())),
            "created": sorted(self.created),
        }
        # Deterministic bytes (no timestamp): install twice must leave an identical tree.
        return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")

    @classmethod
    def parse(cls, data: bytes) -> Stamp | None:
        """Our stamp, or None when the bytes are not one (someone else's file, or damaged)."""
        try:
            value = json.loads(data)
        except ValueError:
            return None
        if not isinstance(value, dict) or value.get("installed_by") != INSTALLED_BY:
            return None
        files, created = value.get("files"), value.get("created", [])
        if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            return None
        if not isinstance(created, list) or not all(isinstance(item, str) for item in created):
            return None
        if any(not _safe_relative(path) for path in [*files, *created]):
            return None  # a stamp must never steer a delete outside its folder
        return cls(str(value.get("version", "")), dict(files), tuple(created), str(value.get("name", "")))


def _safe_relative(path: str) -> bool:
    parts = Path(path).parts
    return bool(parts) and not Path(path).is_absolute() and ".." not in parts


# --------------------------------------------------------------------------- change types


@dataclass
class TreeChange(FileChange):
    """Several files of one folder as one change (one summary line), then empty folders pruned."""

    parts: list[FileChange] = field(default_factory=list)
    prune: tuple[Path, ...] = ()  # deepest first; each removed only if empty

    @property
    def changed(self) -> bool:
        return any(part.changed for part in self.parts)

    def diff(self) -> str:
        return "".join(part.diff() for part in self.parts)

    def preflight(self) -> None:
        for part in self.parts:
            part.preflight()

    def apply(self) -> None:
        for part in self.parts:
            part.apply()
        for directory in self.prune:
            try:
                directory.rmdir()
            except OSError:  # not empty (the user's files are in it) or already gone: keep it
                pass


@dataclass
class BlockChange(FileChange):
    """AGENTS.md, written through ``managed_block.edit_file`` (symlink and root checks, the file's
    mode kept) with the same pure edit the plan ran in dry-run mode; an emptied file stays."""

    root: Path = Path()
    edit: Callable[[str], str] = str

    def preflight(self) -> None:
        # Not FileChange's: edit_file refuses a symlinked AGENTS.md rather than writing through it.
        problem = read_only_problem(str(self.path)) if self.changed else None
        if problem is not None:
            raise SelfImproveError(f"{NAME}: {problem}; {_NOTHING_WRITTEN}")

    def apply(self) -> None:
        if not self.changed:
            return
        try:
            # keep_empty: an emptied AGENTS.md stays, empty; OpenClaw would seed its template
            # into the gap, where the user had an empty AGENTS.md of their own.
            edit_file(self.path, self.root, self.edit, keep_empty=True)
        except ManagedBlockError as exc:
            raise SelfImproveError(f"{NAME}: {exc}") from None


def _unchanged(path: Path, summary: str) -> FileChange:
    return FileChange(path, None, None, summary=summary)


# --------------------------------------------------------------------------- the skill


def skill_sources(skill_root: Path) -> dict[str, bytes]:
    """``SKILL.md`` and every file under ``references/``, by posix path relative to ``skill_root``."""
    main = skill_root / "SKILL.md"
    if not main.is_file():
        raise SelfImproveError(f"{main} is missing: install needs a complete checkout of self-improve")
    files = {"SKILL.md": main.read_bytes()}
    references = skill_root / "references"
    for path in sorted(references.rglob("*")) if references.is_dir() else []:
        relative = path.relative_to(skill_root)
        if path.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            files[relative.as_posix()] = path.read_bytes()
    return files


@dataclass(frozen=True)
class SkillFolder:
    """What sits at ``<workspace>/skills/<name>/`` now."""

    workspace: Path
    directory: Path
    stamp_bytes: bytes | None
    stamp: Stamp | None

    @classmethod
    def read(cls, workspace: Path, directory: Path) -> SkillFolder:
        stamp_path = directory / STAMP_NAME
        data = stamp_path.read_bytes() if stamp_path.is_file() else None
        return cls(workspace, directory, data, Stamp.parse(data) if data is not None else None)

    @property
    def stamp_path(self) -> Path:
        return self.directory / STAMP_NAME

    def is_free(self) -> bool:
        """Nothing there yet (or an empty folder)."""
        return not self.directory.exists() or (self.directory.is_dir() and not any(self.directory.iterdir()))

    def current(self, relative: str) -> bytes | None:
        path = self.directory / relative
        return path.read_bytes() if path.is_file() else None

    def edited(self) -> list[str]:
        """Stamped files whose bytes differ from what we wrote (a deleted one is not "edited")."""
        assert self.stamp is not None
        return sorted(
            relative
            for relative, digest in self.stamp.files.items()
            if (data := self.current(relative)) is not None and _sha(data) != digest
        )


def _missing_dirs(workspace: Path, directory: Path, relatives: list[str]) -> set[str]:
    """Folders between the workspace and each file that do not exist yet (install creates them)."""
    missing: set[str] = set()
    for relative in relatives:
        folder = (directory / relative).parent
        while folder != workspace and workspace in folder.parents:
            if not folder.exists():
                missing.add(folder.relative_to(workspace).as_posix())
            folder = folder.parent
    return missing


def plan_skill_install(folder: SkillFolder, sources: dict[str, bytes], version: str) -> FileChange:
    where = folder.directory
    if where.is_symlink() or (where.exists() and not where.is_dir()):
        raise SelfImproveError(f"{NAME}: {where} is not a plain folder; {_NOTHING_WRITTEN}")
    if folder.stamp is None and not folder.is_free():
        why = "its .self-improve-stamp is not ours" if folder.stamp_bytes is not None else f"no {STAMP_NAME}"
        raise SelfImproveError(
            f"{NAME}: {where} holds a skill self-improve did not install ({why}); move it away to "
            f"install ours; {_NOTHING_WRITTEN}"
        )
    stamped = folder.stamp.files if folder.stamp is not None else {}
    if folder.stamp is not None and (edited := folder.edited()):
        raise SelfImproveError(
            f"{NAME}: {', '.join(edited)} in {where} changed since self-improve installed it; "
            f"save your edit elsewhere and delete the file to update; {_NOTHING_WRITTEN}"
        )
    collisions = sorted(rel for rel in sources if rel not in stamped and folder.current(rel) not in (None, sources[rel]))
    if collisions:
        raise SelfImproveError(
            f"{NAME}: {', '.join(collisions)} in {where} is not ours and would be overwritten; "
            f"{_NOTHING_WRITTEN}"
        )

    # settle=0: nobody but us writes the skill folder, so no late writer to wait for.
    parts = [FileChange(where / rel, folder.current(rel), data, settle=0.0) for rel, data in sources.items()]
    parts += [
        FileChange(where / rel, folder.current(rel), None, settle=0.0) for rel in sorted(set(stamped) - set(sources))
    ]
    created = set(folder.stamp.created if folder.stamp is not None else ())
    created |= _missing_dirs(folder.workspace, where, [*sources, STAMP_NAME])
    stamp = Stamp(version, {rel: _sha(data) for rel, data in sources.items()}, tuple(sorted(created)))
    parts.append(FileChange(folder.stamp_path, folder.stamp_bytes, stamp.to_bytes(), settle=0.0))

    if not any(part.changed for part in parts):
        summary = f"{NAME}: skill {where} is up to date ({INSTALLED_BY} {version})"
    elif folder.stamp is None:
        summary = f"{NAME}: install the skill into {where} ({len(sources)} files)"
    else:
        names = sorted(part.path.relative_to(where).as_posix() for part in parts[:-1] if part.changed)
        summary = f"{NAME}: update the skill in {where} ({', '.join(names) or 'stamp'})"
    return TreeChange(where, None, None, parts=parts, summary=summary)


def plan_skill_uninstall(folder: SkillFolder) -> FileChange:
    where = folder.directory
    if not where.exists() and not where.is_symlink():
        return _unchanged(where, f"{NAME}: no skill in {where}")
    if folder.stamp is None:
        return _unchanged(where, f"{NAME}: left {where} alone: self-improve did not install it (no stamp of ours)")
    if edited := folder.edited():
        return _unchanged(
            where,
            f"{NAME}: left {where} in place: {', '.join(edited)} changed since install "
            "(delete the folder yourself if you no longer want it)",
        )
    parts = [
        FileChange(where / rel, data, None, settle=0.0)
        for rel in sorted(folder.stamp.files)
        if (data := folder.current(rel)) is not None
    ]
    parts.append(FileChange(folder.stamp_path, folder.stamp_bytes, None, settle=0.0))
    ours = set(folder.stamp.files) | {STAMP_NAME}
    kept = [path for path in where.rglob("*") if path.is_file() and path.relative_to(where).as_posix() not in ours]
    prune = sorted((folder.workspace / rel for rel in folder.stamp.created), key=lambda p: len(p.parts), reverse=True)
    summary = f"{NAME}: remove the skill from {where}"
    if kept:
        summary += f" (kept {len(kept)} file(s) self-improve did not install)"
    return TreeChange(where, None, None, parts=parts, prune=tuple(prune), summary=summary)


# --------------------------------------------------------------------------- the block


def _dry_edit(path: Path, workspace: Path, edit: Callable[[str], str]) -> FileEdit:
    try:
        return edit_file(path, workspace, edit, dry_run=True)
    except ManagedBlockError as exc:
        raise SelfImproveError(f"{NAME}: {exc}; {_NOTHING_WRITTEN}") from None


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
            f"the file); shorten it, then install again; {_NOTHING_WRITTEN}"
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
        return _unchanged(path, f"{NAME}: no {path}: no reminder block to remove")
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
        if self.workspace is not None:
            return self.workspace
        configured = self._env().get("OPENCLAW_WORKSPACE_DIR")
        return Path(configured).expanduser() if configured else target.home / ".openclaw" / "workspace"

    def state_for(self, target: Target) -> Path:
        configured = self._env().get("OPENCLAW_STATE_DIR")
        return Path(configured).expanduser() if configured else target.home / ".openclaw"

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
            return [_unchanged(workspace, _not_set_up(workspace, f"no workspace at {workspace}"))]
        agents = workspace / AGENTS_FILE
        if not agents.exists() and not agents.is_symlink():
            return [_unchanged(agents, _not_set_up(workspace, f"{workspace} has no {AGENTS_FILE} yet"))]
        if reason := occupied_reason(workspace, self.state_for(target)):
            raise SelfImproveError(
                f"{NAME}: {reason}; remove it to use ours, or keep yours and skip --harness {NAME}; {_NOTHING_WRITTEN}"
            )
        skill = plan_skill_install(self._skill_folder(workspace), self._sources(), self.manifest.version)
        return [skill, plan_block_install(workspace)]

    def plan_uninstall(self, target: Target) -> list[FileChange]:
        workspace = self.workspace_for(target)
        if not workspace.is_dir():
            return [_unchanged(workspace, f"{NAME}: no workspace at {workspace}: nothing installed")]
        return [plan_skill_uninstall(self._skill_folder(workspace)), plan_block_uninstall(workspace)]

    # -- status --

    def status(self, target: Target) -> list[str]:
        workspace = self.workspace_for(target)
        if not workspace.is_dir():
            return [f"✗ {NAME}: no workspace at {workspace} (run OpenClaw once, or pass --workspace)"]
        if not (workspace / AGENTS_FILE).exists():
            return [f"✗ {NAME}: {workspace} has no {AGENTS_FILE} yet (run OpenClaw once: it seeds one)"]
        return [self._skill_status(workspace), self._block_status(workspace), *self._refusal_status(target)]

    def _skill_status(self, workspace: Path) -> str:
        folder = self._skill_folder(workspace)
        where = folder.directory
        if folder.stamp is None:
            what = "not installed" if folder.is_free() else "a skill self-improve did not install is there"
            return f"✗ {NAME}: skill {where}: {what}"
        if edited := folder.edited():
            return f"✗ {NAME}: skill {where}: {', '.join(edited)} edited since install"
        sources = self._sources()
        current = all(folder.current(rel) == data for rel, data in sources.items())
        if current and folder.stamp.version == self.manifest.version and set(folder.stamp.files) == set(sources):
            return f"✓ {NAME}: skill {where} ({INSTALLED_BY} {folder.stamp.version})"
        return f"✗ {NAME}: skill {where} is out of date (run `self-improve install --harness {NAME}`)"

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
            reason = str(exc).removeprefix(f"{NAME}: ").removesuffix(f"; {_NOTHING_WRITTEN}")
            return [f"✗ {NAME}: install would refuse: {reason}"]
        return []

    def notes(self, target: Target) -> list[str]:
        if not (self.workspace_for(target) / AGENTS_FILE).is_file():
            return []
        return [
            (
                f"{NAME}: run `self-improve watch` (or `self-improve sweep` now and then) to record failing "
                "commands from OpenClaw's transcripts and keep the block's Pending triage line current"
            )
        ]


def _not_set_up(workspace: Path, what: str) -> str:
    return (
        f"{NAME}: skipped: {what}; run OpenClaw once so it seeds the workspace and its own AGENTS.md "
        "(or pass --workspace DIR), then install again"
    )


def installer(root: Path | None = None) -> OpenClawInstaller:
    root = root or checkout_root()
    return OpenClawInstaller(manifest=load_manifest(root), root=root)
