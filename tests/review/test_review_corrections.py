"""Corrections the hooks queued, in ``review`` (listing, JSON, the interactive keys, inside an
agent session, ``--yes``), confirmed by ``log learning --category correction``, and the setting."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from self_improve.paths import LAST_SESSION
from self_improve.store import correction_queue as queue
from self_improve.store.store import Store, task_hash
from tests.helpers import entry_text, record_here, run_cli, tree_hash, write_project
from tests.review.test_review_cli import CLAUDE_MD, GOLDEN, RECORDED_HERE, review_entries

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
INTERACTIVE = {**TODAY, "SELF_IMPROVE_INTERACTIVE": "1"}
NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC).timestamp()
QUEUE = ".learnings/.state/corrections.jsonl"

NPM = queue.new_item("No, that's wrong. Don't use npm here, use pnpm.", "s1", "en.no", "en", now=NOW)
TABS = queue.new_item("I told you: tabs, not spaces.", "s2", "en.i-told-you", "en", now=NOW + 60)
ZH = queue.new_item("不对，应该用 pnpm", "s1", "zh.not-right", "zh", now=NOW + 120)

GROUP = (
    "3 corrections you have not turned into lessons\n"
    "  2026-03-01  No, that's wrong. Don't use npm here, use pnpm.\n"
    "      session s1; caught by en.no\n"
    "  2026-03-01  I told you: tabs, not spaces.\n"
    "      session s2; caught by en.i-told-you\n"
    "  2026-03-01  不对，应该用 pnpm\n"
    "      session s1; caught by zh.not-right\n"
    '  to turn one into a lesson: self-improve log learning --category correction --session SESSION --action "<do X, not Y>" "<what the user said>"\n'
    "  (or, in a terminal, `self-improve review` logs, edits or drops each one)\n"
    "\n"
)


def with_queue(root: Path, *items: queue.QueuedCorrection, last_session: str = "s1") -> Path:
    state = root / ".learnings/.state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "corrections.jsonl").write_bytes(queue.render(items))
    (state / LAST_SESSION).write_text(last_session)
    return root


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text("LRN-20260228-aaa", "Fresh", occurrences=[(1, "1a2b3c4d")])])
    return with_queue(tmp_path, NPM, TABS, ZH)


def review(project: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
    result = run_cli("review", *args, cwd=project, input=input, env=env or TODAY)
    assert (result.returncode, result.stderr) == (0, "")
    return result.stdout


def queued(project: Path) -> list[queue.QueuedCorrection]:
    path = project / QUEUE
    return queue.parse_lines(path.read_bytes()) if path.exists() else []


# ---- listing and JSON ----------------------------------------------------------------------------


def test_listing_shows_the_queue_and_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    assert review(project) == GROUP
    assert tree_hash(project) == before


def test_listing_puts_the_queue_before_the_proposals(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A state dir of its own: the suite's registry of projects would see this one as a second
    # project with the golden's entries (a user-scope proposal), and the golden's as one too.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, review_entries())
    record_here(tmp_path, *RECORDED_HERE)
    (tmp_path / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    golden = (GOLDEN / "review-listing.txt").read_text(encoding="utf-8")
    with_queue(tmp_path, NPM)
    out = review(tmp_path)
    group = GROUP.replace("3 corrections", "1 correction").split("  2026-03-01  I told")[0] + GROUP.split("session s1; caught by zh.not-right\n")[1]
    head, _, rest = golden.partition("\n\n") if golden.startswith("Pending triage") else ("", "", golden)
    assert out == (f"{head}\n\n" if head else "") + group + rest


def test_json_has_a_corrections_section(project: Path) -> None:
    data = json.loads(review(project, "--json"))
    assert data == {
        "promote": [], "archive": [], "retire": [], "revise": [], "lint": [],
        "corrections": [
            {"id": NPM.id, "date": "2026-03-01", "session": "s1", "pattern": "en.no", "language": "en",
             "excerpt": "No, that's wrong. Don't use npm here, use pnpm."},
            {"id": TABS.id, "date": "2026-03-01", "session": "s2", "pattern": "en.i-told-you", "language": "en",
             "excerpt": "I told you: tabs, not spaces."},
            {"id": ZH.id, "date": "2026-03-01", "session": "s1", "pattern": "zh.not-right", "language": "zh",
             "excerpt": "不对，应该用 pnpm"},
        ],
    }


def test_an_empty_queue_adds_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text("LRN-20260228-aaa", "Fresh", occurrences=[(1, "1a2b3c4d")])])
    assert review(tmp_path) == (GOLDEN / "review-nothing.txt").read_text(encoding="utf-8")
    assert list(json.loads(review(tmp_path, "--json"))) == ["promote", "archive", "retire", "revise", "lint"]


# ---- the interactive keys ------------------------------------------------------------------------


def test_interactive_log_edit_and_drop(project: Path) -> None:
    answers = "l\ne\nIndent with tabs, not spaces\nUse tabs in this repo, never spaces.\nd\n"
    out = review(project, input=answers, env=INTERACTIVE)
    npm_id, tabs_id = (entry.id for entry in Store(project).entries("learning") if entry.category == "correction")
    assert out == (
        "Correction 1/3\n"
        "  2026-03-01  No, that's wrong. Don't use npm here, use pnpm.\n"
        "      session s1; caught by en.no\n"
        "  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? l\n"
        f"  logged {npm_id} in .learnings/LEARNINGS.md\n"
        "Correction 2/3\n"
        "  2026-03-01  I told you: tabs, not spaces.\n"
        "      session s2; caught by en.i-told-you\n"
        "  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? e\n"
        "  summary (empty: the excerpt): Indent with tabs, not spaces\n"
        '  action, "do X, not Y" (empty: none): Use tabs in this repo, never spaces.\n'
        f"  logged {tabs_id} in .learnings/LEARNINGS.md\n"
        "Correction 3/3\n"
        "  2026-03-01  不对，应该用 pnpm\n"
        "      session s1; caught by zh.not-right\n"
        "  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? d\n"
        "  dropped from the queue; nothing logged\n"
        "Reviewed: 0 promoted, 0 archived, 0 retired, 0 skipped, 2 corrections logged, 1 dropped\n"
    )
    assert not (project / QUEUE).exists()
    npm, tabs = (entry for entry in Store(project).entries("learning") if entry.category == "correction")
    assert (npm.summary, npm.suggested_action.strip(), npm.meta("Source")) == (NPM.excerpt, "", "user_feedback")
    assert [o.task for o in npm.occurrences] == [task_hash("s1")]  # counted in the session it was said in
    assert (tabs.summary, tabs.suggested_action.strip()) == ("Indent with tabs, not spaces", "Use tabs in this repo, never spaces.")
    assert [o.task for o in tabs.occurrences] == [task_hash("s2")]


def test_interactive_skip_and_quit_keep_the_queue(project: Path) -> None:
    before = (project / QUEUE).read_bytes()
    out = review(project, input="s\nq\n", env=INTERACTIVE)
    assert out.endswith(
        "  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? s\n"
        "Correction 2/3\n"
        "  2026-03-01  I told you: tabs, not spaces.\n"
        "      session s2; caught by en.i-told-you\n"
        "  [l]og, [e]dit, [d]rop, [s]kip, [q]uit? q\n"
        "quit\n"
        "Reviewed: 0 promoted, 0 archived, 0 retired, 1 skipped\n"
    )
    assert (project / QUEUE).read_bytes() == before
    assert [e.id for e in Store(project).entries()] == ["LRN-20260228-aaa"]


def test_interactive_edit_quit_midway_logs_nothing(project: Path) -> None:
    before = tree_hash(project)
    out = review(project, input="e\nsummary only\n", env=INTERACTIVE)
    assert out.endswith('  action, "do X, not Y" (empty: none): \nquit\nReviewed: 0 promoted, 0 archived, 0 retired, 0 skipped\n')
    assert {k: v for k, v in tree_hash(project).items() if k != ".learnings/.state/last-review"} == before


def test_a_refused_log_keeps_the_item_queued(project: Path) -> None:
    before = (project / QUEUE).read_bytes()
    (project / ".learnings/LEARNINGS.md").unlink()  # the store refuses to log: LEARNINGS.md is missing
    result = run_cli("review", cwd=project, input="l\nq\n", env=INTERACTIVE)
    assert result.returncode == 1
    assert result.stderr == "self-improve: error: .learnings/LEARNINGS.md is missing: run `self-improve init`\n"
    assert "Reviewed: 0 promoted, 0 archived, 0 retired, 0 skipped, 1 failed\n" in result.stdout
    assert (project / QUEUE).read_bytes() == before


# ---- inside an agent session, and --yes -----------------------------------------------------------


def test_inside_an_agent_session_review_only_lists_the_queue(project: Path) -> None:
    before = tree_hash(project)
    out = review(project, input="d\nd\nd\n", env={**INTERACTIVE, "CLAUDECODE": "1"})
    assert out == GROUP
    assert tree_hash(project) == before


def test_yes_leaves_the_queue_alone(project: Path) -> None:
    before = (project / QUEUE).read_bytes()
    assert review(project, "--yes") == (
        "Nothing to promote, archive or retire.\n"
        "3 corrections you have not turned into lessons: `self-improve review` in a terminal logs, edits or drops each one "
        "(--yes leaves them queued)\n"
    )
    assert (project / QUEUE).read_bytes() == before


# ---- log confirms ------------------------------------------------------------------------------------


def log(project: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = run_cli("log", "learning", *args, cwd=project, env=env)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    return result.stdout


def test_logging_a_correction_confirms_the_oldest_of_the_last_session(project: Path) -> None:
    out = log(project, "--category", "correction", "--action", "Use pnpm, not npm.", "Use pnpm")
    assert out.splitlines()[1] == "confirmed the correction caught on 2026-03-01 in session s1: no longer queued"
    assert queued(project) == [TABS, ZH]
    log(project, "--category", "correction", "Use pnpm again")
    assert queued(project) == [TABS]
    out = log(project, "--category", "correction", "Nothing of s1 is left")
    assert len(out.splitlines()) == 1 and queued(project) == [TABS]


def test_session_flag_and_agent_env_choose_the_session(project: Path) -> None:
    data = json.loads(log(project, "--category", "correction", "--session", "s2", "--json", "Tabs, not spaces"))
    assert data["confirmed_correction"] == TABS.id
    assert queued(project) == [NPM, ZH]
    log(project, "--category", "correction", "--session", "nobody", "Nobody's")  # explicit: no fallback
    assert queued(project) == [NPM, ZH]
    with_queue(project, NPM, TABS, ZH, last_session="s1")
    log(project, "--category", "correction", "Tabs", env={"CLAUDE_CODE_SESSION_ID": "s2"})
    assert queued(project) == [NPM, ZH]


def test_other_logs_confirm_nothing(project: Path) -> None:
    before = (project / QUEUE).read_bytes()
    data = json.loads(log(project, "--category", "insight", "--json", "An insight"))
    assert "confirmed_correction" not in data
    result = run_cli("log", "error", "--category", "correction", "An error", cwd=project)
    assert result.returncode == 0
    assert (project / QUEUE).read_bytes() == before


def test_a_user_scope_correction_confirms_in_the_project(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    data_home = tmp_path_factory.mktemp("xdg-data")
    log(project, "--category", "correction", "--scope", "user", "Use pnpm", env={"XDG_DATA_HOME": str(data_home)})
    assert queued(project) == [TABS, ZH]
    assert Store(project).entries("learning")[0].id == "LRN-20260228-aaa"  # logged in the user's store


# ---- the setting ----------------------------------------------------------------------------------


def test_the_setting_is_personal(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    result = run_cli("config", "set", "corrections.queue", "false", cwd=project)
    assert result.returncode == 2
    assert result.stderr == (
        "self-improve: error: corrections.queue is personal: a project's config cannot set it (it arrives with the repository); "
        "use `self-improve config set --user corrections.queue false`\n"
    )
    config = tmp_path_factory.mktemp("xdg-config")
    done = run_cli("config", "set", "--user", "corrections.queue", "false", cwd=project, env={"XDG_CONFIG_HOME": str(config)})
    assert (done.returncode, done.stdout) == (0, "corrections.queue = false\n")
    assert (config / "self-improve/config.toml").read_text() == "[corrections]\nqueue = false\n"
