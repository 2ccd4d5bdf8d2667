"""Entry IDs: ``TYPE-YYYYMMDD-XXX`` with a random base-36 suffix.

Sequential suffixes (001, 002 …) collide when two git branches each log an entry on the same day;
random ones almost never do, and the store checks uniqueness under its lock anyway. Old numeric
IDs stay valid: only the shape ``TYPE-YYYYMMDD-[A-Za-z0-9]+`` is required.
"""

from __future__ import annotations

import os

from self_improve.errors import SelfImproveError
from self_improve.store.entry import KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container, Iterable
    from datetime import datetime

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_id(kind: str, now: datetime, taken: Container[str]) -> str:
    prefix = KINDS[kind][0]
    day = now.strftime("%Y%m%d")
    for length in (3, 3, 3, 4, 4, 5, 6, 8):  # widen only if the day is crowded
        suffix = _random_suffix(length)
        candidate = f"{prefix}-{day}-{suffix}"
        # Not "xxx": a reader (and the reference skill's users) takes LRN-20261202-xxx for the
        # template's LRN-YYYYMMDD-XXX with only the date filled in.
        if candidate.upper() not in taken and suffix != "xxx":
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


MIN_ID_SUFFIX = 3  # a shorter piece of an ID names nothing: `show 1` must not pick an entry


def match_id(wanted: str, ids: Iterable[str]) -> str | None:
    """The ID among ``ids`` (as they spell it) that ``wanted`` names, or None: the one rule by
    which every verb reads an ID it is given.

    Case-insensitive. An exact match always wins. Else ``wanted`` may be a suffix, of at least
    ``MIN_ID_SUFFIX`` characters, of exactly one ID: ``r1w`` or ``20261201-r1w`` name
    ``LRN-20261201-r1w``. A suffix of several IDs is refused with one line naming them
    (``SelfImproveError``); a shorter one matches nothing, so ``show 1`` never picks silently."""
    key = wanted.strip().upper()
    if not key:
        return None
    spelled: dict[str, str] = {}
    for entry_id in ids:
        if entry_id:
            spelled.setdefault(entry_id.upper(), entry_id)  # the same ID twice (live and archived) is one
    if key in spelled:
        return spelled[key]
    if len(key) < MIN_ID_SUFFIX:
        return None
    found = [entry_id for upper, entry_id in spelled.items() if upper.endswith(key)]
    if len(found) > 1:
        raise SelfImproveError(f"ambiguous ID {wanted.strip()!r}: {', '.join(found)} (give more of it)")
    return found[0] if found else None


def unknown_id(wanted: str) -> SelfImproveError:
    """The refusal for an ID that names no entry."""
    short = f"; a short ID needs at least {MIN_ID_SUFFIX} characters" if 0 < len(wanted.strip()) < MIN_ID_SUFFIX else ""
    return SelfImproveError(f"unknown ID {wanted!r} (see `self-improve list`{short})")
