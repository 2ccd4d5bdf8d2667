"""``.learnings/config.toml``: read with stdlib ``tomllib``, written with ``tomli-w``.

Every key has a documented default here; ``self-improve config list`` prints them all.
``config set`` edits one ``key = value`` line in place, so the user's comments and layout stay.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.errors import SelfImproveError, UsageError


@dataclass(frozen=True)
class Setting:
    """A key and its default; for a number, ``min``..``max`` is what `config set` accepts, and
    ``project`` the narrower range a project's value is clamped into (``config_trust.BOUNDS``)."""

    key: str  # dotted: "section.name"
    default: Any
    doc: str
    min: float | None = None
    max: float | None = None
    project: tuple[float, float] | None = None
    choices: tuple[str, ...] = ()


SETTINGS: tuple[Setting, ...] = (
    Setting("log.similarity_threshold", 0.8, "Jaccard similarity of case-folded summary words at or above which `log` merges into an existing entry that has no Pattern-Key match.", min=0.0, max=1.0, project=(0.5, 1.0)),
    Setting("log.max_occurrences", 20, "Occurrences kept per entry (date and task); older ones are folded into the totals.", min=1, max=1000, project=(5, 100)),
    Setting("hooks.enabled_without_learnings", False, "Let the hooks act in projects that have no .learnings/ (default: opt-in per project via `self-improve init`)."),
    Setting("hooks.record_errors", True, "post-bash records each detected error as an occurrence in ERRORS.md."),
    Setting("hooks.recall", True, "post-bash injects the one known fix for a recurring Pattern-Key (just-in-time recall)."),
    Setting("hooks.max_fix_chars", 240, "Cap on the known-fix text injected by recall.", min=20, max=240),
    Setting("reminder.mode", "adaptive", "every | adaptive | off. adaptive: first prompt of a session, then after N prompts, after a detected error, or on a correction.", choices=("every", "adaptive", "off")),
    Setting("reminder.every_n_prompts", 10, "In adaptive mode, remind again after this many prompts.", min=1, max=1000),
    Setting("state.session_ttl_days", 7, "Per-session hook state older than this is pruned.", min=1, max=3650),
    Setting("promotion.min_occurrences", 3, "Occurrences within the window needed to propose promotion.", min=1, max=1000, project=(2, 1000)),
    Setting("promotion.min_tasks", 2, "Distinct tasks (sessions) among those occurrences.", min=1, max=1000, project=(2, 1000)),
    Setting("promotion.window_days", 30, "The window, in days, counted back from today.", min=1, max=3650, project=(1, 365)),
    Setting("promotion.require_approval", True, "`promote` refuses without --yes unless it runs on a TTY. Personal: honoured only from the user-level config."),
    Setting("promotion.agent_may_promote", False, "Let promote, review --yes and extract-skill change instruction files when run from inside an agent session (default: they only propose). Personal."),
    Setting("promotion.max_rule_chars", 200, "Longest rule that may be promoted.", min=20, max=200, project=(20, 200)),
    Setting("forgetting.archive_after_days", 90, "Closed entries (resolved, wont_fix, retired) unseen this long are archive candidates.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.decay_after_days", 180, "Pending entries unseen this long stop counting towards promotion.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.stale_after_days", 180, "Promoted rules unseen this long are retire candidates.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.max_active_entries", 200, "Above this many active entries, review lists the lowest-value ones for archiving.", min=1, max=1000000, project=(10, 100000)),
    Setting("trust.safe_directories", [], "Directories whose .learnings/ is trusted even when another user owns it (like git's safe.directory; \"*\" trusts all). User-level config only."),
    Setting("targets.learning", "CLAUDE.md", "Default promotion target for learnings."),
    Setting("targets.error", "CLAUDE.md", "Default promotion target for errors."),
    Setting("targets.feature", "CLAUDE.md", "Default promotion target for feature requests."),
    Setting("targets.workflow_areas", ["infra", "config", "tests"], "Areas whose rules are workflows, promoted to targets.workflow instead."),
    Setting("targets.workflow", "AGENTS.md", "Default promotion target for workflows (entries of an area in targets.workflow_areas)."),
    Setting("targets.openclaw_behaviour", "SOUL.md", "In an OpenClaw workspace (SOUL.md or IDENTITY.md at the root): target for behaviour, i.e. learnings of a category in targets.behaviour_categories."),
    Setting("targets.openclaw_default", "AGENTS.md", "In an OpenClaw workspace: target for everything else, tool gotchas included (OpenClaw does not read TOOLS.md)."),
    Setting("targets.behaviour_categories", ["correction", "best_practice"], "Learning categories that describe the agent's behaviour (SOUL.md in an OpenClaw workspace)."),
)
SETTINGS_BY_KEY = {setting.key: setting for setting in SETTINGS}
# Free-form tables passed to other modules as they are (their schema is documented there).
FREE_TABLES = ("detect",)


