"""The one place that edits text between self-improve's markers.

A managed block looks like this (exact bytes, with the file's own line ending)::

    <!-- self-improve:begin (managed by `self-improve review`; edit the rules there) sha:d38661c2 -->
    ## Learned rules
    - Use `pnpm install`, not npm: this repo is a pnpm workspace. <!-- LRN-20261129-a7b -->
    <!-- self-improve:end -->

Everything here is a pure ``str -> str`` function over the whole file text, built on a single
parser (:func:`_parse`), plus a thin file layer (:func:`edit_file`). Every refusal raises
:class:`ManagedBlockError` *before* anything is changed, so an edit is all or nothing.

Rules we follow so that promote-then-retire-all gives the user's file back byte for byte:

* **Lines** end at ``\\n`` only; a ``\\r`` before it is part of the line ending (CRLF). Lone
  ``\\r``, ``\\x0b``, ``\\u2028`` and friends are ordinary characters: we never re-break user text.
* **Line ending of a new block**: the file's dominant ending (more CRLF than bare LF means CRLF;
  ties and files without any newline mean LF). Once a block exists, its *begin line's* ending is
  the block's ending: new bullets use it and a replaced line keeps its own, so re-running an edit
  is byte-stable even when the file has mixed endings.
* **Appending a block** to text ``T`` (no block yet):

  - ``T == ""``: the result is the block alone, with a final newline.
  - ``T`` ends with ``\\n``: ``T + EOL + block + EOL`` (one blank line; the block keeps a
    final newline).
  - ``T`` does not end with ``\\n``: ``T + EOL + EOL + block`` -- the newline ``T`` lacked, one
    blank line, and the block *without* a final newline. ``T`` and ``T + "\\n"`` would otherwise
    give the same bytes; mirroring the user's "no final newline" on our last line keeps the two
    apart without recording anything anywhere.

* **Removing the last block** undoes exactly that, and only when the block is still the last
  thing in the file (``EOL`` is the block's begin-line ending):

  - block ends with a newline and the text before it is ``T + EOL`` with ``T`` ending in ``\\n``:
    strip that ``EOL`` (the blank line);
  - block has no final newline and the text before it is ``T + EOL + EOL`` with ``T`` non-empty
    and not ending in ``\\n``: strip both;
  - a block with a blank line both before and after it (the user wrote after it, moved it, or a
    second block follows it): remove the block and the blank line before it; a block that
    starts the file takes the blank line after it. No double gap is left, and removing several
    blocks (rules and OpenClaw reminder in one file) in any order still restores the original;
  - anything else (e.g. the user removed the blank line): remove only the block's own lines.

* **Hash**: a rule block's begin marker ends with ``sha:`` and 8 hex digits of the SHA-256 of
  the lines between the markers (line endings dropped), so ``lint`` can tell a block edited by
  hand. ``upsert_rule`` and ``remove_rule`` rewrite it, except in a block whose stored hash
  already disagrees with its content: that one keeps its stale hash, so our edit never passes
  an unreviewed hand edit off as ours (``review`` shows it, and :func:`rehash` accepts it).
  ``upsert_block`` hashes the body it writes for the rules marker; the OpenClaw reminder block
  has no hash (it is rendered whole on every install and sweep, so no hand edit survives).
  A block without a hash (written before hashing) parses as before and gets one on its next
  edit.
* **Code fences**: markers inside ````` ``` ````` / ``~~~`` fenced code (CommonMark rules: up to
  three spaces of indent, a closing fence of the same character at least as long, an unclosed
  fence runs to the end of the file) are user text, not ours. We refuse to append a block after
  an unclosed fence, because the fence would swallow it and the next run would append another.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

RULES_MARKER = "self-improve"
"""Marker name of the learned-rules block in CLAUDE.md / AGENTS.md / copilot-instructions.md."""

OPENCLAW_MARKER = "self-improve:openclaw"
"""Marker name of the OpenClaw reminder block, distinct so it can share AGENTS.md with the rules."""

RULES_NOTE = "(managed by `self-improve review`; edit the rules there)"
DEFAULT_HEADING = "## Learned rules"
OPENCLAW_FILE_LIMIT = 20_000
"""OpenClaw cuts a bootstrap file longer than this many characters (JavaScript string length)."""

HASH_PREFIX = "sha:"
HASH_LENGTH = 8
"""A rule block's begin marker ends with ``sha:`` and the first 8 hex digits of the SHA-256 of
its content, e.g. ``<!-- self-improve:begin (managed by ...) sha:1a2b3c4d -->``."""
_HASH_WORD = re.compile(r"sha:[0-9a-f]{8}")

ENTRY_ID_PATTERN = re.compile(r"[A-Z]+-\d{8}-[A-Za-z0-9]+")
# A rule bullet: "- <text> <!-- ID -->". Leading indent and trailing spaces are tolerated when
# reading (a user may re-indent); we always write the canonical form.
_BULLET = re.compile(r"[ \t]*- (?P<text>.*?)[ \t]*<!-- (?P<id>[A-Z]+-\d{8}-[A-Za-z0-9]+) -->[ \t]*")
_FENCE_OPEN = re.compile(r"(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)")
_OCCUPYING_HEADING = re.compile(r" {0,3}#{1,6}[ \t].*\bself[- ]?improvement", re.IGNORECASE)
_OCCUPYING_PHRASE = re.compile(r"\bself[- ]?improvement reminder\b", re.IGNORECASE)


class ManagedBlockError(ValueError):
    """A refused edit; the message is one line a user can act on. Nothing was changed."""


@dataclass(frozen=True)
class Rule:
    """One learned-rule bullet. ``line`` is 1-based in the text it was listed from."""

    entry_id: str
    text: str
    line: int


@dataclass(frozen=True)
class FileEdit:
    """What :func:`edit_file` did (or would do). ``None`` bytes mean "no such file"."""

    path: Path
    before: bytes | None
    after: bytes | None
    diff: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


# --------------------------------------------------------------------------- parsing core


@dataclass(frozen=True)
class _Block:
    begin: int  # index into _Parsed.lines of the begin marker line
    end: int  # index of the end marker line


@dataclass(frozen=True)
class _Parsed:
    lines: tuple[str, ...]  # each line keeps its terminator; "".join(lines) is the text
    blocks: tuple[_Block, ...]
    fenced: tuple[bool, ...]  # per line: inside (or delimiting) a fenced code block
    open_fence_line: int | None  # 1-based line of a fence left open at the end of the text


def _split_lines(text: str) -> list[str]:
    """Split after every ``\\n`` only (str.splitlines would also split on \\x0b, \\u2028, ...)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _ending(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""


def _content(line: str) -> str:
    return line[: len(line) - len(_ending(line))]


def _dominant_ending(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _begin_prefix(marker_name: str) -> str:
    return f"<!-- {marker_name}:begin"


def _end_marker(marker_name: str) -> str:
    return f"<!-- {marker_name}:end -->"


def _begin_line(marker_name: str, note: str) -> str:
    prefix = _begin_prefix(marker_name)
    return f"{prefix} {note} -->" if note else f"{prefix} -->"


def _scan(text: str, marker_name: str) -> tuple[_Parsed, tuple[int, str] | None]:
    """Find our blocks, ignoring fenced code, and the first damaged marker as (line index,
    message); the blocks are those paired before the damage. Several blocks are not damage here
    (a rules block allows one, see :func:`_single_block`; generic blocks collapse duplicates)."""
    lines = _split_lines(text)
    begin_prefix, end_marker = _begin_prefix(marker_name), _end_marker(marker_name)
    fenced: list[bool] = []
    events: list[tuple[str, int]] = []  # ("begin" | "end", line index), outside fences only
    fence: tuple[str, int, int] | None = None  # (fence character, length, opening line index)
    for index, line in enumerate(lines):
        content = _content(line)
        if fence is not None:
            fenced.append(True)
            char, length, _ = fence
            stripped = content.lstrip(" ")
            run = len(stripped) - len(stripped.lstrip(char))
            indent = len(content) - len(stripped)
            if indent <= 3 and run >= length and not stripped[run:].strip(" \t"):
                fence = None
            continue
        opening = _FENCE_OPEN.fullmatch(content)
        # A backtick fence's info string may not contain backticks (CommonMark 4.5).
        if opening and not (opening["fence"][0] == "`" and "`" in opening["info"]):
            fence = (opening["fence"][0], len(opening["fence"]), index)
            fenced.append(True)
            continue
        fenced.append(False)
        # A UTF-8 BOM is not whitespace to str.strip, but it is invisible to the user.
        stripped = content.strip().lstrip("\ufeff") if index == 0 else content.strip()
        if stripped.startswith(begin_prefix) and stripped.endswith("-->"):
            events.append(("begin", index))
        elif stripped == end_marker:
            events.append(("end", index))

    blocks, damage = _pair_markers(events, marker_name)
    parsed = _Parsed(
        lines=tuple(lines),
        blocks=tuple(blocks),
        fenced=tuple(fenced),
        open_fence_line=None if fence is None else fence[2] + 1,
    )
    return parsed, damage


def _pair_markers(events: list[tuple[str, int]], marker_name: str) -> tuple[list[_Block], tuple[int, str] | None]:
    damaged = f"damaged {marker_name} markers:"
    blocks: list[_Block] = []
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
            blocks.append(_Block(open_begin, index))
            open_begin = None
    if open_begin is not None:
        return blocks, (
            open_begin,
            f"{damaged} begin marker on line {open_begin + 1} has no end marker; fix them by hand",
        )
    return blocks, None


def _parse(text: str, marker_name: str) -> _Parsed:
    """Find our blocks, ignoring fenced code; raise on damaged markers (not on several blocks)."""
    parsed, damage = _scan(text, marker_name)
    if damage is not None:
        raise ManagedBlockError(damage[1])
    return parsed


def _several_blocks(parsed: _Parsed, marker_name: str) -> str:
    where = ", ".join(str(block.begin + 1) for block in parsed.blocks)
    return (
        f"damaged {marker_name} markers: {len(parsed.blocks)} blocks (begin on lines "
        f"{where}), expected at most one; fix them by hand"
    )


def _single_block(parsed: _Parsed, marker_name: str) -> _Block | None:
    """The rules block, if any. Two rule blocks are refused: we cannot tell which one is right."""
    if len(parsed.blocks) > 1:
        raise ManagedBlockError(_several_blocks(parsed, marker_name))
    return parsed.blocks[0] if parsed.blocks else None


def _append_block(text: str, parsed: _Parsed, block_lines: list[str]) -> str:
    """Append a new block after the user's text with the separator described in the module doc."""
    if parsed.open_fence_line is not None:
        raise ManagedBlockError(
            f"code fence opened on line {parsed.open_fence_line} is never closed; close it so "
            "the managed block is not swallowed by it"
        )
    eol = _dominant_ending(text)
    block = eol.join(block_lines)
    if text == "":
        return block + eol
    if text.endswith("\n"):
        return text + eol + block + eol
    return text + eol + eol + block


def _without_block(lines: list[str], block: _Block) -> list[str]:
    """Cut a block's lines, plus the separator we added when it is still exactly at the end."""
    before = "".join(lines[: block.begin])
    after = lines[block.end + 1 :]
    if after:
        head = lines[: block.begin]
        if _content(after[0]) == "":
            # Blank lines on both sides: one of them is the separator we wrote (or the user
            # wrote around a block they moved); keeping both would leave a double gap. A block
            # that starts the file had no separator before it, so the gap after it is the one.
            if not head:
                after = after[1:]
            elif len(head) >= 2 and _content(head[-1]) == "":
                head = head[:-1]
        return head + after
    eol = _ending(lines[block.begin])  # the separator was written with the block's own ending
    if _ending(lines[block.end]):
        head = before[: -len(eol)]
        if before.endswith(eol) and head.endswith("\n"):
            before = head
    else:
        head = before[: -2 * len(eol)]
        if before.endswith(eol + eol) and head and not head.endswith("\n"):
            before = head
    return _split_lines(before)


def _check_one_line(value: str, what: str, marker_name: str) -> None:
    if "\n" in value or "\r" in value:
        raise ManagedBlockError(f"{what} contains a line break; it must be one line")
    for forbidden in (f"{marker_name}:begin", f"{marker_name}:end", "<!--", "-->"):
        if forbidden in value:
            raise ManagedBlockError(f"{what} contains marker text {forbidden!r}; remove it")


def _check_entry_id(entry_id: str) -> None:
    if not ENTRY_ID_PATTERN.fullmatch(entry_id):
        raise ManagedBlockError(
            f"malformed entry ID {entry_id!r}; expected a form like LRN-20261129-a7b"
        )


def _bullet_indexes(parsed: _Parsed, block: _Block) -> list[tuple[int, re.Match[str]]]:
    found = []
    for index in range(block.begin + 1, block.end):
        match = _BULLET.fullmatch(_content(parsed.lines[index]))
        if match:
            found.append((index, match))
    return found


# --------------------------------------------------------------------------- content hash


def _digest(inner_lines: Sequence[str]) -> str:
    """The short hash of a block's content: every line between the markers, line endings
    dropped (a CRLF checkout is not an edit), joined by ``\\n``."""
    import hashlib  # see _unified_diff

    joined = "\n".join(_content(line) for line in inner_lines)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LENGTH]


def _split_begin(line: str) -> tuple[str, str | None, str]:
    """A begin line's content as (head, stored hash or None, closing ``-->`` with its spaces).

    String operations, not a regex: a begin line comes from the repository, and a pattern with
    an optional run of spaces before ``sha:`` backtracks quadratically on a long run of spaces.
    """
    content = _content(line)
    body = content.rstrip(" \t")
    trailing = content[len(body) :]
    before = body.removesuffix("-->")  # the parser only pairs lines ending so
    core = before.rstrip(" \t")
    close = before[len(core) :] + "-->" + trailing
    word_start = max(core.rfind(" "), core.rfind("\t")) + 1
    if word_start > 0 and _HASH_WORD.fullmatch(core[word_start:]):
        return core[:word_start].rstrip(" \t"), core[word_start + len(HASH_PREFIX) :], close
    return core, None, close


def _stamp(line: str, digest: str) -> str:
    """The begin line with ``sha:DIGEST`` as its last word (replacing any), its ending kept."""
    head, _, close = _split_begin(line)
    if close[:1] not in (" ", "\t"):
        close = " " + close
    return f"{head} {HASH_PREFIX}{digest}{close}{_ending(line)}"


def _stale_hash(lines: Sequence[str], block: _Block) -> str | None:
    """The stored hash when it no longer matches the content (a hand edit), else None."""
    stored = _split_begin(lines[block.begin])[1]
    if stored is None or stored == _digest(lines[block.begin + 1 : block.end]):
        return None
    return stored


def _restamp(lines: list[str], begin: int, end: int, stale: str | None) -> None:
    """Rewrite the hash of the block at ``begin``..``end`` after one of our edits, in place.

    A block that was edited by hand keeps its stale hash: our edit must not turn the user's (or
    anyone's) unreviewed change into one that looks like ours. ``review`` shows the hand edit
    and re-hashes it only when the user accepts it (:func:`rehash`).
    """
    lines[begin] = _stamp(lines[begin], stale or _digest(lines[begin + 1 : end]))


def rehash(text: str, marker_name: str = RULES_MARKER) -> str:
    """Every block of ``marker_name`` with the hash of its current content: accepting whatever
    it now holds (a reviewed hand edit, a merge). Damaged markers are refused; no block, no
    change."""
    parsed = _parse(text, marker_name)
    lines = list(parsed.lines)
    for block in parsed.blocks:
        lines[block.begin] = _stamp(lines[block.begin], _digest(lines[block.begin + 1 : block.end]))
    return "".join(lines)


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


def scan_rules(text: str, marker_name: str = RULES_MARKER) -> BlockScan:
    """The rule blocks of ``text`` with their hashes, and any damage (two blocks included)."""
    parsed, damage = _scan(text, marker_name)
    if damage is None and len(parsed.blocks) > 1:
        damage = (parsed.blocks[1].begin, _several_blocks(parsed, marker_name))
    blocks = []
    for block in parsed.blocks:
        stored = _split_begin(parsed.lines[block.begin])[1]
        inner = parsed.lines[block.begin + 1 : block.end]
        rules = tuple(
            Rule(entry_id=match["id"], text=match["text"], line=index + 1)
            for index, match in _bullet_indexes(parsed, block)
        )
        blocks.append(
            BlockCheck(block.begin + 1, block.end + 1, stored, _digest(inner), tuple(_content(x) for x in inner), rules)
        )
    loose = frozenset(
        match["id"]
        for index, line in enumerate(parsed.lines)
        if not parsed.fenced[index] and (match := _BULLET.fullmatch(_content(line)))
    )
    return BlockScan(
        blocks=tuple(blocks),
        damage_line=None if damage is None else damage[0] + 1,
        damage="" if damage is None else damage[1],
        loose_ids=loose,
    )


# --------------------------------------------------------------------------- learned rules


def list_rules(text: str, *, marker_name: str = RULES_MARKER) -> list[Rule]:
    """The rule bullets in the block, in file order."""
    parsed = _parse(text, marker_name)
    block = _single_block(parsed, marker_name)
    if block is None:
        return []
    return [
        Rule(entry_id=match["id"], text=match["text"], line=index + 1)
        for index, match in _bullet_indexes(parsed, block)
    ]


def has_rule(text: str, entry_id: str, *, marker_name: str = RULES_MARKER) -> bool:
    _check_entry_id(entry_id)
    return any(rule.entry_id == entry_id for rule in list_rules(text, marker_name=marker_name))


def upsert_rule(
    text: str,
    entry_id: str,
    rule: str,
    heading: str = DEFAULT_HEADING,
    *,
    marker_name: str = RULES_MARKER,
) -> str:
    """Add or replace the bullet for ``entry_id``; create the block (with ``heading``) if needed.

    ``heading`` is only written when the block is created. Surrounding spaces of ``rule`` are
    dropped. Idempotent: the same (id, rule) twice gives byte-identical text.
    """
    _check_entry_id(entry_id)
    rule = rule.strip()
    if not rule:
        raise ManagedBlockError("rule is empty")
    _check_one_line(rule, "rule", marker_name)
    _check_one_line(heading, "heading", marker_name)
    if _FENCE_OPEN.fullmatch(heading):
        raise ManagedBlockError("heading would open a code fence and hide the end marker")
    bullet = f"- {rule} <!-- {entry_id} -->"
    parsed = _parse(text, marker_name)
    block = _single_block(parsed, marker_name)
    if block is None:
        begin = _stamp(_begin_line(marker_name, RULES_NOTE), _digest([heading, bullet]))
        return _append_block(text, parsed, [begin, heading, bullet, _end_marker(marker_name)])

    lines = list(parsed.lines)
    stale = _stale_hash(lines, block)
    bullets = _bullet_indexes(parsed, block)
    same_id = [index for index, match in bullets if match["id"] == entry_id]
    if same_id:
        first, *duplicates = same_id
        # Keep the line's own ending so a re-run never flips CRLF/LF on a mixed file.
        lines[first] = bullet + _ending(lines[first])
        for index in reversed(duplicates):  # hand-copied duplicates would shadow the new text
            del lines[index]
    else:
        insert_at = bullets[-1][0] + 1 if bullets else block.end
        lines.insert(insert_at, bullet + _ending(lines[block.begin]))
    _restamp(lines, block.begin, block.end + len(lines) - len(parsed.lines), stale)
    return "".join(lines)


def remove_rule(text: str, entry_id: str, *, marker_name: str = RULES_MARKER) -> str:
    """Remove the bullet for ``entry_id``; when no rule bullet is left, remove the whole block
    and the separator we added. An absent ID returns ``text`` unchanged."""
    _check_entry_id(entry_id)
    parsed = _parse(text, marker_name)
    block = _single_block(parsed, marker_name)
    if block is None:
        return text
    bullets = _bullet_indexes(parsed, block)
    doomed = [index for index, match in bullets if match["id"] == entry_id]
    if not doomed:
        return text
    if len(doomed) == len(bullets):
        # The block only exists to hold rules: with none left it goes, heading and all.
        return "".join(_without_block(list(parsed.lines), block))
    lines = list(parsed.lines)
    stale = _stale_hash(lines, block)
    for index in reversed(doomed):
        del lines[index]
    _restamp(lines, block.begin, block.end - len(doomed), stale)
    return "".join(lines)


# --------------------------------------------------------------------------- generic blocks


def upsert_block(
    text: str, body: str, *, marker_name: str = OPENCLAW_MARKER, note: str = ""
) -> str:
    """Make the text hold exactly one block of ``marker_name`` whose content is ``body``.

    The first existing block keeps its position; later duplicates are removed together with the
    separator we added for them. No byte outside the markers changes. ``note`` goes into the
    begin marker (``<!-- NAME:begin NOTE -->``), e.g. to say which command manages the block.
    For the rules marker the begin marker also gets the hash of ``body`` (any ``sha:`` word at
    the end of ``note`` is replaced).
    """
    _check_one_line(note, "note", marker_name)
    for marker_text in (_begin_prefix(marker_name), _end_marker(marker_name)):
        if marker_text in body:
            raise ManagedBlockError(f"block body contains marker text {marker_text!r}; remove it")
    body_parsed = _parse(body, marker_name)
    if body_parsed.open_fence_line is not None:
        raise ManagedBlockError(
            f"block body leaves the code fence on its line {body_parsed.open_fence_line} open; "
            "close it"
        )
    body_lines = [_content(line) for line in body_parsed.lines]
    begin_line = _begin_line(marker_name, note)
    if marker_name == RULES_MARKER:  # the caller wrote the whole body: its hash is the new one
        begin_line = _stamp(begin_line, _digest(body_lines))
    parsed = _parse(text, marker_name)
    if not parsed.blocks:
        return _append_block(text, parsed, [begin_line, *body_lines, _end_marker(marker_name)])

    first, *duplicates = parsed.blocks
    lines = list(parsed.lines)
    for block in reversed(duplicates):  # back to front: earlier indexes stay valid
        lines = _without_block(lines, block)
    eol = _ending(lines[first.begin])
    # Keep the end line's own terminator: a block that ends the file without a newline must
    # keep doing so, or removing it later could not give back the user's original bytes.
    end_terminator = _ending(lines[first.end])
    replacement = [line + eol for line in (begin_line, *body_lines)]
    replacement.append(_end_marker(marker_name) + end_terminator)
    lines[first.begin : first.end + 1] = replacement
    return "".join(lines)


def remove_block(text: str, *, marker_name: str = OPENCLAW_MARKER) -> str:
    """Remove every block of ``marker_name`` and the separators we added; no block: unchanged."""
    parsed = _parse(text, marker_name)
    lines = list(parsed.lines)
    for block in reversed(parsed.blocks):
        lines = _without_block(lines, block)
    return "".join(lines)


def check_occupied(text: str, *, marker_name: str = OPENCLAW_MARKER) -> str | None:
    """A reason to refuse when the user already keeps their own self-improvement reminder
    outside our markers (a heading mentioning self-improvement, or the phrase
    "self-improvement reminder"); ``None`` when the place is free. Fenced code is ignored."""
    parsed = _parse(text, marker_name)
    ours = {i for block in parsed.blocks for i in range(block.begin, block.end + 1)}
    for index, line in enumerate(parsed.lines):
        if index in ours or parsed.fenced[index]:
            continue
        content = _content(line)
        if _OCCUPYING_HEADING.match(content) or _OCCUPYING_PHRASE.search(content):
            return (
                f"line {index + 1} already holds a self-improvement section outside the "
                f"{marker_name} markers: {content.strip()!r}"
            )
    return None


def javascript_length(text: str) -> int:
    """Length as OpenClaw (JavaScript) counts it: UTF-16 code units, so an emoji counts 2."""
    return len(text.encode("utf-16-le")) // 2


def fits_limit(text: str, limit: int = OPENCLAW_FILE_LIMIT) -> bool:
    """Whether OpenClaw would inject ``text`` whole (it cuts files over ``limit`` characters)."""
    return javascript_length(text) <= limit


# --------------------------------------------------------------------------- file layer


def _confined_path(path: Path, project_root: Path) -> Path:
    """The absolute target, refused when it is a symlink or resolves outside the root."""
    root = project_root.resolve()
    if not root.is_dir():
        raise ManagedBlockError(f"refusing to edit {path}: project root {root} is not a directory")
    target = path if path.is_absolute() else project_root / path
    if target.is_symlink():
        raise ManagedBlockError(f"refusing to edit {target}: it is a symlink")
    resolved = target.resolve()  # follows symlinked parent directories too
    if not resolved.is_relative_to(root):
        raise ManagedBlockError(f"refusing to edit {target}: it resolves outside {root}")
    if resolved.exists() and not resolved.is_file():
        raise ManagedBlockError(f"refusing to edit {target}: it is not a regular file")
    return resolved


def _unified_diff(before: str, after: str, label: str) -> str:
    import difflib  # imported here: only the file layer needs it, and the module must load fast

    diff_lines = []
    for line in difflib.unified_diff(
        _split_lines(before), _split_lines(after), f"a/{label}", f"b/{label}"
    ):
        if line.endswith("\n"):
            diff_lines.append(line)
        else:  # same convention as git, so a missing final newline stays visible
            diff_lines.append(line + "\n\\ No newline at end of file\n")
    return "".join(diff_lines)


def _planned(target: Path, label: str, before_bytes: bytes | None, edit: Callable[[str], str], keep_empty: bool) -> FileEdit:
    """The pure part of :func:`edit_file`: the new bytes for ``before_bytes`` (None: absent)."""
    try:
        before_text = "" if before_bytes is None else before_bytes.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManagedBlockError(
            f"refusing to edit {target}: not valid UTF-8 (byte {error.start})"
        ) from None
    after_text = edit(before_text)
    after_bytes = None if after_text == "" else after_text.encode("utf-8")
    if after_bytes is None and (before_bytes == b"" or (keep_empty and before_bytes is not None)):
        after_bytes = b""  # an empty file that stays empty is left alone, not deleted
    return FileEdit(
        path=target,
        before=before_bytes,
        after=after_bytes,
        diff=_unified_diff(before_text, after_text, label),
    )


def _temp_dir_for(project_root: Path) -> str | None:
    """Where our temp files go: ``.learnings/.state/`` (git-ignored, same filesystem) when it is
    a real directory, else the user's state dir; never beside the user's file, where a kill
    would leave one in the project root."""
    from self_improve import user_edit  # see _unified_diff

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
) -> FileEdit:
    """Apply a pure text edit to one file inside ``project_root``, safely.

    The file is read as bytes and decoded as strict UTF-8 (no newline translation, so CRLF
    survives). A relative ``path`` is taken relative to ``project_root``. A missing file is
    edited as ``""`` and created (with any missing parent directories inside the root). When the
    edit leaves the text empty, the file is deleted (``keep_empty``: an existing file is emptied
    instead): an empty instruction file and a missing one mean the same to every harness, and
    that is what makes "promote then retire" restore a file that did not exist. Directories we
    created are left in place. The write goes through ``user_edit.edit_user_file``: our lock,
    compare-and-replace (a concurrent writer's change is re-read and the edit re-applied, never
    lost), the file mode kept, a read-only file refused, the temp file in ``.learnings/.state/``.
    With ``dry_run`` nothing is written; the returned diff (a/ b/ paths relative to the root)
    shows what would change. Raises :class:`ManagedBlockError` on any refusal.
    """
    target = _confined_path(Path(path), project_root)
    label = target.relative_to(project_root.resolve()).as_posix()
    planned = _planned(target, label, target.read_bytes() if target.exists() else None, edit, keep_empty)
    if not planned.changed:
        return planned
    from self_improve import user_edit  # see _unified_diff

    # Also in a dry run: plan.simulate must meet every refusal before the first real write.
    problem = user_edit.read_only_problem(str(target))
    if problem is not None:
        raise ManagedBlockError(problem)
    if dry_run:
        return planned
    if not target.parent.is_dir():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ManagedBlockError(
                f"refusing to edit {target}: cannot create {target.parent}: {error.strerror}"
            ) from None
        # Resolve again: a directory created meanwhile could be a symlink pointing outside.
        _confined_path(target, project_root)
    rounds: list[FileEdit] = []

    def bytes_edit(current: bytes | None) -> bytes | None:
        rounds.append(_planned(target, label, current, edit, keep_empty))
        return rounds[-1].after

    try:
        user_edit.edit_user_file(str(target), bytes_edit, temp_dir=_temp_dir_for(project_root))
    except user_edit.EditRefused as exc:
        raise ManagedBlockError(str(exc)) from None
    return rounds[-1]
