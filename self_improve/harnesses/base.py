"""The harness-neutral events every adapter produces.

Nothing outside ``self_improve/harnesses/`` knows a harness's field names: adapters turn raw
payloads (a Claude Code hook's stdin, a Codex hook's stdin, an OpenClaw transcript row) into
these small immutable records, and everything downstream (detect, store) works on them only.

They are named tuples rather than dataclasses because they sit on the hooks' hot path:
``dataclasses`` imports ``inspect``, which costs more than the rest of a passing hook call.
"""

from __future__ import annotations

from collections import namedtuple

_ToolResult = namedtuple("_ToolResult", "command output exit_code session cwd interrupted", defaults=(False,))
_Prompt = namedtuple("_Prompt", "text session cwd")


class ToolResult(_ToolResult):
    """One finished shell command.

    ``exit_code`` is ``None`` when the harness does not say (never guess 0 for a missing code:
    Claude Code's ``PostToolUse`` means exit 0, so its adapter sets 0 explicitly).
    ``output`` is stdout and stderr combined, as the harness shows it to the model.
    """

    __slots__ = ()
    command: str
    output: str
    exit_code: int | None
    session: str
    cwd: str
    interrupted: bool


class Prompt(_Prompt):
    """One user prompt, as submitted."""

    __slots__ = ()
    text: str
    session: str
    cwd: str
