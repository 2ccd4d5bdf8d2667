"""Text as lines that keep their endings: how every parser of ``.learnings/`` and the diff of a
planned change (``changes``) split text, the one copy.

A module of its own so that the store's parsers (the hooks' hot path) need not import
``changes``, whose records and paths cost ``dataclasses`` and ``pathlib``.
"""

from __future__ import annotations


def lines_of(text: str) -> list[str]:
    """Lines with their endings, ``"".join`` giving back ``text`` exactly. Only ``\\n`` ends a
    line: a lone ``\\r`` or ``\\x0b`` is text (so a CRLF file keeps its ``\\r\\n``)."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
