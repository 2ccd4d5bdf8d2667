"""Bulk writes to the store: importing entries exported from another store (``self-improve import``).

One import holds the store's lock for its whole run and rewrites each changed file once, through
``atomic_write``: a crash leaves every file as it was before or as it is after.

Each imported entry, in the order given, goes to the first rule that applies:

1. **Already here** -> unchanged. "Here" means an entry with the same ID whose content is the
   same (compared by :func:`entry_digest`: line endings and the trailing ``---`` do not count), or
   any entry whose ``- Imported-From:`` line records this exact version (``ID@digest``).
2. **Same ID** -> folded into that entry (:func:`self_improve.store.merge.absorb_entry` with
   ``same_entry=True``: occurrences are a union, counts never double count, status moves forward).
3. **Archived here** (same ID in ``archive/*.md``) and bringing no occurrence the archived copy
   lacks -> unchanged: someone closed it here, and an import must not bring it back. With new
   occurrences it is a recurrence, and goes on like a new ``log``:
4. **Same Pattern-Key, or a near-identical summary**, in an active entry of that kind (exactly the
   matching ``log`` does) -> folded into it as more occurrences.
5. Otherwise **appended verbatim**, keeping its ID unless the ID is taken (archived, say); then it
   gets a new ID.

Whenever rule 2 or 4 changes an entry, or rule 5 has to re-ID one, the receiving entry records
``ID@digest`` of the imported version in ``- Imported-From:`` (the last 20 are kept). That line
is what makes importing the same export twice change nothing the second time, even when the
store's occurrence bound made the first import lossy. An entry appended under its own ID needs no
record: rule 1 recognises it by content.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from self_improve.detect.pattern_keys import folded
from self_improve.errors import SelfImproveError
from self_improve.store.archive import archive_dir
from self_improve.store.merge import absorb_entry
from self_improve.store.entry import (
    ACTIVE_STATUSES,
    ID_PATTERN,
    KINDS,
    Entry,
    LearningsFile,
    eol_of,
    parse_text,
    split_lines,
    strip_eol,
)
from self_improve.store.ids import new_id
from self_improve.store.record import clean_text, utcnow
from self_improve.store.scan import closest
from self_improve.store.similarity import tokens
from self_improve.store.store import Store

IMPORTED_FROM = "Imported-From"
KEEP_PROVENANCE = 20


@dataclass(frozen=True)
class ImportOutcome:
    """What happened to one imported entry."""

    source_id: str
    action: str  # "appended" | "merged" | "unchanged"
    entry_id: str  # the local entry it landed in
    reason: str = ""

    def as_json(self) -> dict[str, str]:
        return {"source_id": self.source_id, "action": self.action, "entry_id": self.entry_id, "reason": self.reason}


def entry_digest(entry: Entry) -> str:
    """A name for one version of an entry: its content lines, not its line endings or separator."""
    bare = [strip_eol(line).rstrip() for line in entry.lines[: entry.body_end]]
    return hashlib.sha256("\n".join(bare).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def provenance_token(entry: Entry) -> str:
    return f"{entry.id}@{entry_digest(entry)}"


def provenance(entry: Entry) -> tuple[str, ...]:
    return tuple(token for token in re.split(r"[\s,]+", entry.meta(IMPORTED_FROM)) if token)


def with_provenance(entry: Entry, token: str) -> Entry:
    tokens_now = [t for t in provenance(entry) if t != token]
    return entry.with_metadata(IMPORTED_FROM, ", ".join([*tokens_now, token][-KEEP_PROVENANCE:]))


def with_id(entry: Entry, entry_id: str) -> Entry:
    """The entry under another ID: only the ID inside the header's brackets changes."""
    first = entry.lines[0]
    bare = strip_eol(first)
    start, end = bare.index("[") + 1, bare.index("]")
    lines = (bare[:start] + entry_id + bare[end:] + eol_of(first), *entry.lines[1:])
    return Entry(lines, file=entry.file, line=entry.line)


def _cleaned_entry(entry: Entry) -> Entry:
    text = clean_text(entry.text)
    return entry if text == entry.text else Entry(tuple(split_lines(text)), file=entry.file)


def validate(entries: Sequence[Entry]) -> None:
    """Refuse the whole import before writing anything if one entry has no usable ID."""
    for entry in entries:
        if not ID_PATTERN.match(entry.id) or entry.kind not in KINDS:
            raise SelfImproveError(
                f"cannot import entry {entry.id or '(no ID)'!r}: expected an ID like LRN-20260301-a7b (LRN, ERR or FEAT)"
            )


@dataclass
class _KindFile:
    """One learnings file being edited in memory during an import."""

    path: Path
    preamble: tuple[str, ...]
    entries: list[Entry]
    original: str
    eol: str = "\n"

    def render(self) -> str:
        return LearningsFile(self.preamble, tuple(self.entries)).render()

    def append(self, entry: Entry) -> None:
        """As ``Store.log`` appends: a blank line before the new entry, which ends with a newline."""
        text = self.render()
        separator = ""
        if text and not text.endswith("\n"):
            separator = self.eol + self.eol
        elif text.strip() and not text.endswith(self.eol + self.eol):
            separator = self.eol
        if separator:
            if self.entries:
                last = self.entries[-1]
                self.entries[-1] = Entry(tuple(split_lines(last.text + separator)), file=last.file)
            else:
                self.preamble = tuple(split_lines("".join(self.preamble) + separator))
        body = entry.text if entry.text.endswith("\n") else entry.text + self.eol
        self.entries.append(Entry(tuple(split_lines(body)), file=entry.file))


