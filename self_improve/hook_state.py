"""What the hooks remember between calls, and their side of the store.

- Per-session state (prompt counter, last reminder, errors since it) lives in
  ``.learnings/.state/sessions/<task>.json``, updated under ``.learnings/.state/.lock`` because
  the harness may run several hook processes at once. Sessions untouched for
  ``state.session_ttl_days`` are pruned.
- Counters of every nudge fired live in ``.learnings/.state/counters.json``; ``stats`` reads them.
- Without ``.learnings/`` the hooks stay out, unless the user-level config
  (``$XDG_CONFIG_HOME/self-improve/config.toml``) sets ``hooks.enabled_without_learnings``; then
  state goes to ``$XDG_STATE_HOME/self-improve/`` and nothing is recorded.

Hot-path rules: strings and ``os.path`` instead of ``pathlib``, named tuples instead of
dataclasses, and the store (with its heavier imports) only once there is something to record.
"""

from __future__ import annotations

import os
import time

from self_improve.harnesses.base import Record
from self_improve.paths_fast import (
    LAST_SESSION,
    LEARNINGS_DIR,
    STATE_DIR,
    find_learnings_root,
    user_config_path,
    user_state_dir,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs milliseconds the hooks do not have
    from typing import Any, Callable

COUNTER_NAMES = ("reminders", "error_nudges", "recalls", "correction_nudges", "errors_recorded")



class Fix(Record):
    """A known fix: the entry it comes from, and its text."""

    __slots__ = ("entry_id", "text")


class Seen(Record):
    """Occurrences of a Pattern-Key so far, this one included (0: not recorded), and its fix."""

    __slots__ = ("count", "sessions", "fix")


class Decision(Record):
    __slots__ = ("remind",)


def debug_log_path() -> str:
    return os.path.join(user_state_dir(), "debug.log")


def _read_toml(path: str) -> dict[str, Any]:
    if not os.path.isfile(path):
        return {}
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, ValueError):
        return {}  # a corrupt config must not break a hook: fall back to defaults


def _setting(config: dict[str, Any], dotted: str, default: Any) -> Any:
    section, _, name = dotted.partition(".")
    table = config.get(section)
    value = table.get(name, default) if isinstance(table, dict) else default
    return value if type(value) is type(default) else default


