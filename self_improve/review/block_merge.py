"""Three-way merge of a file holding the learned-rules block (``CLAUDE.md``, ``AGENTS.md``, ...).

A pure ``str -> str`` function over whole texts, like the learnings merge
(:mod:`self_improve.store.merge`); the merge driver (``commands/merge_driver.py``) does the I/O
and picks this merge for a file that mentions our begin marker. The block is found by the one
marker grammar, :mod:`self_improve.review.managed_block`, so the merge and every edit agree on
where a block is, which lines are fenced code and what a rule bullet is.

:func:`merge_managed`
=====================

* Inside ``<!-- self-improve:begin ... -->`` / ``<!-- self-improve:end -->``: the rule bullets
  (``- text <!-- ID -->``) are a union by ID, in ours' order with theirs' new bullets placed
  after the bullet that precedes them in theirs. A bullet removed on one side and unchanged on
  the other is removed (that is a retire); removed on one side and reworded on the other is
  kept. A bullet reworded differently on both sides takes ours' wording: the rule text is
  regenerated from its entry by the next ``review``, so a wording choice is not worth a
  conflict. A side that removed the whole block retired every rule it held, but does not vote
  on the block's other lines (heading, markers). No bullet left -> the block and the blank
  line we added before it go, as ``remove_rule`` does. The merged block's begin marker gets the
  hash of its merged bullets (``managed_block.rehash``), unless some side's block carried a stale
  hash (an unreviewed hand edit), which then stays visible to ``lint``.
* Outside the block: a line merge of the user's text (``git merge-file`` semantics; the block
  is replaced by a placeholder line so its position merges like any other line). A conflict
  there keeps both versions with markers; user text is never dropped. A merged block whose
  position was deleted by the line merge is appended at the end, as ``upsert_block`` does.
* Unparseable markers (two blocks, a begin without an end...) -> the whole file gets the plain
  line merge.

:func:`managed_hazards`: the driver's safety rule for a block
=============================================================

A side S (the other side O) is hazardous when it **removed the whole rules block, or damaged its
markers** (the block no longer parses), while O changed the block; the driver then makes the
file a whole-file conflict (:mod:`self_improve.store.merge_safety`). Bullets removed one at a
time are retirements (the rule's entry keeps its text) and merge as above. A retirement of a
block's last rule while the other side changed the block also conflicts: the two cannot be told
apart from the text, so this takes the safe side.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from self_improve.review.managed_block import (
    RULES_MARKER,
    RULES_NOTE,
    ManagedBlockError,
    begin_prefix,
    block_span,
    bullet_id,
    end_marker,
    rehash,
    remove_block,
    scan_rules,
    upsert_block,
)
from self_improve.store.entry import eol_of, split_lines, strip_eol
from self_improve.store.three_way import (
    MergeResult,
    TextMerge,
    dominant_eol,
    merge_keyed,
    one_side_changed,
    plain_text_merge,
    terminated,
    with_ordinals,
)


class _Unmergeable(Exception):
    """Markers we cannot pair: the file gets the plain line merge instead."""


@dataclass(frozen=True)
class _Split:
    """A file cut around its rules block: ``before + block + after`` is the text."""

    before: str
    block: tuple[str, ...] | None  # the begin line to the end line, with their endings
    after: str


def has_managed_block(text: str) -> bool:
    """Whether ``text`` mentions our begin marker (intact or not): the block merge's files."""
    return begin_prefix(RULES_MARKER) in text


def _split_block(text: str) -> _Split:
    try:
        span = block_span(text, RULES_MARKER)
    except ManagedBlockError as exc:
        raise _Unmergeable(str(exc)) from None
    if span is None:
        return _Split(text, None, "")
    first, last = span
    lines = split_lines(text)
    return _Split("".join(lines[:first]), tuple(lines[first : last + 1]), "".join(lines[last + 1 :]))


def _block_items(block: Sequence[str]) -> list[tuple[Hashable, tuple[Hashable, str]]]:
    """Lines of a block keyed: ``begin``, ``end``, ``rule``-by-ID, anything else by content."""

    def key(n: int, line: str) -> Hashable:
        if n == 0:
            return "begin"
        if n == len(block) - 1:
            return "end"
        entry_id = bullet_id(line)
        return ("rule", entry_id) if entry_id else ("line", strip_eol(line))

    keys = with_ordinals(key(n, line) for n, line in enumerate(block))
    return [(k, (k, line)) for k, line in zip(keys, block, strict=True)]


def _is_rule(key: Hashable) -> bool:
    inner = key[0]  # type: ignore[index]
    return isinstance(inner, tuple) and inner[0] == "rule"


