"""``rx``: ``re`` with each pattern's compiled program kept in the user's cache dir.

What must hold: a Pattern rebuilt from the file is the one ``re`` compiles (``Pattern.__eq__``
compares the programs); a file that is corrupt, or another interpreter's, costs a compile and
nothing else; the functions and the flags are ``re``'s; and a process that finds every program
in the file never imports ``re``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from self_improve import marshal_cache, rx
from tests.helpers import REPO

PATTERNS = [
    (r"^##[ \t]+\[([^\]\r\n]*)\][ \t]*(.*?)[ \t]*$", 0),
    (r"(?P<key>\w+)=(?P<value>[^&\s]++)", 0),
    (r"(?i)(?<![\w-])bearer[ \t]++(?!\[REDACTED)(?P<s>[A-Za-z0-9._~+/-]{8,}+=*+)", 0),
    (r"^\s*error\b.*$", rx.MULTILINE),
    (r"ß|straße|K", rx.IGNORECASE),
    (r"a.b", rx.DOTALL | rx.ASCII),
    (r"x # a comment", rx.VERBOSE),
]


@pytest.fixture()
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """rx with nothing compiled in this process and a cache dir of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    saved = (dict(rx._compiled), rx._programs, rx._added)
    rx._compiled.clear()
    rx._programs, rx._added = None, False
    yield tmp_path
    rx._compiled.clear()
    rx._compiled.update(saved[0])
    rx._programs, rx._added = saved[1], saved[2]


def forget() -> None:
    """As a new process starts: nothing compiled, nothing loaded."""
    rx._compiled.clear()
    rx._programs, rx._added = None, False


def test_a_pattern_rebuilt_from_the_file_is_the_one_re_compiles(fresh: Path) -> None:
    first = [rx.compile(pattern, flags) for pattern, flags in PATTERNS]
    rx.save()
    assert os.path.exists(rx.cache_file())
    forget()
    programs = rx._load()
    assert set(programs) == {(pattern, int(flags)) for pattern, flags in PATTERNS}
    for (pattern, flags), before in zip(PATTERNS, first, strict=True):
        rebuilt = rx.compile(pattern, flags)
        assert rebuilt == re.compile(pattern, flags) == before
        assert (rebuilt.groups, rebuilt.groupindex, rebuilt.flags) == (before.groups, before.groupindex, before.flags)
    assert not rx._added  # every one came from the file: nothing to write back


def test_a_corrupt_file_or_program_costs_a_compile_and_nothing_else(fresh: Path) -> None:
    pattern = r"(?P<word>[a-z]+)-\d+"
    marshal_cache.write(rx.cache_file(), {(pattern, 0): (32, [1, 2, 3], 0, {}, (None,))})  # _sre refuses this code
    compiled = rx.compile(pattern)
    assert compiled == re.compile(pattern)
    assert compiled.match("abc-12") is not None
    rx.save()  # the bad program is replaced by the good one
    forget()
    assert rx._load()[(pattern, 0)][1] != [1, 2, 3]
    for garbage in (b"", b"not marshal", b"\x00" * 64):
        Path(rx.cache_file()).write_bytes(garbage)
        forget()
        assert rx.compile(pattern) == re.compile(pattern)


def test_the_file_is_bounded_and_keeps_the_most_recently_used(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rx, "MAX_PROGRAMS", 3)
    for n in range(5):
        rx.compile(f"old{n}")
    rx.save()
    forget()
    assert [key[0] for key in rx._load()] == ["old2", "old3", "old4"]
    rx.compile("old2")  # used again: it moves to the end
    rx.compile("new")
    rx.save()
    forget()
    assert [key[0] for key in rx._load()] == ["old4", "old2", "new"]


def test_the_functions_and_flags_are_res() -> None:
    text = "alpha=1 beta=22\ngamma=333 ERROR: x\n"
    word = r"(\w+)=(\d+)"
    assert rx.search(word, text).group(0) == re.search(word, text).group(0)  # type: ignore[union-attr]
    assert rx.match(word, text).span() == re.match(word, text).span()  # type: ignore[union-attr]
    assert rx.fullmatch(r"\w+", "abc") is not None and rx.fullmatch(r"\w+", "a b") is None
    assert [m.span() for m in rx.finditer(word, text)] == [m.span() for m in re.finditer(word, text)]
    assert rx.findall(word, text) == re.findall(word, text)
    assert rx.split(r"[\s=]+", text, 2) == re.split(r"[\s=]+", text, maxsplit=2)
    assert rx.sub(r"\d+", "N", text, 2) == re.sub(r"\d+", "N", text, count=2)
    assert rx.sub(r"(\d+)", r"<\1>", text) == re.sub(r"(\d+)", r"<\1>", text)
    assert rx.subn(r"\d", "", text) == re.subn(r"\d", "", text)
    assert rx.search(r"^GAMMA", text, rx.IGNORECASE | rx.MULTILINE) is not None
    for name in ("ASCII", "A", "IGNORECASE", "I", "LOCALE", "L", "MULTILINE", "M", "DOTALL", "S", "UNICODE", "U",
                 "VERBOSE", "X"):
        assert getattr(rx, name) == int(getattr(re, name)), name
    assert rx.error is re.error and rx.Pattern is re.Pattern and rx.Match is re.Match
    with pytest.raises(re.error):
        rx.compile("(unclosed")
    assert rx.compile(rb"\d+").match(b"42") is not None  # bytes: re's own


def test_escape_is_res_on_every_character() -> None:
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    assert rx.escape(every) == re.escape(every)
    assert rx.escape(b"a.b") == re.escape(b"a.b")


PROBE = """
import io, sys
sys.path.insert(0, sys.argv[1])
from self_improve import rx
patterns = [(p, int(f)) for p, f in eval(sys.argv[2])]
compiled = [rx.compile(p, f) for p, f in patterns]
rx.save()
loaded = "re" in sys.modules
import re
assert all(c == re.compile(p, f) for c, (p, f) in zip(compiled, patterns))
print("re" if loaded else "no re")
"""


def test_a_process_that_finds_every_program_in_the_file_never_imports_re(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    command = [sys.executable, "-I", "-S", "-c", PROBE, str(REPO), repr([(p, int(f)) for p, f in PATTERNS])]
    first = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=True)
    assert first.stdout.strip() == "re"  # nothing in the file yet: re compiled them
    second = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=True)
    assert second.stdout.strip() == "no re"
