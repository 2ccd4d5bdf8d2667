"""What the hooks remember between calls, and their side of the store.

- Per-session state (prompt counter, last reminder, errors since it) lives in
  ``.learnings/.state/sessions/<task>.json``, updated under ``.learnings/.state/.lock`` because
  the harness may run several hook processes at once. Sessions untouched for
  ``state.session_ttl_days`` are pruned.
- Counters of every nudge fired live in ``.learnings/.state/counters.json``; ``stats`` reads them.
- Without ``.learnings/`` the hooks stay out, unless the user-level config
  (``$XDG_CONFIG_HOME/self-improve/config.toml``) sets ``hooks.enabled_without_learnings``; then
  state goes to ``$XDG_STATE_HOME/self-improve/`` and nothing is recorded.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.paths import LEARNINGS_DIR, find_learnings_root

STATE_DIR = ".state"
COUNTER_NAMES = ("reminders", "error_nudges", "recalls", "correction_nudges", "errors_recorded")


def xdg_dir(variable: str, fallback: str) -> Path:
    value = os.environ.get(variable)
    return Path(value) if value and os.path.isabs(value) else Path.home() / fallback


def user_config_path() -> Path:
    return xdg_dir("XDG_CONFIG_HOME", ".config") / "self-improve" / "config.toml"


def user_state_dir() -> Path:
    return xdg_dir("XDG_STATE_HOME", ".local/state") / "self-improve"


def debug_log_path() -> Path:
    return user_state_dir() / "debug.log"


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import tomllib

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # a corrupt config must not break a hook: fall back to defaults


def _setting(config: dict[str, Any], dotted: str, default: Any) -> Any:
    section, _, name = dotted.partition(".")
    table = config.get(section)
    value = table.get(name, default) if isinstance(table, dict) else default
    return value if type(value) is type(default) else default


@dataclass(frozen=True)
class Fix:
    entry_id: str
    text: str


@dataclass(frozen=True)
class Seen:
    count: int  # occurrences of this Pattern-Key so far, this one included (0: not recorded)
    sessions: int
    fix: Fix | None


@dataclass(frozen=True)
class Decision:
    remind: bool


class Context:
    """One hook call's view of its project: the store (if any), its config and the state dir."""

    def __init__(self, root: Path | None, session: str, state_dir: Path, config: dict[str, Any]) -> None:
        self.root = root
        self.session = session
        self.state_dir = state_dir
        self.config = config

    @classmethod
    def for_cwd(cls, cwd: str, session: str) -> Context | None:
        root = find_learnings_root(cwd) if cwd and os.path.isabs(cwd) else None
        if root is not None:
            config = _read_toml(root / LEARNINGS_DIR / "config.toml")
            if not _setting(config, "hooks.enabled", True):
                return None
            return cls(root, session, root / LEARNINGS_DIR / STATE_DIR, config)
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

        merged = config_mod.defaults()
        for section, table in self.config.items():
            if isinstance(table, dict):
                merged.setdefault(section, {}).update(table)
        return Store(self.root, config=merged) if self.root is not None else None

    def remember_session(self) -> None:
        if self.root is None or not self.session:
            return
        store = self._store()
        store.remember_session(self.session)

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
            category=_program_name(result.command) or detection.pattern_key,
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

        limit = int(self.setting("hooks.max_fix_chars", 240))
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

        self.state_dir.mkdir(parents=True, exist_ok=True)
        return locked(self.state_dir / ".lock", timeout=2.0)

    def _session_path(self) -> Path:
        from self_improve.store.store import task_hash

        return self.state_dir / "sessions" / f"{task_hash(self.session)}.json"

    def _update_json(self, path: Path, update: Any) -> Any:
        from self_improve.atomic import atomic_write

        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        result = update(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(data, sort_keys=True).encode("utf-8"))
        return result

    def bump(self, counter: str, by: int = 1) -> None:
        with self._locked():
            self._update_json(self.state_dir / "counters.json", lambda d: d.__setitem__(counter, int(d.get(counter, 0)) + by))

    def note_error_nudge(self, recall: bool) -> None:
        with self._locked():

            def update(data: dict[str, Any]) -> None:
                data["errors_since_reminder"] = int(data.get("errors_since_reminder", 0)) + 1

            self._update_json(self._session_path(), update)
            self._update_json(
                self.state_dir / "counters.json",
                lambda d: d.update({"error_nudges": int(d.get("error_nudges", 0)) + 1, **({"recalls": int(d.get("recalls", 0)) + 1} if recall else {})}),
            )

    def on_prompt(self, correction: bool) -> Decision:
        mode = self.setting("reminder.mode", "adaptive")
        every = max(1, int(self.setting("reminder.every_n_prompts", 10)))
        with self._locked():
            path = self._session_path()
            first_of_session = not path.exists()

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

            remind = self._update_json(path, update)
            nudge = "correction_nudges" if correction else "reminders"
            if correction or remind:
                self._update_json(self.state_dir / "counters.json", lambda d: d.__setitem__(nudge, int(d.get(nudge, 0)) + 1))
        if first_of_session:
            self.prune_sessions()
        return Decision(remind=remind and not correction)

    def prune_sessions(self) -> int:
        ttl = float(self.setting("state.session_ttl_days", 7)) * 86400
        cutoff = time.time() - ttl
        removed = 0
        sessions = self.state_dir / "sessions"
        try:
            with os.scandir(sessions) as it:
                for item in it:
                    try:
                        if item.name.endswith(".json") and item.stat().st_mtime < cutoff:
                            os.unlink(item.path)
                            removed += 1
                    except OSError:
                        continue
        except OSError:
            return removed
        return removed


def read_counters(state_dir: Path) -> dict[str, int] | None:
    """The hooks' counters, or None if no hook has counted anything yet."""
    try:
        data = json.loads((state_dir / "counters.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {name: int(data.get(name, 0)) for name in COUNTER_NAMES}


def _program_name(command: str) -> str:
    """The command's program, e.g. ``python3`` for ``cd x && python3 app.py``: the ERR header name."""
    import re

    last = re.split(r"&&|\|\||;|\|", command)
    for part in last:
        words = [w for w in part.strip().split() if "=" not in w or w.startswith(("-", "/"))]
        while words and words[0] in ("sudo", "env", "time", "nohup", "exec", "command"):
            words = words[1:]
        if words and words[0] not in ("cd", "export", "source", ".", "set"):
            name = os.path.basename(words[0])
            return re.sub(r"[^A-Za-z0-9_.+-]", "", name)[:40]
    return ""
