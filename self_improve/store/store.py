"""The store: the only code that reads and writes ``.learnings/``.

Every write holds one exclusive lock (``.learnings/.lock``). A new entry is one fsynced append; a
change to an existing entry rewrites its file through a temp file and ``os.replace``. Either way
a SIGKILL leaves every file parseable and loses at most the entry being written.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from self_improve.store import config as config_mod
from self_improve.errors import SelfImproveError, UsageError
from self_improve.paths import LEARNINGS_DIR
from self_improve.paths import LAST_SESSION, STATE_DIR
from self_improve.store import occurrences as occ
from self_improve.store.entry import (
    ACTIVE_STATUSES,
    KINDS,
    LEARNING_CATEGORIES,
    PRIORITIES,
    STATUSES,
    Entry,
    LearningsFile,
    NewEntry,
    entry_offsets,
    parse_text,
    render_new,
)
from self_improve.store.ids import new_id
from self_improve.store.similarity import similarity, tokens
from self_improve.store.tasks import task_hash
from self_improve.store.trust import StoreDir, UntrustedStore, is_safe_listed, tree_problems

HEADERS: dict[str, str] = {
    "learning": "# Learnings\n\nCorrections, insights, and knowledge gaps captured during development.\n\n"
    "**Categories**: correction | insight | knowledge_gap | best_practice\n\n---\n",
    "error": "# Errors\n\nCommand failures and integration errors.\n\n---\n",
    "feature": "# Feature Requests\n\nCapabilities requested by the user.\n\n---\n",
}
GITIGNORE = "# self-improve: lock and state files stay local; everything else can be committed.\n.lock\n.state/\n*.tmp\n"
PRIORITY_RANK = {name: rank for rank, name in enumerate(PRIORITIES)}


@dataclass(frozen=True)
class LogRequest:
    kind: str
    summary: str
    pattern_key: str = ""
    category: str = ""
    priority: str = ""
    area: str = ""
    details: str = ""
    action: str = ""
    files: str = ""
    tags: str = ""
    source: str = ""
    session: str = ""
    excerpt: str = ""
    see_also: str = ""
    now: datetime | None = None
    # Who records it, for the provenance ledger: "hook", "import"; "" = the CLI (then "agent"
    # when it runs inside an agent session, else "cli").
    logged_by: str = ""


@dataclass(frozen=True)
class LogResult:
    entry_id: str
    created: bool
    recurrence_count: int
    tasks: int
    file: str

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "created": self.created,
            "merged": not self.created,
            "recurrence_count": self.recurrence_count,
            "tasks": self.tasks,
            "file": self.file,
        }


def utcnow() -> datetime:
    if fake := os.environ.get("SELF_IMPROVE_NOW"):  # a fixed clock, for tests and bench/replay.py
        return datetime.fromisoformat(fake).astimezone(timezone.utc).replace(microsecond=0)
    return datetime.now(timezone.utc).replace(microsecond=0)


def iso(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Store:
    def __init__(
        self, root: Path | str, config: dict[str, Any] | None = None, *, learnings_dir: Path | str | None = None
    ) -> None:
        self.root = Path(root).absolute()
        self.dir = Path(learnings_dir).absolute() if learnings_dir is not None else self.root / LEARNINGS_DIR
        self.state_dir = self.dir / STATE_DIR
        self.scope = "project" if learnings_dir is None else "user"
        self._config = config
        self._fs: StoreDir | None = None
        self._trusted = False

    @classmethod
    def user(cls) -> Store:
        """The user-wide store: lessons that belong to the user, not to one project.

        Its files live in the XDG data dir (``~/.local/share/self-improve/``); its root, for the
        paths it promotes to (``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``), is the home folder.
        """
        from self_improve.paths import user_data_dir

        return cls(Path.home(), learnings_dir=user_data_dir())

    # ---- configuration and layout ------------------------------------------------------------
    @property
    def config(self) -> dict[str, Any]:
        if self._config is None:
            self._config = config_mod.load(self.dir, trusted=self.scope == "user")
            if self.scope == "user":
                self._config = _user_scope_targets(self._config, config_mod.read_user_config(config_mod.config_path(self.dir)))
        return self._config

    def setting(self, key: str) -> Any:
        return config_mod.get(self.config, key)

    def exists(self) -> bool:
        return self.dir.is_dir()

    def file_for(self, kind: str) -> Path:
        if kind not in KINDS:
            raise UsageError(f"unknown kind {kind!r}: choose learning, error or feature")
        return self.dir / KINDS[kind][1]

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    @property
    def fs(self) -> StoreDir:
        """The store's files, opened without following links (``store/trust.py``)."""
        if self._fs is None:
            safe = config_mod.user_setting("trust.safe_directories")
            self._fs = StoreDir(str(self.dir), owner_ok=is_safe_listed(str(self.dir), safe if isinstance(safe, list) else []))
        return self._fs

    def name_of(self, path: Path) -> str:
        """``path`` relative to the store directory, for ``fs`` (``ERRORS.md``, ``archive/2026.md``)."""
        return Path(path).absolute().relative_to(self.dir).as_posix()

    def lock(self) -> Any:
        """The one exclusive lock every writer of this store holds."""
        return self.fs.lock(".lock")

    def read_file(self, name: str) -> str:
        """A store file's text ("" when absent); undecodable bytes survive through surrogateescape."""
        raw = self._guarded(lambda: self.fs.read(name))
        return raw.decode("utf-8", "surrogateescape") if raw else ""

    def write_file(self, name: str, text: str) -> None:
        self._guarded(lambda: self.fs.replace(name, text.encode("utf-8", "surrogateescape")))

    def _guarded(self, operation: Callable[[], Any]) -> Any:
        try:
            return operation()
        except UntrustedStore as exc:
            raise self._refusal(str(exc)) from None

    def _refusal(self, problem: str) -> SelfImproveError:
        shown = problem.replace(f"{self.root}{os.sep}", "") if self.scope == "project" else problem
        return SelfImproveError(f"refusing to use {self.relative(self.dir)}/: {shown} (see README, Trust)")

    def remove_file(self, name: str) -> None:
        """Delete a store file (a regular file only; absent is fine)."""
        self._guarded(lambda: self.fs.remove(name))

    def check_trusted(self) -> None:
        """The trust model, checked once per Store: the directory, then every file below it."""
        if self._trusted:
            return
        self._guarded(self.fs.check)
        problems = tree_problems(str(self.dir), owner_ok=self.fs.owner_ok)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise self._refusal(problems[0] + more)
        self._trusted = True

    def _require(self) -> None:
        if not self.dir.is_dir() and not self.dir.is_symlink():
            raise SelfImproveError(f"no {LEARNINGS_DIR}/ in {self.root}: run `self-improve init` first")
        self.check_trusted()

    # ---- init -------------------------------------------------------------------------------
    def init(self) -> list[Path]:
        """Create ``.learnings/`` and only the files that are missing. Never modifies a file."""
        created: list[Path] = []
        if not self.dir.is_dir() and not self.dir.is_symlink():
            self.dir.mkdir(parents=self.scope == "user")
            created.append(self.dir)
        self.check_trusted()  # a link (dangling or not) where the store should be is refused here
        wanted = [(self.file_for(kind), HEADERS[kind]) for kind in KINDS]
        wanted.append((self.dir / ".gitignore", GITIGNORE))
        with self.lock():
            for path, content in wanted:
                if self._guarded(lambda: self.fs.create(self.name_of(path), content.encode("utf-8"))):
                    created.append(path)
        return created

    # ---- reading -----------------------------------------------------------------------------
    def _read_text(self, path: Path) -> str:
        return self.read_file(self.name_of(path))

    def parse(self, kind: str) -> LearningsFile:
        path = self.file_for(kind)
        return parse_text(self._read_text(path), file=self.relative(path))

    def entries(self, kind: str | None = None) -> list[Entry]:
        kinds = [kind] if kind else list(KINDS)
        out: list[Entry] = []
        for name in kinds:
            out.extend(self.parse(name).entries)
        return out

    def find(self, entry_id: str) -> tuple[str, Entry] | None:
        wanted = entry_id.strip().upper()
        prefix = wanted.split("-", 1)[0]
        kinds = [k for k, (p, _) in KINDS.items() if p == prefix] or list(KINDS)
        for kind in kinds:
            for entry in self.parse(kind).entries:
                if entry.id.upper() == wanted:
                    return kind, entry
        return None

    def get(self, entry_id: str) -> Entry:
        found = self.find(entry_id)
        if found is None:
            raise SelfImproveError(f"unknown ID {entry_id!r} (see `self-improve list`)")
        return found[1]

    # ---- sessions seen by the hooks (hook_state writes the file, off the store's imports) ------
    def last_session(self) -> str:
        try:
            raw = self.fs.read(f"{STATE_DIR}/{LAST_SESSION}", limit=4096)
            return raw.decode("utf-8").strip() if raw else ""
        except (OSError, UnicodeDecodeError):
            return ""

    # ---- writing ---------------------------------------------------------------------------
    def _check_writable(self, path: Path) -> None:
        self._require()
        if not self.fs.is_file(self.name_of(path)):
            raise SelfImproveError(f"{self.relative(path)} is missing: run `self-improve init`")

    def log(self, request: LogRequest) -> LogResult:
        """The delta operation: merge one occurrence into a matching active entry, or append one;
        then note it in this machine's provenance ledger (``store/provenance.py``)."""
        from dataclasses import replace

        from self_improve.store import provenance

        now = request.now or utcnow()
        chosen_session = bool(request.session)  # `log --session X`: the caller chose the task
        request = replace(request, now=now, session=request.session or self.last_session())
        request = cleaned(request)
        result = self._log_delta(request)
        provenance.record(
            os.fspath(self.root), result.entry_id, now.strftime("%Y-%m-%d"), task_hash(request.session),
            request.logged_by, created=result.created, action=request.action, chosen_session=chosen_session,
        )
        return result

    def _log_delta(self, request: LogRequest) -> LogResult:
        _validate(request)
        path = self.file_for(request.kind)
        self._check_writable(path)
        if self.scope == "project":
            from self_improve.store.registry import note_project

            note_project(self.root)  # so review can see a Pattern-Key recurring across projects
        now = request.now or utcnow()
        session = request.session or self.last_session()
        occurrence = occ.Occurrence(now.strftime("%Y-%m-%d"), task_hash(session))
        name = self.name_of(path)
        with self.lock():
            text = self._read_text(path)
            scan = _FileScan(text, tokens(request.summary))
            match = self._find_match(scan, request)
            if match is not None:
                start, end = match
                entry = Entry(tuple(_split(text[start:end])), file=self.relative(path))
                updated = merge_occurrence(entry, request, occurrence, self.setting("log.max_occurrences"))
                self.write_file(name, text[:start] + updated.text + text[end:])
                return LogResult(updated.id, False, updated.recurrence_count, occ.distinct_tasks(updated.occurrences), self.relative(path))
            entry_id = new_id(request.kind, now, _IdsIn(text))
            eol = "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"
            see_also = request.see_also or self._related(scan)
            body = render_new(_new_entry(request, entry_id, now, occurrence, see_also), eol)
            prefix = ""
            if text and not text.endswith("\n"):
                prefix = eol + eol
            elif text and not text.endswith(eol + eol) and text.strip():
                prefix = eol
            self._guarded(lambda: self.fs.append(name, (prefix + body).encode("utf-8", "surrogateescape")))
            return LogResult(entry_id, True, 1, 1 if occurrence.task != "-" else 0, self.relative(path))

    def _find_match(self, scan: _FileScan, request: LogRequest) -> tuple[int, int] | None:
        """The span of the active entry this request merges into.

        Same Pattern-Key first; else a near-identical summary among active entries that have no
        Pattern-Key or the same one (so one summary logged twice never gives two entries).
        """
        key = request.pattern_key.strip()
        if key:
            for span, entry in scan.keyed(key):
                if entry.status in ACTIVE_STATUSES:
                    return span
        threshold = float(self.setting("log.similarity_threshold"))
        best: tuple[float, tuple[int, int]] | None = None
        for span, entry in scan.similar(threshold):
            if entry.status not in ACTIVE_STATUSES:
                continue
            if entry.pattern_key and entry.pattern_key.casefold() != key.casefold():
                continue
            score = similarity(scan.wanted, tokens(entry.summary))
            if score >= threshold and (best is None or score > best[0]):
                best = (score, span)
        return best[1] if best else None

    def _related(self, scan: _FileScan) -> str:
        """See Also for a new entry: the closest entry that is similar but below the merge threshold."""
        if len(scan.wanted) < 3:
            return ""
        scored = [(similarity(scan.wanted, tokens(entry.summary)), entry.id) for _, entry in scan.similar(RELATED_THRESHOLD)]
        return max(scored)[1] if scored else ""

    def with_pattern_key(self, kind: str, key: str) -> list[Entry]:
        """Entries of one kind with this Pattern-Key, in file order (no lock: a read)."""
        path = self.file_for(kind)
        found = _FileScan(self._read_text(path), frozenset()).keyed(key.strip())
        return [Entry(entry.lines, file=self.relative(path)) for _, entry in found]

    def update(self, entry_id: str, edit: Callable[[Entry], Entry]) -> Entry:
        """Apply ``edit`` to one entry under the lock and rewrite its file atomically."""
        found = self.find(entry_id)
        if found is None:
            raise SelfImproveError(f"unknown ID {entry_id!r} (see `self-improve list`)")
        kind = found[0]
        path = self.file_for(kind)
        self._check_writable(path)
        with self.lock():
            parsed = self.parse(kind)  # re-read under the lock: another writer may have been first
            for index, entry in enumerate(parsed.entries):
                if entry.id.upper() == found[1].id.upper():
                    break
            else:
                raise SelfImproveError(f"unknown ID {entry_id!r} (it vanished while we waited for the lock)")
            new = edit(entry)
            if new.text != entry.text:
                entries = list(parsed.entries)
                entries[index] = new
                self.write_file(self.name_of(path), LearningsFile(parsed.preamble, tuple(entries)).render())
            return new

    def remove_entries(self, kind: str, ids: Iterable[str]) -> list[Entry]:
        """Take entries out of their file (the caller has already written them elsewhere)."""
        wanted = {i.upper() for i in ids}
        path = self.file_for(kind)
        self._check_writable(path)
        with self.lock():
            parsed = self.parse(kind)
            kept = tuple(e for e in parsed.entries if e.id.upper() not in wanted)
            removed = [e for e in parsed.entries if e.id.upper() in wanted]
            if removed:
                self.write_file(self.name_of(path), LearningsFile(parsed.preamble, kept).render())
            return removed


