"""What the hooks remember between calls, and their side of the store.

- Per-session state (prompt counter, last reminder, errors since it) lives in
  ``.learnings/.state/sessions/<task>.json``, updated under ``.learnings/.state/.lock`` because
  the harness may run several hook processes at once. Sessions untouched for
  ``state.session_ttl_days`` are pruned.
- Counters of every nudge fired live in ``.learnings/.state/counters.json``; ``stats`` reads them.
- Without ``.learnings/`` the hooks stay out, unless the user-level config
  (``$XDG_CONFIG_HOME/self-improve/config.toml``) sets ``hooks.enabled_without_learnings``; then
  state goes to ``$XDG_STATE_HOME/self-improve/`` and nothing is recorded.

Every file of a project's store is opened through ``store/trust.py`` (no links, regular files
only, owned by the user); a store that breaks the trust model makes the hooks do nothing, with
one line in the debug log. The project's config is filtered by ``config_trust``: personal
settings (reminder mode, injection sizes, TTLs, rules with titles) come from the user's own
config only.

Hot-path rules: strings and ``os.path`` instead of ``pathlib``, named tuples instead of
dataclasses, and the store (with its heavier imports) only once there is something to record.
"""

from __future__ import annotations

import os
import time

from self_improve.events import Record
from self_improve.paths import (
    LAST_SESSION,
    LEARNINGS_DIR,
    STATE_DIR,
    user_config_path,
    user_state_dir,
)
from self_improve.store.trust import StoreDir, UntrustedStore, find_store_root, is_safe_listed

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs milliseconds the hooks do not have
    from typing import Any, Callable

COUNTER_NAMES = ("reminders", "error_nudges", "recalls", "correction_nudges", "errors_recorded")



MAX_RECALLED_ID = 30  # TYPE-YYYYMMDD- plus a suffix of up to 16; a longer ID is nobody's we wrote


class Fix(Record):
    """A known fix: the entry it comes from, the day that entry was logged, and the fix's text
    (sanitised: ``sanitise.inline``)."""

    __slots__ = ("entry_id", "logged", "text")


class Seen(Record):
    """Occurrences of a Pattern-Key so far, this one included (0: not recorded), and its fix."""

    __slots__ = ("count", "sessions", "fix")


class Decision(Record):
    __slots__ = ("remind",)


def debug_log_path() -> str:
    return os.path.join(user_state_dir(), "debug.log")


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
    """The user's config overlaid with what the project's may set (``config_trust``)."""
    from self_improve.store import config_trust

    merged: dict[str, Any] = {}
    config_trust.overlay_user(merged, user)
    config_trust.overlay_project(merged, project)
    return merged


def _setting(config: dict[str, Any], dotted: str, default: Any) -> Any:
    section, _, name = dotted.partition(".")
    table = config.get(section)
    value = table.get(name, default) if isinstance(table, dict) else default
    return value if type(value) is type(default) else default


