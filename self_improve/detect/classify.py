"""Is a finished shell command an error, and which one?

Public API, relied on by the hooks and the OpenClaw watcher:

    class Detection:          # immutable record (a named tuple): Detection(pattern_key, title, excerpt)
        pattern_key: str      # "area.symptom" from the table in rules.toml, e.g. "deps.module-not-found"
        title: str            # short summary in OUR words, e.g. "Module or package not found"
        excerpt: str          # <= 200 chars of the output around the hit, one line, secrets redacted

    def load_rules(overrides: Mapping[str, Any] | None = None) -> Rules
        # packaged rules.toml merged with the [detect] table of the user's .learnings/config.toml
    def detect(result: ToolResult, rules: Rules | None = None) -> Detection | None

The rules, and the exact judging procedure, are documented at the top of rules.toml.

This runs in a hook after every shell command, in a fresh process, so it is built for start-up
time: stdlib ``re`` only (``regex`` costs ~40 ms to import; it is loaded only for a user pattern
``re`` cannot compile); no ``typing`` and no ``dataclasses`` (it imports ``inspect``, and each
dataclass costs ~0.5 ms to create): records are named tuples, immutable like frozen dataclasses,
as ``ToolResult`` is; the output is case-folded once and matched with lower-case patterns; each
rule lists literal ``needles`` (one of which any match contains), and its patterns are compiled
and run only when a needle occurs in the text; big outputs are cut to a head and a tail window.
"""

from __future__ import annotations

import os
import re
from collections import namedtuple
from functools import lru_cache

from self_improve.events import ToolResult

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs milliseconds the hooks do not have
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from typing import Any

RULES_FILE = "rules.toml"
GENERIC_NONZERO = "generic.nonzero-exit"
USER_DEFAULT_KEY = "generic.error-output"
INTERRUPTED = "runtime.interrupted"
EXCERPT_MAX = 200

_MAX_HITS_PER_PATTERN = 32  # enough to see past guarded lines, bounded on huge outputs
MAX_COMMAND_CHARS = 64 * 1024  # of the command line, parsed for the programs it runs
_SUCCESS_TAIL = 2000  # a passing test summary must sit in the last characters of the output


# ---------------------------------------------------------------------------------------------
# Public data types


class Detection(namedtuple("_Detection", "pattern_key title excerpt")):
    """One detected error: its Pattern-Key, our title for it, and a redacted one-line excerpt."""

    __slots__ = ()
    pattern_key: str
    title: str
    excerpt: str


class Rule(namedtuple("_Rule", "key strong weak command needles origin",
                      defaults=((), (), None, (), "builtin"))):
    """Patterns naming one Pattern-Key (see the schema in rules.toml).

    ``needles``: literals of which any match of any pattern contains one; () means "always try".
    """

    __slots__ = ()
    key: str
    strong: tuple[str, ...]
    weak: tuple[str, ...]
    command: str | None
    needles: tuple[str, ...]
    origin: str


_RULES_FIELDS = (
    "rules titles exit_codes check_commands viewer_commands silent_commands wrapper_commands"
    " diagnostics handled success success_keeps ignore ignore_commands head_chars tail_chars warnings"
)


class Rules(namedtuple("_Rules", _RULES_FIELDS, defaults=((), 8192, 32768, ()))):
    """Everything detect() needs, merged from rules.toml and the user's [detect] table.

    Patterns are kept as text and compiled on first use (cached per process): most are never
    needed for a given output.  ``warnings`` describes user overrides that were skipped.
    """

    __slots__ = ()
    rules: tuple[Rule, ...]
    titles: Mapping[str, str]
    exit_codes: Mapping[int, str]
    check_commands: frozenset[str]
    viewer_commands: frozenset[str]
    silent_commands: frozenset[str]
    wrapper_commands: frozenset[str]
    diagnostics: Mapping[str, tuple[str, ...]]
    handled: tuple[str, ...]
    success: tuple[str, ...]
    success_keeps: tuple[str, ...]
    ignore: tuple[str, ...]
    ignore_commands: tuple[str, ...]
    head_chars: int
    tail_chars: int
    warnings: tuple[str, ...]

    @property
    def keys(self) -> frozenset[str]:  # type: ignore[override]  # tuple has no .keys
        """Every Pattern-Key detect() can return with these rules."""
        return frozenset(self.titles)

    def title(self, key: str) -> str:
        return self.titles.get(key) or self.titles.get(GENERIC_NONZERO, "Command failed")


# ---------------------------------------------------------------------------------------------
# Loading rules