# ---- helpers -------------------------------------------------------------------------------------

# The user store promotes into the harness's user-level file (relative to the home folder);
# `--target .codex/AGENTS.md` picks Codex's instead.
USER_SCOPE_TARGET = ".claude/CLAUDE.md"


def _user_scope_targets(config: dict[str, Any], user_file: dict[str, Any]) -> dict[str, Any]:
    chosen = user_file.get("targets", {}) if isinstance(user_file.get("targets"), dict) else {}
    targets = dict(config.get("targets", {}))
    for key in ("learning", "error", "feature", "workflow"):
        if key not in chosen:
            targets[key] = USER_SCOPE_TARGET
    return {**config, "targets": targets}



def _split(text: str) -> list[str]:
    from self_improve.store.entry import split_lines

    return split_lines(text)


RELATED_THRESHOLD = 0.5
# The summary is one line under "### Summary" (or "### Requested Capability" for features). The
# pattern starts with a literal newline so re can search for it at C speed (an entry's sections
# never start a file, so a match at offset 0 is not needed).
_SUMMARY_LINE = re.compile(r"(?i)\n###[ \t]+(?:Summary|Requested Capability)[ \t]*\r?\n(?:[ \t]*\r?\n)*([^\r\n]*)")


class _FileScan:
    """C-speed scans of one file's text, so that `log` never parses every entry of a large file.

    Entry boundaries (which need the fence-aware scan) are only computed once a candidate is hit.
    """

    def __init__(self, text: str, wanted: frozenset[str]) -> None:
        self.text = text
        self.wanted = wanted
        self._offsets: list[int] | None = None
        self._similar: list[tuple[float, int]] | None = None

    @property
    def offsets(self) -> list[int]:
        if self._offsets is None:
            self._offsets = entry_offsets(self.text)
        return self._offsets

    def entry_at(self, position: int) -> tuple[tuple[int, int], Entry] | None:
        offsets = self.offsets
        index = bisect.bisect_right(offsets, position) - 1
        if index < 0:
            return None
        span = (offsets[index], offsets[index + 1] if index + 1 < len(offsets) else len(self.text))
        return span, Entry(tuple(_split(self.text[span[0] : span[1]])))

    def keyed(self, key: str) -> list[tuple[tuple[int, int], Entry]]:
        """Entries whose metadata has this Pattern-Key."""
        out: list[tuple[tuple[int, int], Entry]] = []
        pattern = rf"(?im)^[-*][ \t]+Pattern-Key:[ \t]*{re.escape(key)}[ \t]*\r?$"
        for hit in re.finditer(pattern, self.text):
            found = self.entry_at(hit.start())
            if found is not None and (not out or out[-1][0] != found[0]):
                if found[1].pattern_key.casefold() == key.casefold():
                    out.append(found)
        return out

    def similar(self, threshold: float) -> list[tuple[tuple[int, int], Entry]]:
        """Entries whose summary line scores at least ``threshold`` (at least RELATED_THRESHOLD)."""
        if self._similar is None:
            self._similar = []
            required = _required_tokens(self.wanted, RELATED_THRESHOLD)
            for hit in _SUMMARY_LINE.finditer(self.text):
                line = hit.group(1)
                # re's IGNORECASE is not full case folding, and a non-ASCII character may fold
                # into an ASCII token ("ß" -> "ss"): only ASCII lines are pre-filtered.
                if required and line.isascii():
                    lowered = line.lower()
                    if not any(token in lowered for token in required):
                        continue
                score = similarity(self.wanted, tokens(line))
                if score >= RELATED_THRESHOLD:
                    self._similar.append((score, hit.start() + 1))
        out = []
        for score, position in self._similar:
            if score >= threshold and (found := self.entry_at(position)) is not None:
                out.append(found)
        return out


