"""``self-improve merge-driver %O %A %B %P``: git's custom merge driver for our files.

git calls it with the base (``%O``), ours (``%A``: the result must be written here), theirs
(``%B``) and the path in the repository (``%P``). The path decides which merge applies
(:func:`merge_file`): ``.learnings/`` files get the entry merge (:mod:`self_improve.store.merge`,
whose docstring documents the semantics), files with a ``self-improve`` rules block the block
merge (:mod:`self_improve.review.block_merge`), anything else git's own line merge
(``git merge-file``).

Before merging, :func:`guarded_merge` checks that neither side looks like lost data (a side
emptied, reset, truncated or garbled, one that removed entries the other side changed, or more
than a small share of them without moving them to its archive:
:mod:`self_improve.store.merge_safety`; a rules block removed or damaged while the other side
changed it: :func:`~self_improve.review.block_merge.managed_hazards`). If one does, ``%A`` gets
both versions in full between conflict markers and the driver exits 1. To tell an archive move
from a dropped entry it reads each side's other store files from git's objects
(:mod:`self_improve.store.merge_witness`).

Exit status, as git expects: 0 when the merge is clean, 1 when ``%A`` holds conflict markers.
The driver never crashes git: on an internal error it writes git's plain line merge of the three
files to ``%A`` (or leaves ``%A`` untouched when even that fails), prints one line to stderr and
exits 1, so git reports a conflict instead of a half-written file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path, PurePosixPath

from self_improve.output import error_line
from self_improve.review.block_merge import has_managed_block, managed_hazards, merge_managed
from self_improve.store import config as config_mod
from self_improve.store.merge import merge_learnings
from self_improve.store.merge_safety import KeptElsewhere, learnings_hazards, nothing_known, whole_file_conflict
from self_improve.store.merge_values import DEFAULT_KEEP
from self_improve.store.merge_witness import GitStoreWitness, store_dir
from self_improve.store.three_way import MergeResult, TextMerge, git_text_merge, plain_text_merge

HELP = "git merge driver for .learnings/ and managed rule blocks (see `self-improve install --git`)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "merge-driver",
        help=HELP,
        description="Three-way merge for git: %O (base) %A (ours; the result is written here) %B (theirs) "
        "%P (path). Learnings entries merge as a union by ID with exact occurrence counts; rule "
        "blocks as a union of bullets. Exit 0 when clean, 1 on a conflict.",
        epilog="examples:\n"
        "  self-improve install --git                 # registers the driver in this clone\n"
        "  self-improve merge-driver %O %A %B %P      # what git then runs on a merge",
    )
    parser.add_argument("base", help="%%O: the common ancestor's version")
    parser.add_argument("ours", help="%%A: our version; the merge result is written here")
    parser.add_argument("theirs", help="%%B: their version")
    parser.add_argument("path", nargs="?", default="", help="%%P: the path in the repository")
    parser.set_defaults(func=run)


# ---- which merge a path needs --------------------------------------------------------------------


def merge_kind(path: str, base: str, ours: str, theirs: str) -> str:
    """``learnings``, ``managed`` or ``text``: which merge a path needs (by path, then content)."""
    file = PurePosixPath(path.replace("\\", "/"))
    if store_dir(file) is not None and file.name.lower().endswith(".md"):
        return "learnings"
    if any(has_managed_block(text) for text in (base, ours, theirs)):
        return "managed"
    return "text"


def merge_file(
    path: str, base: str, ours: str, theirs: str, *, keep: int = DEFAULT_KEEP, text_merge: TextMerge = plain_text_merge
) -> MergeResult:
    """Pick the merge by path and content: learnings, managed block, or plain text."""
    kind = merge_kind(path, base, ours, theirs)
    if kind == "learnings":
        return merge_learnings(base, ours, theirs, keep=keep, text_merge=text_merge)
    if kind == "managed":
        return merge_managed(base, ours, theirs, text_merge=text_merge)
    return text_merge(base, ours, theirs)


def guarded_merge(
    path: str,
    base: str,
    ours: str,
    theirs: str,
    *,
    keep: int = DEFAULT_KEEP,
    text_merge: TextMerge = plain_text_merge,
    kept_elsewhere: KeptElsewhere = nothing_known,
) -> MergeResult:
    """:func:`merge_file`, unless a side is hazardous (module docstring): then a whole-file conflict."""
    if ours != base and theirs != base:  # a one-sided change is git's own choice: no judgement here
        kind = merge_kind(path, base, ours, theirs)
        if kind == "learnings":
            reasons = learnings_hazards(base, ours, theirs, kept_elsewhere)
        elif kind == "managed":
            reasons = managed_hazards(base, ours, theirs)
        else:
            reasons = []
        if reasons:
            return whole_file_conflict(ours, theirs, reasons)
    return merge_file(path, base, ours, theirs, keep=keep, text_merge=text_merge)


# ---- the files git gives us ----------------------------------------------------------------------


def _text(data: bytes) -> str:
    # surrogateescape: bytes that are not UTF-8 come back out unchanged.
    return data.decode("utf-8", "surrogateescape")


def _read(path: Path) -> str:
    return _text(path.read_bytes())


def _write(path: Path, text: str) -> None:
    # %A is git's own scratch copy: a plain write is what git expects (it reads it back after we exit).
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


def _keep(path: str) -> int:
    """``log.max_occurrences`` of the store ``path`` belongs to (git runs us in the worktree root)."""
    learnings = store_dir(Path(path))
    if learnings is None:
        return DEFAULT_KEEP
    try:
        return int(config_mod.get(config_mod.load(learnings), "log.max_occurrences"))
    except Exception:  # noqa: BLE001 -- a broken config must not break a merge: the store's default then
        return DEFAULT_KEEP


def merge_paths(base: Path, ours: Path, theirs: Path, path: str) -> MergeResult:
    """Merge the three files and write the result to ``ours``."""
    raw = (base.read_bytes(), ours.read_bytes(), theirs.read_bytes())
    texts = tuple(_text(data) for data in raw)
    witness = GitStoreWitness(path, raw[1], raw[2])  # asked only when a side removed many entries
    result = guarded_merge(path or str(ours), *texts, keep=_keep(path), text_merge=git_text_merge, kept_elsewhere=witness)
    if result.text != texts[1]:
        _write(ours, result.text)
    return result


def run(args: argparse.Namespace) -> int:
    label = args.path or args.ours
    try:
        result = merge_paths(Path(args.base), Path(args.ours), Path(args.theirs), args.path)
    except Exception as exc:  # noqa: BLE001 -- never crash git: fall back to its own line merge, and say so
        _fallback(Path(args.base), Path(args.ours), Path(args.theirs))
        error_line(f"merge-driver: {label}: {type(exc).__name__}: {exc}; left git's line merge (with conflict markers)")
        return 1
    for note in result.notes:
        sys.stderr.write(f"self-improve: {label}: {note}\n")
    if result.conflicts:
        places = ", ".join(result.conflicts[:5]) + (" ..." if len(result.conflicts) > 5 else "")
        sys.stderr.write(f"self-improve: {label}: conflict in {places}\n")
        return 1
    return 0


def _fallback(base: Path, ours: Path, theirs: Path) -> None:
    try:
        merged = git_text_merge(_read(base), _read(ours), _read(theirs))
        _write(ours, merged.text)
    except Exception:  # noqa: BLE001 -- %A stays as it was: ours, untouched
        pass
