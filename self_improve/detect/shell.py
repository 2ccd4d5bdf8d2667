"""The one parser of shell command lines: which programs a command line runs.

    def tokenize(command: str) -> list[str]          # words and operators
    def parse_command_line(command, wrappers, silent) -> CommandLine
    def program_name(command: str) -> str             # "python3" for "cd x && python3 app.py"
    def leading_cd(command: str, cwd: str) -> str | None   # the directory of a leading `cd DIR &&`

The lexer honours quotes, escapes, ``$(...)``, comments, redirections and heredocs (a heredoc's
body is data, never commands).  It is no full shell grammar: quotes are removed but what they
protected is not remembered, and nothing is expanded.
"""

from __future__ import annotations

import os
from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import cache  # functools.cache, without importing functools

from self_improve.detect.nesting import closing_paren

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

# Tokenizing is Python work per character: a 10 MB heredoc would cost seconds.  The head of a
# command line names the programs; what lies past it is only seen through the output.
MAX_COMMAND_CHARS = 64 * 1024

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SETUP = frozenset({"cd", "export", "source", ".", "set"})  # run before the program that matters


class Command:
    """One simple command: its program's basename (e.g. "grep") and the words after it."""

    __slots__ = ("name", "args")

    def __init__(self, name: str, args: tuple[str, ...]) -> None:
        self.name = name
        self.args = args

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.args!r})"

    def matches(self, entries: frozenset[str]) -> bool:
        """Does it match a list entry: "grep", or "git diff" (sub-command among the first args)?"""
        if self.name in entries:
            return True
        return any(f"{self.name} {arg}" in entries for arg in self.args[:3])


class CommandLine:
    __slots__ = ("commands", "producers")

    def __init__(self, commands: tuple[Command, ...], producers: tuple[Command, ...]) -> None:
        self.commands = commands  # every simple command
        self.producers = producers  # the first command of each pipeline that prints something


# ---------------------------------------------------------------------------------------------
# Lexer


_OPERATOR_CHARS = "|&;()\n"
_REDIR = "\x00redir"  # marks a redirection token; NUL cannot occur in a shell word
_TWO_CHAR_OPERATORS = ("&&", "||", "|&", ";;")


@cache
def _lexer_regex(name: str) -> re.Pattern[str]:
    return re.compile(
        {
            "heredoc": r"<<-?\s*(['\"]?)([\w.-]+)\1",
            "redirect": r"[<>]+&?-?\d*",
            "assignment": r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=",
            "duration": r"\d+(?:\.\d+)?[smhd]?$",
            "dup": r"&(?:\d+|-)$",
        }[name]
    )


def tokenize(command: str) -> list[str]:
    """Split a shell command into words and operators, honouring quotes, escapes, $(...) and
    heredocs (a heredoc's body is data, never commands)."""
    tokens: list[str] = []
    word: list[str] = []
    heredocs: list[str] = []
    i, n = 0, len(command)
    in_word = False

    def flush() -> None:
        nonlocal in_word
        if in_word:
            tokens.append("".join(word))
            word.clear()
            in_word = False

    while i < n:
        c = command[i]
        if c in " \t":
            flush()
            i += 1
        elif c == "\\":
            if not command.startswith("\\\n", i):
                word.append(command[i + 1 : i + 2])
                in_word = True
            i += 2
        elif c in "'\"`":
            close = _quote_end(command, i)
            # `...` is a command substitution: kept whole, as $(...) is
            word.append(command[i : close + 1] if c == "`" else command[i + 1 : close])
            in_word = True
            i = close + 1
        elif c == "$" and command.startswith("$(", i):
            close = _paren_end(command, i + 1)
            word.append(command[i : close + 1])
            in_word = True
            i = close + 1
        elif c == "#" and not in_word:
            i = command.find("\n", i)
            i = n if i == -1 else i
        elif c == "<" and command.startswith("<<", i) and not command.startswith("<<<", i):
            flush()
            match = _lexer_regex("heredoc").match(command, i)
            if match:
                heredocs.append(match.group(2))
                i = match.end()
            else:
                i += 2
        elif c in "<>":
            if in_word and "".join(word).isdigit():  # "2>": the fd number is not a word
                word.clear()
                in_word = False
            flush()
            match = _lexer_regex("redirect").match(command, i)
            end = match.end() if match else i + 1  # the class matches at least this char
            tokens.append(_REDIR + command[i:end])
            i = end
        elif c in _OPERATOR_CHARS:
            flush()
            if c == "&" and command.startswith("&>", i):
                tokens.append(_REDIR + "&>")
                i += 2
                continue
            op = command[i : i + 2] if command[i : i + 2] in _TWO_CHAR_OPERATORS else c
            tokens.append(op)
            i += len(op)
            if c == "\n" and heredocs:
                i = _skip_heredocs(command, i, heredocs)
                heredocs = []
        else:
            word.append(c)
            in_word = True
            i += 1
    flush()
    return tokens


