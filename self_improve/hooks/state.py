"""What the hooks remember between calls, and their side of the store.

- Per-session state (prompt counter, last reminder, errors since it) lives in
  ``.learnings/.state/sessions/<task>.json``, updated under ``.learnings/.state/.lock`` because
  the harness may run several hook processes at once. Sessions untouched for
  ``state.session_ttl_days`` are pruned.
- Counters of every nudge fired live in ``.learnings/.state/counters.json`` (``store/counters``,
  shared with the CLI's action counters); ``stats`` reads them.
- A detected failure is recorded by ``store/detections.record_detection``, as the OpenClaw
  watcher records one; then its known fix, if any, is recalled (:meth:`Context.record_error`).
- A detected correction is queued in ``.learnings/.state/corrections.jsonl``
  (``store/correction_queue``: a redacted excerpt, the session, the day; bounded), under the
  same lock, until a lesson is logged for it (:meth:`Context.queue_correction`).
- Without ``.learnings/`` the hooks stay out, unless the user-level config
  (``$XDG_CONFIG_HOME/self-improve/config.toml``) sets ``hooks.enabled_without_learnings``; then
  state goes to ``$XDG_STATE_HOME/self-improve/`` and nothing is recorded.

Every file of a project's store is opened through ``store/trust.py`` (no links, regular files
only, owned by the user); a store that breaks the trust model makes the hooks do nothing, with
one line in the debug log. The project's config is filtered by ``settings``: personal
settings (reminder mode, injection sizes, TTLs, rules with titles) come from the user's own
config only.

The store itself, with its heavier imports, is loaded only once there is something to record.
"""

from __future__ import annotations

import os
import time

from self_improve.events import Frozen
from self_improve.hooks.budget import BUDGET, parse_json
from self_improve.paths import (
    LAST_SESSION,
    LEARNINGS_DIR,
    STATE_DIR,
    user_config_path,
    user_state_dir,
)
from self_improve.store.trust import StoreDir, UntrustedStore, find_store_root, is_safe_listed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime
    from typing import Any

    from self_improve.detect.classify import Detection
    from self_improve.detect.corrections import CorrectionHit
    from self_improve.events import ToolResult
    from self_improve.store.store import Store

MAX_RECALLED_ID = 30  # TYPE-YYYYMMDD- plus a suffix of up to 16; a longer ID is nobody's we wrote


class Fix(Frozen):
    """A known fix: the entry it comes from, the day that entry was logged, and the fix's text
    (sanitised: ``sanitise.inline``)."""

    __slots__ = ("entry_id", "logged", "text")
    entry_id: str
    logged: str
    text: str

    def __init__(self, entry_id: str, logged: str, text: str) -> None:
        self._set(entry_id, logged, text)


class Seen(Frozen):
    """Occurrences of a fingerprint so far, this one included (0: not recorded), its fix, and
    the entry this occurrence was recorded on ("" when none was)."""

    __slots__ = ("count", "sessions", "fix", "entry_id")
    count: int
    sessions: int
    fix: Fix | None
    entry_id: str

    def __init__(self, count: int, sessions: int, fix: Fix | None, entry_id: str = "") -> None:
        self._set(count, sessions, fix, entry_id)


class Decision(Frozen):
    """Whether this prompt gets the reminder, and whether it is the session's first."""

    __slots__ = ("remind", "first")
    remind: bool
    first: bool

    def __init__(self, remind: bool, first: bool = False) -> None:
        self._set(remind, first)


MAX_CONFIG_BYTES = 256 * 1024  # a config larger than this is not ours to parse on a hot path


def _parse_toml(raw: bytes | None) -> dict[str, Any]:
    if not raw:
        return {}
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return {}  # a corrupt config must not break a hook: fall back to defaults


def _read_user_toml(path: str) -> dict[str, Any]:
    """The user's own config (a path of theirs: read as a regular file, never a FIFO)."""
    if not os.path.isfile(path):
        return {}
    from self_improve import atomic

    try:
        fd = atomic.open_dir(os.path.dirname(path))
    except OSError:
        return {}
    try:
        return _parse_toml(atomic.read_at(fd, os.path.basename(path), MAX_CONFIG_BYTES))
    except OSError:
        return {}
    finally:
        os.close(fd)


