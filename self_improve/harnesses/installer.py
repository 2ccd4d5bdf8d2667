"""What the installers share: the manifest, our hook commands, and planned file changes.

An installer (``base.Installer``) plans first: ``plan_install`` / ``plan_uninstall`` return the
:class:`FileChange` s they would make, nothing written; :func:`apply` writes a plan, ``--dry-run``
prints each change's git-style diff (``changes.unified_diff``) instead. One code path for both.

Borrowed from pre-commit's installer (``commands/install_uninstall.py``):

- **Pin the interpreter.** Our hook commands carry ``SELF_IMPROVE_PYTHON=<sys.executable>``, the
  absolute path of the interpreter that ran ``install``, so a hook never goes through a shim or
  whatever ``python3`` is first on the PATH of the harness's shell.
- **Recognise our own entries by a marker.** That same leading ``SELF_IMPROVE_PYTHON=``
  assignment, followed by a path ending in ``hooks/<one of our scripts>``, marks a handler as
  ours. Install replaces ours (also after the checkout moved), never anyone else's.
- **Never lose the user's file.** A one-time backup (``backup_path``: in the user's state dir,
  not beside the file) holds the bytes from before our first change; every other key and hook is kept, byte for byte (``jsonedit``).
- **Refuse clearly.** Invalid JSON, or a ``hooks`` key of the wrong type, stops with one line
  and the file untouched; so do a read-only file (its mode bits say "leave it alone") and a
  symlink to a missing file (writing would create a file the user never asked for).
- **Lose nobody's change.** Claude Code rewrites its settings while we run: every write goes
  through ``user_edit.edit_user_file`` (our lock, compare-and-replace); when the file changed
  since the plan read it, the plan is made again on the new bytes (:attr:`FileChange.replan`).
"""

from __future__ import annotations

import os
import shlex
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import self_improve
from self_improve.atomic import atomic_write
from self_improve.changes import PlannedChange
from self_improve.errors import SelfImproveError
from self_improve.review.block_file import make_dirs, remove_created_dirs
# Our hook commands, and how we recognise them: one definition, shared with review's defaults.
from self_improve.review.installed import PORTABLE_COMMAND, PORTABLE_SCRIPTS, PYTHON_VAR
from self_improve.review.installed import is_our_command as is_our_command  # re-exported: hooks_file, doctor
from self_improve.user_edit import SETTLE, edit_user_file, read_only_problem, user_temp_dir

MANIFEST_NAME = "plugin.toml"
BACKUP_SUFFIX = ".self-improve.bak"
# Our diffs name a file by its absolute path, as git names it: a/home/me/.claude/settings.json.
DIFF_ROOT = Path("/")


def checkout_root() -> Path:
    """The checkout this package runs from (plugin.toml, hooks/, skill/ live there)."""
    return Path(self_improve.__file__).absolute().parent.parent


# --- the manifest ----------------------------------------------------------------------


@dataclass(frozen=True)
class HookSpec:
    """One hook registration from plugin.toml."""

    event: str
    script: str  # file name under hooks/
    matcher: str | None = None
    harnesses: tuple[str, ...] = ()
    plugin_only: bool = False


@dataclass(frozen=True)
class Manifest:
    name: str
    version: str
    description: str
    license: str
    keywords: tuple[str, ...]
    author: str
    marketplace_name: str
    marketplace_owner: str
    skill_path: str
    hooks: tuple[HookSpec, ...]
    harness: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def scripts(self) -> frozenset[str]:
        return frozenset(spec.script for spec in self.hooks)

    def hooks_for(self, harness: str) -> list[HookSpec]:
        """The registrations a settings install of ``harness`` writes, in manifest order."""
        return [spec for spec in self.hooks if harness in spec.harnesses and not spec.plugin_only]

    def option(self, harness: str, *keys: str) -> Any:
        value: Any = self.harness.get(harness, {})
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                raise SelfImproveError(f"{MANIFEST_NAME}: missing [harness.{harness}] {'.'.join(keys)}")
            value = value[key]
        return value


