"""Provenance: which occurrences our own code recorded on this machine, and which arrived in a commit.

``.learnings/`` is committed and shared, so anything in it, ``.state/`` included, may come from
whoever can push to the repository: an entry with thirty fake occurrences is a few lines of
Markdown. What this machine saw is kept where a repository cannot write: a *ledger* in the
user's state dir (``$XDG_STATE_HOME/self-improve/provenance/<hash of the project's real
path>.log``), one line per occurrence that ``Store.log`` recorded here (the hook, the CLI, or
the CLI inside an agent session) and one per entry that ``import`` brought in::

    1<TAB>ERR-20261201-a1b<TAB>2026-12-01<TAB>3f2a9c01<TAB>hook<TAB>new<TAB>-
    1<TAB>ERR-20261201-a1b<TAB>2026-12-01<TAB>3f2a9c01<TAB>agent<TAB>+<TAB>9e107d9d372b

(version, entry ID, date, task hash, who, ``new`` when that call created the entry else ``+``,
and the digests of the fix lines that call added, comma-separated, ``-`` for none).

- **Cheap to write**: one ``O_APPEND`` write of one short line, no fsync (the hooks call it on
  every recorded failure; a line lost in a crash only makes an occurrence look foreign, which
  errs on the safe side). Never raises: provenance must not fail a ``log``.
- **Bounded**: past :data:`MAX_BYTES` the file is renamed to ``.log.1`` (replacing the older
  one), so a project's ledger never exceeds twice that: 11,000 to 22,000 lines of about 48
  bytes. A record costs about 56 µs; reading a full ledger about 12 ms (2-core machine).
- **Reading never fails**: a missing, unreadable, oversized or corrupt ledger (or a bad line)
  is nothing recorded here.

An entry's occurrences that are not in the ledger arrived in a commit (or a merge, a clone), or
were recorded before this ledger existed: :class:`Provenance` says which are which.

This module is imported by the hooks: standard library only, no ``typing`` at run time.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from self_improve.store.occurrences import Occurrence

VERSION = "1"
LEDGER_DIR = "provenance"
MAX_BYTES = 512 * 1024
# Whoever recorded an occurrence on this machine. "import" brings other stores' occurrences: it
# is recorded (so review can say where an entry came from) but it is no local evidence.
WHO = ("hook", "cli", "agent", "import")
LOCAL_EVIDENCE = frozenset({"hook", "cli", "agent"})
MAX_ACTION_LINES = 8
_FIELDS = 7


# ---- where ---------------------------------------------------------------------------------


def ledger_path(root: str) -> str:
    """This project's ledger, keyed by its real path (a symlinked checkout is the same project)."""
    from self_improve.digest import sha256_hex
    from self_improve.paths import user_state_dir

    key = sha256_hex(os.path.realpath(os.fspath(root)).encode("utf-8", "surrogateescape"))[:24]
    return os.path.join(user_state_dir(), LEDGER_DIR, key + ".log")


def action_digest(line: str) -> str:
    """A short name for one fix line, as ``latest_action`` reads it (whitespace collapsed)."""
    from self_improve.digest import sha256_hex

    return sha256_hex(" ".join(line.split()).encode("utf-8", "surrogateescape"))[:12]


def action_digests(action: str) -> tuple[str, ...]:
    lines = [line for line in action.splitlines() if line.strip()]
    return tuple(action_digest(line) for line in lines[-MAX_ACTION_LINES:])


# ---- writing -------------------------------------------------------------------------------


def _field(value: str) -> str:
    cleaned = "".join(" " if ch in "\t\r\n" else ch for ch in value).strip()
    return cleaned or "-"


def record_line(entry_id: str, day: str, task: str, who: str, created: bool, digests: Sequence[str] = ()) -> str:
    fields = (VERSION, _field(entry_id), _field(day), _field(task), _field(who), "new" if created else "+", ",".join(digests) or "-")
    return "\t".join(fields) + "\n"


def record(
    root: str, entry_id: str, day: str, task: str, who: str, *, created: bool, action: str = "", chosen_session: bool = False
) -> None:
    """Append one line to the project's ledger; never raises (a failure records nothing).

    ``who`` is the caller's identity, one of :data:`WHO`: the command layer passes "agent" when
    the CLI runs inside an agent session (it asks ``harnesses/agent_env``); "" is the CLI run by
    a person, "cli". An agent that names its own session (``log --session X``) could invent as
    many tasks as it likes: its occurrence is recorded under the unknown task, so it matches
    nothing as evidence.
    """
    try:
        writer = who or "cli"
        if writer == "agent" and chosen_session:
            task = "-"
        _append(ledger_path(root), record_line(entry_id, day, task, writer, created, action_digests(action)))
    except (OSError, ValueError):
        pass


def record_many(root: str, lines: Iterable[str]) -> None:
    """Several lines in one write (an import); never raises."""
    text = "".join(lines)
    if not text:
        return
    try:
        _append(ledger_path(root), text)
    except (OSError, ValueError):
        pass


def record_import(root: str, landed: Iterable[tuple[str, bool]], day: str) -> None:
    """One "import" line per entry an import appended (True) or merged into (False)."""
    record_many(root, (record_line(entry_id, day, "-", "import", created) for entry_id, created in landed))