def _read_json(path: str) -> dict[str, int]:
    from self_improve.hooks import parse_json

    try:
        with open(path, encoding="utf-8") as handle:
            data = parse_json(handle.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def _write_json(path: str, data: dict[str, int]) -> None:
    """State files hold only our own names and whole numbers, so they are written by hand:
    ``json.dumps`` would import ``json`` and ``re`` on every prompt."""
    from self_improve.atomic import atomic_write

    body = ", ".join(f'"{name}": {int(value)}' for name, value in sorted(data.items()))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    atomic_write(path, ("{" + body + "}").encode("utf-8"), durable=False)


def session_file_name(session: str) -> str:
    """The session id itself where it is a plain id (Claude's are UUIDs), so no hash is needed."""
    safe = "".join(ch for ch in session if ch.isascii() and (ch.isalnum() or ch in "-_"))[:80]
    return f"{safe or '-'}.json"


class Context:
    """One hook call's view of its project: the store (if any), its config and the state dir."""

    def __init__(self, root: str | None, session: str, state_dir: str, config: dict[str, Any]) -> None:
        self.root = root
        self.session = session
        self.state_dir = state_dir
        self.config = config

    @classmethod
    def for_cwd(cls, cwd: str, session: str) -> Context | None:
        root = find_learnings_root(cwd) if cwd and os.path.isabs(cwd) else None
        if root is not None:
            config = _read_toml(os.path.join(root, LEARNINGS_DIR, "config.toml"))
            return cls(root, session, os.path.join(root, LEARNINGS_DIR, STATE_DIR), config)
        user_config = _read_toml(user_config_path())
        if _setting(user_config, "hooks.enabled_without_learnings", False):
            return cls(None, session, user_state_dir(), user_config)
        return None

    def setting(self, dotted: str, default: Any) -> Any:
        return _setting(self.config, dotted, default)

    def detect_overrides(self) -> dict[str, Any] | None:
        table = self.config.get("detect")
        return table if isinstance(table, dict) else None

    # ---- store side ----------------------------------------------------------------------------
    def _store(self) -> Any:
        from self_improve import config as config_mod
        from self_improve.store.store import Store

        if self.root is None:
            return None
        merged = config_mod.defaults()
        for section, table in self.config.items():
            if isinstance(table, dict):
                merged.setdefault(section, {}).update(table)
        return Store(self.root, config=merged)

    def remember_session(self) -> None:
        """So that a later ``self-improve log`` without --session counts in this session's task."""
        if self.root is None or not self.session:
            return
        path = os.path.join(self.state_dir, LAST_SESSION)
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == self.session:
                    return
        except (OSError, ValueError):
            pass
        from self_improve.atomic import atomic_write

        os.makedirs(self.state_dir, exist_ok=True)
        atomic_write(path, self.session.encode("utf-8", "surrogatepass"), durable=False)

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
        )
        logged = store.log(request)
        self.bump("errors_recorded")
        return Seen(logged.recurrence_count, logged.tasks, self._known_fix(store, detection.pattern_key))

    def _known_fix(self, store: Any, pattern_key: str) -> Fix | None:
        """Just-in-time recall, k=1: the one resolved or promoted entry's fix, from our own text."""
        if store is None or not self.setting("hooks.recall", True):
            return None
        from self_improve.store.store import latest_action

        limit = max(20, int(self.setting("hooks.max_fix_chars", 240)))
        for kind in ("error", "learning"):
            for entry in reversed(store.with_pattern_key(kind, pattern_key)):
                if entry.status in ("resolved", "promoted"):
                    text = " ".join(latest_action(entry).split())
                    if text:
                        if len(text) > limit:
                            text = text[: limit - 1].rstrip() + "…"
                        return Fix(entry.id, text)
        return None

    # ---- per-session state and counters ------------------------------------------------------------
    def _locked(self) -> Any:
        from self_improve.filelock import locked

        os.makedirs(self.state_dir, exist_ok=True)
        return locked(os.path.join(self.state_dir, ".lock"), timeout=2.0)

    def _session_path(self) -> str:
        return os.path.join(self.state_dir, "sessions", session_file_name(self.session))

    def _update(self, path: str, update: Callable[[dict[str, Any]], Any]) -> Any:
        data = _read_json(path)
        result = update(data)
        _write_json(path, data)
        return result

    def _add(self, counters: dict[str, int]) -> Callable[[dict[str, Any]], None]:
        def update(data: dict[str, Any]) -> None:
            for name, by in counters.items():
                data[name] = int(data.get(name, 0)) + by

        return update

    def bump(self, counter: str, by: int = 1) -> None:
        with self._locked():
            self._update(os.path.join(self.state_dir, "counters.json"), self._add({counter: by}))

    def note_error_nudge(self, recall: bool) -> None:
        with self._locked():
            self._update(self._session_path(), self._add({"errors_since_reminder": 1}))
            nudges = {"error_nudges": 1, "recalls": 1} if recall else {"error_nudges": 1}
            self._update(os.path.join(self.state_dir, "counters.json"), self._add(nudges))

    def on_prompt(self, correction: bool) -> Decision:
        mode = self.setting("reminder.mode", "adaptive")
        every = max(1, int(self.setting("reminder.every_n_prompts", 10)))
        with self._locked():
            path = self._session_path()
            first_of_session = not os.path.exists(path)

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
                self._update(os.path.join(self.state_dir, "counters.json"), self._add({nudge: 1}))
        if first_of_session:
            self.prune_sessions()
        return Decision(remind=remind and not correction)

    def prune_sessions(self) -> int:
        cutoff = time.time() - float(self.setting("state.session_ttl_days", 7)) * 86400
        removed = 0
        try:
            with os.scandir(os.path.join(self.state_dir, "sessions")) as entries:
                for item in entries:
                    try:
                        if item.name.endswith(".json") and item.stat().st_mtime < cutoff:
                            os.unlink(item.path)
                            removed += 1
                    except OSError:
                        continue
        except OSError:
            pass
        return removed


def read_counters(state_dir: str | os.PathLike[str]) -> dict[str, int] | None:
    """The hooks' counters, or None if no hook has counted anything yet."""
    path = os.path.join(os.fspath(state_dir), "counters.json")
    if not os.path.exists(path):
        return None
    data = _read_json(path)
    return {name: int(data.get(name, 0)) for name in COUNTER_NAMES}


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
