"""The archive: ``.learnings/archive/<year>.md``; the only code that touches that directory.

Archiving moves an entry, verbatim but for its status line (now ``archived``), out of its
learnings file into the archive file of the year it was last seen. Nothing is ever deleted:
``restore`` moves it back, and archiving then restoring gives the learnings file back byte for
byte. What restore needs is in the record line ``archive_record`` writes after each entry.

All writes hold the store's lock (``.learnings/.lock``) and go through atomic replacement, the
file that gains the entry first: a crash in between leaves the entry in both places (a re-run
of archive replaces the archive copy; restore drops the archive copy when the entry is already
back unchanged) and never in neither.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from self_improve.errors import SelfImproveError
from self_improve.output import home_path
from self_improve.store.archive_record import (
    ARCHIVE_DIR,
    ARCHIVED,
    ArchivedEntry,
    Reader,
    ArchiveRecord,
    archive_header,
    archive_name,
    archive_year,
    archived_form,
    has_unclosed_fence,
    last_seen_day,
    original_form,
    parse_archive,
)
from self_improve.store.entry import FILE_TO_KIND, KINDS, Entry, LearningsFile, parse_text, split_lines
from self_improve.store.store import Store

# The record's names are re-exported: callers use the archive through this module.
__all__ = [
    "ARCHIVE_DIR", "ArchivedEntry", "Move", "ArchiveRecord", "archive", "archive_changes", "archive_dir", "archive_files",
    "archive_name", "archive_year", "archived_entries", "find_archived", "has_unclosed_fence", "last_seen_day",
    "parse_archive", "reader", "refuse_if_archived", "restore", "restore_changes",
]


def _records_for(archives: Iterable[ArchivedEntry], file: str) -> dict[str, ArchiveRecord]:
    return {
        a.record.entry_id.upper(): a.record
        for a in archives
        if a.record is not None and a.record.file == file
    }


class _Family:
    """The archived entries of one learnings file as a tree: each hangs after its recorded
    predecessor. Walking it depth-first, after each entry of the file, gives the virtual order."""

    def __init__(self, records: Mapping[str, ArchiveRecord], present: Iterable[str]) -> None:
        known = {entry_id.upper() for entry_id in present} | set(records)
        self.children: dict[str, list[tuple[int, str]]] = {}
        self.parent_of: dict[str, str] = {}
        # Where a walk from a node ended last time: new entries only ever hang after a tail, so a
        # later walk can resume there (archiving a long run of entries stays linear).
        self._tails: dict[str, str] = {}
        for key, record in records.items():
            parent = record.after.upper()
            if parent and parent not in known:
                continue  # its predecessor was deleted by hand: restore falls back on its index
            self.add(key, parent, record.index)

    def add(self, key: str, parent: str, index: int) -> None:
        bisect.insort(self.children.setdefault(parent, []), (index, key))
        self.parent_of[key] = parent

    def discard(self, key: str) -> None:
        parent = self.parent_of.pop(key, None)
        if parent is not None:
            self.children[parent] = [item for item in self.children[parent] if item[1] != key]
            self._tails.clear()

    def tail(self, parent: str) -> str:
        """The last entry of the virtual order among ``parent`` and what hangs after it."""
        node = self._tails.get(parent, parent)
        seen: set[str] = set()
        while self.children.get(node) and node not in seen:
            seen.add(node)
            node = self.children[node][-1][1]
        self._tails[parent] = node
        return node


def _kind_file_of(entry_id: str) -> list[str]:
    prefix = entry_id.split("-", 1)[0].upper()
    files = [name for kind, (p, name) in KINDS.items() if p == prefix]
    return files or [name for _, name in KINDS.values()]


def _all_archived(read: Reader, archive_files: Sequence[str]) -> list[ArchivedEntry]:
    out: list[ArchivedEntry] = []
    for name in archive_files:
        out.extend(parse_archive(read(name), name)[1])
    return out


@dataclass(frozen=True)
class Move:
    entry_id: str
    file: str  # learnings file name, e.g. "ERRORS.md"
    archive_file: str  # e.g. "archive/2025.md"
    status: str  # the status it had (archive) or has again (restore)


Changes = dict[str, "str | None"]  # file name inside .learnings/ -> its new text (None: delete it)


def archive_changes(
    read: Reader, archive_files: Sequence[str], entry_ids: Sequence[str], today: date
) -> tuple[Changes, list[Move]]:
    """The new texts of every file that archiving ``entry_ids`` changes (a pure function of
    what ``read`` returns). Each file is parsed once, so archiving many entries stays fast."""
    archived = _all_archived(read, archive_files)
    spelled = {a.entry.id.upper(): a.entry.id for a in archived}  # IDs as their headers write them
    in_archive: dict[str, set[str]] = {}
    for item in archived:
        in_archive.setdefault(item.archive_file, set()).add(item.entry.id.upper())
    learnings: dict[str, tuple[tuple[str, ...], list[Entry]]] = {}
    keys: dict[str, list[str]] = {}  # upper-case IDs, parallel to the entries: C-speed lookups
    twice: set[str] = set()  # IDs that appear more than once in their file
    families: dict[str, _Family] = {}
    archive_parts: dict[str, list[str]] = {}  # joined once at the end
    changed: set[str] = set()

    def load(file: str) -> list[Entry]:
        if file not in learnings:
            parsed = parse_text(read(file), file=f".learnings/{file}")
            learnings[file] = (parsed.preamble, list(parsed.entries))
            keys[file] = [e.id.upper() for e in parsed.entries]
            twice.update(k for k, n in Counter(keys[file]).items() if n > 1)
            families[file] = _Family(_records_for(archived, file), (e.id for e in parsed.entries))
            spelled.update({e.id.upper(): e.id for e in parsed.entries})
        return learnings[file][1]

    moves: list[Move] = []
    for wanted in entry_ids:
        key = wanted.strip().upper()
        for file in _kind_file_of(key):
            entries = load(file)
            if key in keys[file]:
                break
        else:
            raise SelfImproveError(f"unknown ID {wanted!r} (see `self-improve list`)")
        if key in twice:
            copies = keys[file].count(key)
            raise SelfImproveError(f"{wanted} appears {copies} times in .learnings/{file}: see `self-improve lint`")
        index = keys[file].index(key)
        entry = entries[index]
        if has_unclosed_fence(entry):
            raise SelfImproveError(f"{entry.id} has a code fence that is never closed: fix it first (see `self-improve lint`)")
        family = families[file]
        family.discard(key)  # a copy left by a crashed run must not become its own predecessor
        after = family.tail(keys[file][index - 1] if index else "")
        year = archive_year(entry, today)
        target = archive_name(year)
        chunk = archived_form(entry, spelled.get(after, after), index, file, today)
        parts = archive_parts.setdefault(target, [read(target)])
        if key in in_archive.get(target, set()):
            parts[:] = [_replace_chunk("".join(parts), target, key, chunk)]
        else:
            parts.extend(_chunk_after("".join(parts[-1:]), chunk, year, entry.eol))
        in_archive.setdefault(target, set()).add(key)
        del entries[index]
        del keys[file][index]
        family.add(key, after, index)
        changed.add(file)
        moves.append(Move(entry.id, file, target, entry.status))
    texts: Changes = {file: LearningsFile(learnings[file][0], tuple(learnings[file][1])).render() for file in changed}
    texts.update({name: "".join(parts) for name, parts in archive_parts.items()})
    return texts, moves


def _replace_chunk(text: str, archive_file: str, key: str, chunk: str) -> str:
    """The entry is already there, left by a run that crashed half-way: replace that copy."""
    parsed, archived = parse_archive(text, archive_file)
    entries = [
        Entry(tuple(split_lines(chunk))) if item.entry.id.upper() == key else entry
        for entry, item in zip(parsed.entries, archived, strict=True)
    ]
    return LearningsFile(parsed.preamble, tuple(entries)).render()


def _chunk_after(text: str, chunk: str, year: str, eol: str) -> list[str]:
    """What to append to an archive file ending with ``text`` (its last part) to add ``chunk``."""
    if not text:
        return [archive_header(year, eol), chunk]
    if not text.endswith("\n"):
        return [eol, chunk]
    return [chunk]


def restore_changes(read: Reader, archive_files: Sequence[str], entry_id: str) -> tuple[Changes, Move]:
    """The new texts of the learnings file and the archive file when ``entry_id`` goes back."""
    key = entry_id.strip().upper()
    archived = _all_archived(read, archive_files)
    found = [a for a in archived if a.entry.id.upper() == key]
    if not found:
        raise SelfImproveError(f"{entry_id} is not in .learnings/{ARCHIVE_DIR}/ (see `self-improve list`)")
    item = found[0]
    original = original_form(item)
    record = item.record
    assert record is not None  # original_form refused otherwise
    status = record.status.strip().casefold() or "pending"
    if status == ARCHIVED:
        # Archived in place by an old `set-status ID archived`: coming back as "archived" would
        # only have the next review archive it again, so it comes back as the default status.
        status = "pending"
        original = Entry(tuple(split_lines(original))).with_status(status).text
    file = record.file
    if file not in FILE_TO_KIND:
        raise SelfImproveError(f"{item.entry.id}: its record names an unknown learnings file {file!r}")
    parsed = parse_text(read(file), file=f".learnings/{file}")
    entries = list(parsed.entries)
    texts: Changes = {}
    clash = [e for e in entries if e.id.upper() == key]
    if clash:
        if clash[0].text.rstrip("\r\n") != original.rstrip("\r\n"):
            raise SelfImproveError(f"{item.entry.id} is already in .learnings/{file}: keep one copy by hand, then run restore again")
    else:
        present = [e.id for e in entries]
        index = _restore_position(present, _records_for(archived, file), record)
        new_entry = Entry(tuple(split_lines(original)))
        if index < len(entries) and not original.endswith("\n"):
            new_entry = Entry(tuple(split_lines(original + new_entry.eol)))
        if index == len(entries) and entries and not entries[-1].text.endswith("\n"):
            last = entries[-1]
            entries[-1] = Entry(tuple(split_lines(last.text + last.eol)))
        entries.insert(index, new_entry)
        texts[file] = LearningsFile(parsed.preamble, tuple(entries)).render()
    archive_parsed, chunks = parse_archive(read(item.archive_file), item.archive_file)
    kept = tuple(e for e, c in zip(archive_parsed.entries, chunks, strict=True) if c.entry.id.upper() != key)
    if kept or "".join(archive_parsed.preamble) not in {archive_header(_year_of(item.archive_file), eol) for eol in ("\n", "\r\n")}:
        texts[item.archive_file] = LearningsFile(archive_parsed.preamble, kept).render()
    else:
        texts[item.archive_file] = None  # nothing of ours or the user's left in it
    return texts, Move(item.entry.id, file, item.archive_file, status)


def _year_of(archive_file: str) -> str:
    return archive_file.rsplit("/", 1)[-1].removesuffix(".md")


def _restore_position(present: Sequence[str], records: Mapping[str, ArchiveRecord], record: ArchiveRecord) -> int:
    """Right after the nearest predecessor (in the virtual order) that is in the file."""
    index_of = {entry_id.upper(): i for i, entry_id in enumerate(present)}
    seen: set[str] = set()
    parent = record.after.upper()
    while parent and parent not in index_of:
        if parent in seen or parent not in records:
            # The chain is broken (deleted by hand): fall back on the recorded index.
            return min(record.index, len(present))
        seen.add(parent)
        parent = records[parent].after.upper()
    return index_of[parent] + 1 if parent else 0


# ---- files: lock, atomic writes ------------------------------------------------------------------------


def archive_dir(store: Store) -> Path:
    return store.dir / ARCHIVE_DIR


def archive_files(store: Store) -> list[str]:
    """Names of the archive files, oldest year first (``archive/2025.md``, …)."""
    directory = archive_dir(store)
    if not directory.is_dir():
        return []
    return sorted(f"{ARCHIVE_DIR}/{path.name}" for path in directory.glob("*.md") if path.is_file())


def reader(store: Store) -> Reader:
    return store.read_file


def _write(store: Store, changes: Changes, archive_first: bool) -> None:
    """Write the copy that gains the entry before the one that loses it: a crash in between leaves
    two copies (which the next run sorts out), never none."""
    ordered = sorted(changes.items(), key=lambda item: item[0].startswith(f"{ARCHIVE_DIR}/") != archive_first)
    for name, text in ordered:
        if text is not None:
            store.write_file(name, text)  # creates archive/ as needed, never through a link
        else:
            store.remove_file(name)
    directory = archive_dir(store)
    try:
        directory.rmdir()  # only succeeds when restore emptied it
    except OSError:
        pass


def _check_store(store: Store) -> None:
    store._require()  # the trust model: no links anywhere in the store


def archive(store: Store, entry_ids: Sequence[str], today: date) -> list[Move]:
    """Move entries into ``.learnings/archive/<year>.md`` (status ``archived``)."""
    _check_store(store)
    with store.lock():
        changes, moves = archive_changes(reader(store), archive_files(store), entry_ids, today)
        _write(store, changes, archive_first=True)
    return moves


def restore(store: Store, entry_id: str) -> Move:
    """Move an archived entry back to its learnings file, at its place, with its old status."""
    _check_store(store)
    with store.lock():
        changes, move = restore_changes(reader(store), archive_files(store), entry_id)
        _write(store, changes, archive_first=False)
    return move


def archived_entries(store: Store) -> list[ArchivedEntry]:
    return _all_archived(reader(store), archive_files(store))


def find_archived(store: Store, entry_id: str) -> ArchivedEntry | None:
    """The archived entry with this ID (the first, should two archive files hold it), or None."""
    key = entry_id.strip().upper()
    if not key or not archive_dir(store).is_dir():
        return None
    return next((item for item in archived_entries(store) if item.entry.id.upper() == key), None)


def refuse_if_archived(store: Store, entry_id: str) -> None:
    """Verbs that edit an entry in place refuse an archived one, saying how to bring it back
    (``Store.get`` alone would call it an unknown ID, which it is not)."""
    if store.find(entry_id) is not None:
        return
    item = find_archived(store, entry_id)
    if item is not None:
        if store.scope == "user":
            where, restore = home_path(store.dir / item.archive_file), f"self-improve restore {item.entry.id} --scope user"
        else:
            where, restore = f".learnings/{item.archive_file}", f"self-improve restore {item.entry.id}"
        raise SelfImproveError(f"{item.entry.id} is archived in {where}: run `{restore}` first")