def _read_packaged_text() -> str:
    """rules.toml from next to this module; importlib.resources only as a fallback (zip installs),
    because importing it costs more than the whole read."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), RULES_FILE)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        from importlib import resources

        return resources.files(__package__).joinpath(RULES_FILE).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _packaged_table() -> Mapping[str, Any]:
    """The parsed rules.toml, through a marshal copy in the user's cache dir.

    A hook is a fresh process on every Bash call: importing ``tomllib`` and parsing the rules
    costs ~10 ms there, loading the same table with the built-in ``marshal`` well under 1. The
    copy is keyed by the file's size and mtime (``prescreen.cache_path``), so an edited
    rules.toml is parsed again.
    """
    from self_improve.detect import prescreen

    table = prescreen.read_cache("rules")
    if isinstance(table, dict):
        return table
    import tomllib

    table = tomllib.loads(_read_packaged_text())
    prescreen.write_cache("rules", table)
    return table


@lru_cache(maxsize=1)
def _default_rules() -> Rules:
    rules = _build_rules(_packaged_table(), None)
    _write_prescreen(rules)
    return rules


def _write_prescreen(rules: Rules) -> None:
    """Give ``prescreen`` the needles of every packaged rule (None if one rule has none)."""
    from self_improve.detect import prescreen

    path = prescreen.cache_path("screen")
    if path is None or os.path.exists(path):
        return
    needles: set[str] | None = set()
    for rule in rules.rules:
        if rule.needles:
            needles.update(rule.needles)
            continue
        # Exit 0 is reported only on a strong hit (a weak pattern counts only on a viewer's own
        # "name: ..." line, where a needle of the rule's strong patterns is not required, but
        # those weak patterns start at ^ with something no "name: " line can begin with: they
        # are checked by the prescreen test). So a rule without needles needs its strong ones.
        for pattern in rule.strong:
            best = needle(pattern)
            if not best:
                needles = None
                break
            needles.update(best)
        if needles is None:
            break
    kept = prescreen.minimal_needles(needles) if needles is not None else None
    prescreen.write_screen(kept, rules.head_chars, rules.tail_chars)


def load_rules(overrides: Mapping[str, Any] | None = None) -> Rules:
    """The packaged rules, merged with a user's ``[detect]`` table.

    Never raises on bad overrides: a wrong type or a pattern that cannot compile is skipped and
    described in ``Rules.warnings``.  Without overrides the result is cached for the process.
    """
    if not overrides:
        return _default_rules()
    return _build_rules(_packaged_table(), overrides)


def _build_rules(table: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> Rules:
    warnings: list[str] = []
    user = _UserOverrides.parse(overrides, warnings) if overrides is not None else _UserOverrides()
    titles = dict(table.get("titles", {}))
    for rule_key, title in user.titles.items():
        titles.setdefault(rule_key, title)
    builtin = tuple(_builtin_rule(raw) for raw in table.get("rules", ()))
    for unknown in sorted(user.disable - {r.key for r in builtin}):
        warnings.append(f"[detect] disable: no builtin rule has key {unknown!r}")
    commands = table.get("commands", {})
    guards = table.get("guards", {})
    scan = table.get("scan", {})
    return Rules(
        rules=user.rules + tuple(r for r in builtin if r.key not in user.disable),
        titles=titles,
        exit_codes={int(code): key for code, key in table.get("exit_codes", {}).items()},
        check_commands=frozenset(_names(commands.get("check"))) | user.check_commands,
        viewer_commands=frozenset(_names(commands.get("viewer"))) | user.viewer_commands,
        silent_commands=frozenset(_names(commands.get("silent"))),
        wrapper_commands=frozenset(_names(commands.get("wrappers"))),
        diagnostics={name: _lines(prefixes) for name, prefixes in commands.get("diagnostics", {}).items()},
        handled=_lines(guards.get("handled")),
        success=_lines(guards.get("success")),
        success_keeps=_names(guards.get("success_keeps")),
        ignore=_lines(guards.get("ignore")) + user.ignore,
        ignore_commands=user.ignore_commands,
        head_chars=int(scan.get("head_chars", 8192)),
        tail_chars=int(scan.get("tail_chars", 32768)),
        warnings=tuple(warnings),
    )


def _builtin_rule(raw: Mapping[str, Any]) -> Rule:
    return Rule(
        key=raw["key"],
        strong=_lines(raw.get("strong")),
        weak=_lines(raw.get("weak")),
        command=raw.get("command"),
        needles=_lines(raw.get("needles")),
    )


def _lines(value: object) -> tuple[str, ...]:
    """A list written as a multi-line string, one item per line (or as a TOML array).

    Items keep their inner and leading spaces (a needle may be "    at "); blank lines go.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(line for line in value.split("\n") if line.strip())
    return tuple(value)


def _names(value: object) -> tuple[str, ...]:
    """A list of names written as a comma-separated string (or as a TOML array)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(name.strip() for name in value.replace("\n", " ").split(",") if name.strip())
    return tuple(value)


class _UserOverrides:
    """The validated content of a user's [detect] table (schema: top of rules.toml)."""

    __slots__ = ("rules", "titles", "disable", "ignore", "ignore_commands", "check_commands", "viewer_commands")
    KNOWN = frozenset(__slots__) - {"titles"}

    def __init__(self) -> None:
        self.rules: tuple[Rule, ...] = ()
        self.titles: dict[str, str] = {}
        self.disable: frozenset[str] = frozenset()
        self.ignore: tuple[str, ...] = ()
        self.ignore_commands: tuple[str, ...] = ()
        self.check_commands: frozenset[str] = frozenset()
        self.viewer_commands: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, table: object, warnings: list[str]) -> _UserOverrides:
        user = cls()
        if not hasattr(table, "get") or not hasattr(table, "keys"):
            warnings.append(f"[detect] must be a table, got {type(table).__name__}; ignored")
            return user
        for unknown in sorted(set(map(str, table.keys())) - cls.KNOWN):
            warnings.append(f"[detect] unknown setting {unknown!r}; ignored")
        user.rules, user.titles = _user_rules(table.get("rules", ()), warnings)
        user.disable = frozenset(_strings(table, "disable", warnings))
        user.ignore = tuple(_valid_patterns(_strings(table, "ignore", warnings), "ignore", warnings))
        user.ignore_commands = tuple(
            _valid_patterns(_strings(table, "ignore_commands", warnings), "ignore_commands", warnings)
        )
        user.check_commands = frozenset(_strings(table, "check_commands", warnings))
        user.viewer_commands = frozenset(_strings(table, "viewer_commands", warnings))
        return user


