"""What a command line means to do: its intent, so that a retry is recognised as the same attempt.

    Intent.of("cd app && FOO=1 python3 main.py --month 3 2>&1 | tail -5")
      key     "python3 main.py --month 3"  the normalised command: equal keys, the same attempt
      program "python main.py"             program (its family) and subcommand: equal, the same
                                           intent with changed arguments (``pytest --filter x`` /
                                           ``pytest -k x``; ``python app.py`` / ``python3 app.py``)
      shape   "python3 main.py --month"    program, subcommand and the flags used: what the
                                           prevention hook matches beyond an equal key

Normalising, in order (the parser is ``detect/shell.py``'s, the one parser of command lines):
- setup commands (``cd``, ``export``, ``source``, ``set``) and assignments (``FOO=1``) are dropped:
  ``cd app && make`` and ``make`` are the same attempt from the agent's point of view;
- wrappers (``sudo``, ``env``, ``timeout 60``, ``time``, ``nice``, ``nohup``, ``command``) are looked through;
- pipeline stages that only filter what the first one prints (``| tail -5``, ``| grep x``,
  ``| tee log``) and ``|| true`` are dropped, and so are redirections (``2>&1``, ``> out``);
- program names lose their directory. For ``program`` only, families count as one program:
  ``python``/``python3``, ``pip``/``pip3``, the JavaScript package managers (``npm``, ``pnpm``,
  ``yarn``): an agent that switches from ``npm install`` to ``pnpm install`` is still trying to
  install, yet the two are different attempts (only one of them fails).

``read_only`` says whether a command line only looks (``ls``, ``cat``, ``git status``): such a
command never made a failure pass, so it never appears in an observed fix.

Pure, standard library only, and cheap: the pre-bash hook computes an intent on every Bash call
that has a prevention index to match against.
"""

from __future__ import annotations

from self_improve.detect.shell import MAX_COMMAND_CHARS, program, simple_commands, tokenize, writes_output
from self_improve.events import Frozen

_SETUP = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true", ":"})
_WRAPPERS = frozenset({"sudo", "doas", "env", "timeout", "time", "nice", "nohup", "command", "exec", "stdbuf"})
_FILTERS = frozenset({"tail", "head", "grep", "egrep", "rg", "less", "more", "tee", "cat", "sort", "uniq", "wc",
                      "cut", "sed", "awk", "tr", "column", "jq", "xargs"})
_FAMILIES = {
    "python3": "python", "python2": "python", "py": "python", "pip3": "pip", "pypy3": "python",
    "pnpm": "npm", "yarn": "npm", "nodejs": "node", "docker-compose": "docker", "podman": "docker",
}
# Programs whose first word that is not a flag names what they do: ``git push``, ``cargo build``.
_WITH_SUBCOMMAND = frozenset({
    "git", "npm", "npx", "cargo", "go", "docker", "kubectl", "pip", "uv", "poetry", "pdm", "hatch", "make",
    "dotnet", "gradle", "mvn", "bundle", "gem", "rake", "rails", "brew", "apt", "apt-get", "dnf", "yum",
    "helm", "terraform", "gh", "conda", "mix", "composer", "deno", "bun", "rustup", "swift", "nix", "just",
    "systemctl", "pipx", "tox", "nox", "flutter", "dart", "php", "artisan",
})
# Interpreters: the script (or ``-m module`` / ``-c``) is what they do.
_INTERPRETERS = frozenset({"python", "node", "ruby", "perl", "bash", "sh", "zsh", "Rscript", "lua", "php", "java"})
_READ_ONLY = frozenset({
    "ls", "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "find", "fd", "pwd",
    "echo", "printf", "which", "type", "whereis", "file", "stat", "wc", "tree", "du", "df", "ps", "env",
    "printenv", "whoami", "id", "date", "uname", "hostname", "realpath", "readlink", "basename", "dirname",
    "diff", "cmp", "md5sum", "sha256sum", "jq", "sort", "uniq", "cut", "column", "true", "sleep", "history",
})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "remote", "rev-parse", "ls-files",
                            "blame", "describe", "config", "grep", "shortlog", "reflog"})
