"""A hook's stdin: read within the budget, parsed as one JSON object, without importing ``json``.

``json`` imports ``re``, which alone costs ~6 ms: more than the rest of a passing hook call. The
C scanner behind ``json`` (``_json.make_scanner``) parses exactly as ``json.loads`` does, so the
hooks and their state files use it directly (:func:`parse_json`).
"""

from __future__ import annotations

from self_improve.hooks.budget import BUDGET, MAX_PARSED_BYTES, read_capped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def read_payload(stream: Any, name: str = "hook") -> dict[str, Any] | None:
    """The payload's JSON object, or None. Past ``MAX_PARSED_BYTES`` nothing is kept or parsed
    (one debug line): the rest of stdin is drained and dropped."""
    raw, size = read_capped(stream)
    if raw is None:
        from self_improve.hooks.debug import debug

        debug(f"{name}: payload over {MAX_PARSED_BYTES >> 20} MiB ({size} bytes); ignored, printed nothing")
        return None
    if not raw:
        return None
    BUDGET.stage = "parsing the payload"
    payload = parse_json(raw.decode("utf-8", "replace"))
    return payload if isinstance(payload, dict) else None


class _ScannerContext:
    """What ``_json.make_scanner`` reads from a decoder: the same settings as ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, Any] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


_WHITESPACE = " \t\n\r"


def parse_json(text: str) -> Any:
    """``json.loads(text)``, or None for anything that is not exactly one JSON value."""
    try:
        import _json

        # typeshed declares the decoder argument as make_scanner itself; any object with the
        # decoder's attributes is what the C scanner reads.
        scan = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    except (ImportError, AttributeError, TypeError):
        try:
            return json_module().loads(text)
        except ValueError:
            return None
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if text[end:].strip(_WHITESPACE):
        return None
    return value


def json_module() -> Any:
    import json

    return json
