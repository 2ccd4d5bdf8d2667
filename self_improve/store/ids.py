"""Entry IDs: ``TYPE-YYYYMMDD-XXX`` with a random base-36 suffix.

Sequential suffixes (001, 002 …) collide when two git branches each log an entry on the same day;
random ones almost never do, and the store checks uniqueness under its lock anyway. Old numeric
IDs stay valid: only the shape ``TYPE-YYYYMMDD-[A-Za-z0-9]+`` is required.
"""

from __future__ import annotations

import secrets
from collections.abc import Container
from datetime import datetime

from self_improve.store.entry import KINDS

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_id(kind: str, now: datetime, taken: Container[str]) -> str:
    prefix = KINDS[kind][0]
    day = now.strftime("%Y%m%d")
    for length in (3, 3, 3, 4, 4, 5, 6, 8):  # widen only if the day is crowded
        suffix = "".join(secrets.choice(_ALPHABET) for _ in range(length))
        candidate = f"{prefix}-{day}-{suffix}"
        if candidate.upper() not in taken:
            return candidate
    raise RuntimeError("could not allocate a unique ID")  # 36**8 choices: unreachable in practice

