"""The subject of a detected error, and its fingerprint: which mistake this is, not only its class.

    def subject_for(key: str, text: Text, offset: int, command: str, cwd: str) -> str
    def safe(raw: str) -> str                       # the one gate a subject passes
    def fingerprint(key: str, subject: str) -> str  # "deps.module-not-found/python:yaml"
    def split(fingerprint: str) -> tuple[str, str]  # ("deps.module-not-found", "python:yaml")

The extraction rules are data (subjects.toml, whose header documents the procedure). The unit is
the one thing that a single fix fixes, as in error grouping (Sentry: exception type, normalised
message, in-app frames) with volatile parts masked as log-template miners (Drain) mask them.

A subject comes from tool output, which is untrusted: ``safe`` keeps it to a short string of
``[A-Za-z0-9._:/@+-]`` with no secret in it, or replaces it by a hash. It contains no blank, no
quote, no ``<``/``>`` and no shell metacharacter, so it can be printed inside a command the agent
runs and in the model's context without carrying free text; message templates, the part most
like prose, only ever show three words of it.
"""

from __future__ import annotations

import os
from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import lru_cache  # functools.lru_cache, without importing functools

from self_improve.detect.text import Text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

SUBJECTS_FILE = "subjects.toml"
SEPARATOR = "/"  # between the class and the subject; a Pattern-Key class never contains one
MAX_SUBJECT_CHARS = 60
TEMPLATE_WORDS = 3
MAX_TEMPLATE_CHARS = 400

_SAFE = re.compile(r"[A-Za-z0-9._:/@+-]+")
_FLAGS = re.IGNORECASE | re.MULTILINE


# ---------------------------------------------------------------------------------------------
# The fingerprint


def fingerprint(key: str, subject: str) -> str:
    return f"{key}{SEPARATOR}{subject}" if subject else key


def split(pattern_key: str) -> tuple[str, str]:
    """A Pattern-Key as (class, subject); a plain key (the reference format) has subject ""."""
    key, _, subject = pattern_key.partition(SEPARATOR)
    return key, subject


def short_hash(text: str) -> str:
    """Eight hex digits: a stable name for text that may not be shown (zlib, not hashlib: this
    runs in a hook, and grouping needs no cryptography)."""
    import zlib  # a C extension to load (~0.3 ms): only a subject that needs a hash pays for it

    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}"


def safe(raw: str) -> str:
    """The subject as it may be stored and shown: ``[A-Za-z0-9._:/@+-]``, at most 60 characters;
    anything else becomes ``h-<hash>``. "" stays "". (Secrets are checked part by part, before
    our own hashes are added: ``_unsecret``.)"""
    subject = raw.strip().strip(":/").strip()
    if not subject:
        return ""
    if _SAFE.fullmatch(subject) is None or subject.startswith("-"):
        return f"h-{short_hash(subject)}"
    if len(subject) > MAX_SUBJECT_CHARS:
        return f"{subject[: MAX_SUBJECT_CHARS - 9]}+{short_hash(subject)}"
    return subject


# ---------------------------------------------------------------------------------------------
# Normalising the parts


_TEMPORARY = r"(?:/private)?/(?:tmp|var/tmp|var/folders)(?:/[^\s'\"`:]*)?"
_VOLATILE = (
    (r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "U"),  # UUIDs
    (r"\b\d{4}-\d\d-\d\d(?:[t ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:z|[+-]\d\d:?\d\d)?)?\b", "D"),  # dates, times
    (r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b", "D"),
    (_TEMPORARY, "tmp"),  # temporary paths
    (r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", "H"),  # addresses, SHAs
    (r"(?<=:)\d+(?::\d+)?\b", "N"),  # line and column numbers
    (r"\b(?:line|col|column|offset|pos|position|char)\s+\d+\b", "N"),
    (r"\d{4,}", "N"),  # long numbers: ids, ports of temp servers, sizes, timings
    (r"\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds|kb|mb|gb|kib|mib|gib|b|bytes)\b", "N"),
)


@lru_cache(maxsize=1)
def _volatile() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(pattern, re.IGNORECASE), mask) for pattern, mask in _VOLATILE)


@lru_cache(maxsize=1)
def _temporary() -> re.Pattern[str]:
    return re.compile(_TEMPORARY, re.IGNORECASE)


def mask(text: str) -> str:
    """``text`` with its volatile parts replaced by placeholders, white space collapsed."""
    for regex, placeholder in _volatile():
        text = regex.sub(placeholder, text)
    return " ".join(text.split())


