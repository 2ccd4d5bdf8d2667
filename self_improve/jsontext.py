"""JSON text of the state files the hooks write, without importing ``json``.

``json.dumps`` would import ``json`` (and ``re``) on a hook's hot path; the state files hold only
strings, whole numbers, lists and objects of them, which this writes with the C accelerator's
string quoting (``json``'s own when it is missing: the same text). ``json.loads`` reads it back
unchanged (a property test checks the round trip).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_quote: Callable[[str], str] | None = None


def quote(text: str) -> str:
    """``text`` as a JSON string literal; non-ASCII characters stay as they are (files are UTF-8)."""
    global _quote
    if _quote is None:
        try:
            from _json import encode_basestring as found
        except ImportError:  # an interpreter without the accelerator
            from json.encoder import encode_basestring as found
        _quote = found
    return _quote(text)


def dumps(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` for strings, whole numbers,
    booleans, None, and lists and string-keyed objects of them; anything else
    (a float, a tuple, a non-string key) is a bug of ours and raises TypeError."""
    if isinstance(value, str):
        return quote(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    if isinstance(value, list):
        return "[" + ",".join(dumps(item) for item in value) + "]"
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"a JSON object key must be a string, not {type(key).__name__}")
            parts.append(quote(key) + ":" + dumps(item))
        return "{" + ",".join(parts) + "}"
    raise TypeError(f"not a state file value: {type(value).__name__}")
