"""Text of a file that is not valid UTF-8, as its author wrote it.

The store reads every file with ``surrogateescape`` (``Store.read_file``), so each byte that is
not UTF-8 survives as a lone surrogate and is written back as the same byte: a file's bytes never
change because we read it. To *read* such text (a status, a section title, a summary) and to show
it, :func:`readable` decodes those bytes as GB18030 when they are that (GBK is a subset, and it
is the encoding of most non-UTF-8 learnings files), else shows U+FFFD for each. A mostly UTF-8
text with a stray byte stays UTF-8 (its Chinese, read as GB18030, would come out garbled).

No imports: the hooks read statuses through here on every recorded failure.
"""

from __future__ import annotations


def readable(text: str) -> str:
    try:
        text.encode("utf-8")  # at C speed: no lone surrogate, nothing to do
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that stands for no byte: nothing to decode
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    escaped = sum(1 for ch in text if "\udc80" <= ch <= "\udcff")
    valid = sum(1 for ch in text if ch > "\x7f") - escaped
    if valid < escaped:
        try:
            return raw.decode("gb18030")
        except UnicodeDecodeError:
            pass
    return raw.decode("utf-8", "replace")
