"""The detection rules: rules.toml, merged with the ``[detect]`` table of a user's config.

    class ErrorRule:    # immutable record: the patterns naming one Pattern-Key
    class Rules:   # immutable record: everything detect() needs
    def load_rules(overrides: Mapping[str, Any] | None = None) -> Rules

The schema of rules.toml and of a user's ``[detect]`` table is documented at the top of
rules.toml.  A hook is a fresh process on every shell command, so the packaged table is read
through a ``marshal`` copy (``prescreen.read_cache``), and patterns stay text until first used.
"""

from __future__ import annotations

import os
from self_improve.memo import lru_cache  # functools.lru_cache, without importing functools

from self_improve.detect.patterns import compile_pattern, fold_pattern, needle
from self_improve.events import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any, TypeGuard

RULES_FILE = "rules.toml"
GENERIC_NONZERO = "generic.nonzero-exit"
USER_DEFAULT_KEY = "generic.error-output"
INTERRUPTED = "runtime.interrupted"


class ErrorRule(Frozen):
    """Patterns naming one Pattern-Key (see the schema in rules.toml).

    ``needles``: literals of which any match of any pattern contains one; () means "always try".
    ``clients``: the rule also judges what an HTTP client prints (otherwise the server's data).
    """

    __slots__ = ("key", "strong", "weak", "command", "needles", "origin", "clients")
    key: str
    strong: tuple[str, ...]
    weak: tuple[str, ...]
    command: str | None
    needles: tuple[str, ...]
    origin: str
    clients: bool

    def __init__(self, key: str, strong: tuple[str, ...] = (), weak: tuple[str, ...] = (),
                 command: str | None = None, needles: tuple[str, ...] = (), origin: str = "builtin",
                 clients: bool = False) -> None:
        self._set(key, strong, weak, command, needles, origin, clients)


class Rules(Frozen):
    """Everything detect() needs, merged from rules.toml and the user's [detect] table.

    Patterns are kept as text and compiled on first use (cached per process): most are never
    needed for a given output.  ``warnings`` describes user overrides that were skipped.
    """

    __slots__ = ("rules", "titles", "exit_codes", "check_commands", "viewer_commands", "silent_commands",
                 "wrapper_commands", "diagnostics", "handled", "success", "success_keeps", "ignore",
                 "ignore_commands", "head_chars", "tail_chars", "warnings", "own_commands", "check_codes", "client_commands")
    rules: tuple[ErrorRule, ...]
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
    own_commands: frozenset[str]
    check_codes: Mapping[int, frozenset[str]]  # checks answering "no" with an exit code other than 1
    client_commands: frozenset[str]  # HTTP clients: their output is the server's data

    def __init__(self, *, rules: tuple[ErrorRule, ...], titles: Mapping[str, str], exit_codes: Mapping[int, str],
                 check_commands: frozenset[str], viewer_commands: frozenset[str], silent_commands: frozenset[str],
                 wrapper_commands: frozenset[str], diagnostics: Mapping[str, tuple[str, ...]],
                 handled: tuple[str, ...], success: tuple[str, ...], success_keeps: tuple[str, ...],
                 ignore: tuple[str, ...], ignore_commands: tuple[str, ...] = (), head_chars: int = 8192,
                 tail_chars: int = 32768, warnings: tuple[str, ...] = (),
                 own_commands: frozenset[str] = frozenset(),
                 check_codes: Mapping[int, frozenset[str]] | None = None,
                 client_commands: frozenset[str] = frozenset()) -> None:
        self._set(rules, titles, exit_codes, check_commands, viewer_commands, silent_commands,
                  wrapper_commands, diagnostics, handled, success, success_keeps, ignore,
                  ignore_commands, head_chars, tail_chars, warnings, own_commands, check_codes or {},
                  client_commands)

    @property
    def keys(self) -> frozenset[str]:
        """Every Pattern-Key detect() can return with these rules."""
        return frozenset(self.titles)

    def title(self, key: str) -> str:
        return self.titles.get(key) or self.titles.get(GENERIC_NONZERO, "Command failed")


# ---------------------------------------------------------------------------------------------
# The packaged rules


