"""The harness-neutral events every adapter produces.

Nothing outside ``self_improve/harnesses/`` knows a harness's field names: adapters turn raw
payloads (a Claude Code hook's stdin, a Codex hook's stdin, an OpenClaw transcript row) into
these small dataclasses, and everything downstream (detect, store) works on them only.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolResult:
    """One finished shell command.

    ``exit_code`` is ``None`` when the harness does not say (never guess 0 for a missing code:
    Claude Code's ``PostToolUse`` means exit 0, so its adapter sets 0 explicitly).
    ``output`` is stdout and stderr combined, as the harness shows it to the model.
    """

    command: str
    output: str
    exit_code: int | None
    session: str
    cwd: str
    interrupted: bool = False


@dataclass(frozen=True)
class Prompt:
    """One user prompt, as submitted."""

    text: str
    session: str
    cwd: str
