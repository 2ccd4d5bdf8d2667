"""Whether a promoted rule's subject still exists: the project file its fingerprint names; and
whether a rule is confined to one subtree of the project (a path-scoped Claude Code rules file).

    def subject_path(pattern_key: str) -> str          # "app/models.py", or "" (no path, or unsure)
    class ProjectFiles(root).is_gone(path) -> bool      # True only when we are sure it is gone
    def gone_check_for(store) -> Callable[[str], bool]  # what review passes to the policy
    def scope_subtree(root, entry, rule) -> str         # "app", or "" (do not scope)

A rule about ``KeyError@app/models.py:load`` is moot once ``app/models.py`` is deleted: that is
evidence (``review/candidates.retire_candidates``), unlike age. A wrong "gone" would retire a
working rule (``review --yes`` applies retirements), so every doubt answers "not gone":

- Only fingerprint shapes whose path names a file that *existed* when the error happened
  (``detect/subjects.toml``): the innermost project frame of a Python or Node exception
  (``Name@<file>:<function>``), the file of a Python syntax error (``<file>:SyntaxError:…``),
  the file of a merge conflict. Never ``fs.no-such-file`` and the like, whose path was missing by
  definition, nor Java frames (a bare file name, ``Order.java``, without its directory).
- Only a relative path inside the root: no ``..``, not absolute, not ``~``, not ``tmp/`` (what
  ``subjects.path`` makes of a temporary file), no ``+`` (``subjects.safe`` cut the subject
  short there and hashed the rest).
- The path is relative to the directory the command ran in, which may be below the root (a
  monorepo's ``backend/``): the file counts as present when it is at the root or at the end of
  any project path (a bounded walk that skips vendored and hidden directories; a walk cut short
  by :data:`LIMITS` means "not sure", so not gone).
- No root (a user-scope store spans projects, a root that does not exist): never gone.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from self_improve.detect.subjects import split
from self_improve.store.entry import Entry
from self_improve.store.store import Store

# Classes whose subject is ``Name@<file>:<function>`` (``frame = "python"`` / ``"node"``).
FRAME_CLASSES = frozenset({"python.traceback", "js.exception"})
# ``python.syntax-error``'s first pattern: ``<file>:<SyntaxError|IndentationError|TabError>:<template>``.
SYNTAX_ERROR_CLASS = "python.syntax-error"
SYNTAX_ERROR_NAMES = frozenset({"syntaxerror", "indentationerror", "taberror"})
# Classes whose whole subject is the path (their only pattern has one ``p`` group).
WHOLE_PATH_CLASSES = frozenset({"vcs.merge-conflict"})


@dataclass(frozen=True)
class WalkLimits:
    """How far :class:`ProjectFiles` looks for a path below the root before it gives up (unsure)."""

    max_files: int = 20_000
    skipped_directories: frozenset[str] = field(
        default_factory=lambda: frozenset({"node_modules", "__pycache__", "venv", "target", "dist", "build", "site-packages"})
    )


LIMITS = WalkLimits()


def subject_path(pattern_key: str) -> str:
    """The project-relative path the fingerprint names, as POSIX text; "" when it names none or
    we cannot be sure of it (see the module docstring)."""
    key, subject = split(pattern_key.strip())
    if not subject:
        return ""
    if key in FRAME_CLASSES:
        name, at, where = subject.partition("@")
        candidate = where.partition(":")[0] if at and name else ""
    elif key == SYNTAX_ERROR_CLASS:
        parts = subject.split(":")
        candidate = parts[0] if len(parts) == 3 and parts[1].casefold() in SYNTAX_ERROR_NAMES else ""
    elif key in WHOLE_PATH_CLASSES:
        candidate = subject if ":" not in subject else ""
    else:
        return ""
    return candidate if _is_safe_relative(candidate) else ""


def _is_safe_relative(path: str) -> bool:
    if not path or "+" in path or "\\" in path or path.startswith(("/", "~")):
        return False
    parts = PurePosixPath(path).parts
    return bool(parts) and ".." not in parts and parts[0] != "tmp"


def never_gone(_path: str) -> bool:
    return False


class ProjectFiles:
    """The files of one project, looked at only when a rule's path is not at the root."""

    def __init__(self, root: Path | None, limits: WalkLimits = LIMITS) -> None:
        self.root = root
        self.limits = limits
        self._listed: tuple[str, ...] | None = None
        self._complete = False

    def is_gone(self, path: str) -> bool:
        """True when ``path`` (project-relative, already checked by :func:`subject_path`) is
        neither at the root nor at the end of any path of the project."""
        if self.root is None or not path or not self.root.is_dir():
            return False
        if os.path.lexists(self.root / path):
            return False
        listed = self._files()
        if not self._complete:
            return False
        suffix = "/" + path
        return not any(name.endswith(suffix) for name in listed)

    def _files(self) -> tuple[str, ...]:
        if self._listed is not None:
            return self._listed
        assert self.root is not None
        found: list[str] = []
        complete = True
        for directory, subdirectories, files in os.walk(self.root, followlinks=False):
            subdirectories[:] = sorted(
                name for name in subdirectories if not name.startswith(".") and name not in self.limits.skipped_directories
            )
            relative = Path(directory).relative_to(self.root).as_posix()
            prefix = "" if relative == "." else relative + "/"
            found.extend(prefix + name for name in files)
            if len(found) > self.limits.max_files:
                complete = False
                break
        self._listed, self._complete = tuple(found), complete
        return self._listed


