"""The harness-neutral events every adapter produces: ``ToolResult`` and ``Prompt``.

Nothing outside ``self_improve/harnesses/`` knows a harness's field names: adapters turn raw
payloads (a Claude Code hook's stdin, a Codex hook's stdin, an OpenClaw transcript row) into
these small immutable records, and everything downstream (detect, store) works on them only.

They are hand-written slotted classes rather than dataclasses or named tuples because they sit on
the hooks' hot path: ``dataclasses`` imports ``inspect`` and ``collections`` is not free either,
and each costs more than the rest of a passing hook call.
"""

from __future__ import annotations


class Record:
    """Immutable, comparable and printable; subclasses list their fields in ``__slots__``."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, *args: object, **kwargs: object) -> None:
        names = self.__slots__
        values = dict(zip(names, args))
        values.update(kwargs)
        for name in names:
            if name not in values:
                default = self._defaults().get(name, _MISSING)
                if default is _MISSING:
                    raise TypeError(f"{type(self).__name__}() missing argument {name!r}")
                values[name] = default
        if len(args) > len(names) or set(values) - set(names):
            raise TypeError(f"{type(self).__name__}() got unexpected arguments")
        for name in names:
            object.__setattr__(self, name, values[name])

    @classmethod
    def _defaults(cls) -> dict[str, object]:
        return {}

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _astuple(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._astuple() == self._astuple()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def _replace(self, **changes: object) -> Record:
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)


_MISSING = object()


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


class ToolResult(Record):
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

    @classmethod
    def _defaults(cls) -> dict[str, object]:
        return {"interrupted": False}


class Prompt(Record):
    """One user prompt, as submitted."""

    __slots__ = ("text", "session", "cwd")
    text: str
    session: str
    cwd: str