def _quote_end(s: str, i: int) -> int:
    quote, j = s[i], i + 1
    while j < len(s):
        if s[j] == "\\" and quote != "'":
            j += 2
            continue
        if s[j] == quote:
            return j
        j += 1
    return len(s)


def _paren_end(s: str, i: int) -> int:
    close = closing_paren(s, i, len(s), _skip_quoted)
    return len(s) if close < 0 else close


def _skip_quoted(s: str, i: int, end: int) -> int:
    return _quote_end(s, i) + 1 if s[i] in "'\"" else i


def _skip_heredocs(s: str, i: int, delimiters: list[str]) -> int:
    for delimiter in delimiters:
        while i < len(s):
            end = s.find("\n", i)
            line = s[i:] if end == -1 else s[i:end]
            i = len(s) if end == -1 else end + 1
            if line.strip() == delimiter:
                break
    return i


# ---------------------------------------------------------------------------------------------
# Simple commands and their programs


_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!",
                       "{", "}", "esac", "in", "function", "coproc"})
_BLOCK_STARTERS = frozenset({"for", "case", "select"})
_WRAPPER_ARG_FLAGS = {"sudo": {"-u", "-g", "-C", "-h", "-p"}, "doas": {"-u"}, "nice": {"-n"},
                      "timeout": {"-s", "-k", "--signal", "--kill-after"},
                      "xargs": {"-I", "-n", "-P", "-d", "-L", "-E", "-s", "-a"},
                      "env": {"-u", "-C", "--unset", "--chdir"}, "watch": {"-n", "-d"}}
_PIPES = ("|", "|&")


def parse_command_line(command: str, wrappers: frozenset[str], silent: frozenset[str]) -> CommandLine:
    """Every simple command of ``command`` (through ``bash -c '...'``), named by its program:
    past assignments, redirections and the ``wrappers`` (sudo, env, timeout...).  A pipeline
    whose first program is in ``silent`` produces nothing."""
    commands: list[Command] = []
    producers: list[Command] = []
    _collect(command, wrappers, silent, commands, producers, depth=0)
    return CommandLine(tuple(commands), tuple(producers))


def _collect(command: str, wrappers: frozenset[str], silent: frozenset[str], commands: list[Command],
             producers: list[Command], depth: int) -> None:
    pipeline_start = True
    for words, operator in simple_commands(tokenize(command)):
        cmd = program(words, wrappers)
        if cmd is not None and cmd.name in SHELLS and cmd.args[:1] == ("-c",) and len(cmd.args) > 1 and depth < 3:
            _collect(cmd.args[1], wrappers, silent, commands, producers, depth + 1)  # bash -c '...'
        elif cmd is not None:
            commands.append(cmd)
            if pipeline_start and cmd.name not in silent:
                producers.append(cmd)
        pipeline_start = operator not in _PIPES


def simple_commands(tokens: list[str]) -> Iterator[tuple[list[str], str]]:
    """(words, operator that follows) for each simple command."""
    words: list[str] = []
    for token in tokens:
        if token in ("&&", "||", "|", "|&", ";", ";;", "&", "\n", "(", ")"):
            yield words, token
            words = []
        else:
            words.append(token)
    yield words, ""


def program(words: Sequence[str], wrappers: frozenset[str]) -> Command | None:
    """The program a simple command runs, past assignments, redirections and wrappers."""
    words = drop_redirections(words)
    i = 0
    while i < len(words):
        word = words[i]
        if word in _KEYWORDS or _lexer_regex("assignment").match(word):
            i += 1
            continue
        if word in _BLOCK_STARTERS:
            return None  # "for f in *.log" names no program
        name = word.rsplit("/", 1)[-1]
        if name in wrappers and not _is_command_query(name, words[i + 1 : i + 2]):
            following = _skip_wrapper(name, words, i + 1)
            if following < len(words):
                i = following
                continue  # the wrapped program is the one that matters
        return Command(name, tuple(words[i + 1 :]))  # a bare `env` or `time` runs itself
    return None