def _strings(table: Mapping[str, Any], name: str, warnings: list[str], where: str = "") -> list[str]:
    """A list of strings from a user table; a string is read as one item per line."""
    value = table.get(name, ())
    label = f"{where}.{name}" if where else name
    if isinstance(value, str):
        value = list(_lines(value))
    if not isinstance(value, (list, tuple)):
        warnings.append(f"[detect] {label} must be a list of strings; ignored")
        return []
    good = [v for v in value if isinstance(v, str)]
    if len(good) != len(value):
        warnings.append(f"[detect] {label}: non-string entries ignored")
    return good


def _valid_patterns(patterns: Iterable[str], where: str, warnings: list[str], rule_key: str = "") -> Iterator[str]:
    """User patterns, case-folded, that ``regex`` compiles (they run with its time limit, see
    ``user_patterns``); the others are reported and dropped."""
    from self_improve.detect.user_patterns import UserPattern, engine_available

    for pattern in patterns:
        folded = UserPattern.make(fold_pattern(pattern), where, rule_key)
        if _compile(folded) is None:
            reason = "invalid regular expression" if engine_available() else "no `regex` module to run"
            warnings.append(f"[detect] {where}: {reason} {pattern!r}; skipped")
            continue
        yield folded


def _user_rules(raw_rules: object, warnings: list[str]) -> tuple[tuple[Rule, ...], dict[str, str]]:
    if hasattr(raw_rules, "keys"):
        raw_rules = [raw_rules]  # a single [detect.rules] table instead of an array
    if not isinstance(raw_rules, (list, tuple)):
        warnings.append("[detect] rules must be an array of tables; ignored")
        return (), {}
    rules: list[Rule] = []
    titles: dict[str, str] = {}
    for index, raw in enumerate(raw_rules):
        rule = _user_rule(raw, index, warnings)
        if rule is None:
            continue
        rules.append(rule)
        title = raw.get("title")
        titles[rule.key] = title.strip() if isinstance(title, str) and title.strip() else f"Custom error ({rule.key})"
    return tuple(rules), titles


def _user_rule(raw: object, index: int, warnings: list[str]) -> Rule | None:
    where = f"rules[{index}]"
    if not hasattr(raw, "get"):
        warnings.append(f"[detect] {where} must be a table; skipped")
        return None
    key = raw.get("key", USER_DEFAULT_KEY)
    if not isinstance(key, str) or not _is_pattern_key(key):
        warnings.append(f"[detect] {where}: key must look like 'area.symptom'; skipped")
        return None
    strong = tuple(_valid_patterns(_strings(raw, "strong", warnings, where), f"{where}.strong", warnings, key))
    weak = tuple(_valid_patterns(_strings(raw, "weak", warnings, where), f"{where}.weak", warnings, key))
    command = raw.get("command")
    if command is not None:
        checked = list(_valid_patterns(_strings(raw, "command", warnings, where), f"{where}.command", warnings, key))
        if not checked:
            return None  # a rule whose scope is unreadable must not widen to every command
        command = checked[0]
    if not strong and not weak:
        warnings.append(f"[detect] {where}: no usable pattern; skipped")
        return None
    return Rule(key=key, strong=strong, weak=weak, command=command, needles=_rule_needles(strong + weak), origin="user")


def _is_pattern_key(key: str) -> bool:
    area, dot, symptom = key.partition(".")
    allowed = set("abcdefghijklmnopqrstuvwxyz0123456789-")
    return bool(dot and area and symptom and set(area) <= allowed and set(symptom) <= allowed)


def _rule_needles(patterns: Sequence[str]) -> tuple[str, ...]:
    """Needles for a user rule: each pattern's best needle; () (always try) if one has none."""
    found: list[str] = []
    for pattern in patterns:
        best = needle(pattern)
        if not best:
            return ()
        found.extend(best)
    return tuple(dict.fromkeys(found))


def fold_pattern(pattern: str) -> str:
    """Case-fold the literal parts of a regex, leaving escapes (\\S, \\W, \\D, \\B...) intact.

    Folding a pattern naively would turn ``\\S`` into ``\\s`` and change its meaning.
    """
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        else:
            out.append(char.casefold())
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Pattern compilation (lazy) and needle analysis


def _compile(pattern: str) -> Any:
    """The compiled pattern, or None if unusable. A user's pattern (a ``UserPattern``, the only
    str subclass here) goes to ``regex`` with a time limit; ours to ``re``: they are linear."""
    if type(pattern) is not str:
        from self_improve.detect.user_patterns import compile_user

        return compile_user(pattern)
    return _compile_builtin(pattern)


@lru_cache(maxsize=None)
def _compile_builtin(pattern: str) -> Any:
    """The compiled pattern (re, or regex for what only it understands), or None if unusable."""
    try:
        return re.compile(pattern, re.MULTILINE)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        pass
    try:  # e.g. \p{Han}: only the third-party engine knows it; pay its import only here
        import regex

        return regex.compile(pattern, regex.MULTILINE | regex.VERSION0)
    except Exception:  # noqa: BLE001 - any failure means "unusable pattern", never a crash
        return None


Needle = tuple  # of str: literals of which a match contains at least one


