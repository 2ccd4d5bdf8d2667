"""The one place that edits text between self-improve's markers, and the public face of the grammar.

Every module that reads or writes a managed block imports it from here: the grammar itself
(markers, rule bullets, the ``sha:`` hash) is in :mod:`block_grammar`, the file layer in
:mod:`block_file`, and both are re-exported. The edits are pure ``str -> str`` functions over the
whole file text; every refusal raises :class:`ManagedBlockError` *before* anything is changed,
so an edit is all or nothing.

Rules we follow so that promote-then-retire-all gives the user's file back byte for byte:

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

* **Hash**: ``upsert_rule`` and ``remove_rule`` rewrite it, except in a block whose stored hash
  already disagrees with its content: that one keeps its stale hash, so our edit never passes
  an unreviewed hand edit off as ours (``review`` shows it, and :func:`rehash` accepts it).
  ``upsert_block`` hashes the body it writes for the rules marker; the OpenClaw reminder block
  has no hash (it is rendered whole on every install and sweep, so no hand edit survives).
  A block without a hash gets one on its next edit.
* **Code fences**: we refuse to append a block after an unclosed fence, because the fence would
  swallow it and the next run would append another.
"""

from __future__ import annotations

import re

from self_improve.changes import PlannedChange, lines_of
from self_improve.review import block_grammar as g
from self_improve.review.block_file import edit_file as edit_file
from self_improve.review.block_grammar import DEFAULT_HEADING as DEFAULT_HEADING
from self_improve.review.block_grammar import ENTRY_ID_PATTERN as ENTRY_ID_PATTERN
from self_improve.review.block_grammar import HASH_LENGTH as HASH_LENGTH
from self_improve.review.block_grammar import HASH_PREFIX as HASH_PREFIX
from self_improve.review.block_grammar import OPENCLAW_MARKER as OPENCLAW_MARKER
from self_improve.review.block_grammar import RULES_MARKER as RULES_MARKER
from self_improve.review.block_grammar import RULES_NOTE as RULES_NOTE
from self_improve.review.block_grammar import BlockCheck as BlockCheck
from self_improve.review.block_grammar import BlockScan as BlockScan
from self_improve.review.block_grammar import ManagedBlockError as ManagedBlockError
from self_improve.review.block_grammar import Rule as Rule
from self_improve.review.block_grammar import begin_prefix as begin_prefix
from self_improve.review.block_grammar import block_span as block_span
from self_improve.review.block_grammar import bullet_id as bullet_id
from self_improve.review.block_grammar import end_marker as end_marker
from self_improve.review.block_grammar import has_rule as has_rule
from self_improve.review.block_grammar import list_rules as list_rules
from self_improve.review.block_grammar import rehash as rehash
from self_improve.review.block_grammar import scan_rules as scan_rules
from self_improve.store.fences import opening_fence

FileEdit = PlannedChange
"""What :func:`edit_file` did (or would do): the planned change of one file."""

OPENCLAW_FILE_LIMIT = 20_000
"""OpenClaw cuts a bootstrap file longer than this many characters (JavaScript string length)."""

_OCCUPYING_HEADING = re.compile(r" {0,3}#{1,6}[ \t].*\bself[- ]?improvement", re.IGNORECASE)
_OCCUPYING_PHRASE = re.compile(r"\bself[- ]?improvement reminder\b", re.IGNORECASE)


# --------------------------------------------------------------------------- separators


