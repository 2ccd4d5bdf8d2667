"""The ``{"hooks": {Event: [groups]}}`` files of Claude Code and Codex: our handlers in, our
handlers out, every other byte kept.

Claude Code keeps hooks in its settings files, Codex in ``hooks.json``; both use this shape, so
one merge (:func:`plan_hooks_file`) and one installer base (:class:`HooksFileInstaller`) serve
both. Handlers are recognised as ours by their command (``installer.is_our_command``); the file
is edited through ``jsonedit``, so formatting, key order and comments of the user's survive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from self_improve.errors import SelfImproveError
from self_improve.harnesses.installer import (
    FileChange,
    Manifest,
    Target,
    backup_path,
    existing_backup,
    expand,
    hook_command,
    is_our_command,
    portable_hook_command,
    unchanged,
)
from self_improve.harnesses.jsonedit import JsonDocument, JsonEditError, JsonSyntaxError


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
    backup = existing_backup(path)
    if backup is None:
        return current
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
    return replace(change, replan=lambda current: _plan_bytes(path, current, wanted, is_ours, label))


def _plan_bytes(
    path: Path,
    before: bytes | None,
    wanted: Sequence[Registration],
    is_ours: Callable[[object], bool],
    label: str,
) -> FileChange:
    """:func:`plan_hooks_file` on given bytes (pure but for reading the backup)."""
    if before is None and not wanted:
        return unchanged(path, f"{label}: nothing installed in {path}")

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
    found = existing_backup(path)
    drop_backup = None
    if not wanted and stale:
        if found is None and doc.value == {} and current is not None and not path.is_symlink():
            # No backup: the file did not exist before our first install. Nothing else is in it.
            # Never through a symlink: deleting the link (or its target) is not ours to do.
            after = None
        elif found is not None and found.read_bytes() == after:
            drop_backup = found  # fully restored: the backup has done its job
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


def hook_registrations(
    manifest: Manifest, harness: str, root: Path, python: str | None = None, *, portable: bool = False
) -> list[Registration]:
    """Our registrations for ``harness``: absolute script paths, pinned python; or, ``portable``,
    commands that name no path of this machine (``installer.portable_hook_command``)."""
    timeout = manifest.harness.get(harness, {}).get("timeout")
    if portable:
        return [Registration(spec.event, spec.matcher, portable_hook_command(spec.script), timeout)
                for spec in manifest.hooks_for(harness)]
    hooks_dir = root / "hooks"
    registrations = []
    for spec in manifest.hooks_for(harness):
        script = hooks_dir / spec.script
        if not script.is_file():
            raise SelfImproveError(f"{script} is missing: install needs a complete checkout of self-improve")
        registrations.append(Registration(spec.event, spec.matcher, hook_command(script, python), timeout))
    return registrations


@dataclass
class HooksFileInstaller:
    """Install and uninstall of a harness whose hooks live in one such file per scope.

    A subclass sets ``name``, its ``scopes`` and, in ``path_option``, the key of ``plugin.toml``'s
    ``[harness.<name>]`` table that gives the file for each scope.
    """

    manifest: Manifest
    root: Path  # the checkout whose hooks/ we register
    python: str | None = None  # pinned interpreter; None: sys.executable
    name: str = ""
    scopes: tuple[str, ...] = ()
    path_option: ClassVar[str] = ""
    # Scopes whose file is shared in the repository: they get the portable commands.
    portable_scopes: ClassVar[tuple[str, ...]] = ()

    def hooks_path(self, target: Target) -> Path:
        return expand(self.manifest.option(self.name, self.path_option, target.scope), target)

    def _is_ours(self, command: object) -> bool:
        return is_our_command(command, self.manifest.scripts)

    def plan_install(self, target: Target) -> list[FileChange]:
        portable = target.scope in self.portable_scopes
        wanted = hook_registrations(self.manifest, self.name, self.root, self.python, portable=portable)
        return [plan_hooks_file(self.hooks_path(target), wanted, self._is_ours, label=self.name)]

    def plan_uninstall(self, target: Target) -> list[FileChange]:
        return [plan_hooks_file(self.hooks_path(target), [], self._is_ours, label=self.name)]
