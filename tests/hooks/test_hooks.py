"""The hooks on the hot path: opt-in, exact output shapes, recording, recall, reminders, robustness."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.store.store import Store, latest_action, task_hash
from tests.helpers import HOOKS, REPO, context_of, debug_lines, payload, run_hook, tree_hash


# ---- post-bash -----------------------------------------------------------------------------------


def test_real_failure_payload_is_nudged_and_recorded(project: Path) -> None:
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project)))
    assert result.returncode == 0
    text = context_of(result, "PostToolUseFailure")
    assert text.startswith("<error-detected>\ndeps.module-not-found (python:nosuchmod): ")
    assert 'self-improve log error --pattern-key deps.module-not-found/python:nosuchmod --action "<fix>" "<one-line summary>"' in text
    assert text.endswith("</error-detected>")
    # Raw tool output never reaches the model through us: of the output, only the sanitised subject
    # does, in the name of the mistake and in the command that records it.
    assert "No module named" not in text and text.count("nosuchmod") == 2
    assert len(text) / 4 <= 75
    (entry,) = Store(project).entries("error")
    assert entry.pattern_key == "deps.module-not-found/python:nosuchmod"
    assert entry.occurrences[0].task == task_hash("96ffc192-f355-4c21-9a2d-6aa9634bc465")
    assert "No module named 'nosuchmod'" in entry.text  # the redacted excerpt is stored, not injected
    second = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project), session_id="other"))
    assert "Seen 2x in 2 session(s)." in context_of(second, "PostToolUseFailure")
    assert Store(project).entries("error")[0].recurrence_count == 2


def test_success_payload_prints_and_records_nothing(project: Path) -> None:
    before = tree_hash(project / ".learnings")
    result = run_hook("post-bash", payload("PostToolUse", cwd=str(project)))
    assert (result.returncode, result.stdout) == (0, b"")
    after = tree_hash(project / ".learnings")
    assert {k: v for k, v in after.items() if not k.startswith(".state")} == {
        k: v for k, v in before.items() if not k.startswith(".state")
    }


def test_projects_without_learnings_are_left_alone(tmp_path: Path) -> None:
    for name, data in (("post-bash", payload("PostToolUseFailure", cwd=str(tmp_path))),
                       ("prompt-submit", payload("UserPromptSubmit", cwd=str(tmp_path)))):
        result = run_hook(name, data)
        assert (result.returncode, result.stdout) == (0, b"")
    assert list(tmp_path.iterdir()) == []


def test_known_fix_is_recalled_instead_of_the_generic_nudge(project: Path) -> None:
    run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project)))
    store = Store(project)
    (entry,) = store.entries("error")
    from self_improve.store.store import LogRequest

    store.update(entry.id, lambda e: e.with_status("resolved"))
    store.log(LogRequest(kind="error", summary="x", pattern_key="deps.module-not-found/python:nosuchmod",
                         action="Install it with `pip install -r requirements.txt` first",
                         session="96ffc192-f355-4c21-9a2d-6aa9634bc465"))
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project), session_id="s2"))
    text = context_of(result, "PostToolUseFailure")
    day = entry.logged[:10]
    assert f"Known fix (from {entry.id} logged {day} in this repo): Install it with `pip install -r requirements.txt` first" in text
    assert "self-improve log" not in text
    assert text.count("\n") == 3  # exactly one item, never a list
    counters = json.loads((project / ".learnings/.state/counters.json").read_text())
    assert counters["error_nudges"] == 2 and counters["recalls"] == 1


# ---- prompt-submit --------------------------------------------------------------------------------


def prompt(project: Path, text: str = "run the command", session: str = "s1") -> str:
    result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project), prompt=text, session_id=session))
    assert result.returncode == 0
    out = result.stdout.decode()
    assert not out.lstrip().startswith("{")
    return out


def test_adaptive_reminder_first_prompt_then_every_tenth(project: Path) -> None:
    outputs = [prompt(project) for _ in range(12)]
    reminded = [i for i, out in enumerate(outputs) if "<self-improvement-reminder>" in out]
    assert reminded == [0, 10]
    first = outputs[0]
    assert "Non-obvious solution discovered?" in first.replace("Before finishing: non", "Non")
    assert "self-improve log" in first
    assert len(first) / 4 <= 80


def test_reminder_after_an_error(project: Path) -> None:
    assert "<self-improvement-reminder>" in prompt(project)
    assert prompt(project) == ""
    run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project), session_id="s1"))
    assert "<self-improvement-reminder>" in prompt(project)
    assert prompt(project) == ""


def test_modes_every_and_off(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"  # personal: the user's own config
    config.parent.mkdir(parents=True)
    config.write_text('[reminder]\nmode = "every"\n')
    assert all("<self-improvement-reminder>" in prompt(project) for _ in range(3))
    config.write_text('[reminder]\nmode = "off"\n')
    assert prompt(project, session="s2") == ""


def test_a_project_config_cannot_set_the_reminder_mode(project: Path) -> None:
    (project / ".learnings/config.toml").write_text('[reminder]\nmode = "every"\n')
    assert "<self-improvement-reminder>" in prompt(project)
    assert prompt(project) == ""  # adaptive, the default: the repo's "every" is not honoured


def test_correction_is_nudged(project: Path) -> None:
    prompt(project)
    out = prompt(project, "No, that's wrong. Don't use npm here, use pnpm.")
    assert out.startswith("<correction-detected>")
    assert "self-improve log learning --category correction" in out
    assert "pnpm" not in out  # the hook never echoes the prompt (it queues a redacted excerpt: test_correction_queue.py)
    assert Store(project).entries() == []


def test_old_sessions_are_pruned(project: Path) -> None:
    sessions = project / ".learnings/.state/sessions"
    prompt(project, session="old")
    (old,) = sessions.iterdir()
    ancient = time.time() - 8 * 86400
    os.utime(old, (ancient, ancient))
    prompt(project, session="new")
    assert [p.name for p in sessions.iterdir()] == ["new.json"]


# ---- robustness ----------------------------------------------------------------------------------

BAD_INPUTS = [
    b"",
    b"not json",
    b"[1, 2, 3]",
    b'"a string"',
    b"{}",
    b'{"hook_event_name": 5, "tool_name": ["Bash"]}',
    b'{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": 7, "cwd": 3}',
    b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_response": "x", "tool_input": null}',
    b'{"hook_event_name": "UserPromptSubmit", "prompt": {"a": 1}}',
    b"\xff\xfe\x00invalid utf-8 \xc3\x28",
    b'{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "Exit code 1\\nboom \xff"}',
]


@pytest.mark.parametrize("name", ["post-bash", "prompt-submit"])
@pytest.mark.parametrize("stdin", BAD_INPUTS)
def test_bad_input_exits_zero(project: Path, isolated_home: Path, name: str, stdin: bytes) -> None:
    result = run_hook(name, stdin)  # timings are in bench/hooks_bounded.py
    assert result.returncode == 0
    assert_valid_output(result.stdout)
    assert debug_lines(isolated_home) == []  # a bad payload is no failure of ours


def assert_valid_output(stdout: bytes) -> None:
    text = stdout.decode()
    if text.strip().startswith("{"):
        json.loads(text)


@pytest.mark.parametrize("name", ["post-bash", "prompt-submit"])
def test_missing_cwd_and_fifty_megabytes(project: Path, name: str) -> None:
    data = payload("PostToolUseFailure" if name == "post-bash" else "UserPromptSubmit")
    data.pop("cwd")
    assert run_hook(name, data).stdout == b""
    big = payload("PostToolUseFailure", cwd=str(project))
    big["error"] = "Exit code 1\n" + "x" * (50 * 1024 * 1024)
    result = run_hook(name, big, timeout=20)  # timings are in bench/hooks_bounded.py
    assert result.returncode == 0
    assert result.stdout == b""  # over the parse cap: drained, not parsed
    assert_valid_output(result.stdout)


def test_unreadable_and_corrupt_learnings(project: Path, isolated_home: Path) -> None:
    errors = project / ".learnings/ERRORS.md"
    errors.unlink()
    errors.mkdir()  # a directory where the file should be
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project)))
    assert result.returncode == 0
    # Nothing could be recorded, but the agent still gets the nudge.
    assert context_of(result, "PostToolUseFailure").startswith("<error-detected>\ndeps.module-not-found (python:nosuchmod): ")
    (project / ".learnings/config.toml").write_text("[[[ not toml")
    result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project)))
    assert result.returncode == 0
    assert_valid_output(result.stdout)
    assert any("post-bash" in line for line in debug_lines(isolated_home))


def test_debug_mode_reports_on_stderr(project: Path) -> None:
    (project / ".learnings/ERRORS.md").unlink()
    (project / ".learnings/ERRORS.md").mkdir()
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project)), env={"SELF_IMPROVE_DEBUG": "1"})
    assert result.returncode == 0
    assert b"post-bash:" in result.stderr


def test_hook_verb_of_the_cli_is_the_same_hook(project: Path) -> None:
    from tests.helpers import run_cli

    result = run_cli("hook", "post-bash", input=json.dumps(payload("PostToolUseFailure", cwd=str(project))))
    assert result.returncode == 0
    assert "deps.module-not-found" in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=20), children, max_size=4),
    max_leaves=20,
)
HOOKISH = st.fixed_dictionaries(
    {},
    optional={
        "hook_event_name": st.sampled_from(["PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "x"]) | JSON_VALUES,
        "tool_name": st.sampled_from(["Bash", "Edit"]) | JSON_VALUES,
        "tool_input": st.fixed_dictionaries({}, optional={"command": JSON_VALUES}) | JSON_VALUES,
        "tool_response": st.fixed_dictionaries({}, optional={"stdout": JSON_VALUES, "stderr": JSON_VALUES}) | JSON_VALUES,
        "error": st.text(max_size=200) | JSON_VALUES,
        "prompt": st.text(max_size=100) | JSON_VALUES,
        "session_id": JSON_VALUES,
        "cwd": JSON_VALUES,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=HOOKISH, use_project=st.booleans())
def test_fuzzed_payloads_never_break_the_hooks(project: Path, isolated_home: Path, data: dict[str, Any],
                                               use_project: bool) -> None:
    if use_project:
        data["cwd"] = str(project)
    for name in ("post-bash", "prompt-submit"):
        from self_improve.hooks import run as hooks

        output = _run_in_process(hooks, name, json.dumps(data).encode())
        if output.strip().startswith("{"):
            json.loads(output)
        assert debug_lines(isolated_home) == [], (name, data)  # exit 0 is not enough: nothing failed


def _run_in_process(hooks: Any, name: str, raw: bytes) -> str:
    import io
    import sys

    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw))
    sys.stdout = io.StringIO()
    try:
        assert hooks.run(name) == 0
        return sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = stdin, stdout


def test_concurrent_prompt_hooks_count_every_prompt(project: Path) -> None:
    # The harness may run hook processes in parallel; the per-session state is updated under a lock.
    data = json.dumps(payload("UserPromptSubmit", cwd=str(project), session_id="busy")).encode()
    processes = [subprocess.Popen([str(HOOKS / "prompt-submit")], stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(8)]
    outputs = [p.communicate(data, timeout=20)[0] for p in processes]
    assert all(p.returncode == 0 for p in processes)
    state = json.loads((project / ".learnings/.state/sessions/busy.json").read_text())
    assert state["prompts"] == 8
    assert sum(b"<self-improvement-reminder>" in out for out in outputs) == 1  # only the first prompt of the session
    counters = json.loads((project / ".learnings/.state/counters.json").read_text())
    assert counters["reminders"] == 1


@settings(max_examples=300, deadline=None)
@given(value=JSON_VALUES, padding=st.sampled_from(["", " ", "\n", " \r\n\t"]))
def test_parse_json_agrees_with_json_loads(value: Any, padding: str) -> None:
    from self_improve.hooks.budget import parse_json

    text = padding + json.dumps(value) + padding
    assert parse_json(text) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_parse_json_rejects_what_json_loads_rejects(text: str) -> None:
    from self_improve.hooks.budget import parse_json

    try:
        expected = json.loads(text)
    except (ValueError, RecursionError):
        assert parse_json(text) is None
    else:
        assert parse_json(text) == expected or (expected != expected)  # NaN is never equal to itself


def test_a_failing_call_of_our_own_cli_is_neither_nudged_nor_recorded(project: Path, isolated_home: Path) -> None:
    before = tree_hash(project / ".learnings")
    for command, error in (
        ("self-improve log error --summary 'x' --bogus", "Exit code 2\nusage: self-improve log\nself-improve: error: unrecognized arguments: --bogus"),
        ("self-improve review --json", "Exit code 127\n/bin/bash: line 1: self-improve: command not found"),
    ):
        data = payload("PostToolUseFailure", cwd=str(project))
        data["tool_input"]["command"] = command
        data["error"] = error
        result = run_hook("post-bash", data)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    after = tree_hash(project / ".learnings")
    assert {k: v for k, v in after.items() if not k.startswith(".state/")} == {k: v for k, v in before.items() if not k.startswith(".state/")}
    assert debug_lines(isolated_home) == []


def test_without_our_cli_on_path_the_nudge_prints_a_command_that_runs_as_printed(project: Path) -> None:
    env = {"PATH": "/usr/bin:/bin"}  # ~/.local/bin, where install.sh links the CLI, is often not on it
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project)), env=env)
    text = context_of(result, "PostToolUseFailure")
    cli = str(REPO / "bin" / "self-improve")
    (line,) = [line for line in text.splitlines() if " log error " in line]
    assert line == f'{cli} log error --pattern-key deps.module-not-found/python:nosuchmod --action "<fix>" "<one-line summary>"'
    command = line.replace("<fix>", "pip install nosuchmod").replace("<one-line summary>", "nosuchmod was missing")
    ran = subprocess.run(["/bin/sh", "-c", command], cwd=project, env={**os.environ, **env, "HOME": str(project)},
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    (entry,) = Store(project).entries("error")  # the hook's entry, which the log merged into
    assert (entry.pattern_key, latest_action(entry)) == ("deps.module-not-found/python:nosuchmod", "pip install nosuchmod")
    assert (entry.summary, entry.recurrence_count) == ("nosuchmod was missing", 1)  # the agent's words, one incident


def test_with_our_cli_on_path_the_nudge_names_it(project: Path) -> None:
    text = context_of(run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project))), "PostToolUseFailure")
    assert '\nself-improve log error --pattern-key deps.module-not-found/python:nosuchmod --action "<fix>"' in text