def _required_tokens(wanted: frozenset[str], threshold: float) -> tuple[str, ...]:
    """Tokens of which a summary reaching ``threshold`` must contain at least one: a cheap
    pre-filter before exact scoring. Jaccard >= t needs at least ceil(t*|A|) of the wanted
    tokens, so any |A| - ceil(t*|A|) + 1 of them must include one the candidate has
    (pigeonhole). () when a wanted token is not ASCII (then every line is scored)."""
    if not wanted or not all(token.isascii() for token in wanted):
        return ()
    need = math.ceil(threshold * len(wanted))
    return tuple(sorted(wanted, key=lambda t: (-len(t), t))[: len(wanted) - need + 1])


class _IdsIn:
    """``candidate in ids`` without listing every ID of a large file."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __contains__(self, candidate: object) -> bool:
        header = rf"##[ \t]+\[[ \t]*{re.escape(str(candidate))}[ \t]*\]"
        # "\n" first: a literal start lets re search at C speed instead of trying every line.
        return re.search(rf"(?i)\n{header}", self.text) is not None or re.match(rf"(?i){header}", self.text) is not None


_FREE_TEXT = ("summary", "details", "action", "excerpt", "area", "files", "tags", "source", "see_also", "category")


def clean_text(text: str) -> str:
    """What may be stored of a free text: lone surrogates replaced (so every file stays UTF-8),
    then every secret redacted (``detect/redact.py``). Idempotent."""
    from self_improve.detect.redact import redact
    from self_improve.detect.sanitise import without_surrogates

    return redact(without_surrogates(text))


def cleaned(request: LogRequest) -> LogRequest:
    """The request with every free-text field through ``clean_text``: whatever the agent or a
    hook passes, the store never keeps a secret, whichever field it came in."""
    from dataclasses import replace

    changes: dict[str, Any] = {name: clean_text(getattr(request, name)) for name in _FREE_TEXT if getattr(request, name)}
    return replace(request, **changes)


def _validate(request: LogRequest) -> None:
    if request.kind not in KINDS:
        raise UsageError(f"unknown kind {request.kind!r}: choose learning, error or feature")
    if not request.summary.strip():
        raise UsageError("the summary must not be empty")
    if "\n" in request.summary or "\r" in request.summary:
        raise UsageError("the summary must be one line")
    if request.priority and request.priority not in PRIORITIES:
        raise UsageError(f"invalid priority {request.priority!r}: choose {', '.join(PRIORITIES)}")
    if request.kind == "learning" and request.category and request.category not in LEARNING_CATEGORIES:
        raise UsageError(f"invalid category {request.category!r} for a learning: choose {', '.join(LEARNING_CATEGORIES)}")
    if request.pattern_key and not re.fullmatch(r"[A-Za-z0-9_.:/-]+", request.pattern_key):
        raise UsageError(f"invalid Pattern-Key {request.pattern_key!r}: use letters, digits and . _ - : /")
    for name in ("category", "area", "files", "tags", "source", "see_also"):
        value = getattr(request, name)
        if "\n" in value or "\r" in value:
            raise UsageError(f"--{name.replace('_', '-')} must be one line")


def _default_category(request: LogRequest) -> str:
    if request.category:
        return request.category
    if request.kind == "learning":
        return "insight"
    if request.kind == "error":
        return request.pattern_key or "command"
    return re.sub(r"[^a-z0-9]+", "_", request.summary.casefold()).strip("_")[:40] or "capability"


def _new_entry(request: LogRequest, entry_id: str, now: datetime, occurrence: occ.Occurrence, see_also: str) -> NewEntry:
    day = now.strftime("%Y-%m-%d")
    metadata: list[tuple[str, str]] = [
        ("Source", request.source or ("error" if request.kind == "error" else "conversation")),
    ]
    if request.files:
        metadata.append(("Related Files", request.files))
    if request.tags:
        metadata.append(("Tags", request.tags))
    if see_also:
        metadata.append(("See Also", see_also))
    if request.pattern_key:
        metadata.append(("Pattern-Key", request.pattern_key))
    if request.kind == "error":
        metadata.append(("Reproducible", "unknown"))
    if request.kind == "feature":
        metadata.append(("Frequency", "first_time"))
    metadata.extend(
        [
            ("Recurrence-Count", "1"),
            ("First-Seen", day),
            ("Last-Seen", day),
            ("Occurrences", occurrence.render()),
        ]
    )
    if request.excerpt and request.kind != "error":
        metadata.append(("Last-Excerpt", _one_line(request.excerpt)))
    return NewEntry(
        id=entry_id,
        category=_default_category(request),
        logged=iso(now),
        priority=request.priority or "medium",
        area=request.area,
        summary=request.summary.strip(),
        details=request.details,
        action=request.action,
        error_excerpt=request.excerpt,
        metadata=tuple(metadata),
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def is_fix_only(entry: Entry, request: LogRequest, occurrence: occ.Occurrence) -> bool:
    """A fix for the incident just recorded, not a new incident.

    The hook records each failure itself; when the agent then runs the printed
    ``self-improve log error --pattern-key K --action FIX`` in the same task on the same day, that
    call describes the same occurrence, so it adds the fix without counting again.
    """
    history = entry.occurrences
    return bool(request.action.strip()) and occurrence.task != "-" and bool(history) and history[-1] == occurrence


def merge_occurrence(entry: Entry, request: LogRequest, occurrence: occ.Occurrence, keep: int) -> Entry:
    """One more occurrence: count, Last-Seen, the task, and the new fix if one was given."""
    if is_fix_only(entry, request, occurrence):
        return _with_action(entry, request.action.strip())
    history = occ.add(entry.occurrences, occurrence, keep)
    count = entry.recurrence_count + 1
    first = min(filter(None, (entry.first_seen, occurrence.date)))
    last = max(filter(None, (entry.last_seen, occurrence.date)))
    updated = entry.with_metadata("Recurrence-Count", str(count))
    updated = updated.with_metadata("First-Seen", first).with_metadata("Last-Seen", last)
    updated = updated.with_metadata("Occurrences", ", ".join(o.render() for o in history))
    if request.excerpt:
        updated = updated.with_metadata("Last-Excerpt", _one_line(request.excerpt))
    if request.pattern_key and not updated.pattern_key:
        updated = updated.with_metadata("Pattern-Key", request.pattern_key)
    if request.kind == "feature" and updated.meta("Frequency"):
        updated = updated.with_metadata("Frequency", "recurring")
    if request.priority and PRIORITY_RANK.get(request.priority, -1) > PRIORITY_RANK.get(updated.priority, -1):
        updated = updated.with_field("Priority", request.priority)
    if request.action.strip():
        updated = _with_action(updated, request.action.strip())
    if request.see_also and request.see_also not in updated.see_also:
        joined = ", ".join((*updated.see_also, request.see_also))
        updated = updated.with_metadata("See Also", joined)
    return updated


def _with_action(entry: Entry, action: str) -> Entry:
    """Record a fix: fill an empty action section, or add the new fix as its latest line."""
    titles = {"learning": "Suggested Action", "error": "Suggested Fix", "feature": "Suggested Implementation"}
    section = entry.section(*titles.values())
    title = section.title if section is not None else titles.get(entry.kind, "Suggested Action")
    current = entry.section_text(title).strip()
    if current == action or action in current.splitlines():
        return entry
    body = action.splitlines() if not current else [*current.splitlines(), *action.splitlines()]
    return entry.with_section(title, body)


def latest_action(entry: Entry) -> str:
    """The newest fix line of an entry (fixes added by ``log --action`` accumulate, newest last)."""
    lines = [line.strip() for line in entry.suggested_action.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def validate_status(status: str) -> str:
    if status not in STATUSES:
        raise UsageError(f"invalid status {status!r}: choose {', '.join(STATUSES)}")
    return status
