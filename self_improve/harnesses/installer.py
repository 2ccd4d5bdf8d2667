"""What every harness installer implements, and the machinery they share.

The interface (:class:`Harness`) is small: ``plan_install`` / ``plan_uninstall`` return the file
changes they would make (nothing is written), ``status`` says what is there now, ``notes`` is what
the user must still do by hand. :func:`apply` writes a plan; ``--dry-run`` prints
:meth:`FileChange.diff` instead. Planning first keeps dry-run and the real run on one code path.

Borrowed from pre-commit's installer (``commands/install_uninstall.py``):

- **Pin the interpreter.** Our hook commands carry ``SELF_IMPROVE_PYTHON=<sys.executable>``, the
  absolute path of the interpreter that ran ``install``, so a hook never goes through a shim or
  whatever ``python3`` is first on the PATH of the harness's shell.
- **Recognise our own entries by a marker.** That same leading ``SELF_IMPROVE_PYTHON=``
  assignment, followed by a path ending in ``hooks/<one of our scripts>``, marks a handler as
  ours. Install replaces ours (also after the checkout moved), never anyone else's.
- **Never lose the user's file.** A one-time ``<file>.self-improve.bak`` holds the bytes from
  before our first change; every other key and hook is kept, byte for byte (``jsonedit``).
- **Refuse clearly.** Invalid JSON, or a ``hooks`` key of the wrong type, stops with one line
  and the file untouched; so do a read-only file (its mode bits say "leave it alone") and a
  symlink to a missing file (writing would create a file the user never asked for).
- **Lose nobody's change.** Claude Code rewrites its settings while we run: every write goes
  through ``user_edit.edit_user_file`` (our lock, compare-and-replace); when the file changed
  since the plan read it, the plan is made again on the new bytes (:attr:`FileChange.replan`).

Shared here: :class:`Manifest` (``plugin.toml``), the JSON ``{"hooks": {Event: [groups]}}`` merge
used by both Claude Code and Codex (:func:`plan_hooks_file`), and the harness registry.
"""

from __future__ import annotations

import difflib
import importlib
import os
import shlex
import sys
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import self_improve
from self_improve.atomic import atomic_write
from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.jsonedit import JsonDocument, JsonEditError, JsonSyntaxError
from self_improve.user_edit import (
    SETTLE,
    edit_user_file,
    read_only_problem,
    user_temp_dir,
)

MANIFEST_NAME = "plugin.toml"
BACKUP_SUFFIX = ".self-improve.bak"
PYTHON_VAR = "SELF_IMPROVE_PYTHON"
UTF8_BOM = b"\xef\xbb\xbf"


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


def is_our_command(command: object, scripts: Iterable[str]) -> bool:
    """Whether a hook ``command`` is one :func:`hook_command` wrote (any checkout, any python)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) != 2 or not words[0].startswith(f"{PYTHON_VAR}="):
        return False
    head, _, name = words[1].rpartition("/")
    return head.endswith("hooks") and name in set(scripts)


# --- file changes -----------------------------------------------------------------------


@dataclass
class FileChange:
    """One file's planned content. ``None`` means "absent" (before) or "delete it" (after)."""

    path: Path
    before: bytes | None
    after: bytes | None
    backup: Path | None = None  # written with ``before`` first, unless it already exists
    drop_backup: Path | None = None  # the plan restores the original bytes: this backup is redundant
    summary: str = ""
    # The same plan made on other bytes (the file changed after we read it). None: such a change
    # is refused instead, with nothing written.
    replan: Callable[[bytes | None], FileChange] | None = None
    settle: float = SETTLE  # see user_edit: 0 for files only we write (the OpenClaw skill)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change (empty when nothing changes)."""
        if not self.changed:
            return ""
        old = _lines(self.before)
        new = _lines(self.after)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                old,
                new,
                fromfile=label if self.before is not None else "/dev/null",
                tofile=label if self.after is not None else "/dev/null",
            )
        )

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
        destination.parent.mkdir(parents=True, exist_ok=True)
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

    def _replanned(self, current: bytes | None) -> FileChange:
        if self.replan is None:
            raise SelfImproveError(
                f"{self.path} changed while self-improve was working on it; run the command again "
                "(self-improve changed nothing)"
            )
        return self.replan(current)

    def _take_backup(self, current: bytes | None) -> None:
        """The one-time backup holds the bytes from before our first change (never overwritten)."""
        if self.backup is not None and current is not None and not self.backup.exists():
            atomic_write(self.backup, current, temp_dir=user_temp_dir())


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


