"""The loop closed without the model's cooperation (issue 12), through the real hook scripts.

The simulated agent never calls ``self-improve``: it fails, finds a fix by itself, and retries.
What the hooks learn comes from exit codes alone: an observed fix, recalled in a new session;
the known fix of a command that never passed, given at the session's first prompt and by pre-bash;
measured credit; a promoted rule that recurs, proposed for revision.
"""

from __future__ import annotations

import json
from pathlib import Path

from self_improve.store import counters
from self_improve.store.store import Store
from tests.helpers import payload, run_cli, run_hook

YAML_ERROR = ("Traceback (most recent call last):\n  File \"/home/dev/shop/app.py\", line 1, in <module>\n"
              "    import yaml\nModuleNotFoundError: No module named 'yaml'")
YAML = "deps.module-not-found/python:yaml"
PYTHON = "shell.command-not-found/python"
YAML_FIX = "Last time: `pip install pyyaml`, then `python3 app.py` passed."
PYTHON_FIX = "Last time: `python3 app.py` passed instead of `python app.py`."


def bash(project: Path, session: str, command: str, exit_code: int = 0, output: str = "ok") -> str:
    """The hooks of one Bash call (pre-bash, then post-bash), as Claude Code runs them; what
    reached the model from each, joined ("" when neither spoke)."""
    said = []
    pre = run_hook("pre-bash", payload("PreToolUse", cwd=str(project), session_id=session,
                                       tool_input={"command": command, "description": "run"}))
    assert pre.returncode == 0
    if pre.stdout.strip():
        said.append(json.loads(pre.stdout)["hookSpecificOutput"]["additionalContext"])
    if exit_code == 0:
        post_payload = payload("PostToolUse", cwd=str(project), session_id=session,
                               tool_input={"command": command, "description": "run"},
                               tool_response={"stdout": output, "stderr": "", "interrupted": False, "isImage": False})
    else:
        post_payload = payload("PostToolUseFailure", cwd=str(project), session_id=session,
                               tool_input={"command": command, "description": "run"},
                               error=f"Exit code {exit_code}\n{output}")
    post = run_hook("post-bash", post_payload)
    assert post.returncode == 0
    if post.stdout.strip():
        said.append(json.loads(post.stdout)["hookSpecificOutput"]["additionalContext"])
    return "\n".join(said)


def prompt(project: Path, session: str, text: str = "Run the report") -> str:
    done = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project), session_id=session, prompt=text))
    assert done.returncode == 0
    return done.stdout.decode()


def entry(project: Path, key: str):  # type: ignore[no-untyped-def]
    (found,) = Store(project).with_pattern_key("error", key)
    return found


def test_observed_fix_recalled_credited_and_prevented(project: Path) -> None:
    # session 1: the agent fails, finds the fix itself, retries; it never calls self-improve
    assert "First time here." in bash(project, "s1", "python3 app.py", 1, YAML_ERROR)
    assert bash(project, "s1", "ls") == ""
    assert bash(project, "s1", "pip install pyyaml", output="Successfully installed PyYAML-6.0.2") == ""
    assert bash(project, "s1", "python3 app.py") == ""
    yaml = entry(project, YAML)
    assert yaml.observed_fix == YAML_FIX and f"- Observed-Fix: {YAML_FIX}\n" in yaml.text
    assert "Measured-" not in yaml.text

    # session 2 (a fresh environment): the same mistake gets the observed fix just in time
    assert "<known-mistakes>" not in prompt(project, "s2")  # nothing open: session 1 ended passing
    said = bash(project, "s2", "python3 app.py", 1, YAML_ERROR)
    assert said == ("<error-detected>\ndeps.module-not-found (python:yaml): Module or package not found. "
                    f"Seen 2x in 2 session(s).\nKnown fix (from {yaml.id} logged {yaml.logged[:10]} in this repo): "
                    f"{YAML_FIX}\n</error-detected>")
    assert bash(project, "s2", "pip install pyyaml") == ""
    assert bash(project, "s2", "python3 app.py") == ""  # the retry passes: measured helpful
    yaml = entry(project, YAML)
    assert (yaml.measured_helpful, yaml.measured_harmful, yaml.helpful) == (1, 0, 0)
    # ... and a wrong invocation that never passes: its fix is the argument change
    assert "First time here." in bash(project, "s2", "python app.py", 127, "bash: line 1: python: command not found")
    assert bash(project, "s2", "python3 app.py") == ""
    assert entry(project, PYTHON).observed_fix == PYTHON_FIX

    # session 3: before any command, the first prompt names the open mistake and its fix
    python = entry(project, PYTHON)
    known = f"Known fix (from {python.id} logged {python.logged[:10]} in this repo): {PYTHON_FIX}"
    said = prompt(project, "s3")
    assert said.startswith("<known-mistakes>\nCommands that failed in this project before and have not passed "
                           f"since:\n- shell.command-not-found (python): {known}\n</known-mistakes>\n")
    # ... and pre-bash says it next to the command itself; the command runs all the same
    said = bash(project, "s3", "python app.py", 127, "bash: line 1: python: command not found")
    assert said.startswith(f"<known-fix>\nThis command failed here before: shell.command-not-found (python).\n{known}\n"
                           "</known-fix>\n<error-detected>\n")
    # the fix listed at the prompt was not applied: no harm measured (pre-bash's came with the command)
    assert entry(project, PYTHON).measured_harmful == 0
    assert bash(project, "s3", "python3 app.py") == ""
    assert entry(project, PYTHON).measured_helpful == 1  # the recall after the failure, then a pass
    # each measured credit is also tallied for its day, for `stats --curve` (two in all)
    daily = counters.read_daily(Store(project).fs)
    assert list(daily) == ["measured_helpful"] and sum(daily["measured_helpful"].values()) == 2


