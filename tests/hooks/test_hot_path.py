"""The hot path's one rule, checked instead of repeated in comments: a clean post-bash (and a
prompt-submit that is no correction) imports none of the modules that would cost the user
start-up time; a failing command, recorded in ERRORS.md, and a correction import none of the
standard modules that cost more than the work itself (``dataclasses`` pulls in ``inspect``,
``pathlib`` ``urllib.parse``, ``hashlib`` OpenSSL, ``re`` ``enum`` and ``functools``; ``rx``
keeps the compiled patterns, so a warm process needs no ``re``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from self_improve.harnesses import codex, registry
from self_improve.store.store import Store
from tests.helpers import FIXTURES, REPO

HEAVY = ("re", "json", "pathlib", "typing", "dataclasses", "collections")
# What recording a failure must not cost either (``_datetime``, ``_sha256`` and ``_json``, the C
# modules behind datetime, hashlib and json, are fine).
RECORDING_HEAVY = (*HEAVY, "functools", "enum", "inspect", "ast", "hashlib", "_hashlib", "datetime", "urllib",
                   "urllib.parse", "ipaddress", "fnmatch", "contextlib", "tomllib", "copy", "weakref")

PROBE = """
import io, sys
sys.path.insert(0, sys.argv[1])
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[3].encode()))
from self_improve.hooks import run as hooks
hooks.run(sys.argv[2])
sys.stdout.write("\\n" + " ".join(sorted(m for m in sys.modules if m in sys.argv[4].split())))
"""


def loaded(hook: str, payload: dict[str, object], home: Path, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return run_probe(hook, payload, home, heavy)[1]


def run_probe(hook: str, payload: dict[str, object], home: Path, heavy: tuple[str, ...]) -> tuple[str, list[str]]:
    """(what the hook printed, the modules of ``heavy`` it had imported when it was done)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SELF_IMPROVE_"))}
    result = subprocess.run([sys.executable, "-I", "-S", "-c", PROBE, str(REPO), hook, json.dumps(payload), " ".join(heavy)],
                            capture_output=True, text=True, timeout=60, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    printed, _, modules = result.stdout.rpartition("\n")
    return printed, modules.split()


def project_and_home(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    Store(project).init()
    return project, home


def fixture(name: str, **changes: object) -> dict[str, object]:
    return {**json.loads((FIXTURES / "claude" / f"{name}.json").read_text()), **changes}


def test_a_passing_command_imports_nothing_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    passing = fixture("PostToolUse", cwd=str(project), tool_input={"command": "make build", "description": "build"},
                      tool_response={"stdout": "build ok\n", "stderr": "", "interrupted": False, "isImage": False})
    loaded("post-bash", passing, home)  # the first call of all writes the rules cache the pre-screen reads
    assert loaded("post-bash", passing, home) == []
    assert loaded("post-bash", passing, home) == []


def test_a_prompt_that_is_no_correction_imports_nothing_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    prompt = fixture("UserPromptSubmit", cwd=str(project), prompt="please add a test for the parser")
    # The first call may compile a pattern whose needle occurs ("as", "again"...) and keep its program
    # in the cache dir (rx); from then on nothing heavy is imported.
    loaded("prompt-submit", prompt, home)
    assert loaded("prompt-submit", prompt, home) == []
    assert loaded("prompt-submit", prompt, home) == []


def test_a_failing_command_is_recorded_without_importing_anything_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    failing = fixture("PostToolUseFailure", cwd=str(project))
    # The first call of all writes the caches (the rules, the compiled patterns) that later ones read.
    first, _ = run_probe("post-bash", failing, home, RECORDING_HEAVY)
    assert "<error-detected>" in first and "First time here." in first
    for count in (2, 3):
        printed, heavy = run_probe("post-bash", failing, home, RECORDING_HEAVY)
        assert heavy == []
        assert f"Seen {count}x in 1 session(s)." in printed
    (entry,) = Store(project).entries("error")
    assert entry.recurrence_count == 3
    assert "ModuleNotFoundError: No module named 'nosuchmod'" in entry.text


def test_a_correction_is_nudged_without_importing_anything_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    correction = fixture("UserPromptSubmit", cwd=str(project), prompt="No, that's wrong. Don't use npm here, use pnpm.")
    run_probe("prompt-submit", correction, home, RECORDING_HEAVY)
    printed, heavy = run_probe("prompt-submit", correction, home, RECORDING_HEAVY)
    assert printed.startswith("<correction-detected>")
    assert heavy == []


def test_pre_bash_imports_nothing_heavy_with_or_without_history(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    call = fixture("PreToolUse", cwd=str(project))
    loaded("pre-bash", call, home)
    assert run_probe("pre-bash", call, home, RECORDING_HEAVY) == ("", [])
    # the command failed here and a fix is known: the store is opened, and still nothing heavy
    run_probe("post-bash", fixture("PostToolUseFailure", cwd=str(project), session_id="earlier"), home, RECORDING_HEAVY)
    (entry,) = Store(project).entries("error")
    Store(project).update(entry.id, lambda e: e.with_metadata("Observed-Fix", "Last time: `pip install nosuchmod`, then it passed."))
    printed, heavy = run_probe("pre-bash", call, home, RECORDING_HEAVY)
    assert printed.startswith('{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "<known-fix>')
    assert heavy == []


def test_an_observed_fix_is_written_without_importing_anything_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    command = "python3 app.py"

    def result(session: str, text: str, failed: bool) -> dict[str, object]:
        if failed:
            return fixture("PostToolUseFailure", cwd=str(project), session_id=session,
                           tool_input={"command": text, "description": "run"})
        return fixture("PostToolUse", cwd=str(project), session_id=session, tool_input={"command": text, "description": "run"},
                       tool_response={"stdout": "ok\n", "stderr": "", "interrupted": False, "isImage": False})

    # The first session writes the caches (the compiled patterns of redaction, of the store) ...
    for session in ("first", "second"):
        heavy = [run_probe("post-bash", result(session, text, failed), home, RECORDING_HEAVY)[1]
                 for text, failed in ((command, True), ("pip install nosuchmod", False), (command, False))]
        (entry,) = Store(project).entries("error")
        assert entry.observed_fix == f"Last time: `pip install nosuchmod`, then `{command}` passed."
    # ... that the second reads: nothing heavy to keep the ring, write the fix and measure credit
    assert heavy == [[], [], []]
    assert entry.measured_helpful == 1


JOURNAL = ("self_improve.hooks.journal", "self_improve.store.injections")


def test_only_a_call_that_injects_loads_the_journal(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    passing = fixture("PostToolUse", cwd=str(project), tool_input={"command": "make build", "description": "build"},
                      tool_response={"stdout": "build ok\n", "stderr": "", "interrupted": False, "isImage": False})
    assert run_probe("post-bash", passing, home, JOURNAL) == ("", [])
    printed, journal = run_probe("post-bash", fixture("PostToolUseFailure", cwd=str(project)), home, JOURNAL)
    assert printed.startswith('{"hookSpecificOutput": ') and journal == list(JOURNAL)
    assert (project / ".learnings/.state/injections.jsonl").is_file()


RECORD = ("self_improve.hooks.record",)


def test_post_bash_records_through_the_shared_step(tmp_path: Path) -> None:
    """post-bash records through ``hooks/record.py`` (the step ``self-improve scan`` shares),
    passing or failing; prompt-submit and pre-bash never load it."""
    project, home = project_and_home(tmp_path)
    passing = fixture("PostToolUse", cwd=str(project), tool_input={"command": "make build", "description": "build"},
                      tool_response={"stdout": "build ok\n", "stderr": "", "interrupted": False, "isImage": False})
    assert run_probe("post-bash", passing, home, RECORD) == ("", list(RECORD))
    printed, modules = run_probe("post-bash", fixture("PostToolUseFailure", cwd=str(project)), home, RECORD)
    assert printed.startswith('{"hookSpecificOutput": ') and modules == list(RECORD)
    prompt = fixture("UserPromptSubmit", cwd=str(project), prompt="please add a test for the parser")
    assert run_probe("prompt-submit", prompt, home, RECORD)[1] == []
    assert run_probe("pre-bash", fixture("PreToolUse", cwd=str(project)), home, RECORD)[1] == []


# Not heavy, only unneeded: Codex's adapter for a Claude Code payload (``registry.Harness.marks``)
# and ``errno`` outside a failure (``atomic.open_regular``): ~0.1 and ~0.05 ms of every call.
UNNEEDED = ("self_improve.harnesses.codex", "errno")


def test_a_claude_code_payload_loads_no_codex_adapter_and_no_errno(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    calls = [
        ("post-bash", fixture("PostToolUse", cwd=str(project))),
        ("post-bash", fixture("PostToolUseFailure", cwd=str(project))),
        ("pre-bash", fixture("PreToolUse", cwd=str(project))),
        ("prompt-submit", fixture("UserPromptSubmit", cwd=str(project), prompt="please add a test for the parser")),
        ("prompt-submit", fixture("UserPromptSubmit", cwd=str(project), prompt="No, that's wrong. Use pnpm here.")),
    ]
    for hook, payload in calls * 2:  # the first calls of all write the caches
        assert run_probe(hook, payload, home, UNNEEDED)[1] == [], (hook, payload)
    codex_prompt = {**json.loads((FIXTURES / "codex" / "UserPromptSubmit.json").read_text()), "cwd": str(project)}
    printed, modules = run_probe("prompt-submit", codex_prompt, home, UNNEEDED)
    assert printed.startswith("<self-improvement-reminder>") and modules == ["self_improve.harnesses.codex"]


def test_codex_matches_only_payloads_with_its_marks() -> None:
    """``registry.hook_adapter_for`` asks Codex only about a payload holding a string under one of
    its marks: every payload ``codex.matches`` claims must have one."""
    (harness,) = [harness for harness in registry.HARNESSES if harness.name == "codex"]
    assert harness.marks == ("turn_id", "tool_response")
    claimed = []
    for path in sorted((FIXTURES / "codex").glob("*.json")):
        payload = json.loads(path.read_text())
        if codex.matches(payload):
            claimed.append(path.name)
            assert harness.may_match(payload), path.name
        for value in (None, 1, {"output": "x"}, ["x"]):
            unmarked = {**payload, **{key: value for key in harness.marks}}
            assert not harness.may_match(unmarked) and not codex.matches(unmarked), (path.name, value)
            assert registry.hook_adapter_for(unmarked).NAME == "claude"
    assert claimed == ["PostToolUse-failure.json", "PostToolUse.json", "UserPromptSubmit.json"]
    assert not harness.may_match([])  # type: ignore[arg-type]  # a payload is a dict; anything else is nobody's
