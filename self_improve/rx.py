"""``re`` for the hot path: the same patterns, compiled once per machine instead of once per process.

A hook is a fresh interpreter on every shell command. Recording a failure needs about a hundred
patterns (secret redaction alone has 77): compiling them costs ~10 ms there, and importing
``re`` (with ``enum``, ``functools`` and ``collections``) ~5 ms more, more than the interpreter's
own start-up. So the modules on the hot path import this module in its place
(``from self_improve import rx as re``); it has the ``re`` functions they call, and keeps each
pattern's compiled program (what ``re`` hands to ``_sre.compile``: the opcodes, the flags, the
groups) in a ``marshal`` file of the user's cache dir (``marshal_cache``). A later process
builds the Pattern from it with ``_sre.compile`` directly, without importing ``re`` at all.

Exactness: a pattern missing from the file is compiled by ``re`` itself, and its program is kept
only when the Pattern rebuilt from it compares equal to ``re``'s own (``Pattern.__eq__`` compares
the opcodes, the flags and the pattern text). The file is keyed by the interpreter's version and
``_sre.MAGIC``, so another interpreter never reads it; ``_sre.compile`` validates every program
it is given, and one it refuses (a corrupt file) is compiled by ``re`` again. Anything else of
``re`` (``error``, ``Pattern``, ``Match``, a bytes pattern) is ``re``'s, imported on first use.

New programs are written back by :func:`save`, which the hooks call as they finish; the file
keeps the :data:`MAX_PROGRAMS` most recently added or used (a one-off pattern, such as the one
``store/scan.py`` builds around a random candidate ID, ages out).
"""

from __future__ import annotations

import os
import sys

import _sre  # type: ignore[import-not-found]  # typeshed has no stub for the builtin _sre

from self_improve import marshal_cache
from self_improve.paths import user_cache_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from re import Match as Match
    from re import Pattern as Pattern
    from re import error as error
    from types import ModuleType
    from typing import Any

# The flags, as ints (``re.RegexFlag`` is an enum: importing it is what this module avoids).
ASCII = A = 256
IGNORECASE = I = 2  # noqa: E741 - re's own names
LOCALE = L = 4
MULTILINE = M = 8
DOTALL = S = 16
UNICODE = U = 32
VERBOSE = X = 64

MAX_PROGRAMS = 512  # ~0.9 KB each; a failing hook needs ~100 (~90 KB, loaded in ~0.3 ms)
_PER_PROCESS = 1024  # compiled Patterns this process keeps (re keeps 512)

Program = tuple  # (flags, code, groups, groupindex, indexgroup): _sre.compile's arguments after the pattern
_compiled: dict[tuple[str, int], Pattern[str]] = {}
_programs: dict[tuple[str, int], Program] | None = None
_added = False


def cache_file() -> str:
    """This interpreter's file of compiled programs."""
    tag = f"{sys.implementation.name}-{sys.hexversion:x}-{_sre.MAGIC}"
    return os.path.join(user_cache_dir(), f"regex-{tag}.marshal")


def compile(pattern: str, flags: int = 0) -> Pattern[str]:
    """``re.compile``."""
    if type(pattern) is not str:
        return _re().compile(pattern, flags)
    key = (pattern, int(flags))
    found = _compiled.get(key)
    if found is None:
        if len(_compiled) >= _PER_PROCESS:
            _compiled.clear()  # as re did: a long-running process that builds patterns stays bounded
        found = _compiled[key] = _build(pattern, key[1])
    return found


def search(pattern: str, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).search(string)


def match(pattern: str, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).match(string)


def fullmatch(pattern: str, string: str, flags: int = 0) -> Match[str] | None:
    return compile(pattern, flags).fullmatch(string)


def finditer(pattern: str, string: str, flags: int = 0) -> Iterator[Match[str]]:
    return compile(pattern, flags).finditer(string)


def findall(pattern: str, string: str, flags: int = 0) -> list[Any]:
    return compile(pattern, flags).findall(string)


def split(pattern: str, string: str, maxsplit: int = 0, flags: int = 0) -> list[str | Any]:
    return compile(pattern, flags).split(string, maxsplit)


def sub(pattern: str, repl: str | Callable[[Match[str]], str], string: str, count: int = 0, flags: int = 0) -> str:
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern: str, repl: str | Callable[[Match[str]], str], string: str, count: int = 0,
         flags: int = 0) -> tuple[str, int]:
    return compile(pattern, flags).subn(repl, string, count)


# re.escape's table (the same since Python 3.7): tests/test_rx.py compares the two on every character.
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(pattern: str) -> str:
    """``re.escape``."""
    if not isinstance(pattern, str):
        return _re().escape(pattern)
    return pattern.translate(_SPECIAL)


def __getattr__(name: str) -> Any:
    """Everything else of ``re`` (``error``, ``Pattern``, ``Match``, ``purge``...), from ``re``."""
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_re(), name)


def save() -> None:
    """Add the programs this process compiled to the file (a no-op when it compiled none)."""
    global _added
    if not _added or _programs is None:
        return
    _added = False
    path = cache_file()  # the user's cache dir now (a test may have moved HOME since the load)
    on_disk = marshal_cache.read(path)
    merged = on_disk if isinstance(on_disk, dict) else {}
    for key, program in list(_programs.items()):  # ours last: the most recently used
        merged.pop(key, None)
        merged[key] = program
    while len(merged) > MAX_PROGRAMS:
        del merged[next(iter(merged))]
    marshal_cache.write(path, merged)


# ---- building a Pattern ---------------------------------------------------------------------


def _re() -> ModuleType:
    import re

    return re


def _load() -> dict[tuple[str, int], Program]:
    global _programs
    if _programs is None:
        loaded = marshal_cache.read(cache_file())
        _programs = loaded if isinstance(loaded, dict) else {}
    return _programs


def _build(pattern: str, flags: int) -> Pattern[str]:
    global _added
    programs = _load()
    key = (pattern, flags)
    program = programs.pop(key, None)
    if program is not None:
        try:
            built: Pattern[str] = _sre.compile(pattern, *program)
        except Exception:  # noqa: BLE001 - a program _sre refuses (a corrupt file): compile it anew
            _added = True  # dropped: the file is rewritten without it
        else:
            programs[key] = program  # the most recently used go last, and stay longest
            return built
    compiled: Pattern[str] = _re().compile(pattern, flags)
    program = _program_of(pattern, flags, compiled)
    if program is not None:
        programs[key] = program
        _added = True
    return compiled


def _program_of(pattern: str, flags: int, compiled: Pattern[str]) -> Program | None:
    """The arguments ``re`` passed to ``_sre.compile`` for ``compiled``, as ``re._compiler.compile``
    derives them; None (nothing kept) unless the Pattern rebuilt from them equals ``compiled``."""
    try:
        parser, compiler = sys.modules["re._parser"], sys.modules["re._compiler"]
        parsed = parser.parse(pattern, flags)
        code = [int(op) for op in compiler._code(parsed, flags)]
        state = parsed.state
        groupindex = dict(state.groupdict)
        indexgroup: list[str | None] = [None] * state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        program = (flags | state.flags, code, state.groups - 1, groupindex, tuple(indexgroup))
        rebuilt = _sre.compile(pattern, *program)
    except Exception:  # noqa: BLE001 - another interpreter's internals: compile with re, keep nothing
        return None
    if rebuilt != compiled or rebuilt.groups != compiled.groups or rebuilt.groupindex != compiled.groupindex:
        return None
    return program
