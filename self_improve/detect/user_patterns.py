"""Regexes from a user's or a project's ``[detect]`` table: run with a time limit, or refused.

Our own patterns (rules.toml) are audited to be linear (tests/detect/test_regex_linear.py). A
pattern from a config is not: ``^(a|aa)+$`` on a long line backtracks for ever in ``re``, which
cannot be interrupted. So every such pattern is compiled by the third-party ``regex`` engine,
whose matching takes a ``timeout``. One that times out gives up: it is treated as not matching,
stays disabled for the rest of the process, and is reported once (``take_timeouts``; the hook
writes it to the debug log, naming the rule). Without ``regex`` installed, config patterns are
refused (``load_rules`` reports them in its warnings) rather than run unbounded.

Imported only when a config has a ``[detect]`` pattern: ``regex`` costs ~40 ms to import, which
a hook without user patterns never pays.
"""

from __future__ import annotations

from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

# Per call. A linear pattern scans the 40 KiB detection window in well under a millisecond;
# the hook's overall deadline (hook_budget) bounds the sum over many patterns anyway.
TIMEOUT_SECONDS = 0.1
_MAX_MATCHES = 64  # finditer is read eagerly, within the time limit; detect() uses at most 32

_timeouts: list[str] = []


class UserPattern(str):
    """A case-folded pattern from a ``[detect]`` table, with where it came from
    (``rules[0].strong``, ``ignore``...) and the rule's Pattern-Key, for the report."""

    where: str
    rule_key: str

    @classmethod
    def make(cls, pattern: str, where: str, rule_key: str = "") -> UserPattern:
        made = cls(pattern)
        made.where = where
        made.rule_key = rule_key
        return made

    def describe(self) -> str:
        rule = f" (rule {self.rule_key})" if self.rule_key else ""
        return f"[detect] {self.where}{rule} pattern {str(self)!r}"


def take_timeouts() -> list[str]:
    """Descriptions of the patterns that timed out since the last call (and forget them)."""
    taken = list(_timeouts)
    _timeouts.clear()
    return taken


def _regex_module() -> Any:
    """``regex``, also from a hook: ``python -I -S`` leaves site-packages off ``sys.path``, so
    add it (only now, and only for this)."""
    try:
        import regex
    except ImportError:
        import site

        site.main()
        import regex
    return regex


def engine_available() -> bool:
    """Whether ``regex`` can be imported: without it every config pattern is refused."""
    try:
        _regex_module()
    except ImportError:
        return False
    return True


@cache
def compile_user(pattern: UserPattern) -> TimedPattern | None:
    """The pattern compiled by ``regex`` (``re``-compatible VERSION0), or None: refused."""
    try:
        engine = _regex_module()
        return TimedPattern(engine.compile(str(pattern), engine.MULTILINE | engine.VERSION0), pattern)
    except Exception:  # noqa: BLE001 - any failure of the engine means "refused", never a crash
        return None


class TimedPattern:
    """The part of a compiled pattern that detect() uses, each call within ``TIMEOUT_SECONDS``."""

    __slots__ = ("compiled", "pattern", "dead")

    def __init__(self, compiled: Any, pattern: UserPattern) -> None:
        self.compiled = compiled
        self.pattern = pattern
        self.dead = False

    @property
    def groups(self) -> int:
        return int(self.compiled.groups)

    def search(self, text: str) -> Any:
        if self.dead:
            return None
        try:
            return self.compiled.search(text, timeout=TIMEOUT_SECONDS)
        except TimeoutError:
            self._give_up()
            return None

    def finditer(self, text: str) -> Iterator[Any]:
        """The first matches, found eagerly so that the time limit covers them all; none at all
        if it runs out (a half answer would depend on the machine's speed)."""
        if self.dead:
            return iter(())
        found = []
        try:
            for match in self.compiled.finditer(text, timeout=TIMEOUT_SECONDS):
                found.append(match)
                if len(found) >= _MAX_MATCHES:
                    break
        except TimeoutError:
            self._give_up()
            return iter(())
        return iter(found)

    def _give_up(self) -> None:
        self.dead = True
        _timeouts.append(f"{self.pattern.describe()} gave up after {TIMEOUT_SECONDS:g} s; skipped")