def _append(path: str, text: str) -> None:
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        import stat

        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return
        os.write(fd, text.encode("utf-8", "surrogateescape"))
        if os.fstat(fd).st_size > MAX_BYTES:
            _rotate(path, info)
    finally:
        os.close(fd)


def _rotate(path: str, ours: os.stat_result) -> None:
    """Keep one older file. Only the file we wrote to is renamed: when two writers cross the
    limit together, the second finds a new file under the name and leaves it alone."""
    try:
        current = os.lstat(path)
    except OSError:
        return
    if (current.st_dev, current.st_ino) == (ours.st_dev, ours.st_ino):
        os.replace(path, path + ".1")


# ---- reading -------------------------------------------------------------------------------


class LedgerLine:
    """One ledger line."""

    __slots__ = ("entry_id", "date", "task", "who", "created", "digests")

    def __init__(self, entry_id: str, date: str, task: str, who: str, created: bool, digests: tuple[str, ...]) -> None:
        self.entry_id = entry_id
        self.date = date
        self.task = task
        self.who = who
        self.created = created
        self.digests = digests

    def __repr__(self) -> str:
        return f"LedgerLine({self.entry_id!r}, {self.date!r}, {self.task!r}, {self.who!r}, {self.created!r}, {self.digests!r})"


def parse_line(line: str) -> LedgerLine | None:
    fields = line.rstrip("\n").split("\t")
    if len(fields) != _FIELDS or fields[0] != VERSION or fields[4] not in WHO or fields[5] not in ("new", "+"):
        return None
    digests = tuple(d for d in fields[6].split(",") if d and d != "-")
    return LedgerLine(fields[1].upper(), fields[2], fields[3], fields[4], fields[5] == "new", digests)


def _read(path: str) -> str:
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return ""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return ""
        # A writer may have appended past the limit just before rotating: allow for that.
        raw = os.read(fd, MAX_BYTES + 64 * 1024)
    except OSError:
        return ""
    finally:
        os.close(fd)
    return raw.decode("utf-8", "replace")


class Ledger:
    """What this machine recorded for one project, by upper-case entry ID."""

    def __init__(self, records: Iterable[LedgerLine] = ()) -> None:
        self.by_id: dict[str, list[LedgerLine]] = {}
        for item in records:
            self.by_id.setdefault(item.entry_id, []).append(item)

    @classmethod
    def load(cls, root: str) -> Ledger:
        """Never raises: a missing or damaged ledger is an empty one."""
        try:
            path = ledger_path(root)
        except (OSError, ValueError):
            return cls()
        records = []
        for part in (_read(path + ".1"), _read(path)):
            for line in part.splitlines():
                parsed = parse_line(line)
                if parsed is not None:
                    records.append(parsed)
        return cls(records)

    def records(self, entry_id: str) -> list[LedgerLine]:
        return self.by_id.get(entry_id.upper(), [])


# ---- one entry's provenance --------------------------------------------------------------------


class Provenance:
    """Who logged an entry and which of its occurrences this machine recorded.

    ``logged_by``: who created it here ("hook", "cli", "agent", "import"), or "" when it was not
    created on this machine (it arrived in a commit, or predates the ledger). ``local``: the
    entry's occurrences that the ledger also holds from the hook or the CLI (as a multiset: a
    forged entry cannot claim one recorded occurrence twice). ``recorded_by``: how many of those
    each writer recorded. ``fix_digests``: fix lines added here.
    """

    __slots__ = ("logged_by", "local", "arrived", "recorded_by", "fix_digests", "imported")

    def __init__(
        self,
        logged_by: str,
        local: tuple[Occurrence, ...],
        arrived: int,
        recorded_by: dict[str, int],
        fix_digests: frozenset[str],
        imported: bool,
    ) -> None:
        self.logged_by = logged_by
        self.local = local
        self.arrived = arrived
        self.recorded_by = recorded_by
        self.fix_digests = fix_digests
        self.imported = imported

    @property
    def logged_here(self) -> bool:
        return bool(self.logged_by)

    def fix_recorded_here(self, line: str) -> bool:
        return action_digest(line) in self.fix_digests


def provenance_of(occurrences: Sequence[Occurrence], records: Sequence[LedgerLine]) -> Provenance:
    """Match an entry's occurrences against the ledger's records for its ID."""
    available: dict[tuple[str, str], list[str]] = {}
    for item in records:
        if item.who in LOCAL_EVIDENCE:
            available.setdefault((item.date, item.task), []).append(item.who)
    local = []
    recorded_by: dict[str, int] = {}
    for occurrence in occurrences:
        writers = available.get((occurrence.date, occurrence.task))
        if writers:
            who = writers.pop(0)
            local.append(occurrence)
            recorded_by[who] = recorded_by.get(who, 0) + 1
    created = [item.who for item in records if item.created]
    digests = frozenset(d for item in records if item.who in LOCAL_EVIDENCE for d in item.digests)
    return Provenance(
        logged_by=created[0] if created else "",
        local=tuple(local),
        arrived=len(occurrences) - len(local),
        recorded_by=recorded_by,
        fix_digests=digests,
        imported=any(item.who == "import" for item in records),
    )
