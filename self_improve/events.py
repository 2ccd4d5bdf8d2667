"""The harness-neutral events every adapter produces: ``ToolResult`` and ``Prompt``.

Nothing outside ``self_improve/harnesses/`` knows a harness's field names: adapters turn raw
payloads (a Claude Code hook's stdin, a Codex hook's stdin, an OpenClaw transcript row) into
these small immutable records, and everything downstream (detect, store) works on them only.

They are hand-written slotted classes rather than dataclasses or named tuples because they sit on
the hooks' hot path: ``dataclasses`` imports ``inspect`` and ``collections`` is not free either,
and each costs more than the rest of a passing hook call. Each record spells out its typed
``__init__``; :class:`Frozen` gives them equality, hashing, ``repr`` and ``_replace`` from their
``__slots__``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self


class Frozen:
    """Immutable, comparable and printable; a subclass lists its fields in ``__slots__`` and sets
    them in its own ``__init__`` through :meth:`_set`."""

    __slots__: tuple[str, ...] = ()

    def _set(self, *values: object) -> None:
        """Every field, in ``__slots__`` order (the only writes an immutable record sees)."""
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _astuple(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, Frozen) and other._astuple() == self._astuple()

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: object) -> Self:
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)



def clean_text(value: object) -> str:
    """A payload's string field as we may store it: ``""`` for a non-string, and every lone
    surrogate (``"\\ud800"`` in the JSON decodes to one) replaced by U+FFFD.

    A lone surrogate cannot be encoded as UTF-8: left in, it either fails the write that records
    the occurrence, or, through ``surrogateescape``, becomes a raw byte that makes ERRORS.md
    invalid UTF-8. Every adapter passes each string it takes from a payload through here.
    """
    if not isinstance(value, str):
        return ""
    return without_surrogates(value)


def without_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a JSON ``"\\ud800"`` decodes to one).

    A lone surrogate cannot be encoded as UTF-8: left in, it either fails the write that records
    it, or, through ``surrogateescape``, becomes a raw byte that makes a store file invalid UTF-8.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 can carry a lone surrogate (surrogatepass) and its decoder replaces each one,
        # alone, by a single U+FFFD; a valid pair is one code point already and round-trips.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


class ToolResult(Frozen):
    """One finished shell command.

    ``exit_code`` is ``None`` when the harness does not say (never guess 0 for a missing code:
    Claude Code's ``PostToolUse`` means exit 0, so its adapter sets 0 explicitly).
    ``output`` is stdout and stderr combined, as the harness shows it to the model.
    """

    __slots__ = ("command", "output", "exit_code", "session", "cwd", "interrupted")
    command: str
    output: str
    exit_code: int | None
    session: str
    cwd: str
    interrupted: bool

    def __init__(
        self, command: str, output: str, exit_code: int | None, session: str, cwd: str, interrupted: bool = False
    ) -> None:
        self._set(command, output, exit_code, session, cwd, interrupted)


class ToolCall(Frozen):
    """A shell command about to run (a pre-tool event)."""

    __slots__ = ("command", "session", "cwd")
    command: str
    session: str
    cwd: str

    def __init__(self, command: str, session: str, cwd: str) -> None:
        self._set(command, session, cwd)


class Prompt(Frozen):
    """One user prompt, as submitted."""

    __slots__ = ("text", "session", "cwd")
    text: str
    session: str
    cwd: str

    def __init__(self, text: str, session: str, cwd: str) -> None:
        self._set(text, session, cwd)