def defaults() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for setting in SETTINGS:
        section, name = setting.key.split(".", 1)
        out.setdefault(section, {})[name] = copy.deepcopy(setting.default)
    for table in FREE_TABLES:
        out.setdefault(table, {})
    return out


def config_path(learnings_dir: Path) -> Path:
    return learnings_dir / "config.toml"


def read_user_config(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SelfImproveError(f"{path}: corrupt config: {exc}") from None
    return read_user_config_text(text, path)


def read_user_config_text(text: str, path: Path) -> dict[str, Any]:
    import tomllib  # only when a config file exists: the hooks record errors through here

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SelfImproveError(f"{path}: corrupt config: {exc}") from None


def load(learnings_dir: Path, *, trusted: bool = False) -> dict[str, Any]:
    """Defaults, overlaid with the user-level config, overlaid with the store's own config.

    A project's store (``trusted=False``) came with the repository: its personal settings are
    ignored and its thresholds clamped (``config_trust``). The user-wide store's config
    (``trusted=True``) is the user's own. A value of the wrong type is refused.
    """
    return load_with_report(learnings_dir, trusted=trusted)[0]


def load_with_report(learnings_dir: Path, *, trusted: bool = False) -> tuple[dict[str, Any], list[str]]:
    """``load``, and one line per project setting that was ignored or clamped (for ``doctor``)."""
    from self_improve.store import config_trust
    from self_improve.paths import user_config_path

    merged = defaults()
    user_path = Path(user_config_path())
    user = _checked(read_user_config(user_path), user_path)
    config_trust.overlay_user(merged, user)
    own_path = config_path(learnings_dir)
    own = _checked(read_user_config(own_path), own_path)
    if trusted or own_path.resolve() == user_path.resolve():
        config_trust.overlay_user(merged, own)
        return merged, []
    return merged, config_trust.overlay_project(merged, own)


def user_setting(key: str) -> Any:
    """A personal setting as the user set it: defaults overlaid with the user-level config only."""
    from self_improve.store import config_trust
    from self_improve.paths import user_config_path

    merged = defaults()
    user_path = Path(user_config_path())
    config_trust.overlay_user(merged, _checked(read_user_config(user_path), user_path))
    return get(merged, key)


def _checked(table: dict[str, Any], where: Path) -> dict[str, Any]:
    for section, values in table.items():
        if not isinstance(values, dict):
            raise SelfImproveError(f"{where}: corrupt config: [{section}] must be a table")
        for name, value in values.items():
            key = f"{section}.{name}"
            if key in SETTINGS_BY_KEY:
                _check_type(key, value, where)
    return table


def get(config: dict[str, Any], key: str) -> Any:
    section, _, name = key.partition(".")
    try:
        return config[section][name] if name else config[section]
    except KeyError:
        raise SelfImproveError(f"unknown config key: {key}") from None


def _check_type(key: str, value: Any, where: Path | str) -> None:
    default = SETTINGS_BY_KEY[key].default
    expected = type(default)
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise SelfImproveError(f"{where}: corrupt config: {key} must be {expected.__name__}, not {type(value).__name__}")


def parse_value(key: str, text: str) -> Any:
    """A CLI value as the type the key's default has, within the key's range (else UsageError)."""
    setting = SETTINGS_BY_KEY.get(key)
    if setting is None:
        raise UsageError(f"unknown config key: {key} (see `self-improve config list`)")
    default = setting.default
    value: Any = text
    if isinstance(default, bool):
        lowered = text.strip().casefold()
        if lowered not in ("true", "yes", "on", "1", "false", "no", "off", "0"):
            raise UsageError(f"{key} takes true or false, not {text!r}")
        return lowered in ("true", "yes", "on", "1")
    if isinstance(default, (int, float)):
        kind = "a whole number" if isinstance(default, int) else "a number"
        try:
            value = int(text) if isinstance(default, int) else float(text)
        except ValueError:
            raise UsageError(f"{key} takes {kind}, not {text!r}") from None
        if setting.min is not None and setting.max is not None and not setting.min <= value <= setting.max:  # and nan
            raise UsageError(f"{key} takes {kind} from {setting.min} to {setting.max}, not {text!r}")
        return value
    if isinstance(default, list):
        return _parse_list(key, text)
    if setting.choices and text not in setting.choices:
        options = ", ".join(setting.choices[:-1]) + " or " + setting.choices[-1]
        raise UsageError(f"{key} takes {options}, not {text!r}")
    return value


def _parse_list(key: str, text: str) -> list[str]:
    """A TOML array of strings (``'["a", "b"]'``, ``'[]'``) or comma-separated words."""
    if not text.strip().startswith("["):
        return [item.strip() for item in text.split(",") if item.strip()]
    import tomllib

    try:
        items = tomllib.loads(f"v = {text.strip()}\n").get("v")
    except tomllib.TOMLDecodeError:
        items = None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise UsageError(f"{key} takes a TOML array of strings or comma-separated words, not {text!r}")
    return items


# ---- `config set`: change one key in TOML text, keeping every comment and line of the rest -------


_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _CannotEdit(Exception):
    pass


@dataclass
class _Stmt:
    """A key/value pair: where its value is and, for a statement, where its line ends."""

    path: tuple[str, ...]  # full key path: table header + dotted key (+ inline-table keys)
    table: tuple[str, ...] | None  # the header it sits under; None inside an inline table
    value_start: int
    value_end: int
    end: int  # after the statement's newline (value_end inside an inline table)
    inline_last: int | None = None  # an inline table's value: end of its last item, -1 if empty


class _Scanner:
    """Finds every key/value pair and table header of a (valid) TOML text, with their offsets."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.stmts: list[_Stmt] = []
        self.headers: list[tuple[tuple[str, ...], bool, int]] = []  # path, is [[array]], offset

    def blank(self, newlines: bool) -> None:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c == "#":
                while self.i < len(text) and text[self.i] != "\n":
                    self.i += 1
            elif c in " \t" or (newlines and (c == "\n" or text.startswith("\r\n", self.i))):
                self.i += 1
            else:
                return

    def at(self, token: str) -> bool:
        """Past blanks, newlines and comments (allowed in arrays): is ``token`` next?"""
        self.blank(True)
        return self.text.startswith(token, self.i)

    def expect(self, token: str) -> None:
        if not self.text.startswith(token, self.i):
            raise _CannotEdit(f"unexpected text at line {self.text.count(chr(10), 0, self.i) + 1}")
        self.i += len(token)

    def line_end(self) -> None:
        self.blank(False)
        if self.i < len(self.text):
            self.expect("\r\n" if self.text.startswith("\r", self.i) else "\n")

    def key(self) -> tuple[str, ...]:
        parts = []
        while True:
            self.blank(False)
            start, c = self.i, self.text[self.i : self.i + 1]
            if c in ('"', "'"):
                self.string()
                import tomllib

                parts.append(str(tomllib.loads(f"k = {self.text[start:self.i]}")["k"]))
            else:
                while self.text[self.i : self.i + 1] in _BARE:
                    self.i += 1
                if self.i == start:
                    self.expect("a key")
                parts.append(self.text[start : self.i])
            self.blank(False)
            if not self.text.startswith(".", self.i):
                return tuple(parts)
            self.i += 1

    def string(self) -> None:
        text, quote = self.text, self.text[self.i]
        delim = quote * 3 if text.startswith(quote * 3, self.i) else quote
        self.i += len(delim)
        while self.i < len(text) and (len(delim) == 3 or text[self.i] != "\n"):
            if text[self.i] == "\\" and quote == '"':
                self.i += 2
            elif text.startswith(delim, self.i):
                run = len(delim)  # a multi-line string may end with one or two more quotes
                while len(delim) == 3 and run < 5 and text.startswith(quote, self.i + run):
                    run += 1
                self.i += run
                return
            else:
                self.i += 1
        self.expect(delim)  # unterminated: refused

    def value(self, path: tuple[str, ...]) -> int | None:
        """Skip one value; for an inline table, record its items and return the end of the last."""
        text, c = self.text, self.text[self.i : self.i + 1]
        if c in ('"', "'"):
            self.string()
        elif c == "[":
            self.i += 1
            while not self.at("]"):
                self.value(path)
                if not self.at(","):
                    break
                self.i += 1
            self.expect("]")
        elif c == "{":
            self.i, last = self.i + 1, -1
            while not self.at("}"):
                inner = path + self.key()
                self.expect("=")
                self.blank(False)
                start, inline = self.i, self.value(inner)
                self.stmts.append(_Stmt(inner, None, start, self.i, self.i, inline))
                last = self.i
                if not self.at(","):
                    break
                self.i += 1
            self.expect("}")
            return last
        else:
            start = self.i
            while self.i < len(text) and text[self.i] not in " \t\r\n,]}#":
                self.i += 1
            if self.i == start:
                self.expect("a value")
            word = text[start : self.i]  # a date and a time may be separated by one space
            if len(word) == 10 and word[4] == word[7] == "-" and text[self.i : self.i + 2].strip().isdigit():
                self.i += 1
                self.value(path)
        return None

    def scan(self) -> _Scanner:
        table: tuple[str, ...] = ()
        while True:
            self.blank(True)
            if self.i >= len(self.text):
                return self
            start = self.text.rfind("\n", 0, self.i) + 1
            if self.text.startswith("[", self.i):
                array = self.text.startswith("[[", self.i)
                self.i += 2 if array else 1
                table = self.key()
                self.expect("]]" if array else "]")
                self.headers.append((table, array, start))
                self.line_end()
                continue
            path = table + self.key()
            self.expect("=")
            self.blank(False)
            value_start, inline = self.i, self.value(path)
            value_end = self.i
            self.line_end()
            self.stmts.append(_Stmt(path, table, value_start, value_end, self.i, inline))


def _render(value: Any) -> str:
    import tomli_w  # only `config set` writes TOML; keep it off every other path

    if isinstance(value, list):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    return tomli_w.dumps({"v": value})[4:].rstrip("\n")


def _edit(text: str, section: str, name: str, value: Any) -> str:
    scan = _Scanner(text).scan()
    rendered, eol = _render(value), "\r\n" if "\r\n" in text else "\n"
    line = f"{name} = {rendered}{eol}"
    for stmt in scan.stmts:
        if stmt.path == (section, name):
            return text[: stmt.value_start] + rendered + text[stmt.value_end :]
    for path, _, offset in scan.headers:
        if path == (section,):
            later = [o for _, _, o in scan.headers if o > offset]
            at = min(later, default=len(text))
            while at > offset:  # before the blank lines that end the table
                start = text.rfind("\n", 0, at - 1) + 1
                if text[start:at].strip() or start <= offset:
                    break
                at = start
            if at == len(text) and not text.endswith("\n"):
                line = eol + line
            return text[:at] + line + text[at:]
    for stmt in scan.stmts:
        if stmt.path == (section,) and stmt.inline_last is not None:
            if stmt.inline_last < 0:
                return text[: stmt.value_start] + f"{{ {name} = {rendered} }}" + text[stmt.value_end :]
            return text[: stmt.inline_last] + f", {name} = {rendered}" + text[stmt.inline_last :]
    dotted = [s for s in scan.stmts if s.table == () and len(s.path) > 1 and s.path[0] == section]
    if dotted:  # the table is made of dotted keys at the top: a [section] header would redefine it
        at = dotted[-1].end
        line = f"{section}.{line}"
        if at == len(text) and not text.endswith("\n"):
            line = eol + line
        return text[:at] + line + text[at:]
    if text and not text.endswith("\n"):
        text += eol
    if text.strip():
        text += eol
    return text + f"[{section}]{eol}{line}"


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return ("float", repr(value)) if isinstance(value, float) else value


def set_value_text(original: str, key: str, value: Any) -> str:
    """Set ``key`` in TOML text by changing only its value or adding one line; checked: the result
    parses, holds ``value`` at ``key`` and every other value as before, or the edit is refused."""
    import tomllib

    section, name = key.split(".", 1)
    before = tomllib.loads(original)
    try:
        if not isinstance(before.get(section, {}), dict):
            raise _CannotEdit(f"{section} is not a table")
        expected = copy.deepcopy(before)
        expected.setdefault(section, {})[name] = value
        updated = _edit(original, section, name, value)
        try:
            ok = _canonical(tomllib.loads(updated)) == _canonical(expected)
        except tomllib.TOMLDecodeError:
            ok = False
        if not ok:
            table = before.get(section, {})
            how = "is a table" if isinstance(table.get(name), dict) else "is defined in a way this editor cannot change"
            raise _CannotEdit(f"{key} {how}")
    except (_CannotEdit, RecursionError) as exc:
        raise SelfImproveError(f"cannot edit {key} in this file: {exc}, edit it by hand") from None
    return updated
