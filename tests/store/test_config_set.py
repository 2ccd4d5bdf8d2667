"""`config set`: values are checked against the table of defaults, and the edit is exact or refused."""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from self_improve.store import config as config_mod
from self_improve.store import config_edit
from self_improve.store import settings as settings_table
from self_improve.errors import SelfImproveError, UsageError
from tests.helpers import run_cli


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    return tmp_path


def set_in(project: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = project / ".learnings/config.toml"
    path.write_bytes(text.encode())
    result = run_cli("config", "set", *args, cwd=project)
    return result.returncode, result.stderr, path.read_bytes().decode()


# ---- the bugs, through the CLI: exact bytes after the edit, or one line and the file unchanged ----


def test_a_multi_line_array_is_replaced_whole(project: Path) -> None:
    text = '[targets]\nworkflow_areas = [\n    "infra",  # ours\n    "tests",\n]\nlearning = "L.md"\n'
    assert set_in(project, text, "targets.workflow_areas", "a, b") == (
        0, "", '[targets]\nworkflow_areas = ["a", "b"]\nlearning = "L.md"\n'
    )


def test_top_level_dotted_keys_get_a_dotted_line_not_a_second_table(project: Path) -> None:
    text = '# mine\ntargets.learning = "X.md"\n\n[log]\nmax_occurrences = 30\n'
    assert set_in(project, text, "targets.error", "E.md") == (
        0, "", '# mine\ntargets.learning = "X.md"\ntargets.error = "E.md"\n\n[log]\nmax_occurrences = 30\n'
    )
    assert set_in(project, text, "targets.learning", "Y.md")[2] == text.replace("X.md", "Y.md")


def test_an_inline_table_is_edited_in_place(project: Path) -> None:
    text = 'targets = { learning = "X.md" }  # note\r\n'
    assert set_in(project, text, "targets.error", "E.md")[2] == 'targets = { learning = "X.md", error = "E.md" }  # note\r\n'
    assert set_in(project, text, "targets.learning", "Y.md")[2] == 'targets = { learning = "Y.md" }  # note\r\n'


def test_toml_array_syntax_is_accepted_and_set_again(project: Path) -> None:
    path = project / ".learnings/config.toml"
    assert run_cli("config", "set", "targets.workflow_areas", "[]", cwd=project).returncode == 0
    assert path.read_text() == "[targets]\nworkflow_areas = []\n"
    assert run_cli("config", "get", "targets.workflow_areas", cwd=project).stdout == "[]\n"
    assert run_cli("config", "set", "targets.workflow_areas", '["a", "b"]', cwd=project).returncode == 0
    assert run_cli("config", "set", "targets.behaviour_categories", "x,y", cwd=project).returncode == 0
    assert path.read_text() == '[targets]\nworkflow_areas = ["a", "b"]\nbehaviour_categories = ["x", "y"]\n'


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("promotion.min_occurrences", "-5", "promotion.min_occurrences takes a whole number from 1 to 1000, not '-5'"),
        ("log.similarity_threshold", "nan", "log.similarity_threshold takes a number from 0.0 to 1.0, not 'nan'"),
        ("hooks.max_fix_chars", "5000", "hooks.max_fix_chars takes a whole number from 20 to 240, not '5000'"),
        ("targets.workflow_areas", "[1, 2]", "targets.workflow_areas takes a TOML array of strings or comma-separated words, not '[1, 2]'"),
        ("targets.workflow_areas", '["a"', "targets.workflow_areas takes a TOML array of strings or comma-separated words, not '[\"a\"'"),
        ("reminder.mode", "sometimes", "reminder.mode takes every, adaptive or off, not 'sometimes'"),
    ],
)
def test_a_value_outside_the_table_of_defaults_is_refused(project: Path, key: str, value: str, message: str) -> None:
    text = "# kept\n[promotion]\nmin_occurrences = 3\n"
    assert set_in(project, text, key, value) == (
        2, f"self-improve: error: {message}\n", text
    )


def test_a_file_it_cannot_edit_is_refused_unchanged(project: Path) -> None:
    text = "[targets.learning]\nx = 1\n"
    assert set_in(project, text, "targets.learning", "L.md") == (
        1, "self-improve: error: cannot edit targets.learning in this file: targets.learning is a table, edit it by hand\n", text,
    )
    text = '[[targets]]\nlearning = "L.md"\n'
    assert set_in(project, text, "targets.error", "E.md") == (
        1, "self-improve: error: cannot edit targets.error in this file: targets is not a table, edit it by hand\n", text,
    )


# ---- one table of ranges ------------------------------------------------------------------------


def test_bounds_agree_with_the_table_of_defaults() -> None:
    numeric = [s for s in config_mod.SETTINGS if isinstance(s.default, (int, float)) and not isinstance(s.default, bool)]
    for setting in numeric:
        assert setting.min is not None and setting.max is not None, setting.key
        assert setting.min <= setting.default <= setting.max, setting.key
        if setting.project is not None:
            assert setting.min <= setting.project[0] <= setting.default <= setting.project[1] <= setting.max, setting.key
    project_settable = {s.key: s.project for s in numeric if not settings_table.is_personal(*s.key.split(".", 1))}
    assert settings_table.BOUNDS == project_settable
    assert all(s.min is None and s.project is None for s in config_mod.SETTINGS if s not in numeric)


