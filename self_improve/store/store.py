"""The store: the only code that reads and writes ``.learnings/``.

Every write holds one exclusive lock (``.learnings/.lock``). A new entry is one fsynced append; a
change to an existing entry rewrites its file through a temp file and ``os.replace``. Either way
a SIGKILL leaves every file parseable and loses at most the entry being written.
"""

from __future__ import annotations

import os


from self_improve.errors import SelfImproveError, UsageError
from self_improve.paths import LAST_SESSION, LEARNINGS_DIR, STATE_DIR
from self_improve.store import config as config_mod
from self_improve.store.delta import log_delta
from self_improve.store.entry import KINDS, Entry, LearningsFile, parse_text
from self_improve.store.ids import MIN_ID_SUFFIX, match_id, unknown_id
from self_improve.store.record import (
    LogRequest,
    LogResult,
    clean_text,
    cleaned,
    iso,
    latest_action,
    merge_occurrence,
    utcnow,
    validate,
)
from self_improve.store.scan import FileScan
from self_improve.store.tasks import task_hash
from self_improve.store.trust import StoreDir, UntrustedStore, is_safe_listed, tree_problems

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks record through here: pathlib and typing stay off their hot path
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

# Imported from here by the rest of the package and its tests.
__all__ = [
    "GITIGNORE", "HEADERS", "MIN_ID_SUFFIX", "LogRequest", "LogResult", "Store", "USER_SCOPE_TARGET", "clean_text", "iso",
    "latest_action", "match_id", "merge_occurrence", "projects_with_key", "task_hash", "unknown_id", "utcnow",
]

HEADERS: dict[str, str] = {
    "learning": "# Learnings\n\nCorrections, insights, and knowledge gaps captured during development.\n\n"
    "**Categories**: correction | insight | knowledge_gap | best_practice\n\n---\n",
    "error": "# Errors\n\nCommand failures and integration errors.\n\n---\n",
    "feature": "# Feature Requests\n\nCapabilities requested by the user.\n\n---\n",
}
GITIGNORE = "# self-improve: lock and state files stay local; everything else can be committed.\n.lock\n.state/\n*.tmp\n"