def needles_of(pattern: str) -> tuple[Needle, ...]:
    """Every needle the scan can prove for ``pattern``: a match contains at least one literal
    of EACH of them.  () when nothing is known.

    A cheap scan of the pattern text, not a full parse: runs of plain characters outside
    classes, through required groups, and the leading literals of a group's alternatives.
    Conservative: whatever it is unsure about, it leaves out.  Used for user patterns at load
    time, and by the tests to check the ``needles`` written in rules.toml.
    """
    try:
        required, _ = _needle_scan(pattern, 0, len(pattern))
    except (IndexError, ValueError):
        return ()
    return tuple(n for n in dict.fromkeys(required) if _selectivity(n) >= 3)


@lru_cache(maxsize=None)
def _pattern_needles(pattern: str) -> tuple[Needle, ...]:
    """The two most selective needles of a pattern, for the per-pattern check in hits()."""
    return tuple(sorted(needles_of(pattern), key=_selectivity, reverse=True)[:2])


def needle(pattern: str) -> Needle:
    """The most selective needle of ``pattern``, or () when none is known."""
    return max(needles_of(pattern), key=_selectivity, default=())


def _selectivity(literals: Needle) -> int:
    """How rare a needle is: its shortest member's length, a non-ASCII char counting 3."""
    if not literals:
        return 0
    return min(sum(1 if ch.isascii() else 3 for ch in lit) for lit in literals)


_QUANTIFIERS = "*?{"  # after these, the preceding item may be absent (or its count unknown)
_ZERO_WIDTH = ("^", "$", "\\b", "\\B", "\\A", "\\Z")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _needle_scan(p: str, i: int, end: int) -> tuple[list[Needle], Needle]:
    """(required needles, leading literals) of the sequence p[i:end].

    Both are empty when the sequence has a top-level alternation: then nothing is required.
    """
    required: list[Needle] = []
    run = ""
    leading: Needle | None = None

    def close_run() -> None:
        nonlocal run, leading
        if run:
            required.append((run,))
        leading = (run,) if leading is None else leading
        run = ""

    while i < end:
        c = p[i]
        if c == "|":
            return [], ()
        if c == "(":
            close = _closing(p, i, end)
            lookaround = p.startswith(_LOOKAROUND, i)
            inner, inner_lead = ([], ()) if lookaround else _group_needles(p, i, close)
            i = close + 1
            optional = i < end and p[i] in _QUANTIFIERS
            i = _skip_quantifier(p, i, end)
            if lookaround:  # zero-width: the literals around it stay adjacent
                continue
            if optional or not inner_lead or not all(inner_lead):
                close_run()
                required.extend(() if optional else inner)
                continue
            joined = tuple(run + lead for lead in inner_lead)  # "ab(?:cd|ef)": "abcd" or "abef"
            required.append(joined)
            required.extend(inner)
            leading = joined if leading is None else leading
            run = ""
            continue
        if c == "[":
            i = _skip_quantifier(p, _closing(p, i, end) + 1, end)
            close_run()
            continue
        if p.startswith(_ZERO_WIDTH, i):  # consumes nothing: neighbours stay adjacent
            i += 1 if c in "^$" else 2
            continue
        literal, width = _literal_at(p, i)
        i += width
        if literal is None or (i < end and p[i] in _QUANTIFIERS):
            i = _skip_quantifier(p, i, end)
            close_run()
            continue
        run += literal
        if i < end and p[i] == "+":
            i = _skip_quantifier(p, i, end)
            close_run()
    close_run()
    return required, leading or ()


def _group_needles(p: str, start: int, close: int) -> tuple[list[Needle], Needle]:
    """Required needles and leading literals of the group p[start:close+1]."""
    i = start + 1
    if p.startswith("?", i):
        if p.startswith(("?:", "?>"), i):  # an atomic group requires what a plain one does
            i += 2
        elif p.startswith("?P<", i):
            i = p.index(">", i) + 1
        else:
            return [], ()  # inline flags, comments, conditionals
    alternatives = _split_alternatives(p, i, close)
    if len(alternatives) == 1:
        return _needle_scan(p, i, close)
    leads: list[str] = []
    for a, b in alternatives:
        lead = _needle_scan(p, a, b)[1]
        if not lead or not all(lead):
            return [], ()  # one alternative starts with no literal: nothing is required
        leads.extend(lead)
    unique = tuple(dict.fromkeys(leads))
    return [unique], unique


def _split_alternatives(p: str, i: int, end: int) -> list[tuple[int, int]]:
    parts: list[tuple[int, int]] = []
    start = i
    while i < end:
        c = p[i]
        if c == "\\":
            i += 2
        elif c in "([":
            i = _closing(p, i, end) + 1
        elif c == "|":
            parts.append((start, i))
            i += 1
            start = i
        else:
            i += 1
    parts.append((start, end))
    return parts


