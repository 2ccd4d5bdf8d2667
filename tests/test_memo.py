"""The hot path's stand-ins for standard modules it cannot afford to import: ``memo`` for
``functools``' caches, ``digest`` for ``hashlib.sha256``, ``lines`` for the line splitter, the
store's scan for ``bisect``. Each must behave as what it stands in for."""

from __future__ import annotations

import bisect
import functools
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from self_improve import digest, lines, memo
from self_improve.store import scan


def test_cache_memoizes_by_argument_values_and_never_an_exception() -> None:
    calls: list[tuple[object, ...]] = []

    @memo.cache
    def square(x: int, y: int = 0) -> int:
        """Squares."""
        calls.append((x, y))
        if x < 0:
            raise ValueError(x)
        return x * x + y

    assert square(3) == square(3) == 9
    assert square(3, 1) == 10
    assert calls == [(3, 0), (3, 1)]
    for _ in range(2):
        with pytest.raises(ValueError):
            square(-1)
    assert calls[-2:] == [(-1, 0), (-1, 0)]
    info = square.cache_info()
    assert (info.hits, info.misses, info.maxsize, info.currsize) == (1, 4, None, 2)
    assert square.__name__ == "square" and square.__doc__ == "Squares." and square.__wrapped__ is not None
    square.cache_clear()
    assert square.cache_info().currsize == 0
    square(3)
    assert calls[-1] == (3, 0)


@given(st.lists(st.integers(0, 6), max_size=40), st.integers(0, 4))
def test_lru_cache_keeps_what_functools_keeps(keys: list[int], size: int) -> None:
    ours_calls: list[int] = []
    theirs_calls: list[int] = []

    @memo.lru_cache(maxsize=size)
    def ours(x: int) -> int:
        ours_calls.append(x)
        return -x

    @functools.lru_cache(maxsize=size)
    def theirs(x: int) -> int:
        theirs_calls.append(x)
        return -x

    for key in keys:
        assert ours(key) == theirs(key)
    assert ours_calls == theirs_calls  # the same misses: the same results were kept
    assert ours.cache_info().currsize == theirs.cache_info().currsize


def test_cached_property_computes_once_per_instance() -> None:
    class Thing:
        def __init__(self, n: int) -> None:
            self.n = n
            self.computed = 0

        @memo.cached_property
        def double(self) -> int:
            """Twice n."""
            self.computed += 1
            return 2 * self.n

    a, b = Thing(2), Thing(5)
    assert (a.double, a.double, b.double) == (4, 4, 10)
    assert (a.computed, b.computed) == (1, 1)
    assert Thing.double.__doc__ == "Twice n."


@given(st.binary(max_size=200))
def test_sha256_hex_is_hashlibs(data: bytes) -> None:
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


@given(st.text(alphabet="ab\r\n\x0b", max_size=30))
def test_lines_of_keeps_every_ending(text: str) -> None:
    split = lines.lines_of(text)
    assert "".join(split) == text
    assert all(line.endswith("\n") for line in split[:-1])
    assert all("\n" not in line[:-1] for line in split)


@given(st.lists(st.integers(-5, 5)).map(sorted), st.integers(-7, 7))
def test_the_scans_bisect_is_bisects(items: list[int], value: int) -> None:
    assert scan._bisect_right(items, value) == bisect.bisect_right(items, value)
