"""Everything the CLI prints goes through here: colour only on a TTY, NO_COLOR respected, JSON."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

_COLOURS = {"red": "31", "green": "32", "yellow": "33", "blue": "34", "bold": "1", "dim": "2"}


def use_colour(stream: TextIO = sys.stdout) -> bool:
    if "NO_COLOR" in os.environ:  # https://no-color.org: present at all, whatever its value
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
    stream.write(json.dumps(value, ensure_ascii=False, indent=indent))
    stream.write("\n")


def error_line(message: str) -> None:
    first_line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    sys.stderr.write(f"self-improve: error: {first_line}\n")
