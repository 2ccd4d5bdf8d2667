"""``self-improve stats --injected [--since DAY] [--json] [--scope project|user]``: what the hooks
told the agent, read back from their journal (``store/injections.py``) exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.store import injections
from self_improve.store.injections import Injection
from self_improve.store.store import Store
from tests.helpers import run_cli, tree_hash

FAILED = ("<error-detected>\ndeps.module-not-found (python:nosuchmod): Module or package not found. First time here.\n"
          "Once fixed, record the fix:\n"
          'self-improve log error --pattern-key deps.module-not-found/python:nosuchmod --action "<fix>" "<one-line summary>"\n'
          "</error-detected>")
KNOWN = ("<known-fix>\nThis command failed here before: deps.module-not-found (python:nosuchmod).\n"
         "Known fix (from ERR-20261130-a1b in this repo): pip install nosuchmod\n</known-fix>")
RECORDS = [
    Injection("2026-11-30T09:15:42Z", "post-bash", "claude", "1a2b3c4d-f355-4c21-9a2d-6aa9634bc465", FAILED, False),
    Injection("2026-12-01T14:03:07Z", "pre-bash", "codex", "", KNOWN, False),
    Injection("2026-12-02T08:00:00Z", "prompt-submit", "claude", "s1", "<known-mistakes>\n" + "z" * 1983, True),
]
TEXT = f"""2026-11-30 09:15 UTC  post-bash  claude  session 1a2b3c4d
  <error-detected>
  deps.module-not-found (python:nosuchmod): Module or package not found. First time here.
  Once fixed, record the fix:
  self-improve log error --pattern-key deps.module-not-found/python:nosuchmod --action "<fix>" "<one-line summary>"
  </error-detected>
2026-12-01 14:03 UTC  pre-bash  codex  session -
  <known-fix>
  This command failed here before: deps.module-not-found (python:nosuchmod).
  Known fix (from ERR-20261130-a1b in this repo): pip install nosuchmod
  </known-fix>
2026-12-02 08:00 UTC  prompt-submit  claude  session s1
  <known-mistakes>
  {"z" * 1983}
  [cut at 2,000 characters]
"""
JSON = [
    {"time": "2026-11-30T09:15:42Z", "hook": "post-bash", "harness": "claude",
     "session": "1a2b3c4d-f355-4c21-9a2d-6aa9634bc465", "text": FAILED, "truncated": False},
    {"time": "2026-12-01T14:03:07Z", "hook": "pre-bash", "harness": "codex", "session": "", "text": KNOWN, "truncated": False},
    {"time": "2026-12-02T08:00:00Z", "hook": "prompt-submit", "harness": "claude", "session": "s1",
     "text": "<known-mistakes>\n" + "z" * 1983, "truncated": True},
]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    Store(root).init()
    return root


def write_journal(folder: Path, records: list[Injection]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    # As the hooks leave it: each append starts with a line break; a line not ours in between.
    (folder / injections.FILE).write_bytes(b"".join(b"\n" + injections.render_line(r) + b"\n" for r in records[:1])
                                           + b"garbage\n" + injections.render(records[1:]))


def stats(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = run_cli("--root", str(project), "stats", "--injected", *args, env=env)
    return result.returncode, result.stdout, result.stderr


def test_text_shows_every_block_newest_last_and_reads_without_writing(project: Path) -> None:
    write_journal(project / ".learnings/.state", RECORDS)
    before = tree_hash(project)
    assert stats(project) == (0, TEXT, "")
    assert tree_hash(project) == before


def test_json_is_a_list_of_records_with_stable_keys(project: Path) -> None:
    write_journal(project / ".learnings/.state", RECORDS)
    code, out, err = stats(project, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == JSON
    assert [list(item) for item in json.loads(out)] == [["time", "hook", "harness", "session", "text", "truncated"]] * 3


def test_since_keeps_that_utc_day_and_after(project: Path) -> None:
    write_journal(project / ".learnings/.state", RECORDS)
    code, out, _ = stats(project, "--since", "2026-12-01", "--json")
    assert (code, json.loads(out)) == (0, JSON[1:])
    code, out, _ = stats(project, "--since", "2026-12-02")
    assert (code, out) == (0, TEXT[TEXT.index("2026-12-02 08:00"):])
    assert stats(project, "--since", "2026-12-03") == (0, "nothing injected since 2026-12-03\n", "")
    assert stats(project, "--since", "2026-12-03", "--json") == (0, "[]\n", "")


def test_nothing_injected_yet(project: Path) -> None:
    assert stats(project) == (0, "nothing injected yet\n", "")
    assert stats(project, "--json") == (0, "[]\n", "")


def test_a_malformed_day_or_since_without_injected_is_refused_and_writes_nothing(project: Path) -> None:
    write_journal(project / ".learnings/.state", RECORDS)
    before = tree_hash(project)
    assert stats(project, "--since", "yesterday") == (2, "", "self-improve: error: --since must be a day YYYY-MM-DD, not 'yesterday'\n")
    result = run_cli("--root", str(project), "stats", "--since", "2026-12-01")
    assert (result.returncode, result.stdout, result.stderr) == (2, "", "self-improve: error: --since goes with --injected or --curve\n")
    assert tree_hash(project) == before


def test_control_characters_are_shown_escaped_never_sent_to_the_terminal(project: Path) -> None:
    odd = Injection("2026-12-01T14:03:07Z", "post-bash", "claude", "s1", "<x>\n\x1b[31mred\tcell\u2028\n</x>", False)
    write_journal(project / ".learnings/.state", [odd])
    assert stats(project) == (0, "2026-12-01 14:03 UTC  post-bash  claude  session s1\n"
                                 "  <x>\n  \\x1b[31mred\\tcell\\u2028\n  </x>\n", "")
    code, out, _ = stats(project, "--json")
    assert json.loads(out)[0]["text"] == odd.text


def test_a_journal_that_is_a_link_is_not_read(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(injections.render(RECORDS))
    (project / ".learnings/.state").mkdir(exist_ok=True)
    (project / ".learnings/.state" / injections.FILE).symlink_to(outside)
    code, out, err = stats(project)
    assert (code, out) == (1, "")
    # the trust check of every read (``Store.check_trusted``) refuses the store before the journal is opened
    assert err == "self-improve: error: refusing to use .learnings/: .learnings/.state/injections.jsonl is a symlink (see README, Trust)\n"


def test_scope_user_reads_the_journal_of_the_hooks_without_a_project_store(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    write_journal(state / "self-improve", RECORDS[1:2])
    env = {"XDG_STATE_HOME": str(state), "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    code, out, err = stats(project, "--scope", "user", "--json", env=env)
    assert (code, json.loads(out), err) == (0, JSON[1:2], "")
    assert stats(project, "--scope", "user", env={**env, "XDG_STATE_HOME": str(tmp_path / "none")}) == (
        0, "nothing injected yet\n", "")