def test_a_resolved_entry_that_recurs_is_pending_again_and_a_promoted_one_counts(project: Path) -> None:
    bash(project, "s1", "python3 app.py", 1, YAML_ERROR)
    yaml = entry(project, YAML)
    Store(project).update(yaml.id, lambda e: e.with_status("resolved"))
    bash(project, "s2", "python3 app.py", 1, YAML_ERROR)
    yaml = entry(project, YAML)
    assert (yaml.status, yaml.recurred_after_resolution) == ("pending", 1)
    Store(project).update(yaml.id, lambda e: e.with_status("promoted").with_field("Promoted", "CLAUDE.md"))
    bash(project, "s3", "python3 app.py", 1, YAML_ERROR)
    yaml = entry(project, YAML)
    assert (yaml.status, yaml.recurred_after_promotion, yaml.recurred_after_resolution) == ("promoted", 1, 1)


def test_a_passing_command_with_nothing_open_writes_nothing(project: Path) -> None:
    before = sorted(p.relative_to(project).as_posix() for p in (project / ".learnings").rglob("*"))
    assert bash(project, "s1", "ls -la") == ""
    after = sorted(p.relative_to(project).as_posix() for p in (project / ".learnings").rglob("*"))
    assert [p for p in after if "evidence" in p or p.endswith("prevent.json")] == []
    assert set(before) <= set(after)


def test_pre_bash_is_silent_without_a_store_and_on_other_events(tmp_path: Path) -> None:
    done = run_hook("pre-bash", payload("PreToolUse", cwd=str(tmp_path)))
    assert (done.returncode, done.stdout) == (0, b"")
    done = run_hook("pre-bash", payload("PreToolUse", cwd=str(tmp_path), tool_name="Edit"))
    assert (done.returncode, done.stdout) == (0, b"")


def test_a_promoted_observed_fix_that_recurs_is_proposed_for_revision(project: Path) -> None:
    # an agent that never logs: the rule is the observed fix, promoted by the user
    for session in ("s1", "s2"):
        bash(project, session, "python3 app.py", 1, YAML_ERROR)
        bash(project, session, "pip install pyyaml")
        bash(project, session, "python3 app.py")
    yaml = entry(project, YAML)
    done = run_cli("promote", yaml.id, "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    rule = f"deps.module-not-found (python:yaml): {YAML_FIX}"
    assert f"- {rule} <!-- {yaml.id} -->" in (project / ".claude/rules/self-improve.md").read_text()
    # the mistake comes back although the rule is in the rules file: the rule did not prevent it
    bash(project, "s3", "python3 app.py", 1, YAML_ERROR)
    assert entry(project, YAML).recurred_after_promotion == 1
    plan = json.loads(run_cli("review", "--json", cwd=project).stdout)
    (item,) = plan["revise"]
    assert (item["id"], item["pattern_key"], item["recurred_after_promotion"]) == (yaml.id, YAML, 1)
    assert (item["measured_helpful"], item["measured_harmful"]) == (1, 0)
    assert plan["retire"] == []  # recurring is no reason to retire it: revise it