def load_manifest(root: Path | None = None) -> Manifest:
    path = (root or checkout_root()) / MANIFEST_NAME
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SelfImproveError(
            f"{path} not found: install and build-plugin work from a checkout of self-improve"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise SelfImproveError(f"{path}: invalid TOML: {exc}") from None
    try:
        hooks = tuple(
            HookSpec(
                event=str(item["event"]),
                script=str(item["script"]),
                matcher=item.get("matcher"),
                harnesses=tuple(item.get("harnesses", ())),
                plugin_only=bool(item.get("plugin_only", False)),
            )
            for item in data.get("hooks", [])
        )
        return Manifest(
            name=data["name"],
            version=data["version"],
            description=data["description"],
            license=data["license"],
            keywords=tuple(data.get("keywords", ())),
            author=data["author"]["name"],
            marketplace_name=data["marketplace"]["name"],
            marketplace_owner=data["marketplace"]["owner"],
            skill_path=data["skill"]["path"],
            hooks=hooks,
            harness=dict(data.get("harness", {})),
        )
    except (KeyError, TypeError) as exc:
        raise SelfImproveError(f"{path}: missing or malformed field {exc}") from None


# --- hook commands ----------------------------------------------------------------------


def hook_command(script: Path, python: str | None = None) -> str:
    """``SELF_IMPROVE_PYTHON=<python> <script>``, each part shell-quoted.

    The assignment pins the interpreter (the hooks' sh wrapper honours it first) and doubles as
    the marker :func:`is_our_command` recognises.
    """
    python = python or sys.executable
    return f"{PYTHON_VAR}={shlex.quote(python)} {shlex.quote(str(script))}"


def portable_hook_command(script: str) -> str:
    """The machine-independent command for ``hooks/<script>`` (see :data:`PORTABLE_COMMAND`)."""
    if script not in PORTABLE_SCRIPTS:
        raise SelfImproveError(f"{script}: `self-improve hook` cannot run it, so it has no portable command")
    return PORTABLE_COMMAND.format(script=script)


# --- file changes -----------------------------------------------------------------------


@dataclass(frozen=True)
class FileChange(PlannedChange):
    """One file's planned content, and how to write it safely."""

    backup: Path | None = None  # written with ``before`` first, unless it already exists
    drop_backup: Path | None = None  # the plan restores the original bytes: this backup is redundant
    summary: str = ""
    # The same plan made on other bytes (the file changed after we read it). None: such a change
    # is refused instead, with nothing written.
    replan: Callable[[bytes | None], FileChange] | None = None
    settle: float = SETTLE  # see user_edit: 0 for files only we write (the OpenClaw skill)

    def diff(self, root: Path | None = DIFF_ROOT) -> str:
        return super().diff(root)

    def destination(self) -> Path:
        """The file we write: the path itself, or the file a symlink at it points to.

        Dotfile managers link settings.json: replacing the link with a regular file would
        silently detach the user's managed copy, so we write through it. A link to a missing
        file is refused: writing would create a file somewhere the user never chose.
        """
        if not self.path.is_symlink():
            return self.path
        real = Path(os.path.realpath(self.path))
        if not real.is_file():
            state = "does not exist" if not real.exists() else "is not a regular file"
            raise SelfImproveError(
                f"{self.path} is a symlink to {real}, which {state}; fix or remove the link (self-improve changed nothing)"
            )
        return real

    def preflight(self) -> None:
        """Refuse now what :meth:`apply` would refuse, before any file of the plan is written."""
        if not self.changed:
            return
        problem = read_only_problem(str(self.destination()))
        if problem is not None:
            raise SelfImproveError(f"{problem}; self-improve changed nothing")

    def apply(self) -> None:
        if not self.changed:
            return
        destination = self.destination()
        make_dirs(destination.parent)  # recorded, so that uninstall can take an empty .claude/ away
        final: list[FileChange] = []

        def edit(current: bytes | None) -> bytes | None:
            change = self if current == self.before else self._replanned(current)
            final.append(change)
            if change.after != current:
                change._take_backup(current)
            return change.after

        edit_user_file(str(destination), edit, temp_dir=user_temp_dir(), settle=self.settle)
        if final and final[-1].drop_backup is not None:
            final[-1].drop_backup.unlink(missing_ok=True)
        if final and final[-1].after is None:
            # The folder that held only the file we just deleted goes too, if we made it.
            remove_created_dirs(destination.parent, destination.parent.parent)

    def _replanned(self, current: bytes | None) -> FileChange:
        if self.replan is None:
            raise SelfImproveError(
                f"{self.path} changed while self-improve was working on it; run the command again "
                "(self-improve changed nothing)"
            )
        return self.replan(current)

    def _take_backup(self, current: bytes | None) -> None:
        """The one-time backup holds the bytes from before our first change (never overwritten,
        nor taken again while an older version's backup beside the file holds them)."""
        if self.backup is not None and current is not None and existing_backup(self.path) is None:
            self.backup.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(self.backup, current, temp_dir=user_temp_dir())


def unchanged(path: Path, summary: str) -> FileChange:
    """A plan step that writes nothing and says why."""
    return FileChange(path, None, None, summary=summary)


BACKUP_DIR = "backups"


def backup_path(path: Path) -> Path:
    """Where the one-time backup of ``path`` goes: the user's state dir, keyed by the file's real
    path (``<digest>-settings.json.self-improve.bak``), never beside the user's file, where it
    would stay behind after every successful install."""
    from self_improve.digest import sha256_hex
    from self_improve.paths import user_state_dir

    real = os.path.realpath(path)
    key = sha256_hex(real.encode("utf-8", "surrogateescape"))[:16]
    return Path(user_state_dir()) / BACKUP_DIR / f"{key}-{path.name}{BACKUP_SUFFIX}"


def legacy_backup_path(path: Path) -> Path:
    """Where versions before issue 14 put the backup: beside the file."""
    return path.with_name(path.name + BACKUP_SUFFIX)


def existing_backup(path: Path) -> Path | None:
    """The backup of ``path`` that exists, the state dir's first; None when there is none."""
    for candidate in (backup_path(path), legacy_backup_path(path)):
        if candidate.is_file():
            return candidate
    return None


def apply(changes: Sequence[FileChange]) -> None:
    """Write every change; every refusal we can foresee comes first, before anything is written."""
    for change in changes:
        change.preflight()
    for change in changes:
        change.apply()


# --- where an install goes ---------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where an install goes: a scope, the project (for project scopes) and the user's home."""

    scope: str
    project: Path
    home: Path


def expand(path_spec: str, target: Target) -> Path:
    """A manifest path: ``~/...`` under the home, relative ones under the project."""
    if path_spec.startswith("~/"):
        return target.home / path_spec[2:]
    path = Path(path_spec)
    return path if path.is_absolute() else target.project / path


def home_dir() -> Path:
    return Path(os.path.expanduser("~"))
