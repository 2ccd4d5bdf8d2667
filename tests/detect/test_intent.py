"""detect/intent.py: what counts as the same attempt and the same intent."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from self_improve.detect.intent import Intent


@pytest.mark.parametrize(
    ("command", "key", "program", "shape", "read_only"),
    [
        ("cd app && FOO=1 python3 main.py --month 3 2>&1 | tail -5", "python3 main.py --month 3", "python main.py",
         "python3 main.py --month", False),
        ("python app.py", "python app.py", "python app.py", "python app.py", False),
        ("pytest --filter checkout", "pytest --filter checkout", "pytest", "pytest --filter", False),
        ("pytest -k checkout", "pytest -k checkout", "pytest", "pytest -k", False),
        ("npm install", "npm install", "npm install", "npm install", False),
        ("pnpm install", "pnpm install", "npm install", "pnpm install", False),
        ("git push origin main", "git push origin main", "git push", "git push", False),
        ("git status --short", "git status --short", "git status", "git status --short", True),
        ("pip install pyyaml && python3 app.py", "pip install pyyaml && python3 app.py", "python app.py",
         "python3 app.py", False),
        ("cargo build 2>&1 | tail -20", "cargo build", "cargo build", "cargo build", False),
        ("make test || true", "make test", "make test", "make test", False),
        ("timeout 60 sudo -u ci npm test", "npm test", "npm test", "npm test", False),
        ("python3 -m pytest -q", "python3 -m pytest -q", "python -m pytest", "python3 -m pytest -q", False),
        ("ls -la > /dev/null", "ls -la", "ls", "ls -la", True),
        ("echo done > status.txt", "echo done", "echo", "echo", False),  # it writes a file
        ("cat > app.py <<EOF\nprint(1)\nEOF", "cat", "cat", "cat", False),
        ("sed -n 1,5p app.py", "sed -n 1,5p app.py", "sed", "sed -n", True),
        ("sed -i s/a/b/ app.py", "sed -i s/a/b/ app.py", "sed", "sed -i", False),
        ("cp .env.example .env", "cp .env.example .env", "cp", "cp", False),
        ("", "", "", "", True),
        ("cd src", "", "", "", True),
    ],
)
def test_intent_of(command: str, key: str, program: str, shape: str, read_only: bool) -> None:
    assert Intent.of(command) == Intent(key, program, shape, read_only)


def test_same_attempt_and_same_intent() -> None:
    wrong, right = Intent.of("pytest --filter x"), Intent.of("pytest -k x")
    assert not wrong.same_attempt(right) and wrong.same_intent(right)
    assert Intent.of("python app.py").same_intent(Intent.of("python3 app.py"))
    assert not Intent.of("python app.py").same_attempt(Intent.of("python3 app.py"))
    assert not Intent.of("git push").same_intent(Intent.of("git pull"))
    assert not Intent.of("").same_intent(Intent.of(""))  # a line that runs nothing is nobody's intent


@given(st.text(max_size=300))
def test_any_text_has_a_bounded_intent_whose_key_decides(command: str) -> None:
    intent = Intent.of(command)
    assert len(intent.key) <= 400 and len(intent.program) <= 200 and len(intent.shape) <= 300
    again = Intent.of(command)
    assert again == intent  # deterministic
    assert bool(intent.key) == bool(intent.program)


def test_a_word_that_names_no_program_is_no_stage() -> None:
    """``/`` or ``dir/`` has an empty basename: it names no program, so it is no stage of the key
    (the key of ``a && /`` is ``a``; before, ``a && `` with no program, which the property found)."""
    assert Intent.of("a && /") == Intent.of("a")
    assert Intent.of("0\n/") == Intent.of("0")
    assert Intent.of("/") == Intent.of("")
