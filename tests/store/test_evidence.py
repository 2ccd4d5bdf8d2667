"""store/evidence.py: what a command proves, exactly; and its two files, bounded and trusted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from self_improve.detect.intent import Intent
from self_improve.store import evidence as ev
from self_improve.store.trust import StoreDir

YAML = "deps.module-not-found/python:yaml"
PYTHON = "shell.command-not-found/python"


def empty() -> dict[str, list[dict[str, Any]]]:
    return {"failures": [], "recalls": []}


def fail(session: dict, index: dict, command: str, fp: str, entry: str, recalled: str = "") -> ev.Outcome:
    return ev.on_failure(session, index, Intent.of(command), command, fp, entry, recalled, 100)


def passed(session: dict, index: dict, command: str) -> ev.Outcome:
    return ev.on_pass(session, index, Intent.of(command), command, 200)


def test_a_failure_then_a_fix_then_the_same_command_passing_is_an_observed_fix() -> None:
    session, index = empty(), {}
    assert not fail(session, index, "python3 app.py", YAML, "ERR-1")
    assert list(index) == ["python3 app.py"]
    assert not passed(session, index, "ls")  # read-only: never part of a fix
    assert not passed(session, index, "pip install pyyaml")
    outcome = passed(session, index, "python3 app.py")
    assert outcome.observed == (("ERR-1", "Last time: `pip install pyyaml`, then `python3 app.py` passed."),)
    assert outcome.helpful == outcome.harmful == ()
    assert session == empty() and index == {}  # it passed: nothing left to prevent


def test_the_argument_change_is_the_fix_and_the_failing_command_stays_preventable() -> None:
    session, index = empty(), {}
    fail(session, index, "pytest --filter checkout", "test.usage/pytest", "ERR-2")
    outcome = passed(session, index, "pytest -k checkout")
    assert outcome.observed == (("ERR-2", "Last time: `pytest -k checkout` passed instead of `pytest --filter checkout`."),)
    assert list(index) == ["pytest --filter checkout"]
    assert ev.lookup(index, Intent.of("pytest --filter cart")) == index["pytest --filter checkout"]  # same flags
    assert ev.lookup(index, Intent.of("pytest tests/")) is None


def test_nothing_visible_in_between_is_no_observed_fix() -> None:
    session, index = empty(), {}
    fail(session, index, "make test", "test.failure/make", "ERR-3")
    assert passed(session, index, "make test").observed == ()


def test_another_error_of_the_same_intent_closes_the_first() -> None:
    session, index = empty(), {}
    fail(session, index, "python app.py", PYTHON, "ERR-4")
    outcome = fail(session, index, "python3 app.py", YAML, "ERR-5")
    assert outcome.observed == (("ERR-4", "Last time: `python3 app.py` got past this error instead of `python app.py`."),)
    passed(session, index, "pip install pyyaml")
    assert passed(session, index, "python3 app.py").observed == (
        ("ERR-5", "Last time: `pip install pyyaml`, then `python3 app.py` passed."),)
    assert list(index) == ["python app.py"]


def test_measured_credit_once_per_recall() -> None:
    session, index = empty(), {}
    fail(session, index, "python3 app.py", YAML, "ERR-1", recalled="ERR-1")
    again = fail(session, index, "python3 app.py", YAML, "ERR-1", recalled="ERR-1")
    assert again.harmful == ("ERR-1",)  # the recalled fix was followed by the same failure
    outcome = passed(session, index, "python3 app.py")
    assert outcome.helpful == ("ERR-1",) and outcome.harmful == ()
    assert passed(session, index, "python3 app.py").helpful == ()  # its outcome is in


def test_a_fix_given_before_a_command_is_no_outcome_of_that_command() -> None:
    session, index = empty(), {}
    record = {"fp": YAML, "key": "python3 app.py", "program": "python app.py", "shape": "python3 app.py"}
    ev.add_recall(session, record, "ERR-1", ev.RECALLED_BEFORE, 1)
    ev.add_recall(session, record, "ERR-1", ev.RECALLED_BEFORE, 2)
    assert len(session["recalls"]) == 1
    assert ev.said_in_session(session, YAML)
    assert fail(session, index, "python3 app.py", YAML, "ERR-1").harmful == ()
    ev.add_recall(session, record, "ERR-1", ev.RECALLED_AT_START, 3)
    assert not ev.said_in_session(session, YAML)  # the first prompt's list lets pre-bash speak
    assert passed(session, index, "python3 app.py").helpful == ("ERR-1",)
    ev.add_recall(session, record, "ERR-1", ev.RECALLED_AT_START, 4)
    assert fail(session, index, "python3 app.py", YAML, "ERR-1").harmful == ()  # not applied is not harmful


def test_observed_fix_text_is_bounded() -> None:
    long = ev.shown_command("x" * 100, lambda s: s)  # the longest a command is shown
    text = ev.observed_fix([long, long, long], "run", long, True)
    assert text == f"Last time: `{long}`, then `{long}` passed." and len(text) <= ev.MAX_FIX_CHARS
    assert ev.observed_fix([], long, long.replace("x", "y"), False) == f"Last time: `{long.replace('x', 'y')}` passed instead."
    assert ev.shown_command("echo  `id`\n  done", lambda s: s) == "echo 'id' done"
    assert ev.shown_command("y" * 100, lambda s: s) == "y" * (ev.MAX_SHOWN_COMMAND - 1) + "…"


def test_files_round_trip_and_drop_what_is_not_ours(tmp_path: Path) -> None:
    fs = StoreDir(str(tmp_path))
    session = empty()
    fail(session, {}, "python3 app.py", YAML, "ERR-1", recalled="ERR-1")
    name = ev.session_name(ev.STATE, "s1.json")
    ev.write_session(fs, name, session)
    assert ev.read_session(fs, name, json.loads) == session
    (tmp_path / name).write_text('{"failures": [{"fp": 3}, {"fp": "a", "key": "k", "evil": "x", "t": "no"}], "recalls": 7}')
    assert ev.read_session(fs, name, json.loads) == {
        "failures": [{"fp": "a", "key": "k", "t": 0, "after": []}], "recalls": []}
    ev.write_session(fs, name, empty())
    assert not (tmp_path / name).exists()  # nothing open: no file
    index = {f"cmd {n}": {"key": f"cmd {n}", "fp": YAML, "t": n} for n in range(ev.MAX_INDEX + 5)}
    ev.write_index(fs, ev.STATE, index)
    kept = ev.read_index(fs, ev.STATE, json.loads)
    assert len(kept) == ev.MAX_INDEX and "cmd 0" not in kept and f"cmd {ev.MAX_INDEX + 4}" in kept
    ev.write_index(fs, ev.STATE, {})
    assert not (tmp_path / ev.STATE / ev.INDEX_FILE).exists()


_words = st.sampled_from(["python3", "python", "app.py", "-k", "x", "pytest", "--filter", "npm", "pnpm", "install",
                          "git", "push", "cd", "src", "&&", "|", "tail", "-5", "2>&1", "FOO=1", "sudo", "'a b'", ";"])
_commands = st.lists(_words, min_size=1, max_size=8).map(" ".join)


@given(st.lists(_commands, min_size=1, max_size=4), _commands)
def test_may_match_never_misses_a_lookup(failed: list[str], command: str) -> None:
    index = {}
    for text in failed:
        intent = Intent.of(text)
        if intent.key:
            index[intent.key] = {"key": intent.key, "fp": YAML, "shape": intent.shape, "program": intent.program, "t": 0}
    if ev.lookup(index, Intent.of(command)) is not None:
        assert ev.may_match(index, command)


def test_a_command_listed_at_three_first_prompts_without_failing_again_is_listed_no_more() -> None:
    session, index = empty(), {}
    fail(session, index, "python app.py", PYTHON, "ERR-4")
    for _ in range(ev.MAX_LISTINGS):
        assert [record["key"] for record in ev.to_list(index)] == ["python app.py"]
        ev.note_listed(index, ["python app.py"])
    assert ev.to_list(index) == [] and "python app.py" in index  # pre-bash still knows it
    fail(session, index, "python app.py", PYTHON, "ERR-4")  # it failed again: listed anew
    assert [record["key"] for record in ev.to_list(index)] == ["python app.py"]