class Store:
    def __init__(
        self,
        root: Path | str,
        config: dict[str, Any] | None = None,
        *,
        learnings_dir: Path | str | None = None,
        fs: StoreDir | None = None,
    ) -> None:
        """``fs``: the store directory, already opened (and checked) by the caller, such as a hook
        that found it; by default it is opened on first use, trusting the user's safe directories.

        The paths are kept as text (what ``str(Path(...).absolute())`` gives); ``root``, ``dir``
        and ``state_dir`` make them ``Path`` objects on first use, so that a hook recording a
        failure never imports ``pathlib``."""
        self._root = _absolute(root)
        self._dir = _absolute(learnings_dir) if learnings_dir is not None else _join(self._root, LEARNINGS_DIR)
        self._paths: dict[str, Path] = {}
        self.scope = "project" if learnings_dir is None else "user"
        self._config = config
        self._fs = fs
        self._trusted = False

    @classmethod
    def user(cls) -> Store:
        """The user-wide store: lessons that belong to the user, not to one project.

        Its files live in the XDG data dir (``~/.local/share/self-improve/``); its root, for the
        paths it promotes to (``~/.claude/CLAUDE.md``, ``~/.codex/AGENTS.md``), is the home folder.
        """
        from self_improve.paths import user_data_dir

        from pathlib import Path

        return cls(Path.home(), learnings_dir=user_data_dir())

    @property
    def root(self) -> Path:
        return self._path("root", self._root)

    @property
    def dir(self) -> Path:
        return self._path("dir", self._dir)

    @property
    def state_dir(self) -> Path:
        return self._path("state_dir", _join(self._dir, STATE_DIR))

    def _path(self, name: str, text: str) -> Path:
        found = self._paths.get(name)
        if found is None:
            from pathlib import Path

            found = self._paths[name] = Path(text)
        return found

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
        return self.dir / self._file_name(kind)

    def _file_name(self, kind: str) -> str:
        """The file of ``kind`` as ``fs`` names it (``ERRORS.md``)."""
        if kind not in KINDS:
            raise UsageError(f"unknown kind {kind!r}: choose learning, error or feature")
        return KINDS[kind][1]

    def _relative_name(self, name: str) -> str:
        """``self.relative(self.dir / name)`` by string operations (the same lexical rule)."""
        full = _join(self._dir, name)
        if self._root == os.sep:
            return full[len(os.sep):]
        return full[len(self._root) + len(os.sep):] if full.startswith(self._root + os.sep) else full

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
            self._fs = StoreDir(self._dir, owner_ok=is_safe_listed(self._dir, safe if isinstance(safe, list) else []))
        return self._fs

    def name_of(self, path: Path) -> str:
        """``path`` relative to the store directory, for ``fs`` (``ERRORS.md``, ``archive/2026.md``)."""
        from pathlib import Path

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

    def _guarded(self, operation: Callable[..., Any], *args: Any) -> Any:
        try:
            return operation(*args)
        except UntrustedStore as exc:
            raise self._refusal(str(exc)) from None

    def _refusal(self, problem: str) -> SelfImproveError:
        shown = problem.replace(f"{self._root}{os.sep}", "") if self.scope == "project" else problem
        return SelfImproveError(f"refusing to use {self.relative(self.dir)}/: {shown} (see README, Trust)")

    def remove_file(self, name: str) -> None:
        """Delete a store file (a regular file only; absent is fine)."""
        self._guarded(lambda: self.fs.remove(name))

    def check_trusted(self) -> None:
        """The trust model, checked once per Store: the directory, then every file below it."""
        if self._trusted:
            return
        self._guarded(self.fs.check)
        problems = tree_problems(self._dir, owner_ok=self.fs.owner_ok)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise self._refusal(problems[0] + more)
        self._trusted = True

    def _require(self) -> None:
        if not os.path.isdir(self._dir) and not os.path.islink(self._dir):
            if self.scope == "user":  # created on first use (commands/_common.store_from), but not by a dry run
                raise SelfImproveError(f"no user store in {self._dir} yet: the first command that is not a dry run creates it")
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
                if self._guarded(self.fs.create, self.name_of(path), content.encode("utf-8")):
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
        if not wanted:
            return None  # entries without an ID (dated, cut-off headers) are never found by one
        prefix = wanted.split("-", 1)[0]
        kinds = [k for k, (p, _) in KINDS.items() if p == prefix] or list(KINDS)
        for kind in kinds:
            for entry in self.parse(kind).entries:
                if entry.id.upper() == wanted:
                    return kind, entry
        return None

    def get(self, entry_id: str) -> Entry:
        """The entry ``entry_id`` names (exactly, else as a unique suffix: :func:`match_id`)."""
        found = self.find(entry_id)
        if found is None:
            full = match_id(entry_id, [entry.id for entry in self.entries()])
            found = self.find(full) if full is not None else None
        if found is None:
            raise unknown_id(entry_id)
        return found[1]

    # ---- the session the hooks saw last (``hooks/state.py`` writes the file) ----------------------
    def last_session(self) -> str:
        try:
            raw = self.fs.read(f"{STATE_DIR}/{LAST_SESSION}", limit=4096)
            return raw.decode("utf-8").strip() if raw else ""
        except (OSError, UnicodeDecodeError):
            return ""

    # ---- writing ---------------------------------------------------------------------------
    def _check_writable(self, path: Path) -> None:
        self._check_file(self.name_of(path))

    def _check_file(self, name: str) -> None:
        """``_check_writable`` for a store file named as ``fs`` names it (``ERRORS.md``)."""
        self._require()
        if not self.fs.is_file(name):
            raise SelfImproveError(f"{self._relative_name(name)} is missing: run `self-improve init`")

    def log(self, request: LogRequest) -> LogResult:
        """The delta operation: merge one occurrence into a matching active entry, or append one;
        then note it in this machine's provenance ledger (``store/provenance.py``)."""
        from self_improve.store import provenance

        now = request.now or utcnow()
        chosen_session = bool(request.session)  # `log --session X`: the caller chose the task
        request = request._replace(now=now, session=request.session or self.last_session())
        request = cleaned(request)
        result = self._log_delta(request)
        provenance.record(
            self._root, result.entry_id, now.strftime("%Y-%m-%d"), task_hash(request.session),
            request.logged_by, created=result.created, action=request.action, chosen_session=chosen_session,
        )
        return result

    def log_preview(self, request: LogRequest) -> tuple[LogResult, str, str]:
        """What :meth:`log` would do, with the file's text before and after (``log --dry-run``).

        Writes nothing at all: no lock file, no provenance ledger, no project registry. The ID of
        a new entry is one that would be free; the real run draws its own."""
        now = request.now or utcnow()
        request = cleaned(request._replace(now=now, session=request.session or self.last_session()))
        validate(request)
        name = self._file_name(request.kind)
        self._check_file(name)
        text = self.read_file(name)
        result, replaced, appended = self._delta(request, text, name)
        return result, text, replaced if replaced is not None else text + appended

    def _log_delta(self, request: LogRequest) -> LogResult:
        validate(request)
        name = self._file_name(request.kind)
        self._check_file(name)
        if self.scope == "project":
            from self_improve.store.projects import note_project

            note_project(self._root)  # so review can see a Pattern-Key recurring across projects
        with self.lock():
            result, replaced, appended = self._delta(request, self.read_file(name), name)
            if replaced is not None:
                self.write_file(name, replaced)
            else:
                self._guarded(lambda: self.fs.append(name, appended.encode("utf-8", "surrogateescape")))
            return result

    def _delta(self, request: LogRequest, text: str, name: str) -> tuple[LogResult, str | None, str]:
        """``store/delta.log_delta`` of ``request`` into this store's file ``name`` holding ``text``."""
        request = request._replace(now=request.now or utcnow(), session=request.session or self.last_session())
        return log_delta(
            request, text, self._relative_name(name),
            max_occurrences=self.setting("log.max_occurrences"),
            similarity_threshold=float(self.setting("log.similarity_threshold")),
        )

    def with_pattern_key(self, kind: str, key: str) -> list[Entry]:
        """Entries of one kind with this Pattern-Key, in file order (no lock: a read)."""
        name = self._file_name(kind)
        found = FileScan(self.read_file(name), frozenset()).keyed(key.strip())
        relative = self._relative_name(name)
        return [Entry(entry.lines, file=relative) for _, entry in found]

    def note_fix_written_here(self, entry_id: str, day: str, text: str) -> None:
        """Note in this machine's provenance ledger that ``text`` was written on ``entry_id`` here
        (the hooks' observed fix): ``review --yes`` promotes only fixes written on this machine.
        Under the unknown task, so the line proves the text and never an occurrence."""
        from self_improve.store import provenance

        provenance.record(self._root, entry_id, day, "-", "hook", created=False, action=text)

    def update(self, entry_id: str, edit: Callable[[Entry], Entry]) -> Entry:
        """Apply ``edit`` to one entry under the lock and rewrite its file atomically.

        By file name, as ``log`` writes, never through ``pathlib``: the hooks call it too (an
        observed fix, measured credit), and their path must stay light."""
        wanted = entry_id.strip().upper()
        if not wanted:
            raise SelfImproveError("an entry ID is needed (see `self-improve list`)")
        prefix = wanted.split("-", 1)[0]
        for kind in [k for k, (p, _) in KINDS.items() if p == prefix] or list(KINDS):
            name = self._file_name(kind)
            if wanted not in self.read_file(name).upper():
                continue
            self._check_file(name)
            with self.lock():
                parsed = parse_text(self.read_file(name), file=self._relative_name(name))  # re-read under the lock
                index = next((n for n, entry in enumerate(parsed.entries) if entry.id.upper() == wanted), None)
                if index is None:
                    continue  # only mentioned (a See Also), or it vanished while we waited for the lock
                entry = parsed.entries[index]
                new = edit(entry)
                if new.text != entry.text:
                    entries = list(parsed.entries)
                    entries[index] = new
                    self.write_file(name, LearningsFile(parsed.preamble, tuple(entries)).render())
                return new
        raise SelfImproveError(f"unknown ID {entry_id!r} (see `self-improve list`)")


