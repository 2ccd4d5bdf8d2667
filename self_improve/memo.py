"""``functools.cache``, ``lru_cache`` and ``cached_property`` for the hot path, without ``functools``.

``functools`` imports ``collections`` (and with it ``keyword``, ``operator``, ``reprlib``...):
about 2 ms of a hook that records a failure, for the few memoized functions of the detector and
the redactor. These decorators memoize the same way (by the positional arguments' values, an
exception memoizes nothing, ``lru_cache`` drops the least recently used result beyond
``maxsize``) and keep the same ``cache_info()`` and ``cache_clear()``. Keyword arguments are not
supported: none of the functions they wrap takes any. The type checker sees ``functools``' own.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from functools import cache as cache
    from functools import cached_property as cached_property
    from functools import lru_cache as lru_cache
    from typing import Any


_MISSING = object()


class CacheInfo:
    """What ``functools``' ``cache_info()`` returns, by attribute (``hits``, ``misses``...)."""

    __slots__ = ("hits", "misses", "maxsize", "currsize")

    def __init__(self, hits: int, misses: int, maxsize: int | None, currsize: int) -> None:
        self.hits, self.misses, self.maxsize, self.currsize = hits, misses, maxsize, currsize

    def __repr__(self) -> str:
        return f"CacheInfo(hits={self.hits}, misses={self.misses}, maxsize={self.maxsize}, currsize={self.currsize})"


class Memo:
    """``function`` with its results kept: all of them (``maxsize`` None), or the last ``maxsize`` used."""

    def __init__(self, function: Callable[..., Any], maxsize: int | None) -> None:
        self.__wrapped__ = function
        self.__name__ = getattr(function, "__name__", "memo")
        self.__qualname__ = getattr(function, "__qualname__", self.__name__)
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__
        self._maxsize = maxsize
        self._results: dict[tuple[Any, ...], Any] = {}
        self._hits = self._misses = 0

    def __call__(self, *args: Any) -> Any:
        results = self._results
        result = results.get(args, _MISSING)
        if result is not _MISSING:
            self._hits += 1
            if self._maxsize is not None and len(results) > 1:  # the most recently used go last
                results.pop(args, None)
                results[args] = result
            return result
        self._misses += 1
        result = self.__wrapped__(*args)
        if self._maxsize is not None:
            if self._maxsize <= 0:
                return result
            while len(results) >= self._maxsize:
                try:
                    del results[next(iter(results))]
                except (KeyError, RuntimeError, StopIteration):  # another thread evicted it first
                    break
        results[args] = result
        return result

    def cache_info(self) -> CacheInfo:
        return CacheInfo(self._hits, self._misses, self._maxsize, len(self._results))

    def cache_clear(self) -> None:
        self._results.clear()
        self._hits = self._misses = 0


if not TYPE_CHECKING:

    def cache(function):
        """``functools.cache``."""
        return Memo(function, None)

    def lru_cache(maxsize=128):
        """``functools.lru_cache(maxsize)`` (called with the size, as ``@lru_cache(maxsize=1)``)."""
        if callable(maxsize):
            return Memo(maxsize, 128)
        return lambda function: Memo(function, maxsize)

    class cached_property:  # functools' name
        """``functools.cached_property``: computed on first access, then kept in the instance's
        ``__dict__`` (which, a non-data descriptor, this one then leaves alone)."""

        def __init__(self, function):
            self.function = function
            self.attrname = None
            self.__doc__ = function.__doc__
            self.__module__ = function.__module__

        def __set_name__(self, owner, name):
            self.attrname = name

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = self.function(instance)
            instance.__dict__[self.attrname] = value
            return value
