"""Where a rule may be written: an instruction file inside the project, checked before any edit.

Targets: a Markdown file inside the project, not in ``.learnings/`` or any ``.git/``, and
neither it nor a directory on the way to it a symlink (a repo's ``targets.*`` setting must not
aim a rule at a git hook, or through a link at a file outside).

Claude Code's default is a file wholly ours, ``.claude/rules/self-improve.md`` (Claude Code
loads every ``.claude/rules/*.md`` like CLAUDE.md), and for a rule confined to one subtree a
path-scoped one, ``.claude/rules/self-improve-<slug>.md`` (``review/subject_paths.scope_subtree``):
the user's CLAUDE.md is written only when they ask for it, or when a rule of ours already lives
there. Every such file of ours is scanned wherever blocks are looked for (:func:`rules_files`).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from pathlib import Path

from self_improve.errors import SelfImproveError, UsageError
from self_improve.review.installed import OPENCLAW_MARKER_FILES, installed_harnesses
from self_improve.review.policy import TargetTable, is_openclaw_workspace
from self_improve.store.settings import CLAUDE_RULES_TARGET
from self_improve.store.store import Store

# Where a rule may already live when an entry does not say (reference entries promoted by hand;
# ``.claude/CLAUDE.md``: where the user-wide store promoted before the rules file).
KNOWN_TARGETS = ("CLAUDE.md", CLAUDE_RULES_TARGET, ".claude/CLAUDE.md", "AGENTS.md", ".github/copilot-instructions.md", "SOUL.md")
RULES_DIR = ".claude/rules"
SCOPED_PREFIX = "self-improve-"  # .claude/rules/self-improve-<slug>.md: a path-scoped rules file of ours
TARGET_KEYS = ("targets.learning", "targets.error", "targets.feature", "targets.workflow")


def in_openclaw_workspace(store: Store) -> bool:
    return is_openclaw_workspace(name for name in OPENCLAW_MARKER_FILES if (store.root / name).is_file())


def default_targets(store: Store) -> TargetTable:
    """The ``targets.*`` table for this store, its defaults following the harnesses installed
    for the project (``TargetTable.for_harnesses``): no review writes CLAUDE.md for a Codex-only
    user, nor creates AGENTS.md for a Claude-only one. A key the user set is kept as set. The
    user-wide store keeps its own (``~/.claude/rules/self-improve.md``, ``store/store.py``)."""
    table = TargetTable.from_settings(store.setting)
    if store.scope == "user":
        return table
    return table.for_harnesses(installed_harnesses(store.root), chosen_target_keys(store))


def chosen_target_keys(store: Store) -> frozenset[str]:
    """The keys of :data:`TARGET_KEYS` that the user-level config or the project's own
    ``.learnings/config.toml`` sets: a value there is the user's choice, even one equal to the
    default, and is never redirected."""
    from self_improve.paths import user_config_path
    from self_improve.store.config import config_path, read_user_config

    chosen: set[str] = set()
    for path in (Path(user_config_path()), config_path(store.dir)):
        try:
            table = read_user_config(path).get("targets")
        except SelfImproveError:
            continue  # the store's own load refuses a corrupt config, and says so
        if isinstance(table, dict):
            chosen.update(key for key in TARGET_KEYS if key.split(".", 1)[1] in table)
    return frozenset(chosen)


def normalise_target(store: Store, raw: str, openclaw: bool | None = None) -> str:
    """A target as a clean POSIX path relative to the project root, or a one-line refusal."""
    text = raw.strip()
    if not text:
        raise UsageError("--target must not be empty")
    if "\n" in text or "\r" in text:
        raise UsageError("--target must be one line")
    path = Path(text)
    if path.is_absolute():
        for root in (store.root, store.root.resolve()):
            if path.is_relative_to(root):
                path = path.relative_to(root)
                break
        else:
            raise SelfImproveError(f"refusing to edit {text}: it is outside the project root {store.root}")
    normal = posixpath.normpath(path.as_posix())
    if normal == ".." or normal.startswith("../"):
        raise SelfImproveError(f"refusing to edit {text}: it is outside the project root {store.root}")
    if not normal.casefold().endswith(".md"):
        raise UsageError(f"target {text} is not a Markdown file: choose e.g. CLAUDE.md, AGENTS.md or .github/copilot-instructions.md")
    if normal.split("/", 1)[0] == ".learnings":
        raise UsageError(f"target {text} is inside .learnings/: choose an instruction file such as CLAUDE.md or AGENTS.md")
    if ".git" in (part.casefold() for part in normal.split("/")):
        raise SelfImproveError(f"refusing to edit {store.root / normal}: it is inside .git/")
    check_no_symlink(store, normal)
    if openclaw is None:
        openclaw = in_openclaw_workspace(store)
    if openclaw and posixpath.basename(normal).casefold() == "tools.md":
        raise UsageError("OpenClaw does not read TOOLS.md: promote tool gotchas into AGENTS.md (its ## Tools section)")
    return normal


def normalised_or_none(store: Store, raw: str) -> str | None:
    """:func:`normalise_target` outside an OpenClaw workspace, None where it refuses."""
    try:
        return normalise_target(store, raw, openclaw=False)
    except SelfImproveError:
        return None


def check_no_symlink(store: Store, normal: str) -> None:
    """Refuse a target that is a symlink, or lies below one, or is not a regular file.

    lstat, component by component from the project root: a link inside the project that points
    back inside it is refused too (``CLAUDE.md -> .git/config``), as is anything not a file.
    """
    path = store.root
    shown = store.root / normal
    parts = normal.split("/")
    for index, part in enumerate(parts):
        path = path / part
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            return  # the rest does not exist yet: it is created as plain directories and a file
        except OSError as exc:
            raise SelfImproveError(f"refusing to edit {shown}: cannot check {store.relative(path)}: {exc.strerror}") from None
        if stat.S_ISLNK(info.st_mode):
            what = "it" if index == len(parts) - 1 else store.relative(path)
            raise SelfImproveError(f"refusing to edit {shown}: {what} is a symlink")
        last = index == len(parts) - 1
        if last and not stat.S_ISREG(info.st_mode):
            raise SelfImproveError(f"refusing to edit {shown}: it is not a regular file")
        if not last and not stat.S_ISDIR(info.st_mode):
            raise SelfImproveError(f"refusing to edit {shown}: {store.relative(path)} is not a directory")


def scoped_rules_name(subtree: str) -> str:
    """The path-scoped rules file for ``subtree``: ``packages/web`` → ``.claude/rules/self-improve-packages-web.md``."""
    slug = re.sub(r"[^a-z0-9]+", "-", subtree.casefold()).strip("-")
    return f"{RULES_DIR}/{SCOPED_PREFIX}{slug}.md"


def is_scoped_rules_file(name: str) -> bool:
    head, _, base = name.rpartition("/")
    return head == RULES_DIR and base.startswith(SCOPED_PREFIX) and base.endswith(".md")


def scoped_rules_files(root: Path) -> tuple[str, ...]:
    """The path-scoped rules files of ours in ``root/.claude/rules/`` (regular files, by name)."""
    folder = root / RULES_DIR
    try:
        if not stat.S_ISDIR(os.lstat(root / ".claude").st_mode) or not stat.S_ISDIR(os.lstat(folder).st_mode):
            return ()
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    found = []
    for base in names:
        name = f"{RULES_DIR}/{base}"
        try:
            if is_scoped_rules_file(name) and stat.S_ISREG(os.lstat(folder / base).st_mode):
                found.append(name)
        except OSError:
            continue
    return tuple(found)


def rules_files(store: Store) -> tuple[str, ...]:
    """Where a rule of ours may live when nothing says where: :data:`KNOWN_TARGETS` and the
    path-scoped rules files of ours."""
    return KNOWN_TARGETS + scoped_rules_files(store.root)
