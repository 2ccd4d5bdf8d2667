"""The grammar of self-improve's managed blocks: markers, rule bullets, the ``sha:`` hash.

A managed block looks like this (exact bytes, with the file's own line ending)::

    <!-- self-improve:begin (managed by `self-improve review`; edit the rules there) sha:d38661c2 -->
    ## Learned rules
    - Use `pnpm install`, not npm: this repo is a pnpm workspace. <!-- LRN-20261129-a7b -->
    <!-- self-improve:end -->

This module reads that grammar and nothing else: :func:`scan` finds the blocks of one marker name
and :func:`parse` refuses damaged markers; the edits that write it are in ``managed_block``,
which every other module imports (it re-exports the names here).

* **Lines** end at ``\\n`` only; a ``\\r`` before it is part of the line ending (CRLF). Lone
  ``\\r``, ``\\x0b``, ``\\u2028`` and friends are ordinary characters: we never re-break user text.
* **Rule bullets** are ``- TEXT <!-- ID -->`` with an entry ID of the store's one grammar
  (``store.entry.ID_REGEX``). Leading indent and trailing spaces are tolerated when reading (a
  user may re-indent); we always write the canonical form.
* **Hash**: a rule block's begin marker ends with ``sha:`` and 8 hex digits of the SHA-256 of
  the lines between the markers (line endings dropped), so ``lint`` can tell a block edited by
  hand. A block without a hash (written before blocks were hashed) is read like any other.
* **Code fences** (``store/fences.py``, CommonMark's rules): markers inside fenced code are user
  text, not ours, and an unclosed fence runs to the end of the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from self_improve.changes import lines_of
from self_improve.store.entry import ID_REGEX
from self_improve.store.fences import FenceTracker

RULES_MARKER = "self-improve"
"""Marker name of the learned-rules block in CLAUDE.md / AGENTS.md / copilot-instructions.md."""

OPENCLAW_MARKER = "self-improve:openclaw"
"""Marker name of the OpenClaw reminder block, distinct so it can share AGENTS.md with the rules."""

RULES_NOTE = "(managed by `self-improve review`; edit the rules there)"
DEFAULT_HEADING = "## Learned rules"

HASH_PREFIX = "sha:"
HASH_LENGTH = 8
"""A rule block's begin marker ends with ``sha:`` and the first 8 hex digits of the SHA-256 of
its content, e.g. ``<!-- self-improve:begin (managed by ...) sha:1a2b3c4d -->``."""
_HASH_WORD = re.compile(r"sha:[0-9a-f]{8}")

ENTRY_ID_PATTERN = re.compile(ID_REGEX)
BULLET = re.compile(rf"[ \t]*- (?P<text>.*?)[ \t]*<!-- (?P<id>{ID_REGEX}) -->[ \t]*")


class ManagedBlockError(ValueError):
    """A refused edit; the message is one line a user can act on. Nothing was changed."""


@dataclass(frozen=True)
class Rule:
    """One learned-rule bullet. ``line`` is 1-based in the text it was listed from."""

    entry_id: str
    text: str
    line: int


@dataclass(frozen=True)
class Block:
    begin: int  # index into Parsed.lines of the begin marker line
    end: int  # index of the end marker line


@dataclass(frozen=True)
class Parsed:
    lines: tuple[str, ...]  # each line keeps its terminator; "".join(lines) is the text
    blocks: tuple[Block, ...]
    fenced: tuple[bool, ...]  # per line: inside (or delimiting) a fenced code block
    open_fence_line: int | None  # 1-based line of a fence left open at the end of the text


# --------------------------------------------------------------------------- lines


def ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def content(line: str) -> str:
    return line[: len(line) - len(ending(line))]


def begin_prefix(marker_name: str = RULES_MARKER) -> str:
    """How a begin marker of ``marker_name`` starts (a note may follow, then ``-->``)."""
    return f"<!-- {marker_name}:begin"


def end_marker(marker_name: str = RULES_MARKER) -> str:
    """The end marker line of ``marker_name``, without its line ending."""
    return f"<!-- {marker_name}:end -->"


def begin_line(marker_name: str, note: str) -> str:
    prefix = begin_prefix(marker_name)
    return f"{prefix} {note} -->" if note else f"{prefix} -->"


# --------------------------------------------------------------------------- parsing


def scan(text: str, marker_name: str) -> tuple[Parsed, tuple[int, str] | None]:
    """Find our blocks, ignoring fenced code, and the first damaged marker as (line index,
    message); the blocks are those paired before the damage. Several blocks are not damage here
    (a rules block allows one, see :func:`single_block`; generic blocks collapse duplicates)."""
    lines = lines_of(text)
    prefix, end = begin_prefix(marker_name), end_marker(marker_name)
    fences = FenceTracker()
    fenced: list[bool] = []
    events: list[tuple[str, int]] = []  # ("begin" | "end", line index), outside fences only
    opened_at: int | None = None  # index of the line that opened the fence still open
    for index, line in enumerate(lines):
        bare = content(line)
        was_open = fences.is_open
        inside = fences.inside_after(bare)
        fenced.append(inside)
        if inside:
            if not was_open:
                opened_at = index
            continue
        # A UTF-8 BOM is not whitespace to str.strip, but it is invisible to the user.
        stripped = bare.strip().lstrip("\ufeff") if index == 0 else bare.strip()
        if stripped.startswith(prefix) and stripped.endswith("-->"):
            events.append(("begin", index))
        elif stripped == end:
            events.append(("end", index))

    blocks, damage = _pair_markers(events, marker_name)
    parsed = Parsed(
        lines=tuple(lines),
        blocks=tuple(blocks),
        fenced=tuple(fenced),
        open_fence_line=None if not fences.is_open or opened_at is None else opened_at + 1,
    )
    return parsed, damage


def _pair_markers(events: list[tuple[str, int]], marker_name: str) -> tuple[list[Block], tuple[int, str] | None]:
    damaged = f"damaged {marker_name} markers:"
    blocks: list[Block] = []
    open_begin: int | None = None
    for position, (kind, index) in enumerate(events):
        if kind == "begin":
            if open_begin is not None:
                nested = (
                    f"{damaged} begin marker on line {index + 1} is nested inside the block "
                    f"opened on line {open_begin + 1}; fix them by hand"
                )
                return blocks, (index, nested)
            open_begin = index
        elif open_begin is None:
            later_begin = next((i for k, i in events[position + 1 :] if k == "begin"), None)
            if later_begin is not None:
                early = (
                    f"{damaged} end marker on line {index + 1} comes before the begin marker "
                    f"on line {later_begin + 1}; fix them by hand"
                )
                return blocks, (index, early)
            return blocks, (index, f"{damaged} end marker on line {index + 1} has no begin marker; fix them by hand")
        else:
            blocks.append(Block(open_begin, index))
            open_begin = None
    if open_begin is not None:
        return blocks, (
            open_begin,
            f"{damaged} begin marker on line {open_begin + 1} has no end marker; fix them by hand",
        )
    return blocks, None


def parse(text: str, marker_name: str) -> Parsed:
    """Find our blocks, ignoring fenced code; raise on damaged markers (not on several blocks)."""
    parsed, damage = scan(text, marker_name)
    if damage is not None:
        raise ManagedBlockError(damage[1])
    return parsed


def _several_blocks(parsed: Parsed, marker_name: str) -> str:
    where = ", ".join(str(block.begin + 1) for block in parsed.blocks)
    return (
        f"damaged {marker_name} markers: {len(parsed.blocks)} blocks (begin on lines "
        f"{where}), expected at most one; fix them by hand"
    )


def single_block(parsed: Parsed, marker_name: str) -> Block | None:
    """The rules block, if any. Two rule blocks are refused: we cannot tell which one is right."""
    if len(parsed.blocks) > 1:
        raise ManagedBlockError(_several_blocks(parsed, marker_name))
    return parsed.blocks[0] if parsed.blocks else None


def check_entry_id(entry_id: str) -> None:
    if not ENTRY_ID_PATTERN.fullmatch(entry_id):
        raise ManagedBlockError(
            f"malformed entry ID {entry_id!r}; expected a form like LRN-20261129-a7b"
        )


def bullet_indexes(parsed: Parsed, block: Block) -> list[tuple[int, re.Match[str]]]:
    found = []
    for index in range(block.begin + 1, block.end):
        match = BULLET.fullmatch(content(parsed.lines[index]))
        if match:
            found.append((index, match))
    return found


# --------------------------------------------------------------------------- content hash


def digest(inner_lines: Sequence[str]) -> str:
    """The short hash of a block's content: every line between the markers, line endings
    dropped (a CRLF checkout is not an edit), joined by ``\\n``."""
    import hashlib  # imported here: only a hashed block needs it, and the module must load fast

    joined = "\n".join(content(line) for line in inner_lines)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


def _split_begin(line: str) -> tuple[str, str | None, str]:
    """A begin line's content as (head, stored hash or None, closing ``-->`` with its spaces).

    String operations, not a regex: a begin line comes from the repository, and a pattern with
    an optional run of spaces before ``sha:`` backtracks quadratically on a long run of spaces.
    """
    bare = content(line)
    body = bare.rstrip(" \t")
    trailing = bare[len(body) :]
    before = body.removesuffix("-->")  # the parser only pairs lines ending so
    core = before.rstrip(" \t")
    close = before[len(core) :] + "-->" + trailing
    word_start = max(core.rfind(" "), core.rfind("\t")) + 1
    if word_start > 0 and _HASH_WORD.fullmatch(core[word_start:]):
        return core[:word_start].rstrip(" \t"), core[word_start + len(HASH_PREFIX) :], close
    return core, None, close


def stamp(line: str, value: str) -> str:
    """The begin line with ``sha:DIGEST`` as its last word (replacing any), its ending kept."""
    head, _, close = _split_begin(line)
    if close[:1] not in (" ", "\t"):
        close = " " + close
    return f"{head} {HASH_PREFIX}{value}{close}{ending(line)}"


def stale_hash(lines: Sequence[str], block: Block) -> str | None:
    """The stored hash when it no longer matches the content (a hand edit), else None."""
    stored = _split_begin(lines[block.begin])[1]
    if stored is None or stored == digest(lines[block.begin + 1 : block.end]):
        return None
    return stored


def restamp(lines: list[str], begin: int, end: int, stale: str | None) -> None:
    """Rewrite the hash of the block at ``begin``..``end`` after one of our edits, in place.

    A block that was edited by hand keeps its stale hash: our edit must not turn the user's (or
    anyone's) unreviewed change into one that looks like ours. ``review`` shows the hand edit
    and re-hashes it only when the user accepts it (:func:`rehash`).
    """
    lines[begin] = stamp(lines[begin], stale or digest(lines[begin + 1 : end]))


def rehash(text: str, marker_name: str = RULES_MARKER) -> str:
    """Every block of ``marker_name`` with the hash of its current content: accepting whatever
    it now holds (a reviewed hand edit, a merge). Damaged markers are refused; no block, no
    change."""
    parsed = parse(text, marker_name)
    lines = list(parsed.lines)
    for block in parsed.blocks:
        lines[block.begin] = stamp(lines[block.begin], digest(lines[block.begin + 1 : block.end]))
    return "".join(lines)


# --------------------------------------------------------------------------- reading rules


@dataclass(frozen=True)
class BlockCheck:
    """One block as :func:`scan_rules` found it; lines are 1-based."""

    begin_line: int
    end_line: int
    stored_hash: str | None  # None: a block written before blocks were hashed
    actual_hash: str
    content: tuple[str, ...]  # the lines between the markers, without their endings
    rules: tuple[Rule, ...]

    @property
    def edited_by_hand(self) -> bool:
        return self.stored_hash is not None and self.stored_hash != self.actual_hash


@dataclass(frozen=True)
class BlockScan:
    """What a text holds of a rules marker, never raising: for ``lint`` and drift checks."""

    blocks: tuple[BlockCheck, ...]
    damage_line: int | None  # 1-based line of the first damaged marker, None when intact
    damage: str  # the same message an edit would refuse with; "" when intact
    loose_ids: frozenset[str]  # entry IDs of rule-shaped lines outside fences (all of them)


def _rules_of(parsed: Parsed, block: Block) -> tuple[Rule, ...]:
    return tuple(
        Rule(entry_id=match["id"], text=match["text"], line=index + 1)
        for index, match in bullet_indexes(parsed, block)
    )


def scan_rules(text: str, marker_name: str = RULES_MARKER) -> BlockScan:
    """The rule blocks of ``text`` with their hashes, and any damage (two blocks included)."""
    parsed, damage = scan(text, marker_name)
    if damage is None and len(parsed.blocks) > 1:
        damage = (parsed.blocks[1].begin, _several_blocks(parsed, marker_name))
    blocks = []
    for block in parsed.blocks:
        stored = _split_begin(parsed.lines[block.begin])[1]
        inner = parsed.lines[block.begin + 1 : block.end]
        blocks.append(
            BlockCheck(
                block.begin + 1, block.end + 1, stored, digest(inner), tuple(content(x) for x in inner), _rules_of(parsed, block)
            )
        )
    loose = frozenset(
        match["id"]
        for index, line in enumerate(parsed.lines)
        if not parsed.fenced[index] and (match := BULLET.fullmatch(content(line)))
    )
    return BlockScan(
        blocks=tuple(blocks),
        damage_line=None if damage is None else damage[0] + 1,
        damage="" if damage is None else damage[1],
        loose_ids=loose,
    )


def block_span(text: str, marker_name: str = RULES_MARKER) -> tuple[int, int] | None:
    """0-based indexes of the begin and end marker lines of the one block (lines end at ``\\n``,
    fenced code ignored); None when there is none. Damaged markers, or several blocks, raise
    :class:`ManagedBlockError`, as every edit would."""
    block = single_block(parse(text, marker_name), marker_name)
    return None if block is None else (block.begin, block.end)


def bullet_id(line: str) -> str | None:
    """The entry ID of a rule bullet line (its line ending allowed); None for any other line."""
    match = BULLET.fullmatch(content(line))
    return match["id"] if match else None


def list_rules(text: str, *, marker_name: str = RULES_MARKER) -> list[Rule]:
    """The rule bullets in the block, in file order."""
    parsed = parse(text, marker_name)
    block = single_block(parsed, marker_name)
    return [] if block is None else list(_rules_of(parsed, block))


def has_rule(text: str, entry_id: str, *, marker_name: str = RULES_MARKER) -> bool:
    check_entry_id(entry_id)
    return any(rule.entry_id == entry_id for rule in list_rules(text, marker_name=marker_name))