def _closing(p: str, i: int, end: int) -> int:
    """Index of the ")" or "]" closing the group or class opened at p[i]."""
    if p[i] == "[":
        j = i + 1
        if j < end and p[j] == "^":
            j += 1
        if j < end and p[j] == "]":
            j += 1
        while j < end and p[j] != "]":
            j += 2 if p[j] == "\\" else 1
        if j >= end:
            raise IndexError("unclosed class")
        return j
    depth, j = 0, i
    while j < end:
        c = p[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _closing(p, j, end) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise IndexError("unclosed group")


_ESCAPE_WIDTH = {"x": 4, "u": 6, "U": 10}


def _literal_at(p: str, i: int) -> tuple[str | None, int]:
    """(the literal character at p[i], its width in the pattern), or (None, width)."""
    c = p[i]
    if c == "\\":
        nxt = p[i + 1]
        if nxt in _ESCAPE_WIDTH:
            width = _ESCAPE_WIDTH[nxt]
            return chr(int(p[i + 2 : i + width], 16)), width
        if nxt == "n":
            return "\n", 2
        if nxt == "t":
            return "\t", 2
        if nxt.isalnum():
            return None, 2  # \d \w \s, back-references...
        return nxt, 2
    if c in ".^$)+*?{":
        return None, 1
    return c, 1


def _skip_quantifier(p: str, i: int, end: int) -> int:
    if i < end and p[i] == "{":
        close = p.find("}", i)
        i = close + 1 if close != -1 else i + 1
    elif i < end and p[i] in "*?+":
        i += 1
    if i < end and p[i] in "?+":  # lazy or possessive
        i += 1
    return i


# ---------------------------------------------------------------------------------------------
# Text preparation


@lru_cache(maxsize=1)
def _ansi() -> re.Pattern[str]:
    return re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


class _Text:
    """The scanned text: ``original`` (clean, for excerpts) and ``folded`` (for matching)."""

    __slots__ = ("original", "folded", "_source")

    def __init__(self, original: str, folded: str) -> None:
        self.original = original
        self.folded = folded
        # Folding keeps offsets unless a char folds to several (ß -> ss): then map them back.
        self._source = None if len(folded) == len(original) else original

    def to_original(self, offset: int) -> int:
        if self._source is None:
            return offset
        low, high = 0, len(self._source)  # binary search on the folded length of prefixes
        while low < high:
            mid = (low + high + 1) // 2
            if len(self._source[:mid].casefold()) <= offset:
                low = mid
            else:
                high = mid - 1
        return low


def _prepare(output: str, head: int, tail: int) -> _Text:
    text = _window(output, head, tail)
    if "\x1b" in text:
        text = _ansi().sub("", text)
    if "\r" in text:  # CRLF endings, and progress bars that redraw a line with a bare CR
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _Text(text, text.lower() if text.isascii() else text.casefold())


def _window(output: str, head: int, tail: int) -> str:
    """The first ``head`` and last ``tail`` characters of a big output, cut at line ends so that
    no partial line can pose as a line start."""
    if len(output) <= head + tail:
        return output
    first = output[:head]
    cut = first.rfind("\n")
    first = first[:cut] if cut > 0 else first
    last = output[-tail:]
    cut = last.find("\n")
    last = last[cut + 1 :] if cut != -1 else last
    return first + "\n" + last


# ---------------------------------------------------------------------------------------------
# The command line: which programs ran, is the output data, is it a yes/no check?


class _Command:
    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple[str, ...]) -> None:
        self.name = name  # basename of the program, e.g. "grep"
        self.args = args

    def __repr__(self) -> str:
        return f"_Command({self.name!r}, {self.args!r})"


class _CommandLine:
    __slots__ = ("commands", "producers")

    def __init__(self, commands: tuple[_Command, ...], producers: tuple[_Command, ...]) -> None:
        self.commands = commands  # every simple command
        self.producers = producers  # the first command of each pipeline that prints something


_OPERATOR_CHARS = "|&;()\n"
_REDIR = "\x00redir"  # marks a redirection token; NUL cannot occur in a shell word
_TWO_CHAR_OPERATORS = ("&&", "||", "|&", ";;")


@lru_cache(maxsize=None)
def _lexer_regex(name: str) -> re.Pattern[str]:
    return re.compile(
        {
            "heredoc": r"<<-?\s*(['\"]?)([\w.-]+)\1",
            "redirect": r"[<>]+&?-?\d*",
            "assignment": r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=",
            "duration": r"\d+(?:\.\d+)?[smhd]?$",
            "dup": r"&(?:\d+|-)$",
        }[name]
    )


def _tokenize(command: str) -> list[str]:
    """Split a shell command into words and operators, honouring quotes, escapes, $(...) and
    heredocs (a heredoc's body is data, never commands)."""
    tokens: list[str] = []
    word: list[str] = []
    heredocs: list[str] = []
    i, n = 0, len(command)
    in_word = False

    def flush() -> None:
        nonlocal in_word
        if in_word:
            tokens.append("".join(word))
            word.clear()
            in_word = False

    while i < n:
        c = command[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "\\":
            if not command.startswith("\\\n", i):
                word.append(command[i + 1 : i + 2])
                in_word = True
            i += 2
        elif c in "'\"`":
            close = _quote_end(command, i)
            word.append(command[i + 1 : close])
            in_word = True
            i = close + 1
        elif c == "$" and command.startswith("$(", i):
            close = _paren_end(command, i + 1)
            word.append(command[i : close + 1])
            in_word = True
            i = close + 1
        elif c == "#" and not in_word:
            i = command.find("\n", i)
            i = n if i == -1 else i
        elif c == "<" and command.startswith("<<", i) and not command.startswith("<<<", i):
            flush()
            match = _lexer_regex("heredoc").match(command, i)
            if match:
                heredocs.append(match.group(2))
                i = match.end()
            else:
                i += 2
        elif c in "<>":
            if in_word and "".join(word).isdigit():  # "2>": the fd number is not a word
                word.clear()
                in_word = False
            flush()
            match = _lexer_regex("redirect").match(command, i)
            tokens.append(_REDIR + match.group(0))  # the class matches at least this char
            i = match.end()
        elif c in _OPERATOR_CHARS:
            flush()
            if c == "&" and command.startswith("&>", i):
                tokens.append(_REDIR + "&>")
                i += 2
                continue
            op = command[i : i + 2] if command[i : i + 2] in _TWO_CHAR_OPERATORS else c
            tokens.append(op)
            i += len(op)
            if c == "\n" and heredocs:
                i = _skip_heredocs(command, i, heredocs)
                heredocs = []
        else:
            word.append(c)
            in_word = True
            i += 1
    flush()
    return tokens


def _quote_end(s: str, i: int) -> int:
    quote, j = s[i], i + 1
    while j < len(s):
        if s[j] == "\\" and quote != "'":
            j += 2
            continue
        if s[j] == quote:
            return j
        j += 1
    return len(s)


def _paren_end(s: str, i: int) -> int:
    depth, j = 0, i
    while j < len(s):
        c = s[j]
        if c in "'\"":
            j = _quote_end(s, j) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return len(s)


def _skip_heredocs(s: str, i: int, delimiters: list[str]) -> int:
    for delimiter in delimiters:
        while i < len(s):
            end = s.find("\n", i)
            line = s[i:] if end == -1 else s[i:end]
            i = len(s) if end == -1 else end + 1
            if line.strip() == delimiter:
                break
    return i


_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!",
                       "{", "}", "esac", "in", "function", "coproc"})
