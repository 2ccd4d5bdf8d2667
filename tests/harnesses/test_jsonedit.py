"""The format-preserving JSON editor: exact outputs for handwritten cases, round trips by hypothesis."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.harnesses.jsonedit import JsonDocument, JsonEditError, JsonSyntaxError, Style, parse

GROUP = {"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}


# --- parsing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['{}', '[]', '{"a": [1, 2.5e-3, -0, true, false, null, "\\u00e9\\n"]}', ' \r\n\t{"k" : {}} \n', '"s"', "0"],
)
def test_parse_agrees_with_json(text: str) -> None:
    assert JsonDocument(text).value == json.loads(text)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", "line 1 column 1"),
        ('{"a": 1,}', "line 1 column 9"),
        ('{"a": 1}\n// comment', "line 2 column 1"),
        ('{\n  "a": 01\n}', "line 2 column 9"),
        ("{'a': 1}", "line 1 column 2"),
        ('{"a": "tab\there"}', "line 1 column 7"),
        ('[1 2]', "line 1 column 4"),
        ('{"a" 1}', "line 1 column 6"),
        ("[" * 5000, "line 1 column 1"),
    ],
)
def test_invalid_json_is_refused_with_a_position(text: str, where: str) -> None:
    with pytest.raises(JsonSyntaxError) as info:
        JsonDocument(text)
    assert where in str(info.value)
    assert "\n" not in str(info.value)


def test_spans_cover_values() -> None:
    text = '{"a": [1, {"b": "c"}], "d": null}'
    root = parse(text)
    doc = JsonDocument(text)
    node = doc.node(("a", 1, "b"))
    assert node is not None and text[node.start : node.end] == '"c"'
    assert doc.node(("a", 5)) is None and doc.node(("zz",)) is None and doc.node(("d", "x")) is None
    assert text[root.start : root.end] == text


def test_duplicate_keys_are_refused_where_we_look() -> None:
    doc = JsonDocument('{"hooks": 1, "hooks": 2}')
    with pytest.raises(JsonEditError):
        doc.node(("hooks",))


# --- exact outputs -------------------------------------------------------------------------


def test_add_member_to_empty_root_uses_two_spaces() -> None:
    doc = JsonDocument("{}\n")
    doc.add_member((), "hooks", {"E": [GROUP]})
    assert doc.text == (
        '{\n  "hooks": {\n    "E": [\n      {\n        "matcher": "Bash",\n        "hooks": [\n'
        '          {\n            "type": "command",\n            "command": "x"\n          }\n'
        "        ]\n      }\n    ]\n  }\n}\n"
    )


def test_append_follows_four_space_indentation() -> None:
    doc = JsonDocument('{\n    "a": [\n        1\n    ]\n}')
    doc.append_item(("a",), {"k": [2]})
    assert doc.text == '{\n    "a": [\n        1,\n        {\n            "k": [\n                2\n            ]\n        }\n    ]\n}'


def test_append_follows_tabs_and_crlf() -> None:
    doc = JsonDocument('{\r\n\t"a": []\r\n}\r\n')
    doc.append_item(("a",), {"k": 1})
    assert doc.text == '{\r\n\t"a": [\r\n\t\t{\r\n\t\t\t"k": 1\r\n\t\t}\r\n\t]\r\n}\r\n'


def test_compact_documents_stay_on_one_line() -> None:
    doc = JsonDocument('{"a":1,"b":[1,2]}')
    doc.add_member((), "c", {"d": [1, "é"]})
    assert doc.text == '{"a":1,"b":[1,2],"c":{"d":[1,"é"]}}'
    doc = JsonDocument('{"a": 1, "b": [1, 2]}')
    doc.append_item(("b",), {"x": None})
    assert doc.text == '{"a": 1, "b": [1, 2, {"x": null}]}'


def test_key_separator_is_copied() -> None:
    doc = JsonDocument('{\n  "a" : 1\n}')
    doc.add_member((), "b", {"c": 2})
    assert doc.text == '{\n  "a" : 1,\n  "b" : {\n    "c" : 2\n  }\n}'


def test_bom_is_kept() -> None:
    doc = JsonDocument('\ufeff{"a": 1}')
    doc.add_member((), "b", 2)
    assert doc.text == '\ufeff{"a": 1, "b": 2}'


def test_remove_is_the_inverse_of_append() -> None:
    original = '{\n  "a": [\n    1\n  ],\n  "z": {}\n}\n'
    doc = JsonDocument(original)
    doc.append_item(("a",), {"k": 1})
    doc.add_member((), "new", [1])
    doc.add_member(("z",), "q", True)
    doc.remove_member(("z",), "q")
    doc.remove_member((), "new")
    doc.remove_item(("a",), 1)
    assert doc.text == original


def test_remove_first_and_only_children() -> None:
    doc = JsonDocument('[1, 2, 3]')
    doc.remove_item((), 0)
    assert doc.text == "[2, 3]"
    doc = JsonDocument('{"a": [ 1 ]}')
    doc.remove_item(("a",), 0, inner=" ")
    assert doc.text == '{"a": [ ]}'


def test_edit_errors() -> None:
    doc = JsonDocument('{"a": 1}')
    with pytest.raises(JsonEditError):
        doc.add_member((), "a", 2)
    with pytest.raises(JsonEditError):
        doc.append_item(("a",), 1)
    with pytest.raises(JsonEditError):
        doc.remove_member((), "nope")
    with pytest.raises(JsonEditError):
        doc.remove_item(("a",), 0)


def test_style_detection() -> None:
    style = Style.detect('{\n\t"a": {\n\t\t"b": 1\n\t}\n}', parse('{\n\t"a": {\n\t\t"b": 1\n\t}\n}'))
    assert style.indent == "\t" and style.newline == "\n" and not style.compact


# --- round trips ---------------------------------------------------------------------------

_keys = st.text(min_size=0, max_size=8)
_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=20,
)


@st.composite
def styled(draw: st.DrawFn, value_strategy: Any = _values) -> str:
    value = draw(value_strategy)
    indent = draw(st.sampled_from([None, 0, 1, 2, 4, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (",", ": ")]))
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text + draw(st.sampled_from(["", "\n", "\r\n", "  \n"]))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(styled(st.dictionaries(_keys, _values, max_size=5)), _values, st.text(max_size=6))
def test_add_then_remove_member_restores_every_byte(text: str, value: Any, key: str) -> None:
    doc = JsonDocument(text)
    if key in doc.value:
        return
    inner = doc.inner_whitespace(()) or ""
    doc.add_member((), key, value)
    assert json.loads(doc.text) == {**json.loads(text), key: value}
    doc.remove_member((), key, inner=inner)
    assert doc.text == text


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(styled(st.lists(_values, max_size=5)), _values)
def test_append_then_remove_item_restores_every_byte(text: str, value: Any) -> None:
    doc = JsonDocument(text)
    inner = doc.inner_whitespace(()) or ""
    doc.append_item((), value)
    assert json.loads(doc.text) == [*json.loads(text), value]
    doc.remove_item((), len(json.loads(text)), inner=inner)
    assert doc.text == text
