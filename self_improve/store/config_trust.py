"""What a project's ``.learnings/config.toml`` may set, and what only the user's own config may.

A project's config arrives with the repository: whoever can push to it, or open a pull request,
wrote it. So the settings that decide what reaches the model, how much of it, whether a human
must approve a change to the user's instruction files, and how long local state lives are
*personal*: they are honoured only from the user-level config
(``$XDG_CONFIG_HOME/self-improve/config.toml``) or the user-wide store's own config. A project
may tune detection and thresholds, each clamped to a safe range.

The effective configuration is: documented defaults, overlaid with the user-level config (all
keys), overlaid with the project's config (non-personal keys only, clamped). What was ignored or
clamped is returned so that ``doctor`` can list it.

This module is imported by the hooks: it imports only ``settings``, no ``typing`` at run time.
"""

from __future__ import annotations

from self_improve.store.settings import SETTINGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Settings a project's config may not set (honoured only from the user's own config).
PERSONAL = frozenset(setting.key for setting in SETTINGS if setting.personal)

# Sections of which a project may set nothing at all.
PERSONAL_SECTIONS = frozenset({"trust"})

# [detect] keys a project may set: switching builtin rules off and ignoring output only ever make
# the hooks say less. New rules carry titles that reach the model in every nudge: personal.
PROJECT_DETECT_KEYS = frozenset({"disable", "ignore"})

# (lowest, highest) a project's value is clamped into (``Setting.project``). The low ends keep
# the evidence rule meaningful (a repo cannot make one occurrence a promotion candidate); the
# high ends keep the work bounded.
BOUNDS: dict[str, tuple[float, float]] = {
    setting.key: setting.project for setting in SETTINGS if setting.project is not None
}


def is_personal(section: str, name: str) -> bool:
    return section in PERSONAL_SECTIONS or f"{section}.{name}" in PERSONAL


def overlay_user(merged: dict[str, Any], user: dict[str, Any]) -> None:
    """The user's own config: every key is honoured (types are checked by the caller)."""
    for section, table in user.items():
        if not isinstance(table, dict):
            continue
        target = merged.setdefault(section, {})
        if section == "detect" and isinstance(target, dict):
            _merge_detect(target, table)
            continue
        target.update(table)


def overlay_project(merged: dict[str, Any], project: dict[str, Any]) -> list[str]:
    """The project's config, less what it may not set; returns one line per key ignored or clamped."""
    ignored: list[str] = []
    for section, table in project.items():
        if not isinstance(table, dict):
            continue
        if section == "detect":
            allowed = {k: v for k, v in table.items() if k in PROJECT_DETECT_KEYS}
            ignored.extend(f"detect.{k}: only the user-level config may add detection rules" for k in table if k not in allowed)
            _merge_detect(merged.setdefault("detect", {}), allowed)
            continue
        target = merged.setdefault(section, {})
        for name, value in table.items():
            key = f"{section}.{name}"
            if is_personal(section, name):
                ignored.append(f"{key}: personal, honoured only from the user-level config")
                continue
            clamped = _clamp(key, value)
            if clamped is not value:
                ignored.append(f"{key}: {value!r} is out of bounds, {clamped!r} used")
            target[name] = clamped
    return ignored


def _clamp(key: str, value: Any) -> Any:
    bounds = BOUNDS.get(key)
    if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    low, high = bounds
    if value < low:
        return type(value)(low)
    if value > high:
        return type(value)(high)
    return value


def _merge_detect(target: dict[str, Any], table: dict[str, Any]) -> None:
    """Lists (disable, ignore, rules) from both configs add up; anything else: the later wins."""
    for key, value in table.items():
        current = target.get(key)
        if isinstance(current, list) and isinstance(value, list):
            target[key] = [*current, *value]
        else:
            target[key] = value
