"""The trust model of a store: where one may be, who must own it, and that nothing in it is a link.

``.learnings/`` is meant to be committed and shared, so its files come from whoever can push to
the repository, and a parent directory's store may belong to another user of the machine. The
rules, enforced here and nowhere else:

- **Where a store may be.** Walking up from the working directory, a store is looked for up to
  the repository root (the first directory holding ``.git``) or ``$HOME``, whichever comes first,
  never beyond (git's CVE-2022-24765 class: ``/tmp/.learnings`` must not serve ``/tmp/x/y``).
- **Who owns it.** ``.learnings/`` and every file in it must be owned by the effective user and
  not be world-writable (group-writable is fine: many systems give each user a private group and
  umask 002). The user-level setting ``trust.safe_directories`` lists exceptions, as git's
  ``safe.directory`` does (``"*"`` trusts every owner).
- **No symlinks, anywhere in the store, and only regular files.** Every file is opened relative
  to a directory descriptor, each directory on the way with ``O_NOFOLLOW | O_DIRECTORY`` and the
  file itself with ``O_NOFOLLOW | O_NONBLOCK`` and an ``fstat`` check, so a planted link, FIFO or
  device is refused rather than followed or waited on. Temp files are created with ``O_EXCL``
  under random names (``atomic.py``). Pruning deletes only regular files that match our names.

Soundness: a repository can only ship regular files and symlinks (git stores nothing else), and
its contents are static while we run, so refusing every link closes the repo-borne attacks;
another local user cannot write into a directory that we own and that is not world-writable, and
every operation after the first ``open`` of ``.learnings/`` is relative to that descriptor, so a
rename of a parent directory cannot redirect us either.

Imported by the hooks: standard library (``os``, ``stat``) only.
"""

from __future__ import annotations

import os
import stat

from self_improve import atomic
from self_improve.errors import SelfImproveError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

LEARNINGS_DIR = ".learnings"
# ``$HOME/.learnings`` would make every non-git folder under the home a project (it is the last
# stop of every walk), so it counts only with this mark, which ``init`` leaves when the user runs
# it in the home itself. Under ``.state/``: local, git-ignored, never shared.
HOME_OPT_IN = ".state/home-opt-in"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UntrustedStore(SelfImproveError):
    """The store breaks the trust model: it is not used at all (the message says why)."""


def find_store_root(start: str, home: str | None = None) -> str | None:
    """The directory holding the nearest ``.learnings`` at or above ``start``, within the walk's bounds.

    A ``.learnings`` that is a symlink or not a directory still ends the walk (and is then refused
    by ``check_store_dir``): a store planted as a link must not make us look further up.
    The home's own ``.learnings`` counts only when ``init`` ran there (:data:`HOME_OPT_IN`): one
    more ``lstat``, and only for a walk that got as far as the home.
    """
    here = os.path.abspath(start)
    home = os.path.abspath(home if home is not None else os.path.expanduser("~"))
    while True:
        try:
            os.lstat(os.path.join(here, LEARNINGS_DIR))
            if here != home or os.path.lexists(os.path.join(here, LEARNINGS_DIR, HOME_OPT_IN)):
                return here
            return None
        except OSError:
            pass
        if here == home or os.path.lexists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def is_safe_listed(path: str, safe_directories: Iterable[str]) -> bool:
    """``path`` (a project root or its store) is listed in ``trust.safe_directories``."""
    if not safe_directories:  # the hooks' every call without a [trust] table: no realpath walk
        return False
    wanted = {os.path.realpath(path), os.path.realpath(os.path.dirname(path))}
    for entry in safe_directories:
        if entry == "*":
            return True
        if isinstance(entry, str) and entry and os.path.realpath(os.path.expanduser(entry)) in wanted:
            return True
    return False


def _owner_problem(info: os.stat_result, what: str, owner_ok: bool) -> str | None:
    if not owner_ok and info.st_uid != os.geteuid():
        return f"{what} is owned by uid {info.st_uid}, not by you (uid {os.geteuid()})"
    if info.st_mode & stat.S_IWOTH and not stat.S_ISVTX & info.st_mode:
        return f"{what} is world-writable"
    return None


