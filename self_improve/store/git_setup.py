"""Register (and unregister) ``self-improve merge-driver`` with git for one project.

Two places, both idempotent:

* the repository's own config (``git config --local``; it is per clone, never committed)::

      [merge "self-improve"]
          name = self-improve: union merge of learnings and rule blocks
          driver = SELF_IMPROVE_PYTHON=<python> <checkout>/bin/self-improve merge-driver %O %A %B %P
          gitattributes = created | added-final-newline | existing

  ``gitattributes`` is our own bookkeeping (git ignores keys it does not know): it tells
  uninstall whether we created ``.gitattributes`` or had to add its missing final newline.
* ``.gitattributes`` in the project root (committed, so teammates share it): the lines in
  :data:`ATTRIBUTE_LINES`, appended when missing. One driver serves every file: it picks the
  learnings merge, the rule-block merge or git's line merge by path and content, so
  ``CLAUDE.md`` files without a block merge exactly as before. A clone where the driver is not
  configured falls back to git's built-in text merge for these paths (git ignores an undefined
  driver), so the committed lines never break a teammate's merge.

Every existing line of ``.gitattributes`` is kept byte for byte; uninstall removes exactly our
lines, restores a final newline we added, and deletes the file only if we created it and nothing
else is in it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from self_improve.errors import SelfImproveError
from self_improve.changes import check_inside_root
from self_improve.paths import LEARNINGS_DIR, STATE_DIR
from self_improve.store.entry import split_lines
from self_improve.store.three_way import dominant_eol
from self_improve.user_edit import (
    BytesEdit,
    edit_user_file,
    read_only_problem,
    user_temp_dir,
)

DRIVER = "self-improve"
DRIVER_NAME = "self-improve: union merge of learnings and rule blocks"
SECTION = f"merge.{DRIVER}"
ATTRIBUTE_LINES = (
    f".learnings/*.md merge={DRIVER}",
    f".learnings/archive/*.md merge={DRIVER}",
    f"CLAUDE.md merge={DRIVER}",
    f"AGENTS.md merge={DRIVER}",
    f".claude/rules/self-improve*.md merge={DRIVER}",
    f".github/copilot-instructions.md merge={DRIVER}",
)
GITATTRIBUTES = ".gitattributes"
CREATED, ADDED_FINAL_NEWLINE, EXISTING = "created", "added-final-newline", "existing"


@dataclass(frozen=True)
class GitSetup:
    """What install/uninstall did (or, with ``dry_run``, would do): one line per change."""

    root: Path
    changes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def driver_command(python: str | None = None, checkout: Path | None = None) -> str:
    """The ``merge.self-improve.driver`` value: our CLI with the interpreter pinned, as the hooks do."""
    python = python or sys.executable
    checkout = checkout or Path(__file__).resolve().parents[2]  # <checkout>/self_improve/store/git_setup.py
    script = checkout / "bin" / "self-improve"
    if script.is_file():
        head = f"SELF_IMPROVE_PYTHON={shlex.quote(python)} {shlex.quote(str(script))}"
    else:  # an installed package without the checkout's bin/: the module is importable
        head = f"{shlex.quote(python)} -m self_improve"
    return f"{head} merge-driver %O %A %B %P"


# ---- git config ----------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False)
    except FileNotFoundError:
        raise SelfImproveError("git is not installed (needed for --git)") from None


def _require_repository(root: Path) -> None:
    done = _git(root, "rev-parse", "--git-dir")
    if done.returncode != 0:
        raise SelfImproveError(f"{root} is not inside a git repository (needed for --git)")


def _config_get(root: Path, key: str) -> str | None:
    done = _git(root, "config", "--local", "--get", key)
    return done.stdout.rstrip("\n") if done.returncode == 0 else None


def _config_set(root: Path, key: str, value: str) -> None:
    done = _git(root, "config", "--local", key, value)
    if done.returncode != 0:
        raise SelfImproveError(f"git config {key} failed: {done.stderr.strip() or done.returncode}")


# ---- .gitattributes ------------------------------------------------------------------------------


def _read_attributes(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return None


def _decoded(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "surrogateescape")


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _edit_attributes(path: Path, root: Path, edit: BytesEdit) -> None:
    """Write ``.gitattributes`` without losing a concurrent change (``user_edit``), through a
    symlink that stays inside the root, with the temp file in ``.learnings/.state/`` when there."""
    destination = Path(os.path.realpath(path)) if path.is_symlink() else path
    state_dir = root / LEARNINGS_DIR / STATE_DIR
    temp_dir = str(state_dir) if state_dir.is_dir() and not state_dir.is_symlink() else user_temp_dir()
    edit_user_file(str(destination), edit, temp_dir=temp_dir)


def _refuse_read_only(path: Path, edit: Callable[[str], str]) -> None:
    """Refuse before the git config is touched when ``.gitattributes`` needs a change it forbids."""
    text = _read_attributes(path)
    problem = read_only_problem(str(path)) if text is not None and edit(text) != text else None
    if problem is not None:
        raise SelfImproveError(f"{problem}; self-improve changed nothing")


def _bare_lines(text: str) -> list[str]:
    return [line.rstrip("\r").strip() for line in text.split("\n")]


def with_attribute_lines(text: str | None) -> tuple[str, str]:
    """``text`` plus our missing lines, and the bookkeeping value (created / added-final-newline / existing)."""
    present = set(_bare_lines(text or ""))
    missing = [line for line in ATTRIBUTE_LINES if line not in present]
    if text is None:
        return "\n".join(missing) + "\n", CREATED
    if not missing:
        return text, EXISTING
    eol = dominant_eol(text)
    state = EXISTING
    if text and not text.endswith("\n"):
        text += eol
        state = ADDED_FINAL_NEWLINE
    return text + "".join(line + eol for line in missing), state


def without_attribute_lines(text: str, state: str) -> str:
    """``text`` minus our lines (every other byte kept), and minus the final newline we added."""
    ours = set(ATTRIBUTE_LINES)
    lines = split_lines(text)  # at \n only: a stray \r or \x0c inside a line stays inside it
    kept = [line for line in lines if line.strip() not in ours]
    result = "".join(kept)
    ours_were_last = bool(lines) and lines[-1].strip() in ours
    if state == ADDED_FINAL_NEWLINE and ours_were_last and kept:
        for eol in ("\r\n", "\n"):
            if result.endswith(eol):
                return result[: -len(eol)]
    return result


# ---- install / uninstall --------------------------------------------------------------------------


def _attributes_of(root: Path) -> tuple[Path, Path]:
    """The absolute root of a git repository and its ``.gitattributes``, refused when that is a
    symlink leading outside the root."""
    root = Path(root).absolute()
    _require_repository(root)
    path = root / GITATTRIBUTES
    if path.is_symlink():
        check_inside_root(path, root)
    return root, path


def install_git(root: Path, dry_run: bool = False, *, python: str | None = None) -> GitSetup:
    """Configure the driver in this clone and add our ``.gitattributes`` lines (idempotent)."""
    root, path = _attributes_of(root)
    _refuse_read_only(path, lambda text: with_attribute_lines(text)[0])
    changes: list[str] = []
    command = driver_command(python)
    if _config_get(root, f"{SECTION}.name") != DRIVER_NAME:
        changes.append(f"git config {SECTION}.name {shlex.quote(DRIVER_NAME)}")
        if not dry_run:
            _config_set(root, f"{SECTION}.name", DRIVER_NAME)
    if _config_get(root, f"{SECTION}.driver") != command:
        changes.append(f"git config {SECTION}.driver {shlex.quote(command)}")
        if not dry_run:
            _config_set(root, f"{SECTION}.driver", command)
    before = _read_attributes(path)
    after, _ = with_attribute_lines(before)
    if after != before:
        added = [line for line in ATTRIBUTE_LINES if line not in set(_bare_lines(before or ""))]
        verb = "create" if before is None else "append to"
        changes.append(f"{verb} {GITATTRIBUTES}: {', '.join(added)}")
        if not dry_run:

            def add_lines(current: bytes | None) -> bytes | None:
                text = _decoded(current)
                wanted, new_state = with_attribute_lines(text)
                # Bookkeeping first: if we die between the two writes, uninstall still knows.
                if wanted != text and _config_get(root, f"{SECTION}.gitattributes") in (None, EXISTING):
                    _config_set(root, f"{SECTION}.gitattributes", new_state)
                return _encoded(wanted)

            _edit_attributes(path, root, add_lines)
    return GitSetup(root, tuple(changes))


def uninstall_git(root: Path, dry_run: bool = False) -> GitSetup:
    """Remove the driver's config section and exactly our ``.gitattributes`` lines."""
    root, path = _attributes_of(root)
    changes: list[str] = []
    state = _config_get(root, f"{SECTION}.gitattributes") or EXISTING
    _refuse_read_only(path, lambda text: without_attribute_lines(text, state))
    before = _read_attributes(path)

    def remove_lines(current: bytes | None) -> bytes | None:
        text = _decoded(current)
        if text is None:
            return None
        kept = without_attribute_lines(text, state)
        # Delete only a file we created and a real file: never a symlink (nor what it points to).
        return None if state == CREATED and not kept.strip() and not path.is_symlink() else _encoded(kept)

    if before is not None:
        after = remove_lines(_encoded(before))
        if after is None:
            changes.append(f"delete {GITATTRIBUTES} (we created it; nothing else is in it)")
        elif after != _encoded(before):
            changes.append(f"remove our lines from {GITATTRIBUTES}")
        if after != _encoded(before) and not dry_run:
            _edit_attributes(path, root, remove_lines)
    if _git(root, "config", "--local", "--get-regexp", rf"^{SECTION.replace('.', '[.]')}[.]").stdout.strip():
        changes.append(f"git config --remove-section {SECTION}")
        if not dry_run:
            done = _git(root, "config", "--local", "--remove-section", SECTION)
            if done.returncode != 0:
                raise SelfImproveError(f"git config --remove-section {SECTION} failed: {done.stderr.strip()}")
    return GitSetup(root, tuple(changes))


def is_installed(root: Path) -> bool:
    """Whether this clone has our driver configured and ``.gitattributes`` holds all our lines."""
    root = Path(root).absolute()
    text = _read_attributes(root / GITATTRIBUTES)
    return (
        _config_get(root, f"{SECTION}.driver") is not None
        and text is not None
        and set(ATTRIBUTE_LINES) <= set(_bare_lines(text))
    )
