"""OpenClaw: our skill in the agent workspace, ``<workspace>/skills/self-improvement/``.

**The skill** is copied to ``<workspace>/skills/self-improvement/`` (``SKILL.md`` and
``references/``); Claude Code's settings install puts the same folder, by the same code, in
``.claude/skills/self-improve/`` (``claude/install.py``, messages labelled ``claude``). OpenClaw lists workspace skills in the prompt by name, description and
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

Every file of the plan is confined to the workspace (``changes.confined``): a link in the skill
folder is refused, never written or deleted through.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from self_improve.changes import confined
from self_improve.errors import SelfImproveError
from self_improve.harnesses.installer import DIFF_ROOT, FileChange, unchanged
from self_improve.harnesses.openclaw import NAME
from self_improve.review.created_files import forget_created

STAMP_NAME = ".self-improve-stamp"
INSTALLED_BY = "self-improve"
NOTHING_WRITTEN = "self-improve wrote nothing"


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


# --------------------------------------------------------------------------- the change


@dataclass(frozen=True)
class TreeChange(FileChange):
    """Several files of one folder as one change (one summary line), then empty folders pruned.
    Every part must stay inside ``root`` (``changes.confined``)."""

    parts: list[FileChange] = field(default_factory=list)
    prune: tuple[Path, ...] = ()  # deepest first; each removed only if empty
    root: Path | None = None

    @property
    def changed(self) -> bool:
        return any(part.changed for part in self.parts)

    def diff(self, root: Path | None = DIFF_ROOT) -> str:
        return "".join(part.diff(root) for part in self.parts)

    def preflight(self) -> None:
        for part in self.parts:
            if part.changed and self.root is not None:
                confined(part.path, self.root)
            part.preflight()

    def apply(self) -> None:
        for part in self.parts:
            part.apply()
        for directory in self.prune:
            try:
                directory.rmdir()
            except OSError:  # not empty (the user's files are in it) or already gone: keep it
                continue
            forget_created(directory)  # a folder make_dirs recorded too: gone, so no longer ours


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


def plan_skill_install(folder: SkillFolder, sources: dict[str, bytes], version: str, label: str = NAME) -> FileChange:
    """``label``: the harness that names the messages (``openclaw``, ``claude``)."""
    where = folder.directory
    if where.is_symlink() or (where.exists() and not where.is_dir()):
        raise SelfImproveError(f"{label}: {where} is not a plain folder; {NOTHING_WRITTEN}")
    if folder.stamp is None and not folder.is_free():
        why = "its .self-improve-stamp is not ours" if folder.stamp_bytes is not None else f"no {STAMP_NAME}"
        raise SelfImproveError(
            f"{label}: {where} holds a skill self-improve did not install ({why}); move it away to "
            f"install ours; {NOTHING_WRITTEN}"
        )
    stamped = folder.stamp.files if folder.stamp is not None else {}
    if folder.stamp is not None and (edited := folder.edited()):
        raise SelfImproveError(
            f"{label}: {', '.join(edited)} in {where} changed since self-improve installed it; "
            f"save your edit elsewhere and delete the file to update; {NOTHING_WRITTEN}"
        )
    collisions = sorted(rel for rel in sources if rel not in stamped and folder.current(rel) not in (None, sources[rel]))
    if collisions:
        raise SelfImproveError(
            f"{label}: {', '.join(collisions)} in {where} is not ours and would be overwritten; "
            f"{NOTHING_WRITTEN}"
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
        summary = f"{label}: skill {where} is up to date ({INSTALLED_BY} {version})"
    elif folder.stamp is None:
        summary = f"{label}: install the skill into {where} ({len(sources)} files)"
    else:
        names = sorted(part.path.relative_to(where).as_posix() for part in parts[:-1] if part.changed)
        summary = f"{label}: update the skill in {where} ({', '.join(names) or 'stamp'})"
    return TreeChange(where, None, None, parts=parts, summary=summary, root=folder.workspace)


def plan_skill_uninstall(folder: SkillFolder, label: str = NAME) -> FileChange:
    where = folder.directory
    if not where.exists() and not where.is_symlink():
        return unchanged(where, f"{label}: no skill in {where}")
    if folder.stamp is None:
        return unchanged(where, f"{label}: left {where} alone: self-improve did not install it (no stamp of ours)")
    if edited := folder.edited():
        return unchanged(
            where,
            f"{label}: left {where} in place: {', '.join(edited)} changed since install "
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
    summary = f"{label}: remove the skill from {where}"
    if kept:
        summary += f" (kept {len(kept)} file(s) self-improve did not install)"
    return TreeChange(where, None, None, parts=parts, prune=tuple(prune), summary=summary, root=folder.workspace)


def skill_state(folder: SkillFolder, sources: dict[str, bytes], version: str) -> tuple[str, str]:
    """What the folder holds, for a status line: ``(state, detail)`` with state one of
    ``current`` (detail: the stamp's version), ``missing``, ``foreign``, ``edited`` (detail:
    the edited files) or ``outdated``."""
    if folder.stamp is None:
        return ("missing", "") if folder.is_free() else ("foreign", "")
    if edited := folder.edited():
        return "edited", ", ".join(edited)
    current = all(folder.current(rel) == data for rel, data in sources.items())
    if current and folder.stamp.version == version and set(folder.stamp.files) == set(sources):
        return "current", folder.stamp.version
    return "outdated", ""