class _Importer:
    def __init__(self, store: Store, now: datetime) -> None:
        self.store = store
        self.now = now
        self.keep = int(store.setting("log.max_occurrences"))
        self.threshold = float(store.setting("log.similarity_threshold"))
        self.files: dict[str, _KindFile] = {}
        self.archived = _archived_entries(store, archive_dir(store))

    def file(self, kind: str) -> _KindFile:
        if kind not in self.files:
            path = self.store.file_for(kind)
            self.store._check_writable(path)  # the store's own refusals: missing file, symlink outside
            text = self.store._read_text(path)
            parsed = parse_text(text, file=self.store.relative(path))
            eol = "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"
            self.files[kind] = _KindFile(path, parsed.preamble, list(parsed.entries), text, eol)
        return self.files[kind]

    def taken(self) -> set[str]:
        ids = {entry.id.upper() for kind in KINDS for entry in self.file(kind).entries}
        return ids | set(self.archived)

    def add(self, incoming: Entry) -> ImportOutcome:
        kind = incoming.kind
        target = self.file(kind)
        token = provenance_token(incoming)
        digest = entry_digest(incoming)
        for entry in target.entries:
            if token in provenance(entry):
                return ImportOutcome(incoming.id, "unchanged", entry.id, "already imported")
        same_id = [n for n, entry in enumerate(target.entries) if entry.id.upper() == incoming.id.upper()]
        if same_id:
            index = same_id[0]
            local = target.entries[index]
            if entry_digest(local) == digest:
                return ImportOutcome(incoming.id, "unchanged", local.id, "same content")
            return self._fold(target, index, incoming, token, same_entry=True)
        archived = self.archived.get(incoming.id.upper())
        if archived is not None and not Counter(incoming.occurrences) - Counter(archived.occurrences):
            return ImportOutcome(incoming.id, "unchanged", archived.id, "archived here")
        match = self._match(target.entries, incoming)
        if match is not None:
            return self._fold(target, match, incoming, token, same_entry=False)
        entry = incoming
        reason = ""
        if incoming.id.upper() in self.taken():
            entry = with_provenance(with_id(incoming, new_id(kind, self.now, self.taken())), token)
            reason = f"ID {incoming.id} is taken"
        target.append(entry)
        return ImportOutcome(incoming.id, "appended", entry.id, reason)

    def _fold(self, target: _KindFile, index: int, incoming: Entry, token: str, *, same_entry: bool) -> ImportOutcome:
        local = target.entries[index]
        merged = absorb_entry(local, incoming, same_entry=same_entry, keep=self.keep)
        if merged.text == local.text:
            return ImportOutcome(incoming.id, "unchanged", local.id, "nothing new")
        target.entries[index] = with_provenance(merged, token)
        how = "same ID" if same_entry else "same Pattern-Key" if local.pattern_key and incoming.pattern_key else "similar summary"
        return ImportOutcome(incoming.id, "merged", local.id, how)

    def _match(self, entries: Sequence[Entry], incoming: Entry) -> int | None:
        """The active entry ``log`` would merge this one into: Pattern-Key first, then the summary."""
        key = folded(incoming.pattern_key)  # the same key in any spelling (``detect/pattern_keys.py``)
        active = [(n, entry) for n, entry in enumerate(entries) if entry.status in ACTIVE_STATUSES]
        if key:
            for n, entry in active:
                if folded(entry.pattern_key) == key:
                    return n
        return closest(active, tokens(incoming.summary), incoming.pattern_key, self.threshold)

    def write(self) -> list[Path]:
        written = []
        for kind_file in self.files.values():
            text = kind_file.render()
            if text != kind_file.original:
                self.store.write_file(self.store.name_of(kind_file.path), text)
                written.append(kind_file.path)
        return written


def _archived_entries(store: Store, archive: Path) -> dict[str, Entry]:
    """Archived entries by upper-case ID (read only: the archive module owns that directory)."""
    found: dict[str, Entry] = {}
    if not archive.is_dir():
        return found
    for path in sorted(archive.glob("*.md")):
        text = store.read_file(store.name_of(path))
        for entry in parse_text(text).entries:
            found.setdefault(entry.id.upper(), entry)
    return found


def import_entries(
    store: Store, incoming: Iterable[Entry], *, dry_run: bool = False, now: datetime | None = None
) -> tuple[ImportOutcome, ...]:
    """Merge each entry into the store (module docstring); one lock, one atomic write per file.

    Imported text is somebody else's: each entry's lines go through the store's ``clean_text``
    (secrets redacted, surrogates replaced) before anything is merged.
    """
    entries = [_cleaned_entry(entry) for entry in incoming]
    validate(entries)
    store._require()
    with store.lock():
        importer = _Importer(store, now or utcnow())
        outcomes = tuple(importer.add(entry) for entry in entries)
        if not dry_run:
            importer.write()
    return outcomes
