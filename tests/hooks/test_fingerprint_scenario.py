"""The loop per mistake, through the real hook scripts and the real CLI (issue 11's scenario).

Several error classes, each with two or more subjects, over four sessions. A simulated agent
runs exactly the `self-improve log …` command each nudge prints, with its fix filled in. Then:
every repeat of a mistake gets its own fix, no failure ever gets another subject's fix, the
recurrence counts are exact per mistake, and `review --json` proposes exactly the mistakes that
meet the promotion rule (3 occurrences in 2 sessions), with their fixes as rules.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from self_improve.store.store import Store
from tests.helpers import context_of, payload, run_hook

NOW = "2026-11-20T10:00:00Z"
TODAY = "2026-11-21"


def traceback(file: str, line: int, function: str, exception: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/dev/shop/main.py", line 3, in <module>\n    run()\n'
        f'  File "/home/dev/shop/{file}", line {line}, in {function}\n    value = row["k"]\n'
        f"{exception}"
    )


# name: (command, output, exit code, the fingerprint we expect, the fix the agent finds)
MISTAKES = {
    "yaml": ("python3 app.py", "Traceback (most recent call last):\n  File \"/home/dev/shop/app.py\", line 1, in <module>\n"
             "    import yaml\nModuleNotFoundError: No module named 'yaml'", 1,
             "deps.module-not-found/python:yaml", "pip install pyyaml"),
    "yaml-from-pytest": ("python3 -m pytest -q", "ImportError while importing test module '/home/dev/shop/tests/test_cfg.py'.\n"
                         "E   ModuleNotFoundError: No module named 'yaml'\n1 error in 0.12s", 2,
                         "deps.module-not-found/python:yaml", "pip install pyyaml"),
    "numpy": ("python3 stats.py", "ModuleNotFoundError: No module named 'numpy'", 1,
              "deps.module-not-found/python:numpy", "pip install numpy"),
    "esbuild": ("node build.js", "node:internal/modules/cjs/loader:1228\n  throw err;\n\nError: Cannot find module 'esbuild'\n"
                "Require stack:\n- /home/dev/shop/build.js", 1, "deps.module-not-found/node:esbuild", "npm install --save-dev esbuild"),
    "docker": ("docker compose up -d", "bash: line 1: docker: command not found", 127,
               "shell.command-not-found/docker", "Use podman compose here: docker is not installed"),
    "uv": ("uv sync", "bash: uv: command not found", 127, "shell.command-not-found/uv", "pipx install uv"),
    "keyerror-models": ("python3 main.py", traceback("app/models.py", 12, "load", "KeyError: 'name'"), 1,
                        "python.traceback/KeyError@app/models.py:load", "Read rows with row.get('name') in models.load"),
    "keyerror-models-again": ("python3 main.py --all", traceback("app/models.py", 14, "load", "KeyError: 'email'"), 1,
                              "python.traceback/KeyError@app/models.py:load", "Read rows with row.get('name') in models.load"),
    "keyerror-views": ("python3 main.py", traceback("app/views.py", 40, "render", "KeyError: 'title'"), 1,
                       "python.traceback/KeyError@app/views.py:render", "Pass a title to views.render"),
    "e0432": ("cargo build", "error[E0432]: unresolved import `serde_json`\n --> src/main.rs:1:5\n", 101,
              "build.compile-error/E0432:serde_json", "cargo add serde_json"),
    "e0425": ("cargo build", "error[E0425]: cannot find value `totl` in this scope\n --> src/main.rs:4:13\n", 101,
              "build.compile-error/E0425:totl", "The variable is total, not totl"),
}

SESSIONS = {
    "s1": ["yaml", "esbuild", "docker", "keyerror-models", "e0432"],
    "s2": ["yaml-from-pytest", "numpy", "uv", "keyerror-views", "e0425", "esbuild"],
    "s3": ["yaml", "docker", "keyerror-models-again", "e0432", "numpy"],
    "s4": ["uv", "keyerror-views", "docker", "keyerror-models", "e0425"],
}


def fail(project: Path, session: str, name: str) -> str:
    command, output, code, _, _ = MISTAKES[name]
    data = payload("PostToolUseFailure", cwd=str(project), session_id=session,
                   tool_input={"command": command, "description": name}, error=f"Exit code {code}\n{output}")
    result = run_hook("post-bash", data, env={"SELF_IMPROVE_NOW": NOW})
    assert result.returncode == 0, result.stderr
    return context_of(result, "PostToolUseFailure")


def agent_runs(project: Path, session: str, printed: str, fix: str, summary: str) -> None:
    """What the agent does with a nudge without a known fix: run the printed command as printed."""
    (line,) = [line for line in printed.splitlines() if " log error " in line]
    command = line.replace("<fix>", fix).replace("<one-line summary>", summary)
    env = {**os.environ, "SELF_IMPROVE_NOW": NOW, "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": session}
    ran = subprocess.run(["/bin/sh", "-c", command], cwd=project, env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_each_mistake_learns_its_own_fix_counts_and_promotes_alone(project: Path) -> None:
    seen: dict[str, int] = {}
    fixes_shown: list[tuple[str, str]] = []
    for session, names in SESSIONS.items():
        for name in names:
            _, _, _, fingerprint, fix = MISTAKES[name]
            text = fail(project, session, name)
            class_, _, subject = fingerprint.partition("/")
            assert text.startswith(f"<error-detected>\n{class_} ({subject}): "), text
            known = re.search(r"^Known fix \(from ERR-\S+ logged \S+ in this repo\): (.*)$", text, re.MULTILINE)
            seen[fingerprint] = seen.get(fingerprint, 0) + 1
            if seen[fingerprint] == 1:
                assert known is None, f"{name}: a fix offered for a mistake never seen: {text}"
                assert f"--pattern-key {fingerprint} --action" in text
                agent_runs(project, session, text, fix, f"{name} in the shop")
            else:
                assert known is not None, f"{name}: repeat {seen[fingerprint]} got no fix: {text}"
                fixes_shown.append((name, known.group(1)))
    # Every repeat got its own fix, never a sibling's.
    assert fixes_shown == [(name, MISTAKES[name][4]) for name, _ in fixes_shown]
    assert len(fixes_shown) == sum(seen.values()) - len(seen) == 12

    entries = Store(project).entries("error")
    counts = {entry.pattern_key: entry.recurrence_count for entry in entries}
    assert counts == {
        "deps.module-not-found/python:yaml": 3,
        "deps.module-not-found/python:numpy": 2,
        "deps.module-not-found/node:esbuild": 2,
        "shell.command-not-found/docker": 3,
        "shell.command-not-found/uv": 2,
        "python.traceback/KeyError@app/models.py:load": 3,
        "python.traceback/KeyError@app/views.py:render": 2,
        "build.compile-error/E0432:serde_json": 2,
        "build.compile-error/E0425:totl": 2,
    }
    summaries = {entry.pattern_key: entry.summary for entry in entries}
    assert summaries["deps.module-not-found/python:yaml"] == "yaml in the shop"  # the agent's words, not our title

    review = subprocess.run([str(Path(__file__).resolve().parents[2] / "bin" / "self-improve"), "review", "--json", "--today", TODAY],
                            cwd=project, capture_output=True, text=True, timeout=60)
    assert review.returncode == 0, review.stderr
    proposals = json.loads(review.stdout)
    by_id = {entry.id: entry.pattern_key for entry in entries}
    promoted = {by_id[item["id"]]: item["rule"] for item in proposals["promote"]}
    assert promoted == {
        "deps.module-not-found/python:yaml": "pip install pyyaml",
        "shell.command-not-found/docker": "Use podman compose here: docker is not installed",
        "python.traceback/KeyError@app/models.py:load": "Read rows with row.get('name') in models.load",
    }
    classes = {item["pattern_key"]: item["mistakes"] for item in proposals["classes"]}
    assert classes == {"deps.module-not-found": 3, "shell.command-not-found": 2, "python.traceback": 2, "build.compile-error": 2}