def drop_redirections(words: Sequence[str]) -> list[str]:
    """Words without redirections and their targets (``> out.log``; ``2>&1`` has none)."""
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif word.startswith(_REDIR):
            skip_next = _lexer_regex("dup").search(word) is None
        else:
            kept.append(word)
    return kept


def writes_output(words: Sequence[str]) -> bool:
    """Whether a simple command sends its output into a file (``> f``, ``>> f``, ``&> f``, a
    heredoc into ``cat > f``), not into another descriptor or ``/dev/null``: such a command writes."""
    for index, word in enumerate(words):
        if not word.startswith(_REDIR) or ">" not in word or _lexer_regex("dup").search(word) is not None:
            continue
        target = words[index + 1] if index + 1 < len(words) else ""
        if target != "/dev/null":
            return True
    return False


def _is_command_query(name: str, following: Sequence[str]) -> bool:
    """``command -v x`` is a lookup (a check), not ``command`` running ``x``."""
    return name == "command" and bool(following) and following[0] in ("-v", "-V")


def _skip_wrapper(name: str, words: Sequence[str], i: int) -> int:
    arg_flags = _WRAPPER_ARG_FLAGS.get(name, set())
    while i < len(words):
        word = words[i]
        if word == "--":
            return i + 1
        if word.startswith("-") and len(word) > 1:
            i += 2 if word in arg_flags else 1
        elif name == "env" and _lexer_regex("assignment").match(word):
            i += 1
        elif name == "timeout" and _lexer_regex("duration").match(word):
            return i + 1
        else:
            return i
    return i


# ---------------------------------------------------------------------------------------------
# What the hooks and the watcher ask of a command line


def program_name(command: str, wrappers: frozenset[str] | None = None) -> str:
    """The program a command line is about, for an ERR entry's category: ``python3`` for
    ``cd x && sudo python3 app.py``.  Setup commands (cd, export, source...) are passed over;
    the name keeps only ``[A-Za-z0-9_.+-]``, at most 40 of them.  "" when there is none.

    ``wrappers`` defaults to those of the packaged rules.
    """
    if wrappers is None:
        from self_improve.detect.rules import load_rules

        wrappers = load_rules().wrapper_commands
    for cmd in parse_command_line(command[:MAX_COMMAND_CHARS], wrappers, frozenset()).commands:
        if cmd.name in _SETUP:
            continue
        name = "".join(c for c in cmd.name if c.isascii() and (c.isalnum() or c in "_.+-"))[:40]
        if name:
            return name
    return ""


def leading_cd(command: str, cwd: str) -> str | None:
    """The directory a command line ``cd``s into first (``cd /some/project && make``), resolved
    against ``cwd``; None when it does not start so, or when the target is not a plain literal.

    Agents often run ``cd DIR && make`` from their workspace, yet the failure belongs to DIR.
    Only ``cd DIR`` or ``cd -- DIR`` followed by ``&&``, ``;`` or a line break is understood.  A
    target with a ``$``, a backtick, a backslash or a leading ``~`` (the lexer does not record
    whether it was quoted, so it could be an expansion or an escape), or ``-`` (the previous
    directory), gives None: the caller falls back to the cwd.
    """
    for words, operator in simple_commands(tokenize(command[:MAX_COMMAND_CHARS])):
        if not words and operator == "\n":
            continue  # a blank or comment line before the cd
        if operator not in ("&&", ";", "\n") or words[:1] != ["cd"]:
            return None
        args = words[2:] if words[1:2] == ["--"] else words[1:]
        if len(args) != 1 or not _literal_dir(args[0]):
            return None
        target = args[0]
        if os.path.isabs(target):
            return os.path.normpath(target)
        return os.path.normpath(os.path.join(cwd, target)) if os.path.isabs(cwd) else None
    return None


def _literal_dir(word: str) -> bool:
    return word not in ("", "-") and not word.startswith(("~", _REDIR)) and not any(c in word for c in "$`\\")