def effective_config(user: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """The user's config overlaid with what the project's may set (``settings``)."""
    if not user and not project:
        return {}  # no config at all, the common case: every setting is its default
    from self_improve.store import settings

    merged: dict[str, Any] = {}
    settings.overlay_user(merged, user)
    settings.overlay_project(merged, project)
    return merged


def _setting(config: dict[str, Any], dotted: str) -> Any:
    """A setting of the effective config, or its default from the one table when it is missing or
    of the wrong type (``store/settings.py``)."""
    from self_improve.store.settings import default as default_of

    default = default_of(dotted)
    section, _, name = dotted.partition(".")
    table = config.get(section)
    value = table.get(name, default) if isinstance(table, dict) else default
    return value if type(value) is type(default) else default


def is_session_file_name(name: str) -> bool:
    """A name ``session_file_name`` can produce: the only files pruning may delete."""
    stem, dot, ext = name.rpartition(".")
    return bool(dot) and ext == "json" and 0 < len(stem) <= 80 and all(
        ch.isascii() and (ch.isalnum() or ch in "-_") for ch in stem
    )


def session_file_name(session: str) -> str:
    """The session id itself where it is a plain id (Claude's are UUIDs), so no hash is needed."""
    safe = "".join(ch for ch in session if ch.isascii() and (ch.isalnum() or ch in "-_"))[:80]
    return f"{safe or '-'}.json"


class Context:
    """One hook call's view of its project: the store (if any), its config and the state dir.

    ``fs`` is the directory the state lives in, opened without following links: the project's
    ``.learnings/`` (state under ``.state/``), or the user's state dir when the hooks act without
    a store. ``state`` is the prefix of the state files inside it.
    """

    def __init__(self, root: str | None, session: str, fs: StoreDir, state: str, config: dict[str, Any]) -> None:
        self.root = root
        self.session = session
        self.fs = fs
        self.state = state
        self.config = config
        self._held: dict[str, int] | None = None  # counts ``bump`` holds for the next write (hold_counts)

    @property
    def state_dir(self) -> str:
        return os.path.join(self.fs.path, self.state) if self.state else self.fs.path

    @classmethod
    def for_cwd(cls, cwd: str, session: str) -> Context | None:
        root = find_store_root(cwd) if cwd and os.path.isabs(cwd) else None
        user_config = _read_user_toml(user_config_path())
        if root is not None:
            # Without a [trust] table nothing is safe-listed; the table of settings (its import
            # is a cost on every call) is read only when there is one.
            safe = _setting(user_config, "trust.safe_directories") if "trust" in user_config else []
            fs = StoreDir(os.path.join(root, LEARNINGS_DIR), owner_ok=is_safe_listed(os.path.join(root, LEARNINGS_DIR), safe))
            try:
                fs.check_top_level()
                project = _parse_toml(fs.read("config.toml", limit=MAX_CONFIG_BYTES))
            except (UntrustedStore, OSError) as exc:
                note_untrusted(fs.path, str(exc))
                return None
            return cls(root, session, fs, STATE_DIR + "/", effective_config(user_config, project))
        if _setting(user_config, "hooks.enabled_without_learnings"):
            state = user_state_dir()
            os.makedirs(state, exist_ok=True)
            return cls(None, session, StoreDir(state), "", effective_config(user_config, {}))
        return None

    def setting(self, dotted: str) -> Any:
        return _setting(self.config, dotted)

    def detect_overrides(self) -> dict[str, Any] | None:
        table = self.config.get("detect")
        return table if isinstance(table, dict) else None

    # ---- store side ----------------------------------------------------------------------------
    def store(self) -> Store | None:
        from self_improve.store import config as config_mod
        from self_improve.store.store import Store

        if self.root is None:
            return None
        merged = config_mod.defaults()
        for section, table in self.config.items():
            if isinstance(table, dict):
                merged.setdefault(section, {}).update(table)
        store = Store(self.root, config=merged, fs=self.fs)  # the directory this hook already checked
        return store

    def remember_session(self) -> None:
        """So that a later ``self-improve log`` without --session counts in this session's task."""
        if self.root is None or not self.session:
            return
        name = self.state + LAST_SESSION
        try:
            if self.fs.read(name, limit=4096) == self.session.encode("utf-8", "replace"):
                return
        except (OSError, UntrustedStore):
            pass
        self.fs.replace(name, self.session.encode("utf-8", "replace"), durable=False)

    def record_error(self, detection: Detection, result: ToolResult, now: datetime | None = None) -> Seen:
        """Bump (or create) the ERR entry for this fingerprint; then look for its known fix.
        ``now``: when the command ran, for ``self-improve scan`` (the hooks: None, the clock)."""
        store = self.store()
        if store is None:
            return Seen(0, 0, None)
        from self_improve.store.detections import record_detection

        logged = record_detection(store, detection, result, now=now)
        if logged is None:  # hooks.record_errors is off
            return Seen(0, 0, self.known_fix(store, detection.fingerprint))
        self.bump("errors_recorded")
        return Seen(logged.recurrence_count, logged.tasks, self.known_fix(store, detection.fingerprint), logged.entry_id)

    def known_fix(self, store: Store, fingerprint: str) -> Fix | None:
        """Recall, k=1: the newest fix recorded for exactly this fingerprint (the class and the
        subject: a sibling's fix is never offered), through the sanitiser. A fix somebody logged
        (``log --action``) comes first; else the fix the hooks observed (``- Observed-Fix:``).

        Any active entry with a fix counts, so a fix logged with the command the nudge printed is
        recalled the very next time; a closed one (wont_fix, retired, archived) does not.
        An entry whose ID is malformed is not recalled at all: its text is somebody's, not ours.
        The size cap is personal (user-level config) and can only lower ``MAX_INJECTED_CHARS``.
        """
        if not self.setting("hooks.recall"):
            return None
        from self_improve.detect import sanitise
        from self_improve.store.entry import ACTIVE_STATUSES, ID_PATTERN
        from self_improve.store.store import latest_action

        limit = max(20, int(self.setting("hooks.max_fix_chars")))
        candidates = [entry for kind in ("error", "learning") for entry in reversed(store.with_pattern_key(kind, fingerprint))
                      if entry.status in ACTIVE_STATUSES and ID_PATTERN.match(entry.id) and len(entry.id) <= MAX_RECALLED_ID]
        for source in (latest_action, lambda entry: entry.observed_fix):
            for entry in candidates:
                text = sanitise.inline(source(entry), limit)
                if text:
                    logged = entry.logged.strip()[:10]
                    return Fix(entry.id, logged if sanitise.is_day(logged) else "", text)
        return None

    # ---- per-session state and counters ------------------------------------------------------------
    def locked(self) -> Any:
        """The state directory's lock, around every read-change-write of a state file."""
        from self_improve.store import counters  # only a call that writes state needs it

        return counters.state_lock(self.fs, self.state)

    def _session_name(self) -> str:
        return self.state + "sessions/" + session_file_name(self.session)

    def _update(self, name: str, update: Callable[[dict[str, int]], bool]) -> bool:
        from self_improve.store import counters

        data = counters.read_ints(self.fs, name, parse_json) or {}
        result = update(data)
        counters.write_ints(self.fs, name, data)
        return result

    def _count(self, nudges: dict[str, int]) -> None:
        from self_improve.store import counters

        held, self._held = self._held, None
        if held:
            nudges = {**held, **{name: held.get(name, 0) + by for name, by in nudges.items()}}
        counters.add(self.fs, nudges, self.state, parse_json)

    def hold_counts(self) -> None:
        """From now on ``bump`` keeps its counts for the next write of the counters (the nudge's,
        ``note_error_nudge``) instead of taking the lock and writing counters.json for each: a
        post-bash that records an error and counts its nudge writes the file once.
        ``release_counts`` writes what no write took."""
        if self._held is None:
            self._held = {}

    def release_counts(self) -> None:
        """Write the counts still held (none once a write took them), and hold no more."""
        held, self._held = self._held, None
        if held:
            with self.locked():
                self._count(held)

    def bump(self, counter: str, by: int = 1) -> None:
        if self._held is not None:
            self._held[counter] = self._held.get(counter, 0) + by
            return
        with self.locked():
            self._count({counter: by})

    def note_error_nudge(self, recall: bool) -> None:
        from self_improve.store import counters

        with self.locked():
            counters.update_ints(self.fs, self._session_name(), {"errors_since_reminder": 1}, parse_json)
            self._count({"error_nudges": 1, "recalls": 1} if recall else {"error_nudges": 1})

    def on_prompt(self, correction: bool) -> Decision:
        mode = self.setting("reminder.mode")
        every = max(1, int(self.setting("reminder.every_n_prompts")))
        with self.locked():
            path = self._session_name()
            first_of_session = not self.fs.is_file(path)

            def update(data: dict[str, int]) -> bool:
                count = int(data.get("prompts", 0)) + 1
                data["prompts"] = count
                since = count - int(data.get("last_reminder_prompt", 0))
                errors = int(data.get("errors_since_reminder", 0))
                if mode == "off":
                    remind = False
                elif mode == "every":
                    remind = True
                else:
                    remind = count == 1 or since >= every or errors > 0 or correction
                if remind or correction:
                    data["last_reminder_prompt"] = count
                    data["errors_since_reminder"] = 0
                data["updated"] = int(time.time())
                return remind

            remind = self._update(path, update)
            if correction or remind:
                self._count({"correction_nudges" if correction else "reminders": 1})
        if first_of_session:
            self.prune_sessions()
        return Decision(remind=remind and not correction, first=first_of_session)

    def queue_correction(self, hit: CorrectionHit, text: str, now: float | None = None) -> bool:
        """Keep the correction just caught (a redacted excerpt, the session, the day:
        ``store/correction_queue``) until a lesson is logged for it; False, with nothing written,
        without a project store or with ``corrections.queue`` off (a personal setting).
        ``now``: when it was said, for ``self-improve scan`` (the hooks: None, the clock)."""
        if self.root is None or not self.setting("corrections.queue"):
            return False
        from self_improve.store import correction_queue as queue

        item = queue.new_item(text, self.session, hit.pattern, hit.language, now=now)  # redaction: before the lock
        with BUDGET.critical("queueing the correction"), self.locked():
            return queue.add(self.fs, item, self.setting("corrections.queue_max"), self.state, parse_json)

    def prune_sessions(self) -> int:
        """Delete session files of ours older than the TTL (a personal setting): only regular
        files with names we create, never through a link (``StoreDir.prune``)."""
        from self_improve.store.evidence import EVIDENCE_DIR

        days = self.setting("state.session_ttl_days")
        cutoff = time.time() - max(1.0, float(days)) * 86400
        pruned = self.fs.prune(self.state + "sessions", is_session_file_name, cutoff)
        return pruned + self.fs.prune(self.state + EVIDENCE_DIR, is_session_file_name, cutoff)


def note_untrusted(path: str, reason: str) -> None:
    """Say once (per store and reason) in the debug log why the hooks leave a store alone."""
    from self_improve.hooks.debug import debug

    seen = os.path.join(user_state_dir(), "untrusted-stores")
    line = f"{path}\t{reason}"
    try:
        with open(seen, encoding="utf-8", errors="replace") as handle:
            if line in handle.read().splitlines():
                return
    except OSError:
        pass
    debug(f"not using {path}: {reason} (see the README's Trust section)")
    try:
        os.makedirs(os.path.dirname(seen), exist_ok=True)
        with open(seen, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(line.replace("\n", " ") + "\n")
    except OSError:
        pass