# --- the {"hooks": {Event: [groups]}} merge ----------------------------------------------


@dataclass(frozen=True)
class Registration:
    """One handler group we want in a hooks file."""

    event: str
    matcher: str | None
    command: str
    timeout: int | None = None

    def group(self) -> dict[str, Any]:
        handler: dict[str, Any] = {"type": "command", "command": self.command}
        if self.timeout is not None:
            handler["timeout"] = self.timeout
        group: dict[str, Any] = {} if self.matcher is None else {"matcher": self.matcher}
        group["hooks"] = [handler]
        return group


@dataclass(frozen=True)
class _Ours:
    """Where one of our handlers sits: hooks[event][group][handler]."""

    event: str
    group: int
    handler: int
    whole_group: bool  # the group holds nothing but our handlers


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SelfImproveError(
            f"{path}: not UTF-8 (byte {exc.start}); fix it by hand, self-improve changed nothing"
        ) from None


def _load(path: Path, data: bytes) -> JsonDocument:
    text = _decode(path, data)
    try:
        doc = JsonDocument(text)
    except JsonSyntaxError as exc:
        raise SelfImproveError(f"{path}: not valid JSON ({exc}); fix it by hand, self-improve changed nothing") from None
    if not isinstance(doc.value, dict):
        raise SelfImproveError(f"{path}: the top level is not a JSON object; self-improve changed nothing")
    return doc


def _find_ours(doc: JsonDocument, is_ours: Callable[[object], bool]) -> list[_Ours]:
    hooks = doc.get(("hooks",))
    found: list[_Ours] = []
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                continue
            mine = [h for h, handler in enumerate(handlers) if isinstance(handler, dict) and is_ours(handler.get("command"))]
            whole = len(mine) == len(handlers) and set(group) <= {"matcher", "hooks"}
            found.extend(_Ours(event, g, h, whole) for h in mine)
    return found


def _check_shape(path: Path, doc: JsonDocument, events: Iterable[str]) -> None:
    """Refuse (untouched) when the parts we must edit have a type we cannot edit safely."""
    try:
        hooks = doc.node(("hooks",))
    except JsonEditError as exc:
        raise SelfImproveError(f"{path}: {exc} at the top level; fix it by hand, self-improve changed nothing") from None
    if hooks is None:
        return
    value = doc.get(("hooks",))
    if not isinstance(value, dict):
        raise SelfImproveError(f'{path}: "hooks" is not an object; fix it by hand, self-improve changed nothing')
    for event in events:
        try:
            groups = doc.get(("hooks", event))
        except JsonEditError as exc:
            raise SelfImproveError(f'{path}: "hooks" has a {exc}; fix it by hand, self-improve changed nothing') from None
        if groups is not None and not isinstance(groups, list):
            raise SelfImproveError(
                f'{path}: "hooks"."{event}" is not a list; fix it by hand, self-improve changed nothing'
            )


def _remove_ours(
    doc: JsonDocument, ours: Sequence[_Ours], baseline: JsonDocument | None, keep: set[str]
) -> None:
    """Remove our handlers (whole groups when they hold only ours), then the containers that
    became empty and did not exist in ``baseline`` (the file as it was before our first change).
    Containers of the events in ``keep`` stay: we are about to append to them again."""
    # Back to front, so earlier indexes stay valid while we splice.
    for spot in sorted(ours, key=lambda o: (o.event, o.group, o.handler), reverse=True):
        if spot.whole_group:
            group = doc.get(("hooks", spot.event, spot.group))
            if isinstance(group, dict):  # a whole group may be hit once per handler
                doc.remove_item(("hooks", spot.event), spot.group, inner=_inner(baseline, ("hooks", spot.event)))
        else:
            doc.remove_item(("hooks", spot.event, spot.group, "hooks"), spot.handler)
    for event in sorted({spot.event for spot in ours} - keep):
        if doc.get(("hooks", event)) == [] and not _exists(baseline, ("hooks", event)):
            doc.remove_member(("hooks",), event, inner=_inner(baseline, ("hooks",)))
    if not keep and doc.get(("hooks",)) == {} and not _exists(baseline, ("hooks",)):
        doc.remove_member((), "hooks", inner=_inner(baseline, ()))