def _read_json(fs: StoreDir, name: str) -> dict[str, int]:
    from self_improve.hooks.run import parse_json

    try:
        raw = fs.read(name, limit=1 << 20)
        data = parse_json(raw.decode("utf-8")) if raw else None
    except (OSError, ValueError, UntrustedStore):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def _write_json(fs: StoreDir, name: str, data: dict[str, int]) -> None:
    """State files hold only our own names and whole numbers, so they are written by hand:
    ``json.dumps`` would import ``json`` and ``re`` on every prompt."""
    body = ", ".join(f'"{key}": {int(value)}' for key, value in sorted(data.items()))
    fs.replace(name, ("{" + body + "}").encode("utf-8"), durable=False)


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

    @property
    def state_dir(self) -> str:
        return os.path.join(self.fs.path, self.state) if self.state else self.fs.path

    @classmethod
    def for_cwd(cls, cwd: str, session: str) -> Context | None:
        root = find_store_root(cwd) if cwd and os.path.isabs(cwd) else None
        user_config = _read_user_toml(user_config_path())
        if root is not None:
            safe = _setting(user_config, "trust.safe_directories", [])
            fs = StoreDir(os.path.join(root, LEARNINGS_DIR), owner_ok=is_safe_listed(os.path.join(root, LEARNINGS_DIR), safe))
            try:
                fs.check_top_level()
                project = _parse_toml(fs.read("config.toml", limit=MAX_CONFIG_BYTES))
            except (UntrustedStore, OSError) as exc:
                note_untrusted(fs.path, str(exc))
                return None
            return cls(root, session, fs, STATE_DIR + "/", effective_config(user_config, project))
        if _setting(user_config, "hooks.enabled_without_learnings", False):
            state = user_state_dir()
            os.makedirs(state, exist_ok=True)
            return cls(None, session, StoreDir(state), "", effective_config(user_config, {}))
        return None

    def setting(self, dotted: str, default: Any) -> Any:
        return _setting(self.config, dotted, default)

    def detect_overrides(self) -> dict[str, Any] | None:
        table = self.config.get("detect")
        return table if isinstance(table, dict) else None

    # ---- store side ----------------------------------------------------------------------------
    def _store(self) -> Any:
        from self_improve.store import config as config_mod
        from self_improve.store.store import Store

        if self.root is None:
            return None
        merged = config_mod.defaults()
        for section, table in self.config.items():
            if isinstance(table, dict):
                merged.setdefault(section, {}).update(table)
        store = Store(self.root, config=merged)
        store._fs = self.fs  # the store directory this hook already checked, with its trust setting
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

    def record_error(self, detection: Any, result: Any) -> Seen:
        """Bump (or create) the ERR entry for this Pattern-Key; then look for its known fix."""
        store = self._store()
        if store is None or not self.setting("hooks.record_errors", True):
            return Seen(0, 0, self._known_fix(store, detection.pattern_key))
        from self_improve.store.store import LogRequest

        request = LogRequest(
            kind="error",
            summary=detection.title,
            pattern_key=detection.pattern_key,
            category=program_name(result.command) or detection.pattern_key,
            session=self.session,
            excerpt=detection.excerpt,
            source="error",
            logged_by="hook",
        )
        logged = store.log(request)
        self.bump("errors_recorded")
        return Seen(logged.recurrence_count, logged.tasks, self._known_fix(store, detection.pattern_key))

    def _known_fix(self, store: Any, pattern_key: str) -> Fix | None:
        """Just-in-time recall, k=1: the one resolved or promoted entry's fix, through the sanitiser.

        An entry whose ID is malformed is not recalled at all: its text is somebody's, not ours.
        The size cap is personal (user-level config) and can only lower ``MAX_INJECTED_CHARS``.
        """
        if store is None or not self.setting("hooks.recall", True):
            return None
        from self_improve.detect import sanitise
        from self_improve.store.entry import ID_PATTERN
        from self_improve.store.store import latest_action

        limit = max(20, int(self.setting("hooks.max_fix_chars", sanitise.MAX_INJECTED_CHARS)))
        for kind in ("error", "learning"):
            for entry in reversed(store.with_pattern_key(kind, pattern_key)):
                entry_id = entry.id if ID_PATTERN.match(entry.id) and len(entry.id) <= MAX_RECALLED_ID else None
                if entry.status in ("resolved", "promoted") and entry_id is not None:
                    text = sanitise.inline(latest_action(entry), limit)
                    if text:
                        logged = entry.logged.strip()[:10]
                        return Fix(entry_id, logged if sanitise.is_day(logged) else "", text)
        return None

    # ---- per-session state and counters ------------------------------------------------------------
    def _locked(self) -> Any:
        return self.fs.lock(self.state + ".lock", timeout=2.0)

    def _session_name(self) -> str:
        return self.state + "sessions/" + session_file_name(self.session)

    def _update(self, name: str, update: Callable[[dict[str, Any]], Any]) -> Any:
        data = _read_json(self.fs, name)
        result = update(data)
        _write_json(self.fs, name, data)
        return result

    def _add(self, counters: dict[str, int]) -> Callable[[dict[str, Any]], None]:
        def update(data: dict[str, Any]) -> None:
            for name, by in counters.items():
                data[name] = int(data.get(name, 0)) + by

        return update

    def bump(self, counter: str, by: int = 1) -> None:
        with self._locked():
            self._update(self.state + "counters.json", self._add({counter: by}))

    def note_error_nudge(self, recall: bool) -> None:
        with self._locked():
            self._update(self._session_name(), self._add({"errors_since_reminder": 1}))
            nudges = {"error_nudges": 1, "recalls": 1} if recall else {"error_nudges": 1}
            self._update(self.state + "counters.json", self._add(nudges))

    def on_prompt(self, correction: bool) -> Decision:
        mode = self.setting("reminder.mode", "adaptive")
        every = max(1, int(self.setting("reminder.every_n_prompts", 10)))
        with self._locked():
            path = self._session_name()
            first_of_session = not self.fs.is_file(path)

            def update(data: dict[str, Any]) -> bool:
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
                nudge = "correction_nudges" if correction else "reminders"
                self._update(self.state + "counters.json", self._add({nudge: 1}))
        if first_of_session:
            self.prune_sessions()
        return Decision(remind=remind and not correction)

    def prune_sessions(self) -> int:
        """Delete session files of ours older than the TTL (a personal setting): only regular
        files with names we create, never through a link (``StoreDir.prune``)."""
        days = self.setting("state.session_ttl_days", 7)
        cutoff = time.time() - max(1.0, float(days)) * 86400
        return self.fs.prune(self.state + "sessions", is_session_file_name, cutoff)


def note_untrusted(path: str, reason: str) -> None:
    """Say once (per store and reason) in the debug log why the hooks leave a store alone."""
    from self_improve.hooks.run import debug

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


def program_name(command: str) -> str:
    """The command's program, e.g. ``python3`` for ``cd x && python3 app.py``: the ERR header name."""
    import re

    for part in re.split(r"&&|\|\||;|\|", command):
        words = [w for w in part.strip().split() if "=" not in w or w.startswith(("-", "/"))]
        while words and words[0] in ("sudo", "env", "time", "nohup", "exec", "command"):
            words = words[1:]
        if words and words[0] not in ("cd", "export", "source", ".", "set"):
            return re.sub(r"[^A-Za-z0-9_.+-]", "", os.path.basename(words[0]))[:40]
    return ""
