"""Bounded work on any input: the stdin cap, the deadline, the exec'ing wrapper, sanitised payload
strings and user regexes with a time limit. Timings and memory are in bench/hooks_bounded.py."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from self_improve.detect.subjects import short_hash
from self_improve.hooks import budget as hook_budget
from self_improve.detect import classify as errors
from self_improve.detect import shell
from self_improve.harnesses import claude as claude
from self_improve.harnesses import codex as codex
from self_improve.events import ToolResult
from self_improve.hooks.budget import MAX_PARSED_BYTES, Budget, DeadlineExceeded, read_capped
from self_improve.store.store import Store
from tests.helpers import HOOKS, REPO, context_of, debug_lines, payload, run_cli, run_hook

CAP_MIB = MAX_PARSED_BYTES >> 20


def failing_payload_of_size(project: Path, size: int) -> bytes:
    """A real failing payload, padded to exactly ``size`` bytes of JSON."""
    data = payload("PostToolUseFailure", cwd=str(project))
    prefix, traceback = data["error"].split("\n", 1)
    data["error"] = f"{prefix}\n{{pad}}{traceback}"
    bare = json.dumps(data).replace("{pad}", "")
    return json.dumps(data).replace("{pad}", "x" * (size - len(bare))).encode()


# ---- stdin: the cap, and draining past it ----------------------------------------------------


def test_a_payload_of_exactly_the_cap_is_parsed_and_recorded(project: Path) -> None:
    stdin = failing_payload_of_size(project, MAX_PARSED_BYTES)
    assert len(stdin) == MAX_PARSED_BYTES
    result = run_hook("post-bash", stdin, timeout=30)
    assert result.returncode == 0
    assert context_of(result, "PostToolUseFailure").startswith("<error-detected>\ndeps.module-not-found (python:nosuchmod): ")
    assert len(Store(project).entries("error")) == 1


def test_one_byte_over_the_cap_is_drained_and_ignored(project: Path, isolated_home: Path) -> None:
    stdin = failing_payload_of_size(project, MAX_PARSED_BYTES + 1)
    result = run_hook("post-bash", stdin, timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert Store(project).entries("error") == []
    (line,) = debug_lines(isolated_home)
    assert line.endswith(f" post-bash: payload over {CAP_MIB} MiB ({MAX_PARSED_BYTES + 1} bytes); ignored, printed nothing")


class RecordingStream(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reads: list[int] = []
        self.readintos: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.reads.append(-1 if size is None else size)
        return super().read(size)

    def readinto(self, buffer: Any) -> int:
        self.readintos.append(len(buffer))
        return super().readinto(buffer)


def test_past_the_cap_stdin_is_drained_through_one_fixed_buffer() -> None:
    extra = 3 * 1024 * 1024 + 4
    stream = RecordingStream(b"{" * (MAX_PARSED_BYTES + 1 + extra))
    assert read_capped(stream) == (None, MAX_PARSED_BYTES + 1 + extra)
    assert stream.reads == [MAX_PARSED_BYTES + 1]  # one read up to the cap, never a read of "the rest"
    assert stream.readintos == [1024 * 1024] * 5  # 3 full buffers, 4 bytes, then EOF


def test_under_the_cap_stdin_is_read_once_whole() -> None:
    stream = RecordingStream(b'{"a": 1}')
    assert read_capped(stream) == (b'{"a": 1}', 8)
    assert (stream.reads, stream.readintos) == ([MAX_PARSED_BYTES + 1], [])


# ---- the deadline -------------------------------------------------------------------------------


def test_a_stdin_that_never_closes_meets_the_deadline(project: Path, isolated_home: Path) -> None:
    hook = subprocess.Popen([str(HOOKS / "post-bash")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert hook.stdin is not None
    hook.stdin.write(b'{"hook_event_name": "PostToolUseFailure", ')  # and then nothing, for ever
    hook.stdin.flush()
    try:
        hook.wait(timeout=20)  # stdin still open: only the deadline can end it
    finally:
        hook.stdin.close()
    assert hook.stdout is not None and hook.stderr is not None
    out, err = hook.stdout.read(), hook.stderr.read()
    assert (hook.returncode, out, err) == (0, b"", b"")
    (line,) = debug_lines(isolated_home)
    assert line.endswith(" post-bash: gave up after the 2 s deadline, while reading stdin; printed nothing")


@pytest.fixture()
def budget() -> Any:
    previous = signal.getsignal(signal.SIGALRM)
    made = Budget()
    yield made
    made.disarm()
    assert signal.getsignal(signal.SIGALRM) is previous  # given back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_outside_a_write_the_deadline_interrupts_at_once(budget: Budget) -> None:
    budget.arm(0.05)
    budget.stage = "waiting"
    with pytest.raises(DeadlineExceeded) as raised:
        try:
            time.sleep(30)
        except Exception:  # noqa: BLE001 - the point: no `except Exception` may catch it
            pytest.fail("DeadlineExceeded was caught as an Exception")
    assert str(raised.value) == "waiting"


def test_a_write_that_has_started_is_let_finish_then_the_hook_gives_up(budget: Budget) -> None:
    finished = []
    budget.arm(0.05)
    with pytest.raises(DeadlineExceeded) as raised:
        with budget.critical("recording"):
            time.sleep(0.3)  # the alarm fires in here: the sleep resumes and ends
            finished.append(True)
    assert finished == [True] and str(raised.value) == "recording"
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # the grace timer was cancelled


def test_a_hung_write_is_interrupted_after_the_grace(budget: Budget, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_budget, "GRACE_SECONDS", 0.05)
    finished = []
    budget.arm(0.05)
    with pytest.raises(DeadlineExceeded) as raised:
        with budget.critical("recording"):
            time.sleep(30)  # a FIFO that nobody opens
            finished.append(True)
    assert finished == [] and str(raised.value) == "recording"


def test_a_hook_that_ends_in_time_leaves_no_timer(budget: Budget) -> None:
    budget.arm()
    with budget.critical("recording"):
        pass
    budget.disarm()
    assert not budget.expired


# ---- the sh wrapper and hooks/entry.py -------------------------------------------------------------


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_a_harness_kill_reaches_python_and_nothing_survives_it(project: Path) -> None:
    marker = f"SI_TEST_MARK=kill-{uuid.uuid4()}"
    name, value = marker.split("=")
    hook = subprocess.Popen([str(HOOKS / "post-bash")], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, name: value})
    try:
        cmdline = Path(f"/proc/{hook.pid}/cmdline")
        for _ in range(500):  # until the wrapper has exec'd Python, blocked on the open stdin
            if b"hooks/entry.py" in cmdline.read_bytes():
                break
            time.sleep(0.01)
        assert b"hooks/entry.py" in cmdline.read_bytes()  # the wrapper's pid IS the Python hook
        hook.send_signal(signal.SIGTERM)
        assert hook.wait(timeout=10) == -signal.SIGTERM
        assert processes_with(marker) == []
    finally:
        assert hook.stdin is not None
        hook.stdin.close()


def copy_wrapper(tmp_path: Path, name: str = "post-bash") -> Path:
    hooks = tmp_path / "checkout" / "hooks"
    hooks.mkdir(parents=True)
    for script in ("_run", name):
        shutil.copy2(HOOKS / script, hooks / script)
    return hooks / name


def test_a_missing_hook_script_exits_zero_not_two(tmp_path: Path) -> None:
    script = copy_wrapper(tmp_path)  # no self_improve/hooks/entry.py next to it: `python file` would exit 2
    for python in (sys.executable, str(tmp_path / "no-such-python"), str(tmp_path)):
        result = subprocess.run([str(script)], check=False, input=b"{}", capture_output=True, timeout=20,
                                env={**os.environ, "SELF_IMPROVE_PYTHON": python})
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_broken_package_still_exits_zero_with_one_debug_line(tmp_path: Path, isolated_home: Path) -> None:
    script = copy_wrapper(tmp_path)
    package = tmp_path / "checkout" / "self_improve"
    package.mkdir()
    (package / "hooks").mkdir()
    shutil.copy2(REPO / "self_improve" / "hooks" / "entry.py", package / "hooks" / "entry.py")
    (package / "__init__.py").write_text("")
    (package / "hooks" / "__init__.py").write_text("")
    (package / "hooks" / "run.py").write_text("raise ImportError('half-updated checkout')\n")
    result = subprocess.run([str(script)], check=False, input=b"{}", capture_output=True, timeout=20,
                            env={**os.environ, "SELF_IMPROVE_PYTHON": sys.executable})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    (line,) = debug_lines(isolated_home)
    assert line.endswith(" hook post-bash: ImportError: half-updated checkout")


def test_a_broken_hook_module_is_logged_where_the_hooks_log(tmp_path: Path, isolated_home: Path) -> None:
    script = copy_wrapper(tmp_path)
    package = tmp_path / "checkout" / "self_improve"
    (package / "hooks").mkdir(parents=True)
    for name in ("hooks/entry.py", "hooks/debug.py", "paths.py", "errors.py"):
        shutil.copy2(REPO / "self_improve" / name, package / name)
    (package / "__init__.py").write_text("")
    (package / "hooks" / "__init__.py").write_text("")
    (package / "hooks" / "run.py").write_text("raise ImportError('half-updated checkout')\n")
    state = tmp_path / "state"
    for xdg in ("relative/state", str(state)):  # paths.user_state_dir ignores a relative one
        result = subprocess.run([str(script)], check=False, input=b"{}", capture_output=True, timeout=20,
                                env={**os.environ, "SELF_IMPROVE_PYTHON": sys.executable, "XDG_STATE_HOME": xdg})
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    (line,) = debug_lines(isolated_home)
    assert line.endswith(" hook post-bash: ImportError: half-updated checkout")
    assert line[:4].isdigit()  # hooks.debug's line, with its timestamp
    logged = (state / "self-improve" / "debug.log").read_text(encoding="utf-8").splitlines()
    assert [entry.split(" ", 2)[2] for entry in logged] == [line.split(" ", 2)[2]]


def test_a_closed_stdout_still_exits_zero(project: Path) -> None:
    hook = subprocess.Popen([str(HOOKS / "post-bash")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert hook.stdout is not None and hook.stdin is not None
    hook.stdout.close()  # the harness stopped listening: our nudge meets EPIPE
    hook.stdin.write(json.dumps(payload("PostToolUseFailure", cwd=str(project))).encode())
    hook.stdin.close()
    assert hook.wait(timeout=20) == 0  # not 120 (a failed flush at interpreter exit)


# ---- payload strings are sanitised ---------------------------------------------------------------


@pytest.mark.parametrize("escape", ["\\ud800", "\\udcff"])
def test_lone_surrogates_are_recorded_and_errors_md_stays_utf8(tmp_path: Path, escape: str) -> None:
    assert run_cli("init", cwd=tmp_path).returncode == 0
    data = payload("PostToolUseFailure", cwd=str(tmp_path), session_id="s-SURROGATE")
    data["tool_input"]["command"] = "python3 -c 'import nosuchSURROGATEmod'"
    raw = json.dumps(data).replace("nosuchmod", "nosuchSURROGATEmod").replace("SURROGATE", escape)
    assert raw.count(escape) == 3
    result = run_hook("post-bash", raw)
    assert result.returncode == 0
    # The module's name is not of the safe alphabet: the subject names it by a hash.
    subject = "python:h-" + short_hash("nosuch\ufffdmod")
    assert context_of(result, "PostToolUseFailure").startswith(f"<error-detected>\ndeps.module-not-found ({subject}): ")
    (entry,) = Store(tmp_path).entries("error")
    assert (entry.recurrence_count, entry.pattern_key) == (1, f"deps.module-not-found/{subject}")
    assert "No module named 'nosuch\ufffdmod'" in entry.text
    stored = (tmp_path / ".learnings/ERRORS.md").read_bytes()
    stored.decode("utf-8", "strict")
    assert b"\xff" not in stored and b"\xed" not in stored


SURROGATE_PAYLOADS = [
    (claude.parse_tool_result, {"hook_event_name": "PostToolUse", "tool_name": "Bash", "session_id": "s\ud800",
                                "cwd": "/p\udcff", "tool_input": {"command": "ls \ud800"},
                                "tool_response": {"stdout": "out\udcff", "stderr": "err\ud800"}}),
    (claude.parse_tool_result, {"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "session_id": "s\ud800",
                                "cwd": "/p", "tool_input": {"command": "x"}, "error": "Exit code 1\nboom \udcff"}),
    (codex.parse_tool_result, {"hook_event_name": "PostToolUse", "tool_name": "Bash", "turn_id": "t", "session_id": "s",
                               "cwd": "/p\ud800", "tool_input": {"command": "make \udcff"}, "tool_response": "out \ud800"}),
    (codex.parse_tool_result, {"hook_event_name": "PostToolUse", "tool_name": "Bash", "turn_id": "t", "session_id": "s",
                               "cwd": "/p", "tool_input": {"command": "make"}, "tool_response": {"output": "o\udcff"}}),
    (claude.parse_prompt, {"hook_event_name": "UserPromptSubmit", "prompt": "no, \ud800use pnpm", "session_id": "s\udcff",
                           "cwd": "/p"}),
]


@pytest.mark.parametrize(("parse", "raw"), SURROGATE_PAYLOADS)
def test_every_string_an_adapter_takes_is_sanitised(parse: Any, raw: dict[str, Any]) -> None:
    parsed = parse(raw)
    strings = [getattr(parsed, name) for name in parsed.__slots__ if isinstance(getattr(parsed, name), str)]
    for text in strings:
        text.encode("utf-8", "strict")  # no lone surrogate is left anywhere
    expected = sum(json.dumps(raw).count(s) for s in ("\\ud800", "\\udcff"))
    assert sum(text.count("\ufffd") for text in strings) == expected


# ---- detection's bounds --------------------------------------------------------------------------


def test_only_the_head_of_a_huge_command_line_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    lengths: list[int] = []
    tokenize = shell.tokenize

    def recording(command: str) -> list[str]:
        lengths.append(len(command))
        return tokenize(command)

    monkeypatch.setattr(shell, "tokenize", recording)
    command = "./build.sh " + "x" * (10 * errors.MAX_COMMAND_CHARS)
    found = errors.detect(ToolResult(command, "ModuleNotFoundError: No module named 'x'", 0, "s", "/p"))
    assert found is not None and found.pattern_key == "deps.module-not-found"
    assert lengths == [errors.MAX_COMMAND_CHARS]


def test_a_catastrophic_user_regex_gives_up_and_is_named_once(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[[detect.rules]]\nkey = "ci.flaky"\nstrong = ["^(a|aa)+$"]\n')
    data = payload("PostToolUse", cwd=str(project))
    data["tool_input"]["command"] = "./build.sh"
    data["tool_response"]["stdout"] = "a" * 4000 + "b"
    result = run_hook("post-bash", data, timeout=30)
    assert (result.returncode, result.stdout) == (0, b"")
    (line,) = debug_lines(isolated_home)
    assert line.endswith(" post-bash: [detect] rules[0].strong (rule ci.flaky) pattern '^(a|aa)+$' gave up after 0.1 s; skipped")


def test_a_user_regex_that_regex_cannot_compile_is_refused() -> None:
    rules = errors.load_rules({"rules": [{"key": "ci.x", "strong": ["(unclosed"]}]})
    assert rules.warnings == ("[detect] rules[0].strong: invalid regular expression '(unclosed'; skipped",
                              "[detect] rules[0]: no usable pattern; skipped")


def test_without_the_regex_module_user_regexes_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from self_improve.detect import user_patterns

    def missing() -> None:
        raise ImportError("No module named 'regex'")

    monkeypatch.setattr(user_patterns, "_regex_module", missing)
    user_patterns.compile_user.cache_clear()
    try:
        rules = errors.load_rules({"rules": [{"key": "ci.y", "strong": ["boom"]}], "ignore": ["x"]})
    finally:
        user_patterns.compile_user.cache_clear()
    assert rules.warnings == ("[detect] rules[0].strong: no `regex` module to run 'boom'; skipped",
                              "[detect] rules[0]: no usable pattern; skipped",
                              "[detect] ignore: no `regex` module to run 'x'; skipped")
    assert rules.ignore == errors.load_rules().ignore  # only the packaged guards