def _dedupe_whole_groups(ours: list[_Ours]) -> list[_Ours]:
    seen: set[tuple[str, int]] = set()
    out: list[_Ours] = []
    for spot in ours:
        if spot.whole_group:
            if (spot.event, spot.group) in seen:
                continue
            seen.add((spot.event, spot.group))
        out.append(spot)
    return out


def _exists(doc: JsonDocument | None, path: tuple[str | int, ...]) -> bool:
    try:
        return doc is not None and doc.node(path) is not None
    except JsonEditError:
        return False


def _inner(doc: JsonDocument | None, path: tuple[str | int, ...]) -> str:
    """What the baseline held inside an empty container at ``path`` (restores ``[ ]`` exactly)."""
    try:
        return (doc.inner_whitespace(path) if doc is not None else None) or ""
    except JsonEditError:
        return ""


def _baseline(path: Path, current: JsonDocument | None) -> JsonDocument | None:
    """The file as it was before our first change: the backup if any, else ``current``."""
    backup = backup_path(path)
    try:
        return JsonDocument(backup.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return current
    except (OSError, UnicodeDecodeError, JsonSyntaxError):
        return current


def _encode(doc: JsonDocument) -> bytes:
    # A BOM stays in doc.text as U+FEFF and is re-encoded as the same three bytes.
    return doc.text.encode("utf-8")


def new_file_text() -> str:
    """The canonical start of a hooks file we create: an empty object, as the harnesses write it."""
    return "{}\n"


def plan_hooks_file(
    path: Path,
    wanted: Sequence[Registration],
    is_ours: Callable[[object], bool],
    *,
    label: str,
) -> FileChange:
    """Make ``path`` hold exactly ``wanted`` among our handlers (empty ``wanted``: uninstall).

    Install twice gives the same bytes (an identical registration is left alone). Uninstall
    removes exactly ours and the containers we created, so install + uninstall gives back the
    original bytes; a file we created and that holds nothing else is deleted.
    """
    try:
        before: bytes | None = path.read_bytes()
    except FileNotFoundError:  # also a symlink to a missing file: install refuses it (preflight)
        before = None
    except IsADirectoryError:
        raise SelfImproveError(f"{path} is a directory; self-improve changed nothing") from None
    except OSError as exc:
        raise SelfImproveError(f"{path}: cannot read it ({exc.strerror or exc}); self-improve changed nothing") from None
    change = _plan_bytes(path, before, wanted, is_ours, label)
    change.replan = lambda current: _plan_bytes(path, current, wanted, is_ours, label)
    return change


def _plan_bytes(
    path: Path,
    before: bytes | None,
    wanted: Sequence[Registration],
    is_ours: Callable[[object], bool],
    label: str,
) -> FileChange:
    """:func:`plan_hooks_file` on given bytes (pure but for reading the backup)."""
    if before is None and not wanted:
        return FileChange(path, None, None, summary=f"{label}: nothing installed in {path}")

    current = _load(path, before) if before is not None else None
    doc = JsonDocument(current.text if current is not None else new_file_text())  # a copy to edit
    if wanted:  # uninstall edits only what _find_ours recognised, whatever the rest looks like
        _check_shape(path, doc, {r.event for r in wanted})
    # Install: no backup yet means the current file is the original. Uninstall: no backup means
    # there was no original (we created the file), so every container of ours may go.
    baseline = _baseline(path, current if wanted else None) if before is not None else None
    try:
        return _plan(path, before, current, doc, baseline, wanted, is_ours, label)
    except JsonEditError as exc:  # e.g. duplicate keys where we must edit: never write half an edit
        raise SelfImproveError(f"{path}: {exc}; fix it by hand, self-improve changed nothing") from None


def _plan(
    path: Path,
    before: bytes | None,
    current: JsonDocument | None,
    doc: JsonDocument,
    baseline: JsonDocument | None,
    wanted: Sequence[Registration],
    is_ours: Callable[[object], bool],
    label: str,
) -> FileChange:
    ours = _dedupe_whole_groups(_find_ours(doc, is_ours))
    want_by_event: dict[str, list[Registration]] = {}
    for registration in wanted:
        want_by_event.setdefault(registration.event, []).append(registration)

    stale: list[_Ours] = []
    to_add: list[Registration] = []
    for event in sorted({spot.event for spot in ours} | set(want_by_event)):
        here = [spot for spot in ours if spot.event == event]
        groups = [r.group() for r in want_by_event.get(event, [])]
        current_groups = [doc.get(("hooks", event, spot.group)) for spot in here if spot.whole_group]
        if len(here) == len(groups) and all(spot.whole_group for spot in here) and current_groups == groups:
            continue  # already exactly what we want: leave the bytes alone
        stale.extend(here)
        to_add.extend(want_by_event.get(event, []))

    _remove_ours(doc, stale, baseline, keep={r.event for r in to_add})
    for registration in to_add:
        if doc.node(("hooks",)) is None:
            doc.add_member((), "hooks", {})
        if doc.node(("hooks", registration.event)) is None:
            doc.add_member(("hooks",), registration.event, [])
        doc.append_item(("hooks", registration.event), registration.group())

    after: bytes | None = _encode(doc)
    backup = backup_path(path)
    drop_backup = None
    if not wanted and stale:
        if not backup.exists() and doc.value == {} and current is not None and not path.is_symlink():
            # No backup: the file did not exist before our first install. Nothing else is in it.
            # Never through a symlink: deleting the link (or its target) is not ours to do.
            after = None
        elif backup.exists() and backup.read_bytes() == after:
            drop_backup = backup  # fully restored: the backup has done its job
    if before is None and after is not None:
        summary = f"{label}: create {path}"
    elif after is None:
        summary = f"{label}: delete {path} (self-improve created it; nothing else was in it)"
    elif before == after:
        summary = f"{label}: {path} is already up to date" if wanted else f"{label}: nothing of ours in {path}"
    else:
        summary = f"{label}: {'update' if wanted else 'remove our hooks from'} {path}"
    # Only an install takes the one-time backup: uninstall moves towards the original, and a
    # backup of a file that holds our hooks would mislead the next uninstall's baseline.
    return FileChange(path, before, after, backup=backup if wanted else None, drop_backup=drop_backup, summary=summary)


# --- the interface every harness implements ------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where an install goes: a scope, the project (for project scopes) and the user's home."""

    scope: str
    project: Path
    home: Path


class Harness(Protocol):
    name: str
    scopes: tuple[str, ...]

    def scope_for(self, requested: str | None, project_given: bool) -> str:
        """The scope to use (``requested`` or the default); UsageError when it is not supported."""
        ...

    def plan_install(self, target: Target) -> list[FileChange]: ...

    def plan_uninstall(self, target: Target) -> list[FileChange]: ...

    def status(self, target: Target) -> list[str]: ...

    def notes(self, target: Target) -> list[str]: ...


def expand(path_spec: str, target: Target) -> Path:
    """A manifest path: ``~/...`` under the home, relative ones under the project."""
    if path_spec.startswith("~/"):
        return target.home / path_spec[2:]
    path = Path(path_spec)
    return path if path.is_absolute() else target.project / path


# --- the registry --------------------------------------------------------------------------

# name -> module that exposes ``installer() -> Harness``.
REGISTRY: dict[str, str] = {
    "claude": "self_improve.harnesses.claude.install",
    "codex": "self_improve.harnesses.codex.adapter",
    # openclaw.installer() hands over to openclaw_install (skill + AGENTS.md block, --workspace).
    "openclaw": "self_improve.harnesses.openclaw.adapter",
}
ALL = ("claude", "codex", "openclaw")


def load_harness(name: str) -> Harness | None:
    """The installer for ``name``, or None when its module has no ``installer()`` (yet)."""
    module_name = REGISTRY.get(name)
    if module_name is None:
        raise UsageError(f"unknown harness {name!r} (choose from {', '.join(REGISTRY)}, all, none)")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    factory = getattr(module, "installer", None)
    return factory() if callable(factory) else None


def select(names: str) -> list[Harness]:
    """``claude``, ``codex``, ``claude,codex``, ``all`` (the ones that have an installer) or ``none``."""
    if names == "none":
        return []
    if names == "all":
        return [h for h in (load_harness(n) for n in ALL) if h is not None]
    chosen: list[Harness] = []
    for name in (part.strip() for part in names.split(",") if part.strip()):
        harness = load_harness(name)
        if harness is None:
            raise SelfImproveError(f"harness {name!r} cannot be installed by this version of self-improve yet")
        chosen.append(harness)
    return chosen


def apply(changes: Sequence[FileChange]) -> None:
    """Write every change; every refusal we can foresee comes first, before anything is written."""
    for change in changes:
        change.preflight()
    for change in changes:
        change.apply()


def home_dir() -> Path:
    return Path(os.path.expanduser("~"))