def gone_check_for(store: Store) -> Callable[[str], bool]:
    """The ``is_gone`` review hands the policy: the project's files; a user-scope store (its
    rules come from many projects) never has a gone subject."""
    if store.scope != "project":
        return never_gone
    return ProjectFiles(store.root).is_gone


# ---- path scoping ----------------------------------------------------------------------------------
#
# A Claude Code rules file with a ``paths:`` frontmatter reaches the model only after the agent
# reads or writes a matching file; running a script under it does not load it. A rule wrongly
# scoped is a rule the agent never sees, so :func:`scope_subtree` answers "" (do not scope) at
# the first doubt. It scopes only when all of these hold:
#
# - the evidence paths (the fingerprint's subject path, :func:`subject_path`, and every path of
#   the entry's ``Related Files``) are at least one, each relative, inside the project, without
#   a hidden part (``.github/``, ``.claude/``), and each exists *at the project root* (a subject
#   path is relative to where the command ran: one that is not at the root is not trusted), as a
#   file or a directory, reached without a symlink;
# - the rule is about editing that code, not about running a command: its text names one of
#   those paths (the path or its file name), it was not an observed fix (``- Observed-Fix:``,
#   a command that passed), it holds no code span with a space in it (a command line such as
#   `` `pytest -x` ``) and none of the words run, execute, invoke, install or command;
# - the paths share a directory at least one level below the root: the scope is that common
#   directory, cut to its first two levels (``packages/web/src/a.ts`` → ``packages/web``), so
#   work on a sibling file still loads the rule.

SCOPE_DEPTH = 2
_COMMAND_WORDS = re.compile(
    r"\b(?:re)?(?:run|runs|running|ran|execute[sd]?|executing|invoke[sd]?|invoking|install(?:s|ed|ing)?|commands?)\b",
    re.IGNORECASE,
)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def evidence_paths(entry: Entry) -> list[str]:
    """The project paths an entry's evidence names: its fingerprint's subject path, then its
    Related Files (comma separated, backticks and a leading ``./`` dropped), each once."""
    found = [subject_path(entry.pattern_key)] if subject_path(entry.pattern_key) else []
    for item in entry.meta_or_field("Related Files").split(","):
        path = item.strip().strip("`").strip()
        path = path[2:] if path.startswith("./") else path
        path = path.rstrip("/")
        if path and path not in found:
            found.append(path)
    return found


def is_command_rule(entry: Entry, rule: str) -> bool:
    """Whether the rule may be about running something (see the notes above): then never scoped."""
    if entry.observed_fix:
        return True
    if any(re.search(r"\s", match.group(2).strip()) for match in _CODE_SPAN.finditer(rule)):
        return True
    return _COMMAND_WORDS.search(rule) is not None


def _exists_plainly(root: Path, path: str) -> bool:
    """``path`` is at ``root``, a file or a directory, with no symlink on the way."""
    here = root
    parts = path.split("/")
    for index, part in enumerate(parts):
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return False
        last = index == len(parts) - 1
        if stat.S_ISLNK(mode) or (not last and not stat.S_ISDIR(mode)):
            return False
        if last and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return False
    return True


def scope_subtree(root: Path, entry: Entry, rule: str) -> str:
    """The project directory the rule is confined to (``"app"``), or "" when it must not be scoped."""
    paths = evidence_paths(entry)
    if not paths or is_command_rule(entry, rule):
        return ""
    directories: list[tuple[str, ...]] = []
    for path in paths:
        parts = PurePosixPath(path).parts
        if not _is_safe_relative(path) or any(part.startswith(".") for part in parts) or not _exists_plainly(root, path):
            return ""
        directories.append(parts if (root / path).is_dir() else parts[:-1])
    named = rule.casefold()
    if not any(path.casefold() in named or PurePosixPath(path).name.casefold() in named for path in paths):
        return ""
    common = directories[0]
    for parts in directories[1:]:
        length = 0
        while length < min(len(common), len(parts)) and common[length] == parts[length]:
            length += 1
        common = common[:length]
    return "/".join(common[:SCOPE_DEPTH])
