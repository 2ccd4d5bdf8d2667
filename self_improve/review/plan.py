"""Changes as plans: a list of *steps*, each one delta, simulated before anything is written.

What every verb that changes files shares (``promote``, ``review``, ``retire``, ``restore``,
``supersede``, ``extract-skill``): a step is a pure edit of one instruction file, of one entry,
or an archive move. Steps are first *simulated* on in-memory copies, so every refusal happens
before anything is written and ``--dry-run`` can print the exact unified diff; only then are they
applied, each through its safe writer (the store's lock and atomic writes,
``managed_block.edit_file``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from self_improve.errors import SelfImproveError
from self_improve.review import managed_block
from self_improve.store import archive as archive_mod
from self_improve.store.entry import KINDS, Entry, LearningsFile, parse_text
from self_improve.store.store import Store


@dataclass(frozen=True)
class TargetEdit:
    """A pure text edit of one instruction file (relative POSIX path inside the project)."""

    path: str
    edit: Callable[[str], str]


@dataclass(frozen=True)
class EntryEdit:
    entry_id: str
    edit: Callable[[Entry], Entry]


@dataclass(frozen=True)
class ArchiveStep:
    entry_ids: tuple[str, ...]
    today: date


@dataclass(frozen=True)
class RestoreStep:
    entry_id: str


@dataclass(frozen=True)
class NewFile:
    """A file that must not exist yet (relative POSIX path inside the project)."""

    path: str
    content: str


Step = TargetEdit | EntryEdit | ArchiveStep | RestoreStep | NewFile


@dataclass
class Simulation:
    """Runs steps on in-memory copies of the files: refusals surface, nothing is written."""

    store: Store
    original: dict[Path, bytes | None] = field(default_factory=dict)
    current: dict[Path, str | None] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.store.root.resolve()

    def _disk(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def _remember(self, path: Path) -> None:
        if path not in self.original:
            self.original[path] = self._disk(path)

    def _store_text(self, name: str) -> str:
        path = (self.store.dir / name).resolve()
        if path in self.current:
            return self.current[path] or ""
        raw = self._disk(path)
        return "" if raw is None else raw.decode("utf-8", "surrogateescape")

    def _set_store_text(self, name: str, text: str | None) -> None:
        path = (self.store.dir / name).resolve()
        self._remember(path)
        self.current[path] = text

    def _archive_files(self) -> list[str]:
        names = set(archive_mod.archive_files(self.store))
        directory = (self.store.dir / archive_mod.ARCHIVE_DIR).resolve()
        for path, text in self.current.items():
            if path.parent == directory:
                name = f"{archive_mod.ARCHIVE_DIR}/{path.name}"
                if text is None:
                    names.discard(name)
                else:
                    names.add(name)
        return sorted(names)

    def run(self, steps: Sequence[Step]) -> None:
        for step in steps:
            if isinstance(step, TargetEdit):
                self._target(step)
            elif isinstance(step, EntryEdit):
                self._entry(step)
            elif isinstance(step, ArchiveStep):
                changes, _ = archive_mod.archive_changes(self._store_text, self._archive_files(), step.entry_ids, step.today)
                for name, text in changes.items():
                    self._set_store_text(name, text)
            elif isinstance(step, RestoreStep):
                changes, _ = archive_mod.restore_changes(self._store_text, self._archive_files(), step.entry_id)
                for name, text in changes.items():
                    self._set_store_text(name, text)
            else:
                self._new_file(step)

    def _target(self, step: TargetEdit) -> None:
        key = (self.store.root / step.path).resolve()

        def edit(disk_text: str) -> str:
            if key in self.current:  # an earlier step already changed this file
                return step.edit(self.current[key] or "")
            return step.edit(disk_text)

        try:
            result = managed_block.edit_file(self.store.root / step.path, self.store.root, edit, dry_run=True)
        except managed_block.ManagedBlockError as exc:
            raise SelfImproveError(str(exc)) from None
        self._remember(result.path)
        self.current[result.path] = None if result.after is None else result.after.decode("utf-8")

    def _entry(self, step: EntryEdit) -> None:
        wanted = step.entry_id.strip().upper()
        for kind in _kinds_for(wanted):
            name = KINDS[kind][1]
            parsed = parse_text(self._store_text(name), file=f".learnings/{name}")
            for index, entry in enumerate(parsed.entries):
                if entry.id.upper() == wanted:
                    entries = list(parsed.entries)
                    entries[index] = step.edit(entry)
                    if entries[index].text != entry.text:
                        self._set_store_text(name, LearningsFile(parsed.preamble, tuple(entries)).render())
                    return
        raise SelfImproveError(f"unknown ID {step.entry_id!r} (see `self-improve list`)")

    def _new_file(self, step: NewFile) -> None:
        path = confined(self.store, step.path)
        if path.exists() or path.is_symlink() or self.current.get(path) is not None:
            raise SelfImproveError(f"refusing to overwrite {step.path}: it already exists")
        self._remember(path)
        self.current[path] = step.content

    # ---- results ---------------------------------------------------------------------------
    def changes(self) -> list[tuple[Path, bytes | None, bytes | None]]:
        out = []
        for path, before in self.original.items():
            text = self.current[path]
            after = None if text is None else text.encode("utf-8", "surrogateescape")
            if after != before:
                out.append((path, before, after))
        return out

    @property
    def changed(self) -> bool:
        return bool(self.changes())

    def label(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def diff(self) -> str:
        return "".join(unified_diff(before, after, self.label(path)) for path, before, after in self.changes())


def _kinds_for(entry_id: str) -> list[str]:
    prefix = entry_id.split("-", 1)[0].upper()
    return [kind for kind, (p, _) in KINDS.items() if p == prefix] or list(KINDS)


def unified_diff(before: bytes | None, after: bytes | None, label: str) -> str:
    """git-style unified diff; ``/dev/null`` for a created or deleted file."""
    old = "" if before is None else before.decode("utf-8", "surrogateescape")
    new = "" if after is None else after.decode("utf-8", "surrogateescape")
    out = []
    for line in difflib.unified_diff(
        _lines(old),
        _lines(new),
        "/dev/null" if before is None else f"a/{label}",
        "/dev/null" if after is None else f"b/{label}",
    ):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """Lines ending at ``\\n`` only: a lone ``\\r`` or ``\\x0b`` is text, as in managed_block."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def apply(store: Store, steps: Sequence[Step]) -> None:
    """Apply steps for real, each through its safe writer. Call :func:`simulate` first."""
    for step in steps:
        if isinstance(step, TargetEdit):
            try:
                managed_block.edit_file(store.root / step.path, store.root, step.edit)
            except managed_block.ManagedBlockError as exc:
                raise SelfImproveError(str(exc)) from None
        elif isinstance(step, EntryEdit):
            store.update(step.entry_id, step.edit)
        elif isinstance(step, ArchiveStep):
            archive_mod.archive(store, step.entry_ids, step.today)
        elif isinstance(step, RestoreStep):
            archive_mod.restore(store, step.entry_id)
        else:
            write_new_file(store, step)


def simulate(store: Store, steps: Sequence[Step]) -> Simulation:
    simulation = Simulation(store)
    simulation.run(steps)
    return simulation


def confined(store: Store, relative: str) -> Path:
    """An absolute path for ``relative``, refused when it (or a parent) leads outside the root."""
    root = store.root.resolve()
    path = (store.root / relative).resolve()
    if not path.is_relative_to(root):
        raise SelfImproveError(f"refusing to write {relative}: it leads outside the project root {store.root}")
    return path


def write_new_file(store: Store, step: NewFile) -> None:
    path = confined(store, step.path)
    path.parent.mkdir(parents=True, exist_ok=True)
    confined(store, step.path)  # again: a directory created meanwhile could be a symlink
    try:  # O_EXCL: never through a planted file or symlink (even a dangling one)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise SelfImproveError(f"refusing to overwrite {step.path}: it already exists") from None
    try:
        try:
            data = memoryview(step.content.encode("utf-8"))
            while data:  # os.write may write less than asked (a full disk, a signal)
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        path.unlink(missing_ok=True)  # all or nothing: the file is ours, created just now
        raise
