"""One pure text edit of one instruction file, planned and then written safely.

The plan is a ``changes.PlannedChange`` (the one diff), the target passes ``changes.confined``
(the one confinement check) and the write goes through ``user_edit.edit_user_file`` (our lock,
compare-and-replace, the file's mode kept, a read-only file refused).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from self_improve import user_edit
from self_improve.changes import PlannedChange, confined, label_for, lines_of
from self_improve.errors import SelfImproveError
from self_improve.review import created_files
from self_improve.review.block_grammar import ManagedBlockError

BEGIN_WORD = b":begin"  # in every begin marker of ours: a file without one holds no block of ours
_GLOB_CHARACTERS = frozenset('*?[]{}"\\')


def paths_frontmatter(subtree: str) -> str:
    """The YAML frontmatter that scopes a Claude Code rules file to ``subtree`` (a relative
    directory, checked by the caller): ``---\\npaths:\\n  - "<subtree>/**"\\n---\\n``."""
    if not subtree or any(character in _GLOB_CHARACTERS for character in subtree) or "\n" in subtree:
        raise ValueError(f"not a plain directory for a paths: frontmatter: {subtree!r}")
    return f'---\npaths:\n  - "{subtree}/**"\n---\n'


def is_lone_frontmatter(text: str) -> bool:
    """Whether ``text`` is a YAML frontmatter (``---`` ... ``---``) and nothing else: a scoped
    rules file of ours once its last block is gone, to be deleted with it when we created it."""
    lines = lines_of(text)
    if len(lines) < 2 or lines[0].rstrip("\r\n") != "---" or not lines[-1].endswith("\n"):
        return False
    return lines[-1].rstrip("\r\n") == "---" and all(line.rstrip("\r\n") != "---" for line in lines[1:-1])


def _confined(path: Path, project_root: Path) -> Path:
    try:
        return confined(path, project_root)
    except SelfImproveError as exc:
        raise ManagedBlockError(str(exc)) from None


def _planned(
    target: Path, before: bytes | None, edit: Callable[[str], str], keep_empty: bool, ours: bool, label: str
) -> PlannedChange:
    """The new bytes for ``before`` (None: absent). An emptied file is deleted only when we
    created it (``ours``: ``created_files``) and it is not kept; else it stays, 0 bytes."""
    try:
        before_text = "" if before is None else before.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManagedBlockError(
            f"refusing to edit {target}: not valid UTF-8 (byte {error.start})"
        ) from None
    try:
        after_text = edit(before_text)
    except ManagedBlockError as error:
        raise ManagedBlockError(_naming(target, label, str(error))) from None
    try:
        after = None if after_text == "" else after_text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: text decoded from bytes that were not UTF-8
        raise ManagedBlockError(
            f"refusing to edit {target}: the new text holds undecodable characters (from a file that is not UTF-8)"
        ) from None
    if after_text != "" and ours and not keep_empty and before is not None and BEGIN_WORD in before:
        if is_lone_frontmatter(after_text) and BEGIN_WORD not in after_text.encode("utf-8", "surrogateescape"):
            after = None  # our scoped rules file without its last rule: it goes, frontmatter and all
    if after is None and before is not None and (keep_empty or not ours):
        after = b""  # a file that was there before our block comes back as it was: empty
    return PlannedChange(path=target, before=before, after=after)


def _naming(target: Path, label: str, message: str) -> str:
    """``message`` as the user reads it: prefixed with the file it is about, as ``lint`` names it
    (``CLAUDE.md: damaged self-improve markers: …``), unless it names the file already. The
    grammar sees only text, so the file's name is added here, where every verb's edit passes."""
    if str(target) in message:
        return message
    return f"{label}: {message}"


def _temp_dir_for(project_root: Path) -> str | None:
    """Where our temp files go: ``.learnings/.state/`` (git-ignored, same filesystem) when it is
    a real directory, else the user's state dir; never beside the user's file, where a kill
    would leave one in the project root."""
    for candidate in (project_root / ".learnings" / ".state", project_root / ".learnings"):
        try:
            if stat.S_ISDIR(os.lstat(candidate).st_mode):
                return str(candidate)
        except OSError:
            continue
    return user_edit.user_temp_dir()


def edit_file(
    path: Path,
    project_root: Path,
    edit: Callable[[str], str],
    *,
    dry_run: bool = False,
    keep_empty: bool = False,
) -> PlannedChange:
    """Apply a pure text edit to one file inside ``project_root``, safely.

    The file is read as bytes and decoded as strict UTF-8 (no newline translation, so CRLF
    survives). A relative ``path`` is taken relative to ``project_root``. A missing file is
    edited as ``""`` and created (with any missing parent directories inside the root), and
    recorded as ours (``created_files``). When the edit leaves the text empty, the file is
    deleted only when we created it (and ``keep_empty`` is off); otherwise it stays, 0 bytes:
    "promote then retire" gives back a missing file missing and an empty file empty. Directories we
    created go with our last file in them, when they are empty (:func:`remove_created_dirs`). The temp file goes to ``.learnings/.state/``; a concurrent
    writer's change is re-read and the edit re-applied, never lost. With ``dry_run`` nothing is
    written; ``result.diff(root)`` shows what would change. Raises :class:`ManagedBlockError`
    on any refusal.
    """
    target = _confined(Path(path), project_root)
    ours = created_files.was_created(target)
    label = label_for(target, project_root.resolve())
    planned = _planned(target, target.read_bytes() if target.exists() else None, edit, keep_empty, ours, label)
    if not planned.changed:
        return planned
    # Also in a dry run: plan.simulate must meet every refusal before the first real write.
    problem = user_edit.read_only_problem(str(target))
    if problem is not None:
        raise ManagedBlockError(problem)
    if dry_run:
        return planned
    if not target.parent.is_dir():
        try:
            make_dirs(target.parent)
        except OSError as error:
            raise ManagedBlockError(
                f"refusing to edit {target}: cannot create {target.parent}: {error.strerror}"
            ) from None
        # Resolve again: a directory created meanwhile could be a symlink pointing outside.
        _confined(target, project_root)
    rounds: list[PlannedChange] = []

    def bytes_edit(current: bytes | None) -> bytes | None:
        rounds.append(_planned(target, current, edit, keep_empty, ours, label))
        return rounds[-1].after

    try:
        user_edit.edit_user_file(str(target), bytes_edit, temp_dir=_temp_dir_for(project_root))
    except user_edit.EditRefused as exc:
        raise ManagedBlockError(str(exc)) from None
    _record_creation(rounds[-1])
    if rounds[-1].after is None:
        remove_created_dirs(target.parent, project_root)
    return rounds[-1]


def make_dirs(directory: Path) -> None:
    """``mkdir -p``, each directory it creates recorded as ours (``created_files``), so that
    taking our last file out of it can take the directory too (:func:`remove_created_dirs`)."""
    missing = []
    here = directory
    while not here.exists() and here.parent != here:
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:  # made meanwhile by somebody else: theirs, not ours
            continue
        created_files.remember_created(folder)


def remove_created_dirs(directory: Path, stop: Path) -> None:
    """Remove ``directory`` and its parents below ``stop`` while each is one we created and is
    empty: ``rmdir`` refuses a folder that holds anything, so nothing of anyone else goes."""
    stop = Path(os.path.realpath(stop))  # created_files keys real paths
    here = Path(os.path.realpath(directory))
    while here != stop and stop in here.parents and created_files.was_created(here):
        try:
            here.rmdir()
        except OSError:  # not empty (or not ours to remove): it stays, and stays recorded
            return
        created_files.forget_created(here)
        here = here.parent


def _record_creation(done: PlannedChange) -> None:
    """Remember a file our edit created; forget one we deleted, or one that was the user's
    before any block of ours (``created_files``)."""
    if done.before is None and done.after is not None:
        created_files.remember_created(done.path)
    elif done.after is None or (done.before is not None and BEGIN_WORD not in done.before):
        created_files.forget_created(done.path)
