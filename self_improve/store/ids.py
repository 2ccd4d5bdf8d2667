"""Entry IDs: ``TYPE-YYYYMMDD-XXX`` with a random base-36 suffix.

Sequential suffixes (001, 002 …) collide when two git branches each log an entry on the same day;
random ones almost never do, and the store checks uniqueness under its lock anyway. Old numeric
IDs stay valid: only the shape ``TYPE-YYYYMMDD-[A-Za-z0-9]+`` is required.
"""

from __future__ import annotations

import os

from self_improve.store.entry import KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container
    from datetime import datetime

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_id(kind: str, now: datetime, taken: Container[str]) -> str:
    prefix = KINDS[kind][0]
    day = now.strftime("%Y%m%d")
    for length in (3, 3, 3, 4, 4, 5, 6, 8):  # widen only if the day is crowded
        suffix = _random_suffix(length)
        candidate = f"{prefix}-{day}-{suffix}"
        if candidate.upper() not in taken:
            return candidate
    raise RuntimeError("could not allocate a unique ID")  # 36**8 choices: unreachable in practice


def _random_suffix(length: int) -> str:
    """``length`` characters of ``_ALPHABET`` from ``os.urandom``, unbiased: bytes of 252 and over
    are dropped (252 = 7 × 36). Not ``secrets``: it imports ``base64``, ``hmac`` and ``random``,
    milliseconds of a hook that records a failure."""
    out: list[str] = []
    while len(out) < length:
        out.extend(_ALPHABET[byte % 36] for byte in os.urandom(length * 2) if byte < 252)
    return "".join(out[:length])