def _read_packaged_text(file_name: str = RULES_FILE) -> str:
    """A data file from next to this module (rules.toml, subjects.toml); importlib.resources only as
    a fallback (zip installs), because importing it costs more than the whole read."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        from importlib import resources

        return resources.files(__package__).joinpath(file_name).read_text(encoding="utf-8")


def _load_table(file_name: str, *, cache: bool) -> Mapping[str, Any]:
    """A packaged TOML table, through a marshal copy in the user's cache dir.

    Importing ``tomllib`` and parsing the rules costs ~10 ms in a fresh process, loading the
    same table with the built-in ``marshal`` well under 1.  The copy is keyed by the file's size
    and mtime (``prescreen.cache_path``), so an edited file is parsed again. ``cache=False``
    only reads the copy, never writes one.
    """
    from self_improve.detect import prescreen

    kind = file_name.rsplit(".", 1)[0]  # "rules", "subjects": the cache files' names
    table = prescreen.read_cache(kind, file_name)
    if isinstance(table, dict):
        return table
    import tomllib

    table = tomllib.loads(_read_packaged_text(file_name))
    if cache:
        prescreen.write_cache(kind, table, file_name)
    return table


@lru_cache(maxsize=4)
def packaged_table(file_name: str) -> Mapping[str, Any]:
    """The parsed packaged data file ``file_name`` (rules.toml, subjects.toml), once per process."""
    return _load_table(file_name, cache=True)


def _packaged_table() -> Mapping[str, Any]:
    return packaged_table(RULES_FILE)


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
    needles = _screen_needles(rules)
    kept = prescreen.minimal_needles(needles) if needles is not None else None
    prescreen.write_screen(kept, rules.head_chars, rules.tail_chars)


def _screen_needles(rules: Rules) -> set[str] | None:
    """Literals of which any exit-0 hit of any rule contains one, or None if none are known.

    Exit 0 is reported only on a strong hit (a weak pattern counts only on a viewer's own
    "name: ..." line, where a needle of the rule's strong patterns is not required, but those
    weak patterns start at ^ with something no "name: " line can begin with: they are checked
    by the prescreen test).  So a rule without needles needs its strong patterns' needles.
    """
    needles: set[str] = set()
    for rule in rules.rules:
        if rule.needles:
            needles.update(rule.needles)
            continue
        for pattern in rule.strong:
            best = needle(pattern)
            if not best:
                return None
            needles.update(best)
    return needles


def class_keys() -> frozenset[str]:
    """The packaged Pattern-Keys (the error classes), read without writing any cache: for the
    CLI's review, which must leave the user's folders as they were."""
    return frozenset(_load_table(RULES_FILE, cache=False).get("titles", {}))


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
        own_commands=frozenset(_names(commands.get("own"))),
        check_codes={int(code): frozenset(_names(names)) for code, names in commands.get("check_codes", {}).items()},
        client_commands=frozenset(_names(commands.get("client"))),
    )


def _builtin_rule(raw: Mapping[str, Any]) -> ErrorRule:
    return ErrorRule(
        key=raw["key"],
        strong=_lines(raw.get("strong")),
        weak=_lines(raw.get("weak")),
        command=raw.get("command"),
        needles=_lines(raw.get("needles")),
        clients=raw.get("clients") is True,
    )


def _lines(value: object) -> tuple[str, ...]:
    """A list written as a multi-line string, one item per line (or as a TOML array).

    Items keep their inner and leading spaces (a needle may be "    at "); blank lines go.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(filter(str.strip, value.split("\n")))  # the lines that are not blank, at C speed
    return _array(value)


def _names(value: object) -> tuple[str, ...]:
    """A list of names written as a comma-separated string (or as a TOML array)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(filter(None, map(str.strip, value.replace("\n", " ").split(","))))
    return _array(value)


def _array(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"rules.toml: expected a string or an array, got {type(value).__name__}")
    return tuple(value)


# ---------------------------------------------------------------------------------------------
# A user's [detect] table


def _is_table(value: object) -> TypeGuard[Mapping[str, Any]]:
    return hasattr(value, "get") and hasattr(value, "keys")


class _UserOverrides:
    """The validated content of a user's [detect] table (schema: top of rules.toml)."""

    __slots__ = ("rules", "titles", "disable", "ignore", "ignore_commands", "check_commands", "viewer_commands")
    KNOWN = frozenset(__slots__) - {"titles"}

    def __init__(self) -> None:
        self.rules: tuple[ErrorRule, ...] = ()
        self.titles: dict[str, str] = {}
        self.disable: frozenset[str] = frozenset()
        self.ignore: tuple[str, ...] = ()
        self.ignore_commands: tuple[str, ...] = ()
        self.check_commands: frozenset[str] = frozenset()
        self.viewer_commands: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, table: object, warnings: list[str]) -> _UserOverrides:
        user = cls()
        if not _is_table(table):
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
        if compile_pattern(folded) is None:
            reason = "invalid regular expression" if engine_available() else "no `regex` module to run"
            warnings.append(f"[detect] {where}: {reason} {pattern!r}; skipped")
            continue
        yield folded


def _user_rules(raw_rules: object, warnings: list[str]) -> tuple[tuple[ErrorRule, ...], dict[str, str]]:
    if _is_table(raw_rules):
        raw_rules = [raw_rules]  # a single [detect.rules] table instead of an array
    if not isinstance(raw_rules, (list, tuple)):
        warnings.append("[detect] rules must be an array of tables; ignored")
        return (), {}
    rules: list[ErrorRule] = []
    titles: dict[str, str] = {}
    for index, raw in enumerate(raw_rules):
        found = _user_rule(raw, index, warnings)
        if found is not None:
            rule, title = found
            rules.append(rule)
            titles[rule.key] = title
    return tuple(rules), titles


def _user_rule(raw: object, index: int, warnings: list[str]) -> tuple[ErrorRule, str] | None:
    """A user's rule and its title, or None (with a warning) when it is unusable."""
    where = f"rules[{index}]"
    if not _is_table(raw):
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
    title = raw.get("title")
    title = title.strip() if isinstance(title, str) and title.strip() else f"Custom error ({key})"
    rule = ErrorRule(key=key, strong=strong, weak=weak, command=command, needles=_rule_needles(strong + weak), origin="user",
                     clients=True)  # a user's rule is meant for whatever it matches, curl's output too
    return rule, title


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
