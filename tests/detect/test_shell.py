"""self_improve.detect.shell: the one parser of shell command lines."""

from __future__ import annotations

import pytest

from self_improve.detect import shell
from self_improve.detect.rules import load_rules


@pytest.mark.parametrize(
    ("command", "producers"),
    [
        ("cd build && ctest", ["ctest"]),
        ("python3 -m pytest -q tests/ || true", ["python3"]),
        ("cargo build 2>&1 | grep -E '^(error|warning)'", ["cargo"]),
        ("sudo -u www-data cat /var/log/app.log", ["cat"]),
        ("FOO=1 BAR=2 timeout 5 node server.js > out.log 2>&1", ["node"]),
        ("env", ["env"]),
        ("bash -c 'tail -n 5 app.log'", ["tail"]),
        ("cat <<'EOF' > notes.txt\nERROR: inside a heredoc\nEOF\nmake", ["cat", "make"]),
        ("for f in *.log; do gzip \"$f\"; done", ["gzip"]),
        ("echo \"a | b; c && d\"", ["echo"]),
        ("command -v docker-compose || echo missing", ["command", "echo"]),
    ],
)
def test_producers_of_the_output(command: str, producers: list[str]) -> None:
    rules = load_rules()
    line = shell.parse_command_line(command, rules.wrapper_commands, rules.silent_commands)
    assert [c.name for c in line.producers] == producers


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("cd x && python3 app.py", "python3"),
        ("FOO=1 BAR=2 ./build.sh --x=1", "build.sh"),
        ("sudo -u root make install", "make"),
        ("timeout 10 pytest -q", "pytest"),
        ("export A=1; source venv/bin/activate && npm test", "npm"),
        ("(cd x; make)", "make"),
        ("if make; then echo ok; fi", "make"),
        ("# build it\ncd x\nmake", "make"),
        ("bash -c 'make test'", "make"),
        ("/usr/bin/c++ a.cc", "c++"),
        ("[ -f x ] && cargo build", "cargo"),
        ("env", "env"),
        ("cd /tmp", ""),
        ("", ""),
        ("./" + "x" * 100, "x" * 40),
        ("./naïve\u202e.sh", "nave.sh"),
    ],
)
def test_program_name(command: str, name: str) -> None:
    assert shell.program_name(command) == name


@pytest.mark.parametrize(
    ("command", "cwd", "target"),
    [
        ("cd /p && make", "/w", "/p"),
        ("cd sub && make", "/w", "/w/sub"),
        ("cd -- ../sub; make", "/w/a", "/w/sub"),
        ('cd "my dir" && make', "/w", "/w/my dir"),
        ("cd my\\ dir && make", "/w", "/w/my dir"),
        ("  cd /p ;make", "/w", "/p"),
        ("\n# into the project\ncd /p\nmake", "/w", "/p"),
        ("cd sub && make", "relative", None),
        ("cd /p", "/w", None),  # nothing runs there
        ("cd /p || exit 1", "/w", None),
        ("cd /p | cat", "/w", None),
        ("(cd /p && make)", "/w", None),
        ("cd -P /p && make", "/w", None),
        ("FOO=1 cd /p && make", "/w", None),
        ("cd ~/p && make", "/w", None),
        ("cd $HOME/p && make", "/w", None),
        ("cd `pwd`/p && make", "/w", None),
        ("cd $(pwd)/p && make", "/w", None),
        ("cd - && make", "/w", None),
        ("make && cd /p", "/w", None),
    ],
)
def test_leading_cd(command: str, cwd: str, target: str | None) -> None:
    assert shell.leading_cd(command, cwd) == target


def test_only_the_head_of_a_huge_command_line_is_read() -> None:
    huge = "cd /p && cat <<'EOF'\n" + "x" * (4 * shell.MAX_COMMAND_CHARS)
    assert shell.leading_cd(huge, "/w") == "/p"
    assert shell.program_name(huge) == "cat"
