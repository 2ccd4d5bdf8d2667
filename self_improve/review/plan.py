"""Changes as plans: a list of *steps*, each one delta, simulated before anything is written.

What every verb that changes files shares (``promote``, ``review``, ``retire``, ``restore``,
``supersede``, ``extract-skill``): a step is a pure edit of one instruction file, of one entry,
or an archive move. Steps are first *simulated* on in-memory copies, so every refusal happens
before anything is written and ``--dry-run`` can print the exact unified diff; only then are they
applied, each through its safe writer (the store's lock and atomic writes,
``managed_block.edit_file``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from self_improve.changes import PlannedChange, confined, label_for
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
        path = confined(step.path, self.store.root)
        if path.exists() or self.current.get(path) is not None:
            raise SelfImproveError(f"refusing to overwrite {step.path}: it already exists")
        self._remember(path)
        self.current[path] = step.content

    # ---- results ---------------------------------------------------------------------------
    def changes(self) -> list[PlannedChange]:
        out = []
        for path, before in self.original.items():
            text = self.current[path]
            change = PlannedChange(path, before, None if text is None else text.encode("utf-8", "surrogateescape"))
            if change.changed:
                out.append(change)
        return out

    @property
    def changed(self) -> bool:
        return bool(self.changes())

    def label(self, path: Path) -> str:
        return label_for(path, self.root)

    def diff(self) -> str:
        return "".join(change.diff(self.root) for change in self.changes())


def _kinds_for(entry_id: str) -> list[str]:
    prefix = entry_id.split("-", 1)[0].upper()
    return [kind for kind, (p, _) in KINDS.items() if p == prefix] or list(KINDS)


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


def write_new_file(store: Store, step: NewFile) -> None:
    path = confined(step.path, store.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    confined(step.path, store.root)  # again: a directory created meanwhile could be a symlink
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
