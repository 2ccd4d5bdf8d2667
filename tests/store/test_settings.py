"""The one table of settings: each default is of its declared type and within its range, the
table is what ``config list`` shows, and it stays cheap enough for the hooks to import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from self_improve.store import settings
from tests.helpers import REPO, run_cli

TYPES = (bool, int, float, str, list)


@pytest.mark.parametrize("setting", settings.SETTINGS, ids=lambda s: s.key)
def test_each_default_is_of_its_declared_type_within_its_range(setting: settings.Setting) -> None:
    section, _, name = setting.key.partition(".")
    assert section and name and "." not in name
    assert setting.type in TYPES
    assert type(setting.default) is setting.type  # exact: a bool is no int here
    assert setting.doc.strip()
    if setting.type in (int, float):
        assert setting.min is not None and setting.max is not None
        assert setting.min <= setting.default <= setting.max
        if setting.project is not None:
            low, high = setting.project
            assert setting.min <= low <= setting.default <= high <= setting.max
    else:
        assert setting.min is None and setting.max is None and setting.project is None
    if setting.choices:
        assert setting.type is str and setting.default in setting.choices
    if setting.type is list:
        assert all(isinstance(item, str) for item in setting.default)
    if setting.personal:
        assert setting.project is None  # a project cannot set it, so it has nothing to clamp
        assert settings.is_personal(section, name)


def test_keys_are_unique_and_default_returns_a_fresh_copy() -> None:
    assert len(settings.SETTINGS_BY_KEY) == len(settings.SETTINGS)
    for setting in settings.SETTINGS:
        assert settings.default(setting.key) == setting.default
    areas = settings.default("targets.workflow_areas")
    areas.append("changed")
    assert "changed" not in settings.default("targets.workflow_areas")
    with pytest.raises(KeyError):
        settings.default("no.such_key")


def test_defaults_nest_every_key_by_section() -> None:
    nested = settings.defaults()
    for setting in settings.SETTINGS:
        section, name = setting.key.split(".", 1)
        assert nested[section][name] == setting.default
    assert all(nested[table] == {} for table in settings.FREE_TABLES)


def test_config_list_shows_the_table(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    result = run_cli("config", "list", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [(r["key"], r["default"], r["doc"]) for r in rows] == [(s.key, s.default, s.doc) for s in settings.SETTINGS]
    assert all(r["value"] == r["default"] for r in rows)
    text = run_cli("config", "list", cwd=tmp_path).stdout
    for setting in settings.SETTINGS:
        assert f"{setting.key} = {json.dumps(setting.default)}\n    {setting.doc}\n" in text


def test_the_table_imports_nothing() -> None:
    """The hooks read defaults on every call: loading the table loads no other module."""
    probe = (f"import sys; sys.path.insert(0, {str(REPO)!r}); before = set(sys.modules); "
             "import self_improve.store.settings; print(' '.join(sorted(set(sys.modules) - before)))")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert set(out.stdout.split()) <= {"__future__", "self_improve", "self_improve.store", "self_improve.store.settings"}