def _dominant_ending(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _append_block(text: str, parsed: g.Parsed, block_lines: list[str]) -> str:
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


def _without_block(lines: list[str], block: g.Block) -> list[str]:
    """Cut a block's lines, plus the separator we added when it is still exactly at the end."""
    before = "".join(lines[: block.begin])
    after = lines[block.end + 1 :]
    if after:
        head = lines[: block.begin]
        if g.content(after[0]) == "":
            # Blank lines on both sides: one of them is the separator we wrote (or the user
            # wrote around a block they moved); keeping both would leave a double gap. A block
            # that starts the file had no separator before it, so the gap after it is the one.
            if not head:
                after = after[1:]
            elif len(head) >= 2 and g.content(head[-1]) == "":
                head = head[:-1]
        return head + after
    eol = g.ending(lines[block.begin])  # the separator was written with the block's own ending
    if g.ending(lines[block.end]):
        trimmed = before[: -len(eol)]
        if before.endswith(eol) and trimmed.endswith("\n"):
            before = trimmed
    else:
        trimmed = before[: -2 * len(eol)]
        if before.endswith(eol + eol) and trimmed and not trimmed.endswith("\n"):
            before = trimmed
    return lines_of(before)


# --------------------------------------------------------------------------- learned rules


def _check_one_line(value: str, what: str, marker_name: str) -> None:
    if "\n" in value or "\r" in value:
        raise ManagedBlockError(f"{what} contains a line break; it must be one line")
    for forbidden in (f"{marker_name}:begin", f"{marker_name}:end", "<!--", "-->"):
        if forbidden in value:
            raise ManagedBlockError(f"{what} contains marker text {forbidden!r}; remove it")


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
    g.check_entry_id(entry_id)
    rule = rule.strip()
    if not rule:
        raise ManagedBlockError("rule is empty")
    _check_one_line(rule, "rule", marker_name)
    _check_one_line(heading, "heading", marker_name)
    if opening_fence(heading) is not None:
        raise ManagedBlockError("heading would open a code fence and hide the end marker")
    bullet = f"- {rule} <!-- {entry_id} -->"
    parsed = g.parse(text, marker_name)
    block = g.single_block(parsed, marker_name)
    if block is None:
        begin = g.stamp(g.begin_line(marker_name, RULES_NOTE), g.digest([heading, bullet]))
        return _append_block(text, parsed, [begin, heading, bullet, g.end_marker(marker_name)])

    lines = list(parsed.lines)
    stale = g.stale_hash(lines, block)
    bullets = g.bullet_indexes(parsed, block)
    same_id = [index for index, match in bullets if match["id"] == entry_id]
    if same_id:
        first, *duplicates = same_id
        # Keep the line's own ending so a re-run never flips CRLF/LF on a mixed file.
        lines[first] = bullet + g.ending(lines[first])
        for index in reversed(duplicates):  # hand-copied duplicates would shadow the new text
            del lines[index]
    else:
        insert_at = bullets[-1][0] + 1 if bullets else block.end
        lines.insert(insert_at, bullet + g.ending(lines[block.begin]))
    g.restamp(lines, block.begin, block.end + len(lines) - len(parsed.lines), stale)
    return "".join(lines)


def remove_rule(text: str, entry_id: str, *, marker_name: str = RULES_MARKER) -> str:
    """Remove the bullet for ``entry_id``; when no rule bullet is left, remove the whole block
    and the separator we added. An absent ID returns ``text`` unchanged."""
    g.check_entry_id(entry_id)
    parsed = g.parse(text, marker_name)
    block = g.single_block(parsed, marker_name)
    if block is None:
        return text
    bullets = g.bullet_indexes(parsed, block)
    doomed = [index for index, match in bullets if match["id"] == entry_id]
    if not doomed:
        return text
    if len(doomed) == len(bullets):
        # The block only exists to hold rules: with none left it goes, heading and all.
        return "".join(_without_block(list(parsed.lines), block))
    lines = list(parsed.lines)
    stale = g.stale_hash(lines, block)
    for index in reversed(doomed):
        del lines[index]
    g.restamp(lines, block.begin, block.end - len(doomed), stale)
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
    for marker_text in (g.begin_prefix(marker_name), g.end_marker(marker_name)):
        if marker_text in body:
            raise ManagedBlockError(f"block body contains marker text {marker_text!r}; remove it")
    body_parsed = g.parse(body, marker_name)
    if body_parsed.open_fence_line is not None:
        raise ManagedBlockError(
            f"block body leaves the code fence on its line {body_parsed.open_fence_line} open; "
            "close it"
        )
    body_lines = [g.content(line) for line in body_parsed.lines]
    begin_line = g.begin_line(marker_name, note)
    if marker_name == RULES_MARKER:  # the caller wrote the whole body: its hash is the new one
        begin_line = g.stamp(begin_line, g.digest(body_lines))
    parsed = g.parse(text, marker_name)
    if not parsed.blocks:
        return _append_block(text, parsed, [begin_line, *body_lines, g.end_marker(marker_name)])

    first, *duplicates = parsed.blocks
    lines = list(parsed.lines)
    for block in reversed(duplicates):  # back to front: earlier indexes stay valid
        lines = _without_block(lines, block)
    eol = g.ending(lines[first.begin])
    # Keep the end line's own terminator: a block that ends the file without a newline must
    # keep doing so, or removing it later could not give back the user's original bytes.
    end_terminator = g.ending(lines[first.end])
    replacement = [line + eol for line in (begin_line, *body_lines)]
    replacement.append(g.end_marker(marker_name) + end_terminator)
    lines[first.begin : first.end + 1] = replacement
    return "".join(lines)


def remove_block(text: str, *, marker_name: str = OPENCLAW_MARKER) -> str:
    """Remove every block of ``marker_name`` and the separators we added; no block: unchanged."""
    parsed = g.parse(text, marker_name)
    lines = list(parsed.lines)
    for block in reversed(parsed.blocks):
        lines = _without_block(lines, block)
    return "".join(lines)


def check_occupied(text: str, *, marker_name: str = OPENCLAW_MARKER) -> str | None:
    """A reason to refuse when the user already keeps their own self-improvement reminder
    outside our markers (a heading mentioning self-improvement, or the phrase
    "self-improvement reminder"); ``None`` when the place is free. Fenced code is ignored."""
    parsed = g.parse(text, marker_name)
    ours = {i for block in parsed.blocks for i in range(block.begin, block.end + 1)}
    for index, line in enumerate(parsed.lines):
        if index in ours or parsed.fenced[index]:
            continue
        content = g.content(line)
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