def template(text: str) -> str:
    """A message as its masked template: the first words (so a reader sees what it is about)
    plus a hash of the whole (so two templates never share a subject by their first words)."""
    masked = mask(text[:MAX_TEMPLATE_CHARS]).casefold()  # one line, but it may be 32 KB long
    words = re.findall(r"[a-z0-9_]+(?:\.[a-z0-9_]+)*", masked)[:TEMPLATE_WORDS]
    return "-".join(word[:16] for word in words) + "+" + short_hash(masked)


def path(raw: str, cwd: str) -> str:
    """A path as the project would name it, the same on every machine: relative to ``cwd`` when
    under it; a temporary file as ``tmp/<its name>``; any other absolute path by its last two
    components (a clone elsewhere, another user's home); volatile numbers masked."""
    text = raw.strip().strip("'\"`‘’")
    if cwd and os.path.isabs(text) and os.path.isabs(cwd):
        prefix = cwd.rstrip("/") + "/"
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if _temporary().match(text):  # the directory is volatile, the file's name is not
        text = "tmp/" + text.rstrip("/").rsplit("/", 1)[-1]
    elif text.startswith(("/", "~/")):
        text = "/".join(text.rstrip("/").split("/")[-2:])
    text = re.sub(r"^\./", "", text)
    return re.sub(r"\d{4,}", "N", text)


def name(raw: str) -> str:
    return raw.strip().strip("'\"`‘’").strip()


# ---------------------------------------------------------------------------------------------
# Frames: the innermost frame in the project


_FRAMES = {
    # (the frame line, whether the innermost comes last (Python) or first (Java, Node))
    "python": (r'^\s*file "(?P<file>[^"\n]+)", line \d+, in (?P<func>[\w<>.]+)', True),
    "java": (r"^\s*at (?P<func>[\w$.<>]+)\((?P<file>[\w$.-]+):\d+\)", False),
    "node": (r"^\s*at (?:(?P<func>[^\s(]+) )?\(?(?P<file>[^\s()]+?):\d+:\d+\)?$", False),
}
_NOT_THE_PROJECT = (
    "site-packages", "dist-packages", "/lib/python", "<frozen", "<string>", "<stdin>", "node_modules",
    "node:", "internal/", "/usr/lib/", "/usr/local/lib/",
)
_JAVA_RUNTIME = ("java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "scala.", "org.junit.")


def innermost_frame(kind: str, text: str, at: int, cwd: str) -> str:
    """``<file>:<function>`` of the innermost frame in the project around offset ``at``, or ""."""
    pattern, innermost_last = _FRAMES[kind]
    regex = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    if innermost_last:  # a Python traceback ends with the exception: its frames come before it
        frames = [m for m in regex.finditer(text, 0, at) if _in_project(kind, m)]
        chosen = frames[-1] if frames else None
    else:  # Java and Node print the exception first, then the frames, innermost first
        chosen = next((m for m in regex.finditer(text, at) if _in_project(kind, m)), None)
    if chosen is None:
        return ""
    file = chosen.group("file")
    where = path(file[len("file://") :] if file.startswith("file://") else file, cwd)
    func = re.sub(r"[^\w.$]", "", chosen.group("func") or "") or "?"
    if kind == "java":
        func = ".".join(func.rsplit(".", 2)[-2:])  # Class.method
        where = where.rsplit("/", 1)[-1]
    return f"{where}:{func}"


def _in_project(kind: str, match: re.Match[str]) -> bool:
    file = match.group("file")
    if any(part in file for part in _NOT_THE_PROJECT):
        return False
    return not (kind == "java" and (match.group("func") or "").startswith(_JAVA_RUNTIME))


# ---------------------------------------------------------------------------------------------
# The table (subjects.toml)


class SubjectRule:
    __slots__ = ("key", "prefix", "program", "frame", "patterns")

    def __init__(self, key: str, prefix: str, program: bool, frame: str, patterns: tuple[str, ...]) -> None:
        self.key = key
        self.prefix = prefix
        self.program = program
        self.frame = frame if frame in _FRAMES else ""
        self.patterns = patterns


@lru_cache(maxsize=1)
def _table() -> Mapping[str, tuple[SubjectRule, ...]]:
    """subjects.toml by Pattern-Key, read as rules.toml is (``rules.packaged_table``)."""
    from self_improve.detect.rules import packaged_table

    raw = packaged_table(SUBJECTS_FILE)
    by_key: dict[str, list[SubjectRule]] = {}
    for entry in raw.get("subjects", ()):
        patterns = tuple(line for line in str(entry.get("patterns", "")).split("\n") if line.strip())
        rule = SubjectRule(str(entry["key"]), str(entry.get("prefix", "")), bool(entry.get("program", False)),
                           str(entry.get("frame", "")), patterns)
        by_key.setdefault(rule.key, []).append(rule)
    return {key: tuple(rules) for key, rules in by_key.items()}


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern, _FLAGS)
    except re.error:
        return None