def check_store_dir(path: str, *, owner_ok: bool = False) -> None:
    """Raise UntrustedStore unless ``path`` is a real directory of ours that others cannot write."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise UntrustedStore(f"{path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UntrustedStore(f"{path} is a symlink")
    if not stat.S_ISDIR(info.st_mode):
        raise UntrustedStore(f"{path} is not a directory")
    problem = _owner_problem(info, path, owner_ok)
    if problem:
        raise UntrustedStore(problem)


def tree_problems(path: str, *, owner_ok: bool = False, limit: int = 20000) -> list[str]:
    """Every link, non-regular file, foreign-owned or world-writable file below ``path``.

    The CLI checks the whole tree once before it acts (the hooks check each path they touch as
    they open it). ``limit`` bounds the walk: a store with more names than that is a problem too.
    """
    problems: list[str] = []
    seen = 0
    stack = [path]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as items:
                for item in items:
                    seen += 1
                    if seen > limit:
                        return [*problems, f"{path} holds more than {limit} files"]
                    try:
                        info = item.stat(follow_symlinks=False)
                    except OSError as exc:
                        problems.append(f"{item.path}: {exc.strerror or exc}")
                        continue
                    if stat.S_ISLNK(info.st_mode):
                        problems.append(f"{item.path} is a symlink")
                    elif stat.S_ISDIR(info.st_mode):
                        stack.append(item.path)
                    elif not stat.S_ISREG(info.st_mode):
                        problems.append(f"{item.path} is not a regular file")
                    if not stat.S_ISLNK(info.st_mode) and (problem := _owner_problem(info, item.path, owner_ok)):
                        problems.append(problem)
        except OSError as exc:
            problems.append(f"{directory}: {exc.strerror or exc}")
    return sorted(problems)


class StoreDir:
    """File operations inside one store directory, none of which follows a link.

    Paths are relative (``"ERRORS.md"``, ``".state/sessions/x.json"``). Each call opens the store
    directory afresh (``O_NOFOLLOW``) and walks down with ``openat``: a few system calls, so the
    hooks can afford it, and no descriptor outlives the call.
    """

    def __init__(self, path: str, *, owner_ok: bool = False) -> None:
        self.path = path
        self.owner_ok = owner_ok

    def check(self) -> None:
        check_store_dir(self.path, owner_ok=self.owner_ok)

    def check_top_level(self) -> None:
        """No link and nothing but files and directories directly in the store: the hooks' check
        on every call (the CLI walks the whole tree, ``tree_problems``). It costs one ``scandir``
        (the types come with the names); deeper paths are opened with ``O_NOFOLLOW`` anyway."""
        fd = self._open_root()
        try:
            with os.scandir(fd) as items:
                for item in items:
                    if item.is_symlink():
                        raise UntrustedStore(f"{self.path}/{item.name} is a symlink")
                    if not (item.is_file(follow_symlinks=False) or item.is_dir(follow_symlinks=False)):
                        raise UntrustedStore(f"{self.path}/{item.name} is not a regular file")
        finally:
            os.close(fd)

    def _open_root(self) -> int:
        self.check()
        try:
            return os.open(self.path, _DIR_FLAGS)
        except OSError as exc:  # replaced by a link between the check and the open
            raise UntrustedStore(f"{self.path}: {exc.strerror or exc}") from None

    def _parent(self, relative: str, create: bool) -> tuple[int, str]:
        """(descriptor of the directory holding ``relative``, its last component)."""
        parts = [part for part in relative.split("/") if part]
        if not parts or any(part in (".", "..") for part in parts):
            raise ValueError(f"not a store path: {relative!r}")
        fd = self._open_root()
        try:
            for part in parts[:-1]:
                if create:
                    try:
                        os.mkdir(part, 0o777, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    if isinstance(exc, FileNotFoundError):
                        raise
                    raise UntrustedStore(f"{self.path}/{relative}: {part} is a symlink or not a directory") from None
                os.close(fd)
                fd = child
                info = os.fstat(fd)
                if problem := _owner_problem(info, f"{self.path}/{part}", self.owner_ok):
                    raise UntrustedStore(problem)
        except BaseException:
            os.close(fd)
            raise
        return fd, parts[-1]

    def read(self, relative: str, limit: int | None = None) -> bytes | None:
        """The file's bytes, or None when it (or a directory on the way) does not exist."""
        try:
            fd, name = self._parent(relative, create=False)
        except FileNotFoundError:
            return None
        try:
            return atomic.read_at(fd, name, limit)
        except atomic.UnsafeFile:
            raise self._unsafe(relative) from None
        finally:
            os.close(fd)

    def replace(self, relative: str, data: bytes, *, durable: bool = True, expect: object = atomic.UNCHECKED) -> None:
        fd, name = self._parent(relative, create=True)
        try:
            atomic.replace_at(fd, name, data, durable=durable, expect=expect)
        except atomic.UnsafeFile:
            raise self._unsafe(relative) from None
        finally:
            os.close(fd)

    def append(self, relative: str, data: bytes, *, durable: bool = True) -> None:
        fd, name = self._parent(relative, create=True)
        try:
            atomic.append_at(fd, name, data, durable=durable)
        except atomic.UnsafeFile:
            raise self._unsafe(relative) from None
        finally:
            os.close(fd)

    def create(self, relative: str, data: bytes) -> bool:
        """Write a new file; False (and nothing written) when the name is taken."""
        fd, name = self._parent(relative, create=True)
        try:
            try:
                out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=fd)
            except FileExistsError:
                return False
            try:
                atomic._write_all(out, data)
                os.fsync(out)
            finally:
                os.close(out)
            return True
        finally:
            os.close(fd)

    def remove(self, relative: str) -> None:
        """Unlink a regular file (a link or a directory in its place is refused)."""
        try:
            fd, name = self._parent(relative, create=False)
        except FileNotFoundError:
            return
        try:
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return
            if not stat.S_ISREG(info.st_mode):
                raise self._unsafe(relative)
            os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)

    def is_file(self, relative: str) -> bool:
        try:
            fd, name = self._parent(relative, create=False)
        except (FileNotFoundError, UntrustedStore):
            return False
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            return stat.S_ISREG(info.st_mode)
        except OSError:
            return False
        finally:
            os.close(fd)

    def lock(self, relative: str, timeout: float = 30.0) -> _StoreLock:
        return _StoreLock(self, relative, timeout)

    def prune(self, relative_dir: str, is_ours: Callable[[str], bool], older_than: float) -> int:
        """Delete regular files of ours (``is_ours(name)``) in ``relative_dir`` not modified since
        ``older_than`` (a ``time.time()``); links, directories and foreign names are left alone."""
        try:
            fd, _ = self._parent(relative_dir.rstrip("/") + "/-", create=False)
        except (FileNotFoundError, UntrustedStore):
            return 0
        removed = 0
        try:
            with os.scandir(fd) as items:
                for item in items:
                    try:
                        info = item.stat(follow_symlinks=False)
                        if (
                            is_ours(item.name)
                            and stat.S_ISREG(info.st_mode)
                            and info.st_uid == os.geteuid()
                            and info.st_mtime < older_than
                        ):
                            os.unlink(item.name, dir_fd=fd)
                            removed += 1
                    except OSError:
                        continue
        except OSError:
            pass
        finally:
            os.close(fd)
        return removed

    def _unsafe(self, relative: str) -> UntrustedStore:
        return UntrustedStore(f"{self.path}/{relative} is a symlink or not a regular file")


class _StoreLock:
    """``with store_dir.lock(".lock"):`` an flock on a regular file of the store, never a link."""

    def __init__(self, store_dir: StoreDir, relative: str, timeout: float) -> None:
        self.store_dir = store_dir
        self.relative = relative
        self.timeout = timeout
        self._held: object = None

    def __enter__(self) -> None:
        from self_improve.lock import locked

        fd, name = self.store_dir._parent(self.relative, create=True)
        try:
            held = locked(name, self.timeout, dir_fd=fd)
            held.__enter__()
        finally:
            os.close(fd)
        self._held = held

    def __exit__(self, *exc_info: object) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(*exc_info)  # type: ignore[attr-defined]