def _merge_blocks(
    base: tuple[str, ...] | None, ours: tuple[str, ...] | None, theirs: tuple[str, ...] | None
) -> list[str]:
    """The merged block's lines (begin to end); no rule bullet left -> []."""
    b = _block_items(base) if base else []
    o = _block_items(ours) if ours else []
    t = _block_items(theirs) if theirs else []
    # A side without the block retired every rule, but says nothing about heading or markers.
    if ours is None:
        o = [item for item in b if not _is_rule(item[0])]
    if theirs is None:
        t = [item for item in b if not _is_rule(item[0])]
    # Changed on both sides (a reworded rule, a new note in the begin marker): ours.
    merged = merge_keyed(b, o, t, lambda _key, _b, o_item, _t: o_item, theirs_new_at_end=False)
    if not any(_is_rule(key) for key, _ in merged):
        return []
    first = {key[0]: line for key, line in merged if key[0] in ("begin", "end")}  # type: ignore[index]
    fallback = ours or theirs or base or ("", "")
    middle = [line for key, line in merged if key[0] not in ("begin", "end")]  # type: ignore[index]
    return [first.get("begin", fallback[0]), *middle, first.get("end", fallback[-1])]


def _placeholder(texts: Iterable[str]) -> str:
    texts = list(texts)
    n = 0
    while any(f"self-improve-merge-placeholder-{n}" in text for text in texts):
        n += 1
    return f"<!-- self-improve-merge-placeholder-{n} -->"


def _outside(split: _Split, placeholder: str) -> str:
    if split.block is None:
        return split.before
    return split.before + placeholder + eol_of(split.block[-1]) + split.after


def merge_managed(base: str, ours: str, theirs: str, *, text_merge: TextMerge = plain_text_merge) -> MergeResult:
    """Three-way merge of a file holding a learned-rules block (see the module docstring)."""
    if (taken := one_side_changed(base, ours, theirs)) is not None:
        return taken
    try:
        splits = [_split_block(text) for text in (base, ours, theirs)]
    except _Unmergeable:
        return text_merge(base, ours, theirs)
    if all(split.block is None for split in splits):
        return text_merge(base, ours, theirs)
    placeholder = _placeholder((base, ours, theirs))
    outside = text_merge(*(_outside(split, placeholder) for split in splits))
    block = _merge_blocks(*(split.block for split in splits))
    text = outside.text
    prefix = begin_prefix(RULES_MARKER)
    if not block:
        if placeholder in text:
            empty_block = f"{prefix} -->{dominant_eol(text)}{end_marker(RULES_MARKER)}"
            text = remove_block(text.replace(placeholder, empty_block), marker_name=RULES_MARKER)
        return MergeResult(text, outside.conflicts)
    block_text = "".join(block)
    block_text = block_text[: len(block_text) - len(eol_of(block[-1]))]  # the placeholder line keeps its own ending
    if placeholder in text:
        text = _with_merged_hash(text.replace(placeholder, block_text), (base, ours, theirs))
    else:  # the line merge dropped the block's place; the rules still belong in the file
        body = "".join(terminated(line, "\n") for line in block[1:-1])
        note = strip_eol(block[0]).strip()[len(prefix) :].removesuffix("-->").strip()
        text = upsert_block(text, body, marker_name=RULES_MARKER, note=note or RULES_NOTE)  # hashes the body
    return MergeResult(text, outside.conflicts)


def _with_merged_hash(text: str, inputs: Iterable[str]) -> str:
    """The merged block's begin marker with the hash of its merged bullets.

    Only when every input's block was hashed over its own content (or had no hash): a block some
    side edited by hand keeps the stale hash it came with, so ``lint`` still shows the hand edit
    and the merge never passes it off as ours (the rule ``upsert_rule`` follows).
    """
    for source in inputs:
        if any(block.stored_hash not in (None, block.actual_hash) for block in scan_rules(source).blocks):
            return text
    try:
        return rehash(text, RULES_MARKER)
    except ManagedBlockError:  # two copies of the block inside a whole-file conflict, say: left as merged
        return text


# ---- the driver's safety rule ------------------------------------------------------------------


def managed_hazards(base: str, ours: str, theirs: str) -> list[str]:
    """A side that removed the rules block, or damaged its markers, while the other side changed it."""
    blocks = {name: _block_of(text) for name, text in (("base", base), ("ours", ours), ("theirs", theirs))}
    base_block = blocks["base"]
    if base_block is _DAMAGED:
        return []  # the base itself does not parse: merge_managed's plain line merge applies
    reasons = []
    for side, other in (("ours", "theirs"), ("theirs", "ours")):
        mine, changed = blocks[side], blocks[other] != base_block
        if not changed or blocks[other] is None:
            continue
        if mine is _DAMAGED:
            reasons.append(f"{side} damaged the rules block's markers, while {other} changed the block")
        elif mine is None and base_block is not None:
            reasons.append(f"{side} removed the rules block, while {other} changed it")
    return reasons


_DAMAGED: tuple[str, ...] = ("<damaged>",)


def _block_of(text: str) -> tuple[str, ...] | None:
    """The block's lines; None when there is none; :data:`_DAMAGED` when its markers do not parse."""
    try:
        return _split_block(text).block
    except _Unmergeable:
        return _DAMAGED
