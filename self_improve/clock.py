"""The one clock of the store and the hooks: UTC, to the second, pinned by ``SELF_IMPROVE_NOW``.

    def utcnow() -> datetime             # the fixed clock of tests and bench/replay.py, else now
    def utc_of(seconds) -> datetime      # a past moment (``self-improve scan``: when an event happened)
    def datetime_classes() -> (datetime, UTC)

The classes come from ``_datetime``, the C module ``datetime`` re-exports them from (the same
classes): ``datetime.py`` itself costs a hook about 1 ms to import.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any


def datetime_classes() -> tuple[type[datetime], Any]:
    """``datetime.datetime`` and ``datetime.UTC``, without importing ``datetime.py``."""
    try:
        from _datetime import UTC, datetime  # type: ignore[import-not-found]
    except ImportError:
        from datetime import UTC, datetime
    return datetime, UTC


def utcnow() -> datetime:
    """Now in UTC without microseconds; ``SELF_IMPROVE_NOW`` (ISO 8601) pins it. A malformed
    ``SELF_IMPROVE_NOW`` raises ValueError."""
    datetime, UTC = datetime_classes()
    if fake := os.environ.get("SELF_IMPROVE_NOW"):  # a fixed clock, for tests and bench/replay.py
        return datetime.fromisoformat(fake).astimezone(UTC).replace(microsecond=0)
    return datetime.now(UTC).replace(microsecond=0)


def utc_of(seconds: float) -> datetime:
    """The moment ``seconds`` (a ``time.time()``) in UTC, without microseconds, as ``utcnow``
    gives it: the clock of an event ``self-improve scan`` reads from a transcript."""
    datetime, UTC = datetime_classes()
    return datetime.fromtimestamp(int(seconds), UTC)