_BLOCK_STARTERS = frozenset({"for", "case", "select"})
_WRAPPER_ARG_FLAGS = {"sudo": {"-u", "-g", "-C", "-h", "-p"}, "doas": {"-u"}, "nice": {"-n"},
                      "timeout": {"-s", "-k", "--signal", "--kill-after"},
                      "xargs": {"-I", "-n", "-P", "-d", "-L", "-E", "-s", "-a"},
                      "env": {"-u", "-C", "--unset", "--chdir"}, "watch": {"-n", "-d"}}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_PIPES = ("|", "|&")


def _parse_command_line(command: str, rules: Rules) -> _CommandLine:
    commands: list[_Command] = []
    producers: list[_Command] = []
    _collect(command, rules, commands, producers, depth=0)
    return _CommandLine(tuple(commands), tuple(producers))


def _collect(command: str, rules: Rules, commands: list[_Command], producers: list[_Command],
             depth: int) -> None:
    pipeline_start = True
    for words, operator in _simple_commands(_tokenize(command)):
        cmd = _program(words, rules)
        if cmd is not None and cmd.name in _SHELLS and cmd.args[:1] == ("-c",) and len(cmd.args) > 1 and depth < 3:
            _collect(cmd.args[1], rules, commands, producers, depth + 1)  # bash -c '...'
        elif cmd is not None:
            commands.append(cmd)
            if pipeline_start and cmd.name not in rules.silent_commands:
                producers.append(cmd)
        pipeline_start = operator not in _PIPES


def _simple_commands(tokens: list[str]) -> Iterator[tuple[list[str], str]]:
    """(words, operator that follows) for each simple command."""
    words: list[str] = []
    for token in tokens:
        if token in ("&&", "||", "|", "|&", ";", ";;", "&", "\n", "(", ")"):
            yield words, token
            words = []
        else:
            words.append(token)
    yield words, ""


def _program(words: Sequence[str], rules: Rules) -> _Command | None:
    """The program a simple command runs, past assignments, redirections and wrappers."""
    words = _drop_redirections(words)
    i = 0
    while i < len(words):
        word = words[i]
        if word in _KEYWORDS or _lexer_regex("assignment").match(word):
            i += 1
            continue
        if word in _BLOCK_STARTERS:
            return None  # "for f in *.log" names no program
        name = word.rsplit("/", 1)[-1]
        if name in rules.wrapper_commands and not _is_command_query(name, words[i + 1 : i + 2]):
            following = _skip_wrapper(name, words, i + 1)
            if following < len(words):
                i = following
                continue  # the wrapped program is the one that matters
        return _Command(name, tuple(words[i + 1 :]))  # a bare `env` or `time` runs itself
    return None


def _drop_redirections(words: Sequence[str]) -> list[str]:
    """Words without redirections and their targets (``> out.log``; ``2>&1`` has none)."""
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif word.startswith(_REDIR):
            skip_next = _lexer_regex("dup").search(word) is None
        else:
            kept.append(word)
    return kept


def _is_command_query(name: str, following: Sequence[str]) -> bool:
    """``command -v x`` is a lookup (a check), not ``command`` running ``x``."""
    return name == "command" and bool(following) and following[0] in ("-v", "-V")


def _skip_wrapper(name: str, words: Sequence[str], i: int) -> int:
    arg_flags = _WRAPPER_ARG_FLAGS.get(name, set())
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if word.startswith("-") and len(word) > 1:
            i += 2 if word in arg_flags else 1
        elif name == "env" and _lexer_regex("assignment").match(word):
            i += 1
        elif name == "timeout" and _lexer_regex("duration").match(word):
            return i + 1
        else:
            return i
    return i


def _matches_entry(cmd: _Command, entries: frozenset[str]) -> bool:
    """Does a command match a list entry: "grep", or "git diff" (sub-command among the first args)?"""
    if cmd.name in entries:
        return True
    return any(f"{cmd.name} {arg}" in entries for arg in cmd.args[:3])


# ---------------------------------------------------------------------------------------------
# Matching


class _Hit:
    __slots__ = ("rule_index", "start", "anchor", "end")

    def __init__(self, rule_index: int, start: int, anchor: int, end: int) -> None:
        self.rule_index = rule_index
        self.start = start  # offsets in the folded text
        self.anchor = anchor  # where the excerpt starts: a capture group, else the match start
        self.end = end


