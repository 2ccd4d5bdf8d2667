"""Is a finished shell command an error, and which one?

    class Detection:          # immutable record: Detection(pattern_key, title, excerpt, subject)
        pattern_key: str      # "area.symptom" from the table in rules.toml, e.g. "deps.module-not-found"
        title: str            # short summary in OUR words, e.g. "Module or package not found"
        excerpt: str          # <= 200 chars of the output around the hit, one line, secrets redacted
        subject: str          # which mistake of the class (subjects.toml), e.g. "python:yaml"
        fingerprint: str      # "deps.module-not-found/python:yaml": the unit the store learns

    def detect(result: ToolResult, rules: Rules | None = None) -> Detection | None

The rules (``rules.load_rules``), and the exact judging procedure, are documented at the top of
rules.toml.

This runs in a hook after a shell command, in a fresh process, so it is built for start-up time:
stdlib ``re`` only (``regex`` costs ~40 ms to import; it is loaded only for a pattern ``re``
cannot compile); the output is case-folded once and matched with lower-case patterns; each rule
lists literal ``needles`` (one of which any match contains), and its patterns are compiled and
run only when a needle occurs in the text; big outputs are cut to a head and a tail window.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

from self_improve.detect.patterns import compile_pattern, pattern_needles
from self_improve.detect.rules import GENERIC_NONZERO, INTERRUPTED, ErrorRule, Rules, load_rules
from self_improve.detect.shell import MAX_COMMAND_CHARS, SHELLS, Command, CommandLine, parse_command_line
from self_improve.detect.text import Text, prepare
from self_improve.events import Frozen, ToolResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

_MAX_HITS_PER_PATTERN = 32  # enough to see past guarded lines, bounded on huge outputs
_SUCCESS_TAIL = 2000  # a passing test summary must sit in the last characters of the output


class Detection(Frozen):
    """One detected error: its Pattern-Key (the class), our title for it, a redacted one-line
    excerpt, and its subject (``subjects.py``: which mistake of that class, "" if none is known).

    ``fingerprint`` is what the store counts, merges and recalls by.
    """

    __slots__ = ("pattern_key", "title", "excerpt", "subject")
    pattern_key: str
    title: str
    excerpt: str
    subject: str

    def __init__(self, pattern_key: str, title: str, excerpt: str, subject: str = "") -> None:
        self._set(pattern_key, title, excerpt, subject)

    @property
    def fingerprint(self) -> str:
        """``deps.module-not-found/python:yaml``; the Pattern-Key alone when there is no subject."""
        from self_improve.detect.subjects import fingerprint

        return fingerprint(self.pattern_key, self.subject)


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

    def __init__(self, text: Text, rules: Rules, command: str) -> None:
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

    def may_match(self, rule: ErrorRule) -> bool:
        """Can the rule match at all: a needle of it in the text, and its command scope met?"""
        if rule.needles and not any(self._contains(n) for n in rule.needles):
            return False
        if rule.command is None:
            return True
        compiled = compile_pattern(rule.command)
        return compiled is not None and compiled.search(self.command) is not None

    def hits(self, index: int, patterns: Iterable[str], text: str | None = None) -> Iterator[_Hit]:
        """Hits of patterns, in pattern order; on the full text, ignored lines are skipped.

        Once a rule's needles are found, each of its patterns is still checked against its own
        needle (derived from the pattern, once per process) before it is compiled and run.
        """
        haystack = self.folded if text is None else text
        for pattern in patterns:
            if text is None and not all(any(map(self._contains, n)) for n in pattern_needles(pattern)):
                continue
            compiled = compile_pattern(pattern)
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
        """A failure the program itself reports as handled: 'retrying', 'falling back'... on its
        line or on the next one ("attempt 1 failed" / "retrying in 2s...").

        A traceback logged right under such a line (logger.exception) is handled too.
        """
        if self._handled is None:
            self._handled = _any_matcher(self.rules.handled)
        if self._handled(self.line(hit.start)):
            return True
        end = self.folded.find("\n", hit.start)
        if end != -1 and self._handled(self.line(end + 1)):
            return True
        start = self.line_start(hit.start)
        if start == 0:
            return False
        previous = self.line_start(start - 1)
        return previous in strong_lines and self._handled(self.line(previous))

    def success_summary(self) -> bool:
        tail = self.folded[-_SUCCESS_TAIL:]
        compiled = (compile_pattern(p) for p in self.rules.success)
        return any(c is not None and c.search(tail) for c in compiled)


def _anchor(match: re.Match[str]) -> int:
    """Start of the first capture group that took part in the match, else of the match."""
    for group in range(1, (match.re.groups or 0) + 1):
        start = match.start(group)
        if start != -1:
            return start
    return match.start()


def _any_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    compiled = [c for c in map(compile_pattern, patterns) if c is not None]
    return lambda line: any(regex.search(line) for regex in compiled)


# ---------------------------------------------------------------------------------------------
# Detection


def detect(result: ToolResult, rules: Rules | None = None) -> Detection | None:
    """Is this finished command an error?  See rules.toml for the procedure and the key table."""
    if rules is None:
        rules = load_rules()
    command = (result.command or "")[:MAX_COMMAND_CHARS]
    if _command_ignored(command, rules):
        return None
    text = prepare(result.output or "", rules.head_chars, rules.tail_chars)
    line = parse_command_line(command, rules.wrapper_commands, rules.silent_commands)
    if _only_ours(line, rules):
        return None
    scanner = _Scanner(text, rules, command)
    code = result.exit_code
    answered_no = _answers_no(line, code, rules)
    found: _Finding | None
    if code not in (0, None) and not answered_no:
        found = _classify_failure(scanner, code, result.interrupted)
    else:
        found = _classify_text(scanner, line, answered_no)
        if found is None and result.interrupted:
            found = _Finding(INTERRUPTED, _tail_offset(scanner))
    if found is None:
        return None
    from self_improve.detect.subjects import subject_for

    subject = subject_for(found.key, text, found.offset, command, result.cwd)
    return Detection(found.key, rules.title(found.key), text.excerpt(found.offset), subject)


def _checks_for(code: int | None, rules: Rules) -> frozenset[str]:
    """The yes/no checks whose exit ``code`` means "no": [commands].check for 1, else
    [commands.check_codes] (getent's 2, systemctl is-active's 3...)."""
    if code == 1:
        return rules.check_commands
    return rules.check_codes.get(code, frozenset()) if code is not None else frozenset()


def _answers_no(line: CommandLine, code: int | None, rules: Rules) -> bool:
    """Is this a yes/no check answering "no" (its exit code says so, and it is in the line)?"""
    checks = _checks_for(code, rules)
    return bool(checks) and any(c.matches(checks) for c in line.commands)


def _only_ours(line: CommandLine, rules: Rules) -> bool:
    """A line of our own CLI alone (``cd x && self-improve log …``): its failure is never recorded,
    or the store would learn about itself. A line that also runs something else is judged as usual."""
    programs = [c for c in line.commands if c.name not in rules.silent_commands]
    return bool(programs) and all(c.matches(rules.own_commands) for c in programs)


def _command_ignored(command: str, rules: Rules) -> bool:
    if not rules.ignore_commands:
        return False
    folded = command.casefold()
    compiled = (compile_pattern(p) for p in rules.ignore_commands)
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


def _classify_text(scanner: _Scanner, line: CommandLine, answered_no: bool) -> _Finding | None:
    """Exit 0 / unknown / a check answering no: only unguarded strong evidence is an error."""
    rules = scanner.rules
    producers = line.producers
    if producers and all(c.matches(rules.viewer_commands) for c in producers):
        return _own_diagnostic(scanner, producers)
    served = _serves_data(line, rules)
    if served:
        own = _own_diagnostic(scanner, served)
        if own is not None:
            return own
    excluded = _self_lines(line.commands, rules.check_commands.union(*rules.check_codes.values())) if answered_no else None
    strong_hits = _strong_hits(scanner, excluded, served=bool(served))
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


def _serves_data(line: CommandLine, rules: Rules) -> list[Command]:
    """The HTTP clients of a line whose output is a server's data: a client prints, and every
    other program of the line is a viewer (``curl -s url | jq .``); else []."""
    clients = [c for c in line.commands if c.matches(rules.client_commands)]
    if not clients or not any(c.matches(rules.client_commands) for c in line.producers):
        return []
    others = (c for c in line.commands if not c.matches(rules.client_commands))
    if all(c.matches(rules.viewer_commands) or c.name in rules.silent_commands for c in others):
        return clients
    return []


def _strong_hits(scanner: _Scanner, excluded: Callable[[str], bool] | None, served: bool = False) -> list[_Hit]:
    """Strong hits of every rule; on a server's data (``served``), of the rules that read an HTTP
    client's output only: those marked ``clients`` and those whose command scope matches."""
    hits: list[_Hit] = []
    for index, rule in enumerate(scanner.rules.rules):
        if served and rule.command is None and not rule.clients:
            continue
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


def _own_diagnostic(scanner: _Scanner, viewers: Sequence[Command]) -> _Finding | None:
    """Viewer output is data; only a viewer's own complaint ("cat: x: No such file...", git's
    "fatal: ...") or the shell's ("bash: line 1: X: unbound variable") counts."""
    names = {re.escape(c.name.casefold()) for c in viewers} | set(SHELLS)
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


def _self_lines(commands: Sequence[Command], checks: frozenset[str]) -> Callable[[str], bool]:
    """Lines where a check program answers for itself ("bash: type: x: not found")."""
    names = sorted({re.escape(c.name.casefold()) for c in commands if c.matches(checks)})
    own = re.compile(rf"^(?:[^\n:]*: )?(?:line \d+: )?(?:{'|'.join(names)}): ")
    return lambda line: own.search(line) is not None


def _tail_offset(scanner: _Scanner) -> int:
    """Start of the last non-blank line: the best excerpt when no pattern points anywhere."""
    stripped = scanner.folded.rstrip()
    if not stripped:
        return -1
    return stripped.rfind("\n") + 1
