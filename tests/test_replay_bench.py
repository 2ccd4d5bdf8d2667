"""bench/replay.py on a shortened trace (4 sessions, 9 simulated days): exact figures, no file touched.
The mixed-subject trace's scoring and its agent's reading of a nudge, on hand-made inputs."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench" / "replay.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_replay", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need their module registered
    spec.loader.exec_module(module)
    return module


replay = _load_bench()


@pytest.fixture(scope="module")
def results() -> dict:
    done = subprocess.run([sys.executable, str(BENCH), "--trace", "main", "--sessions", "4", "--json"], check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ours_on_four_sessions(results: dict) -> None:
    ours = results["ours"]
    assert results["sessions"] == 4
    assert ours["problems"] == []
    assert (ours["failures_run"], ours["error_nudges"], ours["false_alarms"]) == (12, 12, 0)
    assert (ours["known_fixes"], ours["retries_passed"]) == (5, 1)  # a logged fix is recalled the next time
    assert (ours["corrections"], ours["corrections_nudged"], ours["logged"]) == (3, 3, 10)  # no log where a fix was shown
    # Three different red tests (c014, c041, c095) are three mistakes now: no "test.failures" rule.
    assert (ours["promoted"], ours["promoted_on_time"], ours["retired"], ours["archived"]) == (2, 2, 0, 0)
    assert [event.split(": ", 1)[1] for event in ours["events"]] == [
        "the retry of `python3 report.py` passed with the injected fix",
        "promoted vcs.push-rejected/main:fetch-first+fca509dc (3 occurrences in 3 sessions so far)",
        "promoted deps.module-not-found/python:pandas (3 occurrences in 2 sessions so far)",
    ]


def test_reference_on_four_sessions(results: dict) -> None:
    shipped, stdin = results["reference_shipped"], results["reference_stdin"]
    assert (shipped["error_nudges"], shipped["false_alarms"], shipped["error_tokens"], shipped["logged"]) == (0, 0, 0, 0)
    # PostToolUse only: the 13 failures all exit non-zero (PostToolUseFailure), so it sees none of them.
    assert (stdin["failures_run"], stdin["error_nudges"], stdin["false_alarms"], stdin["logged"]) == (13, 0, 9, 9)
    for result in (shipped, stdin):
        assert (result["promoted"], result["retired"], result["known_fixes"], result["corrections_nudged"]) == (0, 0, 0, 0)
    assert results["ours"]["reminder_tokens"] + results["ours"]["error_tokens"] < shipped["reminder_tokens"]


def test_no_file_touched(results: dict) -> None:
    for name in ("ours", "reference_shipped", "reference_stdin"):
        assert results[name]["files_touched"] == [], name


def test_files_touched_ignores_only_learnings_and_our_block(tmp_path: Path) -> None:
    project = replay.make_project(tmp_path)
    before = replay.snapshot(project)
    (project / ".learnings").mkdir()
    (project / ".learnings" / "ERRORS.md").write_text("# Errors\n")
    claude = project / "CLAUDE.md"
    block = "<!-- self-improve:begin (managed) -->\n## Learned rules\n- Use pnpm. <!-- LRN-20250303-abc -->\n<!-- self-improve:end -->\n"
    claude.write_text(claude.read_text() + "\n" + block)
    (project / "AGENTS.md").write_text(block)
    assert replay.touched(before, replay.snapshot(project)) == []
    claude.write_text(claude.read_text().replace("Keep functions small.", "Keep functions tiny."))
    (project / "src" / "new.js").write_text("\n")
    assert replay.touched(before, replay.snapshot(project)) == ["CLAUDE.md", "src/new.js"]


# ---- the mixed-subject trace: scoring on hand-made turns -------------------------------------------

FIXES = {"yaml": "pip install pyyaml", "numpy": "pip install numpy", "uv": "pipx install uv"}


def log_nudge(key: str = "deps.module-not-found/python:yaml") -> str:
    return (f"<error-detected>\n{key}: Module or package not found. First time here.\nOnce fixed, record the fix:\n"
            f'self-improve log error --pattern-key {key} --action "<fix>" "<one-line summary>"\n</error-detected>')


def fix_nudge(text: str) -> str:
    return (f"<error-detected>\ndeps.module-not-found: Module or package not found. Seen 2x in 2 session(s).\n"
            f"Known fix (from ERR-20250303-abc logged 2025-03-03 in this repo): {text}\n</error-detected>")


def turn(mistake: str, context: str, logged: bool = False) -> object:
    return replay.Turn(mistake, context, logged, "session 1")


def test_a_siblings_fix_counts_as_wrong_and_as_a_miss() -> None:
    score = replay.score_mixed([
        turn("yaml", log_nudge(), logged=True),
        turn("numpy", fix_nudge("pip install pyyaml")),  # first numpy: a sibling's fix
        turn("yaml", fix_nudge("pip install pyyaml")),  # right
        turn("numpy", log_nudge(), logged=True),
        turn("numpy", fix_nudge("pip install pyyaml")),  # numpy's fix is known now: wrong and a miss
    ], FIXES)
    assert (score.occurrences, score.nudged, score.repeats, score.repeats_known) == (5, 5, 3, 2)
    assert (score.right, score.wrong, score.missed_wrong_fix, score.missed_no_fix, score.logged) == (1, 2, 1, 0, 2)
    assert score.wrong_details == ["session 1: numpy was given yaml's fix", "session 1: numpy was given yaml's fix"]


def test_a_repeat_without_a_fix_is_a_miss_only_once_its_fix_was_logged() -> None:
    score = replay.score_mixed([
        turn("uv", log_nudge("shell.command-not-found/uv")),  # nudged, but the agent logged nothing
        turn("uv", log_nudge("shell.command-not-found/uv"), logged=True),  # a repeat, no fix known yet
        turn("uv", log_nudge("shell.command-not-found/uv")),  # known now, none given: a miss
        turn("uv", ""),  # not even nudged: a miss too
    ], FIXES)
    assert (score.repeats, score.repeats_known, score.right, score.wrong) == (3, 2, 0, 0)
    assert (score.missed_no_fix, score.missed_wrong_fix, score.nudged, score.logged) == (2, 0, 3, 1)


def test_recalled_text_is_matched_to_its_mistake() -> None:
    assert replay.fix_owner("pip  install\tnumpy", FIXES) == "numpy"
    assert replay.fix_owner("pipx inst…", FIXES) == "uv"  # cut by the hook's length cap
    assert replay.fix_owner("pip install", FIXES) is None  # a prefix without the ellipsis is another text
    assert replay.fix_owner("…", FIXES) is None
    score = replay.score_mixed([turn("yaml", log_nudge(), logged=True), turn("yaml", fix_nudge("reinstall python"))], FIXES)
    assert (score.right, score.wrong, score.missed_wrong_fix) == (0, 1, 1)
    assert score.wrong_details == ["session 1: yaml was given a fix of no mistake's: 'reinstall python'"]


def test_the_agent_runs_the_printed_command_with_a_fingerprint() -> None:
    placeholders = {"<fix>": "pip install pyyaml", "<one-line summary>": "yaml missing"}
    nudge = log_nudge().replace("self-improve log", "/opt/si/bin/self-improve log")
    assert replay.printed_log_command(nudge, placeholders) == [
        "/opt/si/bin/self-improve", "log", "error", "--pattern-key", "deps.module-not-found/python:yaml",
        "--action", "pip install pyyaml", "yaml missing",
    ]
    assert replay.printed_log_command(fix_nudge("pip install pyyaml"), placeholders) is None


def test_the_mixed_trace_is_well_formed() -> None:
    trace = replay.mixed_trace
    rows = replay.corpus(replay.MIXED_ROWS)
    steps = [(index, step) for index, session in enumerate(trace.SESSIONS) for step in session.steps]
    assert {step.row for _, step in steps} <= rows.keys()
    assert {step.mistake for _, step in steps} == trace.MISTAKES.keys()
    for name in trace.MISTAKES:
        sessions = [index for index, step in steps if step.mistake == name]
        assert 2 <= len(sessions) <= 4 and len(set(sessions)) == len(sessions), name  # 2-4 times, across sessions
    fixes = [mistake.fix for mistake in trace.MISTAKES.values()]
    assert len(set(fixes)) == len(fixes)
    assert not any(ch in fix for fix in fixes for ch in "<>")  # the sanitiser would change such a fix
    for row in rows.values():
        event = "PostToolUseFailure" if row["exit_code"] else "PostToolUse"
        assert row["payload"]["hook_event_name"] == event and row["payload"]["tool_input"]["command"] == row["command"]


# ---- the credit trace: scoring on hand-made occurrences ------------------------------------------

score = replay.credit_score
credit_trace = replay.credit_trace
MISTAKES = credit_trace.MISTAKES
YAML_OBSERVED = "Last time: `pip install pyyaml`, then `python3 app.py` passed."


def occ(mistake: str, **fields: object) -> object:
    return score.Occurrence(mistake, "session 1", **fields)


def test_a_recalled_fix_is_right_when_it_names_the_fix_commands_or_the_logged_text() -> None:
    assert score.names_fix(YAML_OBSERVED, MISTAKES["yaml-missing"])
    assert score.names_fix(MISTAKES["yaml-missing"].logged_fix, MISTAKES["yaml-missing"])
    assert score.names_fix(YAML_OBSERVED, MISTAKES["python-not-installed"])  # it names `python3 app.py` too
    assert not score.names_fix("Last time: `python3 app.py` passed instead of `python app.py`.", MISTAKES["yaml-missing"])
    assert not score.names_fix("Install the dependencies first", MISTAKES["yaml-missing"])
    assert score.owners("Last time: `git pull --rebase`, then `git push` passed.", MISTAKES) == ["push-rejected"]
    assert score.owners("reinstall python", MISTAKES) == []


def test_credit_score_counts_each_repeat_once_by_when_it_got_the_right_fix() -> None:
    got = score.score_credit([
        occ("yaml-missing"),  # first: not a repeat
        occ("yaml-missing", prevented=True, prevented_by="rule"),  # a rule: before
        occ("yaml-missing", prevented=True, prevented_by="prompt"),  # the first prompt's list: before
        occ("yaml-missing", before=YAML_OBSERVED, after=YAML_OBSERVED),  # pre-bash: with the command
        occ("yaml-missing", after=YAML_OBSERVED),  # post-bash only: just in time
        occ("yaml-missing", before="Last time: `git pull --rebase`, then `git push` passed.", after=YAML_OBSERVED),
        occ("yaml-missing"),  # nothing: a miss
        occ("yaml-missing", after="Last time: `cp .env.example .env`, then `python3 app.py` passed.", failed_again=True),
        occ("yaml-missing", after="reinstall python"),  # no mistake's fix: a miss, not a wrong fix
    ], MISTAKES)
    assert (got.attempts, got.repeats, got.before_rule, got.before_prompt) == (9, 8, 1, 1)
    assert (got.with_command_pre_bash, got.just_in_time) == (1, 2)
    assert (got.missed_no_fix, got.missed_wrong_fix, got.wrong_fixes, got.unrelated_fixes) == (1, 2, 2, 1)
    assert (got.before, got.right, got.failures_run) == (2, 5, 8)  # 7 not prevented + 1 failed again
    assert got.wrong_details == [
        "session 1: yaml-missing was given the fix of push-rejected with the command: "
        "'Last time: `git pull --rebase`, then `git push` passed.'",
        "session 1: yaml-missing was given the fix of python-not-installed and env-missing after the command: "
        "'Last time: `cp .env.example .env`, then `python3 app.py` passed.'",
    ]


def test_the_fix_of_the_previous_link_of_a_chain_is_not_a_wrong_fix() -> None:
    chain = score.score_credit([
        occ("yaml-missing", after=YAML_OBSERVED),
        occ("env-missing", before=MISTAKES["yaml-missing"].logged_fix, exempt=("yaml-missing",)),
    ], MISTAKES)
    assert (chain.wrong_fixes, chain.repeats) == (0, 0)
    alone = score.score_credit([occ("env-missing", before=MISTAKES["yaml-missing"].logged_fix)], MISTAKES)
    assert alone.wrong_fixes == 1


def test_goals_are_judged_on_the_figures() -> None:
    met = score.CreditScore(repeats=20, before_rule=6, before_prompt=4, just_in_time=9)
    assert [m for _, _, m in score.goals(met, cooperating=False)] == [True]  # 19/20 >= 80%
    assert [m for _, _, m in score.goals(met, cooperating=True)] == [True, True]  # 19/20 = 95%; 10/19 before
    assert [m for _, _, m in score.goals(score.CreditScore(repeats=20, before_rule=2, just_in_time=16), True)] == [False, False]
    assert score.goals(met, cooperating=True)[0][1] == "19/20 = 95%"
    assert [m for _, _, m in score.goals(score.CreditScore(repeats=0), cooperating=True)] == [False, False]


def test_managed_rules_and_working_rules_retired() -> None:
    block = ("<!-- self-improve:begin (managed) -->\n## Learned rules\n"
             "- git pull --rebase first, then git push again <!-- ERR-20250304-abc -->\n"
             "- Keep functions small <!-- LRN-20250303-def -->\n<!-- self-improve:end -->\n")
    rules = score.managed_rules(block)
    assert rules == {"ERR-20250304-abc": "git pull --rebase first, then git push again",
                     "LRN-20250303-def": "Keep functions small"}
    assert score.working_rules_retired(["LRN-20250303-def", "ERR-20250304-abc", "ERR-x"], rules, MISTAKES) == ["ERR-20250304-abc"]


def test_the_credit_world_gives_the_row_of_the_first_broken_condition() -> None:
    assert credit_trace.result("python3 app.py", {"no-yaml", "no-env"}) == ("k02", "yaml-missing")
    assert credit_trace.result("python3 app.py", {"no-env"}) == ("k04", "env-missing")
    assert credit_trace.result("python3 app.py", set()) == ("k08", "")
    assert credit_trace.result("python app.py", set()) == ("k01", "python-not-installed")
    assert MISTAKES["python-not-installed"].to_run == ("python3 app.py",)
    assert MISTAKES["env-missing"].to_run == ("cp .env.example .env", "python3 app.py")


def test_the_credit_trace_is_well_formed() -> None:
    rows = replay.corpus(replay.CREDIT_ROWS)
    for command, options in credit_trace.RESULTS.items():
        for _, row_id, mistake in options:
            row = rows[row_id]
            assert row["command"] == command and row["payload"]["tool_input"]["command"] == command
            assert (row["exit_code"] != 0) == bool(mistake), row_id  # a failing row is a mistake, and only that
            event = "PostToolUseFailure" if row["exit_code"] else "PostToolUse"
            assert row["payload"]["hook_event_name"] == event
            if row["exit_code"]:
                assert row["payload"]["error"] == f"Exit code {row['exit_code']}\n{row['output']}"
    for name, mistake in MISTAKES.items():
        assert credit_trace.result(mistake.attempt, {mistake.condition} - {""})[1] == name
        assert all(command in credit_trace.RESULTS for command in (*mistake.fix, mistake.passes, *mistake.looks))
        assert score.owners(mistake.logged_fix, MISTAKES) == [name], name  # each logged fix names only its own
    commands = {c for s in credit_trace.SESSIONS for step in s.steps for c in step.commands}
    assert commands <= credit_trace.RESULTS.keys()
    days = [s.day for s in credit_trace.SESSIONS]
    assert days == sorted(days) and len(days) == 8 and days[-1] <= 28


class FakeHooks:
    """Our hooks as the agent sees them, scripted: a Known fix for ``fixed`` commands' failures."""

    reference = False
    has_pre_bash = True

    def __init__(self, tmp: Path, fixes: dict[str, str], rules: dict[str, str] | None = None) -> None:
        self.project, self.env, self.fixes, self.ruled = tmp, {}, fixes, rules or {}
        self.calls: list[tuple[str, str]] = []

    def hook(self, name: str, stdin: bytes, env: dict[str, str]) -> str:
        data = json.loads(stdin)
        command = (data.get("tool_input") or {}).get("command", "")
        if name in ("pre-bash", "post-bash"):
            self.calls.append((name, command))
        fix = self.fixes.get(command)
        if name == "post-bash" and data["hook_event_name"] == "PostToolUseFailure":
            line = f"Known fix (from ERR-1 in this repo): {fix}\n" if fix else (
                'self-improve log error --pattern-key k --action "<fix>" "<one-line summary>"\n')
            return f"<error-detected>\nk: a failure.\n{line}</error-detected>"
        return ""

    def cli(self, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
        self.calls.append(("cli", " ".join(args[:2])))
        return 0, "", ""

    def rules(self) -> dict[str, str]:
        return self.ruled


def test_the_agents_follow_a_rule_a_given_fix_or_find_the_fix_themselves(tmp_path: Path) -> None:
    rows = replay.corpus(replay.CREDIT_ROWS)
    session = credit_trace.Session(0, frozenset({"no-yaml", "remote-ahead"}), (
        credit_trace.Step("run it", ("python app.py", "git push")),))
    hooks = FakeHooks(tmp_path, {"python app.py": "Last time: `python3 app.py` passed instead of `python app.py`."})
    agent = replay.CreditAgent(hooks, rows, cooperating=True, agent="cooperating")
    agent.review = lambda index, session: None  # no CLI review here
    played = agent.play((session,))
    assert [(o.mistake, o.prevented, o.after is not None, o.logged) for o in played.occurrences] == [
        ("python-not-installed", False, True, False),  # given its fix: follows it, logs nothing
        ("yaml-missing", False, False, True),  # no fix: finds it, then logs it
        ("push-rejected", False, False, True),
    ]
    bash = [command for name, command in hooks.calls if name == "post-bash"]
    assert bash == ["python app.py", "python3 app.py", "pip install pyyaml", "python3 app.py", "self-improve log error "
                    "--pattern-key k --action 'pip install pyyaml in the project venv (the module is yaml, the package PyYAML)' "
                    "'app.py failed: PyYAML is not installed'", "git push", "git status", "git pull --rebase", "git push",
                    "self-improve log error --pattern-key k --action 'git pull --rebase first, then git push again' "
                    "'git push rejected: the remote had new commits'"]
    ruled = FakeHooks(tmp_path, {}, rules={"ERR-2": "Only python3 here: python3 app.py", "ERR-3": YAML_OBSERVED})
    agent = replay.CreditAgent(ruled, rows, cooperating=False, agent="non-cooperating")
    agent.review = lambda index, session: None
    played = agent.play((session,))
    assert [(o.mistake, o.prevented) for o in played.occurrences] == [
        ("python-not-installed", True), ("yaml-missing", True), ("push-rejected", False)]
    assert [c for n, c in ruled.calls if n == "post-bash"] == [
        "pip install pyyaml", "python3 app.py", "git push", "git status", "git pull --rebase", "git push"]
    assert [c for n, c in ruled.calls if n == "cli"] == ["init"]  # the human's; the agent never calls self-improve


@pytest.fixture(scope="module")
def credit() -> dict:
    done = subprocess.run([sys.executable, str(BENCH), "--trace", "credit", "--credit-sessions", "3", "--json"], check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["credit"]


def test_credit_on_three_sessions(credit: dict) -> None:
    assert credit["sessions"] == 3
    for name in ("cooperating", "non_cooperating", "reference"):
        run = credit[name]
        assert run["problems"] == [] and run["files_touched"] == [], name
        got = run["score"]
        # The trace's attempts, whatever the agent does: session 1 makes 5 mistakes, session 2 one
        # (the push), session 3 five, all repeats (python, yaml, npm, pytest, push).
        assert (got["attempts"], got["repeats"]) == (11, 5), name
        assert got["right"] + got["missed_no_fix"] + got["missed_wrong_fix"] == got["repeats"]
    assert credit["reference"]["score"]["right"] == 0 and credit["reference"]["tokens"]["pre-bash"] == 0
    assert credit["non_cooperating"]["score"]["logged"] == 0
    assert credit["cooperating"]["score"]["logged"] >= 5  # every first failure had no fix to give
    assert credit["non_cooperating"]["score"]["right"] >= 1  # an observed fix is recalled in a later session
