"""jsontext: the state files' JSON, written without ``json``; ``json.loads`` reads it back."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from self_improve.jsontext import dumps

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_round_trip(value: Any) -> None:
    assert json.loads(dumps(value)) == value
    assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_exact_text() -> None:
    assert dumps({"fp": "a/b", "after": ["`x`", 'say "hi"'], "t": 3, "ok": True}) == (
        '{"fp":"a/b","after":["`x`","say \\"hi\\""],"t":3,"ok":true}')


@pytest.mark.parametrize("value", [1.5, (1, 2), {1: "a"}, b"x"])
def test_other_types_are_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        dumps(value)
