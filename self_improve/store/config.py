"""``.learnings/config.toml``: read with stdlib ``tomllib``, checked against the table of settings.

Every key and its default is in ``settings``; ``self-improve config list`` prints them all.
``config set`` edits one ``key = value`` line in place (``config_edit``), so the user's comments
and layout stay.
"""

from __future__ import annotations

from self_improve.errors import SelfImproveError, UsageError
from self_improve.store.settings import SETTINGS, SETTINGS_BY_KEY, defaults

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: pathlib and typing stay off their hot path
    from pathlib import Path
    from typing import Any

# Re-exported: callers read the table and edit a file through this module.
__all__ = [
    "SETTINGS", "SETTINGS_BY_KEY", "config_path", "defaults", "get", "load", "load_with_report", "parse_value",
    "read_user_config", "read_user_config_text", "set_value_text", "user_setting",
]


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
    ignored and its thresholds clamped (``settings``). The user-wide store's config
    (``trusted=True``) is the user's own. A value of the wrong type is refused.
    """
    return load_with_report(learnings_dir, trusted=trusted)[0]


def load_with_report(learnings_dir: Path, *, trusted: bool = False) -> tuple[dict[str, Any], list[str]]:
    """``load``, and one line per project setting that was ignored or clamped (for ``doctor``)."""
    from pathlib import Path

    from self_improve.paths import user_config_path
    from self_improve.store import settings

    merged = defaults()
    user_path = Path(user_config_path())
    user = _checked(read_user_config(user_path), user_path)
    settings.overlay_user(merged, user)
    own_path = config_path(learnings_dir)
    own = _checked(read_user_config(own_path), own_path)
    if trusted or own_path.resolve() == user_path.resolve():
        settings.overlay_user(merged, own)
        return merged, []
    return merged, settings.overlay_project(merged, own)


def user_setting(key: str) -> Any:
    """A personal setting as the user set it: defaults overlaid with the user-level config only."""
    from pathlib import Path

    from self_improve.paths import user_config_path
    from self_improve.store import settings

    merged = defaults()
    user_path = Path(user_config_path())
    settings.overlay_user(merged, _checked(read_user_config(user_path), user_path))
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
    expected = SETTINGS_BY_KEY[key].type
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


def set_value_text(original: str, key: str, value: Any) -> str:
    """``config_edit.set_value_text``: the TOML editor, imported only by ``config set`` (the hooks
    load this module to read a config and must not pay for the editor's imports)."""
    from self_improve.store import config_edit

    return config_edit.set_value_text(original, key, value)