class _Finding:
    __slots__ = ("key", "offset")

    def __init__(self, key: str, offset: int) -> None:
        self.key = key
        self.offset = offset  # folded offset of the excerpt anchor; -1: nothing to show


class _Scanner:
    """Runs rules over one folded text, caching needle look-ups, line lookups and guards."""

    def __init__(self, text: _Text, rules: Rules, command: str) -> None:
        self.text = text
        self.folded = text.folded
        self.rules = rules
        self.command = command.casefold()
        self._found: dict[str, bool] = {}
        self._ignore: Callable[[str], bool] | None = None
        self._handled: Callable[[str], bool] | None = None

    def _contains(self, literal: str) -> bool:
        found = self._found.get(literal)
        if found is None:
            found = self._found[literal] = literal in self.folded
        return found

    def may_match(self, rule: Rule) -> bool:
        """Can the rule match at all: a needle of it in the text, and its command scope met?"""
        if rule.needles and not any(self._contains(n) for n in rule.needles):
            return False
        if rule.command is None:
            return True
        compiled = _compile(rule.command)
        return compiled is not None and compiled.search(self.command) is not None

    def hits(self, index: int, patterns: Iterable[str], text: str | None = None) -> Iterator[_Hit]:
        """Hits of patterns, in pattern order; on the full text, ignored lines are skipped.

        Once a rule's needles are found, each of its patterns is still checked against its own
        needle (derived from the pattern, once per process) before it is compiled and run.
        """
        haystack = self.folded if text is None else text
        for pattern in patterns:
            if text is None and not all(any(map(self._contains, n)) for n in _pattern_needles(pattern)):
                continue
            compiled = _compile(pattern)
            if compiled is None:
                continue
            for count, match in enumerate(compiled.finditer(haystack)):
                if count >= _MAX_HITS_PER_PATTERN:
                    break
                anchor = _anchor(match)
                if text is None and self.ignored(anchor):
                    continue
                yield _Hit(index, match.start(), anchor, match.end())

    def line_start(self, offset: int) -> int:
        return self.folded.rfind("\n", 0, offset) + 1

    def line(self, offset: int) -> str:
        start = self.line_start(offset)
        end = self.folded.find("\n", offset)
        return self.folded[start : len(self.folded) if end == -1 else end]

    def ignored(self, offset: int) -> bool:
        if self._ignore is None:
            self._ignore = _any_matcher(self.rules.ignore)
        return self._ignore(self.line(offset))

    def handled(self, hit: _Hit, strong_lines: set[int]) -> bool:
        """A failure the program itself reports as handled: 'retrying', 'falling back'...

        A traceback logged right under such a line (logger.exception) is handled too.
        """
        if self._handled is None:
            self._handled = _any_matcher(self.rules.handled)
        if self._handled(self.line(hit.start)):
            return True
        start = self.line_start(hit.start)
        if start == 0:
            return False
        previous = self.line_start(start - 1)
        return previous in strong_lines and self._handled(self.line(previous))

    def success_summary(self) -> bool:
        tail = self.folded[-_SUCCESS_TAIL:]
        compiled = (_compile(p) for p in self.rules.success)
        return any(c is not None and c.search(tail) for c in compiled)


def _anchor(match: re.Match[str]) -> int:
    """Start of the first capture group that took part in the match, else of the match."""
    for group in range(1, (match.re.groups or 0) + 1):
        start = match.start(group)
        if start != -1:
            return start
    return match.start()


def _any_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    compiled = [c for c in map(_compile, patterns) if c is not None]
    return lambda line: any(regex.search(line) for regex in compiled)


# ---------------------------------------------------------------------------------------------
# Detection


def detect(result: ToolResult, rules: Rules | None = None) -> Detection | None:
    """Is this finished command an error?  See rules.toml for the procedure and the key table."""
    if rules is None:
        rules = load_rules()
    # Tokenizing the command line is Python work per character: a 10 MB heredoc would cost
    # seconds. Its head names the programs; what lies past it is only seen through the output.
    command = (result.command or "")[:MAX_COMMAND_CHARS]
    if _command_ignored(command, rules):
        return None
    text = _prepare(result.output or "", rules.head_chars, rules.tail_chars)
    line = _parse_command_line(command, rules)
    scanner = _Scanner(text, rules, command)
    code = result.exit_code
    answered_no = code == 1 and any(_matches_entry(c, rules.check_commands) for c in line.commands)
    if code not in (0, None) and not answered_no:
        found = _classify_failure(scanner, code, result.interrupted)
    else:
        found = _classify_text(scanner, line, answered_no)
        if found is None and result.interrupted:
            found = _Finding(INTERRUPTED, _tail_offset(scanner))
    if found is None:
        return None
    return Detection(found.key, rules.title(found.key), _excerpt(text, found.offset))


def _command_ignored(command: str, rules: Rules) -> bool:
    if not rules.ignore_commands:
        return False
    folded = command.casefold()
    compiled = (_compile(p) for p in rules.ignore_commands)
    return any(c is not None and c.search(folded) for c in compiled)


def _classify_failure(scanner: _Scanner, code: int, interrupted: bool) -> _Finding:
    """A non-zero exit is an error: name it by the first rule that hits at all."""
    for index, rule in enumerate(scanner.rules.rules):
        if scanner.may_match(rule):
            hit = next(scanner.hits(index, rule.strong + rule.weak), None)
            if hit is not None:
                return _Finding(rule.key, hit.anchor)
    if interrupted:
        return _Finding(INTERRUPTED, _tail_offset(scanner))
    key = scanner.rules.exit_codes.get(code, GENERIC_NONZERO)
    return _Finding(key if key in scanner.rules.titles else GENERIC_NONZERO, _tail_offset(scanner))