_SKIPPED_OPERATORS = ("||",)  # ``cmd || true``: what follows only hides the status
_REDIR_MARK = "\x00"  # how detect/shell.py's lexer marks a redirection token (a word never holds NUL)


class Intent(Frozen):
    """A command line's intent (module docstring): "" fields for a line that runs nothing."""

    __slots__ = ("key", "program", "shape", "read_only")
    key: str
    program: str
    shape: str
    read_only: bool

    def __init__(self, key: str, program: str, shape: str, read_only: bool) -> None:
        self._set(key, program, shape, read_only)

    @classmethod
    def of(cls, command: str) -> Intent:
        stages = _main_commands(command)
        if not stages:
            return cls("", "", "", True)
        key = " && ".join(" ".join(words) for words, _ in stages)
        head = stages[-1][0]  # ``pip install x && python3 app.py``: the last one is what was tried
        program, used = _program_key(head, _FAMILIES.get(head[0], head[0]))
        exact, _ = _program_key(head, head[0])
        flags = sorted({word.split("=", 1)[0] for word in head[used:] if word.startswith("-") and len(word) > 1})
        shape = " ".join([exact, *flags])
        read_only = all(_is_read_only(words) and not writes for words, writes in stages)
        return cls(key[:400], program[:200], shape[:300], read_only)

    def same_attempt(self, other: Intent) -> bool:
        return bool(self.key) and self.key == other.key

    def same_intent(self, other: Intent) -> bool:
        """The same normalised command, or the same program and subcommand with other arguments."""
        return bool(self.key) and (self.key == other.key or self.program == other.program)


def _main_commands(command: str) -> list[tuple[list[str], bool]]:
    """The simple commands that matter: their words (the program's basename first), and whether
    each sends output into a file."""
    out: list[tuple[list[str], bool]] = []
    in_pipeline = False
    after_or = False
    for words, operator in simple_commands(tokenize(command[:MAX_COMMAND_CHARS])):
        found = program(words, _WRAPPERS)
        # A word whose basename is empty (``/``, ``dir/``) names no program: it is no stage.
        if found is not None and found.name and not after_or and not (in_pipeline and found.name in _FILTERS) \
                and found.name not in _SETUP:
            args = [word for word in found.args if not word.startswith(_REDIR_MARK)]
            out.append(([found.name, *args], writes_output(words)))
        in_pipeline = operator in ("|", "|&")
        if operator in _SKIPPED_OPERATORS:
            after_or = True
        elif operator in ("&&", ";", "\n", "&"):
            after_or = False
    return out[:8]


def _program_key(words: list[str], name: str) -> tuple[str, int]:
    """``git push`` of ``git push origin main``, and how many words it used (flags count after);
    ``name`` is how to call the program (``words[0]`` or its family)."""
    kind = _FAMILIES.get(words[0], words[0])
    if kind in _INTERPRETERS and len(words) > 2 and words[1] in ("-m", "-c", "-e"):
        return f"{name} {words[1]} {words[2][:60]}", 3
    if kind in _WITH_SUBCOMMAND or kind in _INTERPRETERS:
        for word in words[1:]:
            if not word.startswith("-"):
                return f"{name} {word}", 1  # flags before the subcommand (``git -C x push``) count too
    return name, 1


def _is_read_only(words: list[str]) -> bool:
    name = words[0]
    if name == "git":
        sub = next((word for word in words[1:] if not word.startswith("-")), "")
        return sub in _GIT_READ_ONLY
    if name == "sed":
        return not any(word.startswith("-i") for word in words[1:])
    if name in ("find", "fd"):
        return not any(word in ("-delete", "-exec", "-execdir", "-x", "--exec") for word in words[1:])
    return name in _READ_ONLY
