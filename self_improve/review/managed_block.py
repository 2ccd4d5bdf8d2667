"""The one place that edits text between self-improve's markers.

A managed block looks like this (exact bytes, with the file's own line ending)::

    <!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->
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

* **Code fences**: markers inside ````` ``` ````` / ``~~~`` fenced code (CommonMark rules: up to
  three spaces of indent, a closing fence of the same character at least as long, an unclosed
  fence runs to the end of the file) are user text, not ours. We refuse to append a block after
  an unclosed fence, because the fence would swallow it and the next run would append another.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
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


def _parse(text: str, marker_name: str) -> _Parsed:
    """Find our blocks, ignoring fenced code; raise on damaged markers (not on several blocks)."""
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

    damaged = f"damaged {marker_name} markers:"
    blocks: list[_Block] = []
    open_begin: int | None = None
    for position, (kind, index) in enumerate(events):
        if kind == "begin":
            if open_begin is not None:
                raise ManagedBlockError(
                    f"{damaged} begin marker on line {index + 1} is nested inside the block "
                    f"opened on line {open_begin + 1}; fix them by hand"
                )
            open_begin = index
        elif open_begin is None:
            later_begin = next((i for k, i in events[position + 1 :] if k == "begin"), None)
            if later_begin is not None:
                raise ManagedBlockError(
                    f"{damaged} end marker on line {index + 1} comes before the begin marker "
                    f"on line {later_begin + 1}; fix them by hand"
                )
            raise ManagedBlockError(
                f"{damaged} end marker on line {index + 1} has no begin marker; fix them by hand"
            )
        else:
            blocks.append(_Block(open_begin, index))
            open_begin = None
    if open_begin is not None:
        raise ManagedBlockError(
            f"{damaged} begin marker on line {open_begin + 1} has no end marker; fix them by hand"
        )
    return _Parsed(
        lines=tuple(lines),
        blocks=tuple(blocks),
        fenced=tuple(fenced),
        open_fence_line=None if fence is None else fence[2] + 1,
    )


def _single_block(parsed: _Parsed, marker_name: str) -> _Block | None:
    """The rules block, if any. Two rule blocks are refused: we cannot tell which one is right."""
    if len(parsed.blocks) > 1:
        where = ", ".join(str(block.begin + 1) for block in parsed.blocks)
        raise ManagedBlockError(
            f"damaged {marker_name} markers: {len(parsed.blocks)} blocks (begin on lines "
            f"{where}), expected at most one; fix them by hand"
        )
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
        begin, end = _begin_line(marker_name, RULES_NOTE), _end_marker(marker_name)
        return _append_block(text, parsed, [begin, heading, bullet, end])

    lines = list(parsed.lines)
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
    for index in reversed(doomed):
        del lines[index]
    return "".join(lines)


# --------------------------------------------------------------------------- generic blocks


def upsert_block(
    text: str, body: str, *, marker_name: str = OPENCLAW_MARKER, note: str = ""
) -> str:
    """Make the text hold exactly one block of ``marker_name`` whose content is ``body``.

    The first existing block keeps its position; later duplicates are removed together with the
    separator we added for them. No byte outside the markers changes. ``note`` goes into the
    begin marker (``<!-- NAME:begin NOTE -->``), e.g. to say which command manages the block.
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
    parsed = _parse(text, marker_name)
    if not parsed.blocks:
        return _append_block(
            text, parsed, [_begin_line(marker_name, note), *body_lines, _end_marker(marker_name)]
        )

    first, *duplicates = parsed.blocks
    lines = list(parsed.lines)
    for block in reversed(duplicates):  # back to front: earlier indexes stay valid
        lines = _without_block(lines, block)
    eol = _ending(lines[first.begin])
    # Keep the end line's own terminator: a block that ends the file without a newline must
    # keep doing so, or removing it later could not give back the user's original bytes.
    end_terminator = _ending(lines[first.end])
    replacement = [line + eol for line in (_begin_line(marker_name, note), *body_lines)]
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


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_atomically(path: Path, data: bytes, mode: int) -> None:
    import tempfile  # see _unified_diff

    descriptor, temp_name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable; not every platform can open a directory
        directory = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory)
    except OSError:
        pass
    finally:
        os.close(directory)


def edit_file(
    path: Path,
    project_root: Path,
    edit: Callable[[str], str],
    *,
    dry_run: bool = False,
) -> FileEdit:
    """Apply a pure text edit to one file inside ``project_root``, safely.

    The file is read as bytes and decoded as strict UTF-8 (no newline translation, so CRLF
    survives). A relative ``path`` is taken relative to ``project_root``. A missing file is
    edited as ``""`` and created (with any missing parent directories inside the root). When the
    edit leaves the text empty, the file is deleted: an empty instruction file and a missing one
    mean the same to every harness, and that is what makes "promote then retire" restore a file
    that did not exist. Directories we created are left in place. Writes are atomic (temp file
    in the same directory, fsync, ``os.replace``) and keep the original file mode. With
    ``dry_run`` nothing is written; the returned diff (a/ b/ paths relative to the root) shows
    what would change. Raises :class:`ManagedBlockError` on any refusal.
    """
    target = _confined_path(Path(path), project_root)
    before_bytes = target.read_bytes() if target.exists() else None
    try:
        before_text = "" if before_bytes is None else before_bytes.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManagedBlockError(
            f"refusing to edit {target}: not valid UTF-8 (byte {error.start})"
        ) from None
    after_text = edit(before_text)
    after_bytes = None if after_text == "" else after_text.encode("utf-8")
    if before_bytes == b"" and after_bytes is None:
        after_bytes = b""  # an empty file that stays empty is left alone, not deleted
    label = target.relative_to(project_root.resolve()).as_posix()
    result = FileEdit(
        path=target,
        before=before_bytes,
        after=after_bytes,
        diff=_unified_diff(before_text, after_text, label),
    )
    if dry_run or not result.changed:
        return result
    if after_bytes is None:
        target.unlink()
        return result
    if before_bytes is None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ManagedBlockError(
                f"refusing to edit {target}: cannot create {target.parent}: {error.strerror}"
            ) from None
        # Resolve again: a directory created meanwhile could be a symlink pointing outside.
        _confined_path(target, project_root)
        mode = 0o666 & ~_current_umask()
    else:
        mode = stat.S_IMODE(target.stat().st_mode)
    _write_atomically(target, after_bytes, mode)
    return result