def _classify_text(scanner: _Scanner, line: _CommandLine, answered_no: bool) -> _Finding | None:
    """Exit 0 / unknown / a check answering no: only unguarded strong evidence is an error."""
    rules = scanner.rules
    producers = line.producers
    if producers and all(_matches_entry(c, rules.viewer_commands) for c in producers):
        return _own_diagnostic(scanner, producers)
    excluded = _self_lines(line.commands, rules.check_commands) if answered_no else None
    strong_hits = _strong_hits(scanner, excluded)
    if not strong_hits:
        return None
    strong_lines = {scanner.line_start(h.start) for h in strong_hits}
    handled = [h for h in strong_hits if scanner.handled(h, strong_lines)]
    # A hit inside a handled multi-line hit (a line of a logged traceback) is handled with it.
    spans = [(h.start, h.end) for h in handled]
    live = [h for h in strong_hits if h not in handled and not any(a <= h.start < b for a, b in spans)]
    if live and scanner.success_summary():
        keeps = tuple(rules.success_keeps)
        live = [h for h in live if keeps and rules.rules[h.rule_index].key.startswith(keeps)]
    if not live:
        return None
    first = min(live, key=lambda h: (h.rule_index, h.start))
    return _refine_on_line(scanner, first)


def _strong_hits(scanner: _Scanner, excluded: Callable[[str], bool] | None) -> list[_Hit]:
    hits: list[_Hit] = []
    for index, rule in enumerate(scanner.rules.rules):
        if rule.strong and scanner.may_match(rule):
            for hit in scanner.hits(index, rule.strong):
                if excluded is None or not excluded(scanner.line(hit.start)):
                    hits.append(hit)
    return hits


def _refine_on_line(scanner: _Scanner, hit: _Hit) -> _Finding:
    """A weak pattern of an earlier (more specific) rule on the decisive line names the error
    better: "ERROR: ... connection refused" is a refused connection, not just a message."""
    line = scanner.line(hit.anchor)
    for index, rule in enumerate(scanner.rules.rules[: hit.rule_index]):
        if rule.weak and scanner.may_match(rule) and next(scanner.hits(index, rule.weak, line), None):
            return _Finding(rule.key, hit.anchor)
    return _Finding(scanner.rules.rules[hit.rule_index].key, hit.anchor)


def _own_diagnostic(scanner: _Scanner, viewers: Sequence[_Command]) -> _Finding | None:
    """Viewer output is data; only a viewer's own complaint ("cat: x: No such file...", git's
    "fatal: ...") or the shell's ("bash: line 1: X: unbound variable") counts."""
    names = {re.escape(c.name.casefold()) for c in viewers} | set(_SHELLS)
    prefixes = [rf"(?:\S*/)?(?:{'|'.join(sorted(names))})(?:\[\d+\])?: "]
    for cmd in viewers:
        prefixes += [re.escape(p.casefold()) for p in scanner.rules.diagnostics.get(cmd.name, ())]
    own = re.compile(rf"^(?:{'|'.join(prefixes)})[^\n]*$", re.MULTILINE)
    for match in own.finditer(scanner.folded):
        line = match.group(0)
        for index, rule in enumerate(scanner.rules.rules):
            if scanner.may_match(rule) and next(scanner.hits(index, rule.strong + rule.weak, line), None):
                return _Finding(rule.key, match.start())
    return None


def _self_lines(commands: Sequence[_Command], checks: frozenset[str]) -> Callable[[str], bool]:
    """Lines where a check program answers for itself ("bash: type: x: not found")."""
    names = sorted({re.escape(c.name.casefold()) for c in commands if _matches_entry(c, checks)})
    own = re.compile(rf"^(?:[^\n:]*: )?(?:line \d+: )?(?:{'|'.join(names)}): ")
    return lambda line: own.search(line) is not None


def _tail_offset(scanner: _Scanner) -> int:
    """Start of the last non-blank line: the best excerpt when no pattern points anywhere."""
    stripped = scanner.folded.rstrip()
    if not stripped:
        return -1
    return stripped.rfind("\n") + 1


# ---------------------------------------------------------------------------------------------
# Excerpt


def _excerpt(text: _Text, folded_offset: int) -> str:
    """<= 200 chars from the hit on, as one line, redacted.

    Redaction comes first, on the original text (its lines intact) around a bounded window, and
    the cut after: a secret that crosses either edge of the window is replaced whole, and the
    final cut never falls inside a [REDACTED…] tag, so no part of a secret is ever kept.
    """
    if folded_offset < 0:
        return ""
    from self_improve.detect.redact import redact, shorten

    original = text.original
    anchor = min(text.to_original(folded_offset), len(original))
    start = original.rfind("\n", 0, anchor) + 1
    if anchor - start > 60:  # a long line: start shortly before the hit, at a blank if one is near
        blank = max(original.rfind(" ", anchor - 100, anchor - 40), original.rfind("\t", anchor - 100, anchor - 40))
        start = blank + 1 if blank >= 0 else anchor - 40
    end = min(len(original), start + 4 * EXCERPT_MAX)
    piece = " ".join(redact(original, window=(start, end)).split())
    return shorten(piece, EXCERPT_MAX)
