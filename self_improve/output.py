"""Everything the CLI prints goes through here: colour (--color, NO_COLOR, FORCE_COLOR, TERM), JSON."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

_COLOURS = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "bold": "1", "dim": "2"}


COLOUR_CHOICES = ("auto", "always", "never")
_colour_choice = "auto"  # the global --color; main sets it once, before the verb runs


def set_colour_choice(choice: str) -> None:
    global _colour_choice
    if choice not in COLOUR_CHOICES:
        raise ValueError(f"--color {choice!r}: choose from {', '.join(COLOUR_CHOICES)}")
    _colour_choice = choice


def use_colour(stream: TextIO = sys.stdout) -> bool:
    """The precedence of uv and ruff: --color always|never, then NO_COLOR, then FORCE_COLOR,
    then TERM=dumb, then whether the stream is a terminal."""
    if _colour_choice != "auto":
        return _colour_choice == "always"
    if os.environ.get("NO_COLOR"):  # https://no-color.org: set and not empty, whatever its value
        return False
    if os.environ.get("FORCE_COLOR"):  # https://force-color.org: the same rule, the other way
        return True
    if os.environ.get("TERM") == "dumb":  # a terminal that prints escape codes as text
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colour(text: str, name: str, stream: TextIO = sys.stdout) -> str:
    if not use_colour(stream):
        return text
    return f"\033[{_COLOURS[name]}m{text}\033[0m"


def print_json(value: Any, stream: TextIO = sys.stdout) -> None:
    # Indented for people; compact (and C-accelerated) for pipes, where 10,000 entries must be fast.
    isatty = getattr(stream, "isatty", None)
    indent = 2 if isatty and isatty() else None
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # text of a file that is not UTF-8: decoded for display
        value = displayable(value)
        text = json.dumps(value, ensure_ascii=False, indent=indent)
    encoding = (getattr(stream, "encoding", None) or "utf-8").replace("_", "-").casefold()
    if encoding not in ("utf-8", "utf8"):  # valid UTF-8 all the same: ASCII, with escapes
        text = json.dumps(value, ensure_ascii=True, indent=indent)
    stream.write(text)
    stream.write("\n")


def displayable(value: Any) -> Any:
    """``value`` (JSON data) with every string through :func:`display_text`."""
    if isinstance(value, str):
        return display_text(value)
    if isinstance(value, dict):
        return {displayable(key): displayable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [displayable(item) for item in value]
    return value


def display_text(text: str) -> str:
    """Text read with ``surrogateescape``, as a person should see it (``store/decoding.py``)."""
    from self_improve.decoding import readable

    return readable(text)


def write_text(text: str, stream: TextIO = sys.stdout) -> None:
    """Write text read from a file, decoded for display (:func:`display_text`)."""
    stream.write(display_text(text))


def home_path(path: str | os.PathLike[str]) -> str:
    """``path`` with the home folder written ``~`` (``~/.claude/CLAUDE.md``): how a verb names a
    file of the user scope. A path outside the home folder is printed as it is."""
    text = os.fspath(path)
    home = os.path.expanduser("~").rstrip(os.sep)
    if home and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home):]
    return text


def plural(count: int, one: str, many: str = "") -> str:
    """``1 entry``, ``2 entries``: the word agrees with its number."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def error_line(message: str) -> None:
    first_line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    sys.stderr.write(f"self-improve: error: {first_line}\n")
