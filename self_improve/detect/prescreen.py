"""A sound shortcut for the most common hook call: a command that exited 0 and printed nothing
that any rule could match.

``classify.detect`` reports an exit-0 result only on a hit of some rule, and every packaged rule
lists literal needles of which any match contains at least one. So if none of those needles
occurs in the text ``detect`` would scan, ``detect`` returns None: the hook can say so without
importing ``re`` (about 6 ms, half the interpreter's own start-up) or loading the rules.

The needles come from a cache file that ``rules`` writes when it builds the packaged rules
(keyed by rules.toml's size and mtime; the parsed rules table is cached the same way).
Whenever anything is unusual (no cache yet, a rule without needles, a user ``[detect]`` table, ANSI escapes, a non-zero or unknown exit code, an
interrupted command) the answer is "not clearly clean" and the full detector runs.
"""

from __future__ import annotations

import os

from self_improve import marshal_cache
from self_improve.paths import user_cache_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
RULES_FILE = os.path.join(HERE, "rules.toml")
FORMAT = 1


def cache_path(kind: str, source: str = "rules.toml", *also: str) -> str | None:
    """``<cache>/<kind>-<size>-<mtime_ns>.marshal`` for the installed file ``source`` (rules.toml,
    subjects.toml), and each file of ``also`` that the value depends on (this folder's)."""
    stamp = ""
    for name in (source, *also):
        try:
            info = os.stat(os.path.join(HERE, name))
        except OSError:
            return None
        stamp += f"-{info.st_size}-{info.st_mtime_ns}"
    return os.path.join(user_cache_dir(), f"{kind}-v{FORMAT}{stamp}.marshal")


def write_cache(kind: str, value: Any, source: str = "rules.toml", *also: str) -> None:
    """Store ``value`` (marshal-able) for the installed rules.toml. Best effort: a cache that cannot
    be written only costs the next process the work it saves."""
    path = cache_path(kind, source, *also)
    if path is not None:
        marshal_cache.write(path, value)
        marshal_cache.prune(path, f"{kind}-v")  # the copies for earlier versions of the file


def read_cache(kind: str, source: str = "rules.toml", *also: str) -> object | None:
    """What ``write_cache`` stored for the installed ``source`` (and ``also``), or None."""
    path = cache_path(kind, source, *also)
    return marshal_cache.read(path) if path is not None else None


def write_screen(needles: tuple[str, ...] | None, head_chars: int, tail_chars: int) -> None:
    """Store the needle set (None: some rule has none, so no shortcut is sound)."""
    write_cache("screen", (needles, head_chars, tail_chars))


def minimal_needles(needles: set[str]) -> tuple[str, ...]:
    """Drop every needle that contains a shorter one: the shorter occurs wherever it does."""
    kept: list[str] = []
    for candidate in sorted(needles, key=len):
        if not any(shorter in candidate for shorter in kept):
            kept.append(candidate)
    return tuple(kept)


def _load() -> tuple[tuple[str, ...] | None, int, int] | None:
    loaded = read_cache("screen")
    if not isinstance(loaded, tuple) or len(loaded) != 3:
        return None
    needles, head, tail = loaded
    if needles is not None and not isinstance(needles, tuple):
        return None
    try:
        return needles, int(head), int(tail)
    except (TypeError, ValueError):
        return None


def clearly_clean(output: str, exit_code: int | None, interrupted: bool) -> bool:
    """True only when ``classify.detect`` with the packaged rules is certain to return None."""
    if exit_code != 0 or interrupted:
        return False
    loaded = _load()
    if loaded is None:
        return False
    needles, head, tail = loaded
    if needles is None:
        return False
    # The same text detect scans, or a superset of it: its head and tail windows.
    parts = (output,) if len(output) <= head + tail else (output[:head], output[-tail:])
    for part in parts:
        if "\x1b" in part:
            return False  # escapes are stripped before matching and could split a needle
        if "\r" in part:
            part = part.replace("\r\n", "\n").replace("\r", "\n")
        folded = part.lower() if part.isascii() else part.casefold()
        for needle in needles:
            if needle in folded:
                return False
    return True