def _absolute(path: Path | str) -> str:
    """``str(Path(path).absolute())``; without importing ``pathlib`` for a path that is absolute
    and already in the form ``Path`` gives it (no ``.``, ``..``, ``//`` or trailing separator)."""
    if isinstance(path, str) and os.sep == "/" and path.startswith("/") and not path.startswith("//"):
        if os.path.normpath(path) == path:
            return path
    from pathlib import Path

    return str(Path(path).absolute())


def _join(directory: str, name: str) -> str:
    """``str(Path(directory) / name)`` for a directory as ``_absolute`` gives it and a plain name."""
    return directory + name if directory.endswith(os.sep) else directory + os.sep + name


# ---- the user store, and other stores -------------------------------------------------------------------------------------

# The user store promotes into a rules file of ours that Claude Code loads for every project
# (relative to the home folder), never into the user's own ~/.claude/CLAUDE.md (rules already
# there stay there); `--target .codex/AGENTS.md` picks Codex's instead.
USER_SCOPE_TARGET = ".claude/rules/self-improve.md"


def _user_scope_targets(config: dict[str, Any], user_file: dict[str, Any]) -> dict[str, Any]:
    chosen = user_file.get("targets", {}) if isinstance(user_file.get("targets"), dict) else {}
    targets = dict(config.get("targets", {}))
    for key in ("learning", "error", "feature", "workflow"):
        if key not in chosen:
            targets[key] = USER_SCOPE_TARGET
    return {**config, "targets": targets}


def projects_with_key(kind: str, pattern_key: str, exclude: Path) -> list[Path]:
    """Other registered projects (``registry``) whose store has an entry of this kind with this
    Pattern-Key.

    Each store is checked against the trust model first; one that breaks it, or that cannot be
    read at once (a FIFO is refused, never waited on), is skipped.
    """
    from self_improve.store.projects import known_projects

    found = []
    here = exclude.resolve()
    for root in known_projects():
        if root.resolve() == here:
            continue
        try:
            store = Store(root)
            store.check_trusted()
            if store.with_pattern_key(kind, pattern_key):
                found.append(root)
        except (OSError, ValueError, SelfImproveError):
            continue
    return found
