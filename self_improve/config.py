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
    key: str  # dotted: "section.name"
    default: Any
    doc: str


SETTINGS: tuple[Setting, ...] = (
    Setting("log.similarity_threshold", 0.8, "Jaccard similarity of case-folded summary words at or above which `log` merges into an existing entry that has no Pattern-Key match."),
    Setting("log.max_occurrences", 20, "Occurrences kept per entry (date and task); older ones are folded into the totals."),
    Setting("hooks.enabled_without_learnings", False, "Let the hooks act in projects that have no .learnings/ (default: opt-in per project via `self-improve init`)."),
    Setting("hooks.record_errors", True, "post-bash records each detected error as an occurrence in ERRORS.md."),
    Setting("hooks.recall", True, "post-bash injects the one known fix for a recurring Pattern-Key (just-in-time recall)."),
    Setting("hooks.max_fix_chars", 240, "Cap on the known-fix text injected by recall."),
    Setting("reminder.mode", "adaptive", "every | adaptive | off. adaptive: first prompt of a session, then after N prompts, after a detected error, or on a correction."),
    Setting("reminder.every_n_prompts", 10, "In adaptive mode, remind again after this many prompts."),
    Setting("state.session_ttl_days", 7, "Per-session hook state older than this is pruned."),
    Setting("promotion.min_occurrences", 3, "Occurrences within the window needed to propose promotion."),
    Setting("promotion.min_tasks", 2, "Distinct tasks (sessions) among those occurrences."),
    Setting("promotion.window_days", 30, "The window, in days, counted back from today."),
    Setting("promotion.require_approval", True, "`promote` refuses without --yes unless it runs on a TTY. Personal: honoured only from the user-level config."),
    Setting("promotion.agent_may_promote", False, "Let promote, review --yes and extract-skill change instruction files when run from inside an agent session (default: they only propose). Personal."),
    Setting("promotion.max_rule_chars", 200, "Longest rule that may be promoted."),
    Setting("forgetting.archive_after_days", 90, "Closed entries (resolved, wont_fix, retired) unseen this long are archive candidates."),
    Setting("forgetting.decay_after_days", 180, "Pending entries unseen this long stop counting towards promotion."),
    Setting("forgetting.stale_after_days", 180, "Promoted rules unseen this long are retire candidates."),
    Setting("forgetting.max_active_entries", 200, "Above this many active entries, review lists the lowest-value ones for archiving."),
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
    from self_improve import config_trust
    from self_improve.paths_fast import user_config_path

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
    from self_improve import config_trust
    from self_improve.paths_fast import user_config_path

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
    """A CLI value as the type the key's default has."""
    if key not in SETTINGS_BY_KEY:
        raise UsageError(f"unknown config key: {key} (see `self-improve config list`)")
    default = SETTINGS_BY_KEY[key].default
    if isinstance(default, bool):
        lowered = text.strip().casefold()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise UsageError(f"{key} takes true or false, not {text!r}")
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise UsageError(f"{key} takes a whole number, not {text!r}") from None
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            raise UsageError(f"{key} takes a number, not {text!r}") from None
    if isinstance(default, list):
        return [item.strip() for item in text.split(",") if item.strip()]
    if key == "reminder.mode" and text not in ("every", "adaptive", "off"):
        raise UsageError(f"reminder.mode takes every, adaptive or off, not {text!r}")
    return text


def set_value_text(original: str, key: str, value: Any) -> str:
    """Set ``key`` in TOML text by editing one line (or appending), keeping comments and layout."""
    import tomli_w  # only `config set` writes TOML; keep it off every other path

    section, name = key.split(".", 1)
    rendered = tomli_w.dumps({name: value}).strip()
    eol = "\r\n" if "\r\n" in original else "\n"
    lines = original.splitlines(keepends=True)
    current: str | None = None
    section_end: int | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            if current == section:
                section_end = i
                break
            current = stripped.strip("[]").strip()
            continue
        if current == section and _assigns(stripped, name):
            ending = line[len(line.rstrip("\r\n")) :] or ""
            lines[i] = rendered + ending
            return "".join(lines)
    if current == section and section_end is None:
        section_end = len(lines)
    if section_end is not None:
        insert_at = section_end
        while insert_at > 0 and not lines[insert_at - 1].strip():
            insert_at -= 1
        if insert_at == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += eol
        lines.insert(insert_at, rendered + eol)
        return "".join(lines)
    text = original
    if text and not text.endswith("\n"):
        text += eol
    if text.strip():
        text += eol
    return text + f"[{section}]{eol}{rendered}{eol}"


def _assigns(stripped_line: str, name: str) -> bool:
    head = stripped_line.split("=", 1)[0].strip().strip('"').strip("'")
    return "=" in stripped_line and head == name