# ---- the property: every valid file, every known key ----------------------------------------------


def toml_value(value: Any) -> st.SearchStrategy[str]:
    """Ways of writing ``value`` in a file (several layouts for an array)."""
    if isinstance(value, list):
        items = [config_edit._render(item) for item in value]
        return st.sampled_from(
            ["[" + ", ".join(items) + "]", "[\n  " + ",\n  ".join(items) + (",\n" if items else "") + "]",
             "[ # open\n" + "".join(f"  {i}, # c\n" for i in items) + "\n]"]
        )
    if isinstance(value, str):
        basic = config_edit._render(value)
        return st.sampled_from([basic, f"'{value}'", f'""{basic}""', f"'''{value}'''", f"'''\n{value}'''"])
    return st.just(config_edit._render(value))


KEYS = [s.key for s in config_mod.SETTINGS]
STRINGS = st.text(alphabet="abX._- #\"'\\[]{}=,é\t", min_size=1, max_size=8)


def valid_value(key: str) -> st.SearchStrategy[Any]:
    s = config_mod.SETTINGS_BY_KEY[key]
    if isinstance(s.default, bool):
        return st.booleans()
    if isinstance(s.default, int):
        return st.integers(int(s.min or 0), int(s.max or 0))
    if isinstance(s.default, float):
        return st.floats(s.min, s.max)
    if isinstance(s.default, list):
        return st.lists(STRINGS, max_size=3)
    return st.sampled_from(s.choices) if s.choices else STRINGS


@st.composite
def config_files(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    chosen = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=8))
    sections: dict[str, list[tuple[str, str]]] = {}
    for key in chosen:
        section, name = key.split(".", 1)
        value = draw(valid_value(key))
        spelled = draw(st.sampled_from([name, f'"{name}"', f"'{name}'", f'"\\u{ord(name[0]):04x}{name[1:]}"']))
        sections.setdefault(section, []).append((spelled, draw(toml_value(value))))
        if draw(st.booleans()):
            extra = draw(st.sampled_from(['"x#y"', "{ a = 1 }", "1979-05-27 07:32:00Z", "-inf", "nan"]))
            sections[section].append((draw(st.sampled_from(["unknown", "sub.deep"])), extra))
    if draw(st.booleans()):
        sections.setdefault("detect", []).append(("disable", '["x.y"]'))
    top: list[str] = [draw(st.sampled_from(["", "# top comment", 'other = "kept"', "a . b = { c = [1, 2], d = { e = 'f' } }"]))]
    tables: list[str] = []
    for section, pairs in sections.items():
        style = draw(st.sampled_from(["header", "quoted-header", "dotted", "inline", "header+sub"]))
        comment = draw(st.sampled_from(["", "  # about it"]))
        if style == "dotted":
            top += [f"{section}{draw(st.sampled_from(['.', ' . ']))}{k} = {v}{comment}" for k, v in pairs]
            if draw(st.booleans()):
                tables += [f"[{section}.later]", "x = 1", ""]
        elif style == "inline":
            flat = [(k, v.replace("\n", " ").replace("# open", "").replace("# c", "")) for k, v in pairs]
            top.append(f"{section} = {{ " + ", ".join(f"{k} = {v}" for k, v in flat) + f" }}{comment}")
        else:
            head = f'[ "{section}" ]' if style == "quoted-header" else f"[{section}]"
            tables += [head + comment] + [f"{k} = {v}" for k, v in pairs] + [draw(st.sampled_from(["", "# trailing"]))]
            if style == "header+sub":
                tables += [f"[{section}.sub]", "x = 1979-05-27 07:32:00Z", ""]
    if draw(st.booleans()):
        tables += ["[[other]]", "x = 1", "[[other]]", "x = 2"]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = "\n".join(top + tables) + draw(st.sampled_from(["", "\n"]))
    text = text.replace("\n", eol)
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        reject()


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return ("nan",) if isinstance(value, float) and math.isnan(value) else value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config_files(), st.data())
def test_set_edits_exactly_one_value_of_any_valid_file(file: tuple[str, dict[str, Any]], data: st.DataObject) -> None:
    text, before = file
    key = data.draw(st.sampled_from(KEYS))
    value = data.draw(valid_value(key))
    updated = config_mod.set_value_text(text, key, value)
    after = tomllib.loads(updated)
    section, name = key.split(".", 1)
    assert after[section][name] == value
    expected = copy.deepcopy(before)
    expected.setdefault(section, {})[name] = value
    assert canonical(after) == canonical(expected)
    for comment in ("# top comment", "# about it", "# trailing"):  # comments outside values survive
        assert updated.count(comment) == text.count(comment)
    assert updated.count("\r\n") == (updated.count("\n") if "\r\n" in text else 0)  # the file's line endings


def test_parse_value_types() -> None:
    assert config_mod.parse_value("targets.workflow_areas", " [ 'a' , \"b\" ] ") == ["a", "b"]
    assert config_mod.parse_value("targets.workflow_areas", "") == []
    assert config_mod.parse_value("log.similarity_threshold", "1") == 1.0
    with pytest.raises(UsageError):
        config_mod.parse_value("promotion.window_days", "0")
    with pytest.raises(SelfImproveError, match="cannot edit"):
        config_mod.set_value_text("log = 3\n", "log.max_occurrences", 5)