# ---------------------------------------------------------------------------------------------
# Extraction


def subject_for(key: str, text: Text, offset: int, command: str, cwd: str) -> str:
    """The safe subject of an error of class ``key`` found at folded ``offset`` of ``text``."""
    original = text.original
    at = min(text.to_original(offset), len(original)) if offset >= 0 else len(original)
    line_start = original.rfind("\n", 0, at) + 1
    for rule in _table().get(key, ()):
        found = _first_match(rule.patterns, original, line_start)
        if found is None:
            continue
        parts = _parts(found, cwd)
        if not parts:
            continue
        if rule.frame:
            if rule.frame == "java":  # com.example.OrderException: its frame names the package
                parts[-1] = parts[-1].rsplit(".", 1)[-1]
            frame = innermost_frame(rule.frame, original, found.start(), cwd)
            if frame:
                parts[-1] = f"{parts[-1]}@{frame}"
            else:  # no frame of the project's (python -c, a REPL): the message tells them apart
                message = _rest_of_line(original, found.end()).lstrip(":").strip()
                if message:
                    parts.append(template(_unsecret(message)))
        if rule.prefix:
            parts.insert(0, rule.prefix)
        if rule.program:
            parts.insert(0, _program(command))
        return safe(":".join(p for p in parts if p))
    return safe(fallback(original, at, command))


def _rest_of_line(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[at : len(text) if end == -1 else end]


def _first_match(patterns: Sequence[str], original: str, line_start: int) -> re.Match[str] | None:
    for pattern in patterns:
        compiled = _compiled(pattern)
        if compiled is None:
            continue
        found = compiled.search(original, line_start) or (compiled.search(original) if line_start else None)
        if found is not None:
            return found
    return None


def _parts(found: re.Match[str], cwd: str) -> list[str]:
    ordered = sorted(found.re.groupindex.items(), key=lambda item: item[1])
    parts: list[str] = []
    for group_name, index in ordered:
        value = found.group(index)
        if value is None or not value.strip():
            continue
        kind = group_name[0]
        if kind == "t":
            part = template(_unsecret(value))
        elif _has_secret(value):
            part = f"h-{short_hash(value)}"
        else:
            part = path(value, cwd) if kind == "p" else name(value)
        if part:
            parts.append(part if _SAFE.fullmatch(part) else f"h-{short_hash(part)}")
    return parts


def fallback(original: str, at: int, command: str) -> str:
    """No rule for this class matched: the program plus the template of the line pointed at."""
    line_start = original.rfind("\n", 0, at) + 1
    line_end = original.find("\n", at)
    line = original[line_start : len(original) if line_end == -1 else line_end]
    program = _program(command)
    if not line.strip():
        return program
    shown = template(_unsecret(line))
    return f"{program}:{shown}" if program else shown


def _program(command: str) -> str:
    from self_improve.detect.shell import program_name

    program = program_name(command)
    return f"h-{short_hash(program)}" if _has_secret(program) else program


def _unsecret(text: str) -> str:
    """A message with its secrets redacted (``detect/redact``), before it becomes a template."""
    from self_improve.detect.redact import redact

    return redact(text)


def _has_secret(value: str) -> bool:
    return _unsecret(value) != value


def from_excerpt(key: str, excerpt: str, command: str = "", cwd: str = "") -> str:
    """The subject an old entry's stored excerpt points to (for review's "several mistakes in one
    entry" check): the excerpt is one line, so frames and later lines are not seen."""
    return subject_for(key, Text(excerpt, excerpt.casefold()), 0, command, cwd)


def describe(pattern_key: str) -> str:
    """``deps.module-not-found (python:yaml)`` for a fingerprint, the key itself for a class."""
    key, subject = split(pattern_key)
    return f"{key} ({subject})" if subject else key
