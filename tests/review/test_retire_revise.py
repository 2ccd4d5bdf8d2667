"""Retirement by evidence (a rule whose subject is gone) and revision proposals (a rule that
recurred after promotion): exact reasons, exact shapes, boundaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.review.candidates import plan_review, retire_candidates, revise_candidates
from self_improve.review.managed_block import upsert_rule
from self_improve.review.policy import Policy, TargetTable
from self_improve.review.revise import proposals
from self_improve.review.subject_paths import ProjectFiles, WalkLimits, never_gone, subject_path
from self_improve.store.entry import Entry, parse_text
from tests.helpers import TODAY, day, entry_text, run_cli, write_project

POLICY = Policy()
MODELS = "python.traceback/KeyError@app/models.py:load"


def entry(*args: object, **kwargs: object) -> Entry:
    return parse_text(entry_text(*args, **kwargs)).entries[0]  # type: ignore[arg-type]


def rule(entry_id: str, pattern_key: str = "", *, meta: tuple[tuple[str, str], ...] = (), occurrences: tuple[tuple[int, str], ...] = ((1, "t1"),),
         status: str = "promoted") -> Entry:
    return entry(entry_id, status=status, promoted="CLAUDE.md", pattern_key=pattern_key, occurrences=list(occurrences), meta=list(meta))


# ---- which subjects name a project file -------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern_key", "path"),
    [
        (MODELS, "app/models.py"),
        ("python.traceback/KeyError@app.py:main", "app.py"),
        ("js.exception/TypeError@src/server.js:handle", "src/server.js"),
        ("python.syntax-error/app/views.py:SyntaxError:invalid-syntax+1a2b3c4d", "app/views.py"),
        ("vcs.merge-conflict/docs/index.md", "docs/index.md"),
        # No path, or one we cannot be sure of: never checked.
        ("python.traceback/KeyError:missing-key+1a2b3c4d", ""),  # no frame of the project's
        ("python.syntax-error/SyntaxError:invalid-syntax+1a2b3c4d", ""),
        ("fs.no-such-file/config.yml", ""),  # missing by definition
        ("java.exception/OrderException@Order.java:Order.load", ""),  # a bare file name
        ("python.traceback/KeyError@../outside.py:load", ""),
        ("python.traceback/KeyError@/etc/passwd:load", ""),
        ("python.traceback/KeyError@~/notes.py:load", ""),
        ("python.traceback/KeyError@tmp/t.py:load", ""),  # a temporary file
        ("python.traceback/KeyError@app/a_very_long_module_name_here.py:lo+1a2b3c4d", "app/a_very_long_module_name_here.py"),
        ("python.traceback/KeyError@app/a_very_long_module_+1a2b3c4d", ""),  # cut short inside the path
        ("vcs.merge-conflict/git:conflict+1a2b3c4d", ""),  # the fallback subject
        ("python.traceback", ""),
        ("", ""),
    ],
)
def test_subject_path(pattern_key: str, path: str) -> None:
    assert subject_path(pattern_key) == path


def test_project_files(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "models.py").write_text("", encoding="utf-8")
    (tmp_path / "backend" / "api").mkdir(parents=True)
    (tmp_path / "backend" / "api" / "views.py").write_text("", encoding="utf-8")
    (tmp_path / "node_modules" / "lib").mkdir(parents=True)
    (tmp_path / "node_modules" / "lib" / "index.js").write_text("", encoding="utf-8")
    files = ProjectFiles(tmp_path)
    assert not files.is_gone("app/models.py")
    assert not files.is_gone("api/views.py")  # run from backend/: still in the project
    assert files.is_gone("app/gone.py")
    assert files.is_gone("pp/models.py")  # a suffix counts by whole components only
    assert files.is_gone("lib/index.js")  # vendored directories are not the project
    assert not ProjectFiles(None).is_gone("app/gone.py")
    assert not ProjectFiles(tmp_path / "missing").is_gone("app/gone.py")
    # A walk cut short is unsure: not gone.
    assert not ProjectFiles(tmp_path, WalkLimits(max_files=1)).is_gone("app/gone.py")


# ---- retire: the subject is gone -----------------------------------------------------------------------


def test_retire_when_the_subject_file_is_gone_not_when_present(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "models.py").write_text("", encoding="utf-8")
    present = rule("ERR-20260301-aaa", MODELS)
    gone = rule("ERR-20260301-bbb", "python.traceback/KeyError@app/orders.py:load")
    missing_but_unsure = rule("ERR-20260301-ccc", "fs.no-such-file/app/orders.py")
    unpromoted = rule("ERR-20260301-ddd", "python.traceback/KeyError@app/orders.py:save", status="pending")
    entries = [present, gone, missing_but_unsure, unpromoted]
    found = retire_candidates(entries, TODAY, POLICY, ProjectFiles(tmp_path).is_gone)
    assert [(c.entry.id, c.reasons) for c in found] == [
        ("ERR-20260301-bbb", ("its subject is gone: app/orders.py no longer exists in the project",)),
    ]
    assert retire_candidates(entries, TODAY, POLICY) == []  # without a project (the default): never gone
    assert retire_candidates(entries, TODAY, POLICY, never_gone) == []


def test_review_json_retires_a_rule_whose_file_was_deleted(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "models.py").write_text("", encoding="utf-8")
    write_project(tmp_path, [entry_text("ERR-20260301-aaa", "KeyError in load", status="promoted", promoted="CLAUDE.md",
                                        pattern_key=MODELS, occurrences=[(5, "1a2b3c4d")])])
    # Promoted by us: its bullet is in CLAUDE.md (one promoted by hand is only listed for a person).
    (tmp_path / "CLAUDE.md").write_text(upsert_rule("", "ERR-20260301-aaa", "Check the key before loading."), encoding="utf-8")

    def retire_reasons() -> list[list[str]]:
        result = run_cli("review", "--json", cwd=tmp_path, env={"SELF_IMPROVE_TODAY": TODAY.isoformat()})
        assert result.returncode == 0, result.stderr
        return [item["reasons"] for item in json.loads(result.stdout)["retire"]]

    assert retire_reasons() == []
    (tmp_path / "app" / "models.py").unlink()
    assert retire_reasons() == [["its subject is gone: app/models.py no longer exists in the project"]]


# ---- revise: recurred after promotion --------------------------------------------------------------------


RECURRED = (("Promoted-On", day(10)), ("Recurred-After-Promotion", "2"), ("Helpful", "1"), ("Measured-Harmful", "1"))
HISTORY = ((20, "1a2b3c4d"), (11, "5e6f7a8b"), (10, "9c0d1e2f"), (3, "1a2b3c4d"))


def test_revise_candidates_exact() -> None:
    recurred = rule("LRN-20260301-aaa", "deps.module-not-found/python:yaml", meta=RECURRED, occurrences=HISTORY)
    unknown_day = rule("LRN-20260301-bbb", meta=(("Recurred-After-Promotion", "1"),))
    not_recurred = rule("LRN-20260301-ccc", meta=(("Promoted-On", day(10)), ("Recurred-After-Promotion", "0")))
    reopened = rule("LRN-20260301-ddd", meta=(("Recurred-After-Promotion", "3"),), status="pending")
    found = revise_candidates([unknown_day, recurred, not_recurred, reopened])
    assert [(c.entry.id, [o.render() for o in c.since], c.reasons, c.target) for c in found] == [
        ("LRN-20260301-aaa", [f"{day(10)}/9c0d1e2f", f"{day(3)}/1a2b3c4d"],
         (f"recurred 2 times after promotion (promoted {day(10)})", "harmful 0 + measured 1 = helpful 1 + measured 0"), "CLAUDE.md"),
        ("LRN-20260301-bbb", [], ("recurred 1 time after promotion (promotion day unknown)", "harmful 0 + measured 0 = helpful 0 + measured 0"),
         "CLAUDE.md"),
    ]


def test_a_rule_to_retire_is_listed_under_retire_only() -> None:
    both = rule("LRN-20260301-aaa", meta=(*RECURRED, ("Harmful", "3")), occurrences=HISTORY)
    revise_only = rule("LRN-20260301-bbb", meta=RECURRED, occurrences=HISTORY)
    plan = plan_review([both, revise_only], TODAY, POLICY, TargetTable(), False)
    assert [c.entry.id for c in plan.retire] == ["LRN-20260301-aaa"]
    assert [c.entry.id for c in plan.revise] == ["LRN-20260301-bbb"]
    assert plan.retire[0].reasons == ("harmful 3 + measured 1 > helpful 1 + measured 0",)


def test_revise_json_shape() -> None:
    recurred = rule("LRN-20260301-aaa", "deps.module-not-found/python:yaml", meta=RECURRED, occurrences=HISTORY)
    [proposal] = proposals(revise_candidates([recurred]), {"LRN-20260301-AAA": "Install pyyaml first."}, lambda *verb: " ".join(["self-improve", *verb]))
    assert proposal.as_json() == {
        "id": "LRN-20260301-aaa",
        "summary": "Something went wrong",
        "pattern_key": "deps.module-not-found/python:yaml",
        "target": "CLAUDE.md",
        "rule": "Install pyyaml first.",
        "promoted_on": day(10),
        "recurred_after_promotion": 2,
        "occurrences_since": [f"{day(10)}/9c0d1e2f", f"{day(3)}/1a2b3c4d"],
        "helpful": 1,
        "harmful": 0,
        "measured_helpful": 0,
        "measured_harmful": 1,
        "reasons": [f"recurred 2 times after promotion (promoted {day(10)})", "harmful 0 + measured 1 = helpful 1 + measured 0"],
        "commands": ["self-improve promote LRN-20260301-aaa --rule NEW RULE", "self-improve retire LRN-20260301-aaa"],
    }


REVISE_PROJECT_RULE = (
    "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->\n## Learned rules\n"
    "- Install pyyaml first. <!-- LRN-20260301-aaa -->\n<!-- self-improve:end -->\n"
)


@pytest.fixture()
def revise_project(tmp_path: Path) -> Path:
    from self_improve.review.managed_block import rehash

    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text("LRN-20260301-aaa", "yaml is missing", status="promoted", promoted="CLAUDE.md",
                                        pattern_key="deps.module-not-found/python:yaml", occurrences=list(HISTORY), meta=list(RECURRED))])
    (tmp_path / "CLAUDE.md").write_text(rehash(REVISE_PROJECT_RULE), encoding="utf-8")
    return tmp_path


def test_review_lists_revisions_and_yes_never_applies_them(revise_project: Path) -> None:
    env = {"SELF_IMPROVE_TODAY": TODAY.isoformat()}
    listing = run_cli("review", cwd=revise_project, env=env)
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout == (
        "Revise (recurred after promotion; never applied by --yes) (1)\n"
        "  LRN-20260301-aaa  yaml is missing\n"
        f"      [deps.module-not-found/python:yaml] recurred 2 times after promotion (promoted {day(10)}): {day(10)}/9c0d1e2f, {day(3)}/1a2b3c4d\n"
        "      harmful 0 + measured 1 = helpful 1 + measured 0\n"
        "      rule in CLAUDE.md: Install pyyaml first.\n"
        "      to rewrite it: self-improve promote LRN-20260301-aaa --rule 'NEW RULE'\n"
        "      to retire it:  self-improve retire LRN-20260301-aaa\n"
        "\n"
    )
    data = json.loads(run_cli("review", "--json", cwd=revise_project, env=env).stdout)
    assert [item["id"] for item in data["revise"]] == ["LRN-20260301-aaa"]
    assert data["revise"][0]["rule"] == "Install pyyaml first."
    learnings = (revise_project / ".learnings" / "LEARNINGS.md").read_bytes()
    rules = (revise_project / "CLAUDE.md").read_bytes()
    yes = run_cli("review", "--yes", cwd=revise_project, env=env)
    assert yes.returncode == 0, yes.stderr
    assert yes.stdout == (
        "Nothing to promote, archive or retire.\n"
        "revise (not applied): LRN-20260301-aaa recurred after promotion; to rewrite its rule: "
        "self-improve promote LRN-20260301-aaa --rule 'NEW RULE'\n"
    )
    assert (revise_project / ".learnings" / "LEARNINGS.md").read_bytes() == learnings
    assert (revise_project / "CLAUDE.md").read_bytes() == rules


def test_rewriting_the_rule_starts_a_new_measurement(revise_project: Path) -> None:
    from self_improve.store.store import Store

    now = {"SELF_IMPROVE_NOW": "2026-03-02T08:00:00Z"}
    same = run_cli("promote", "LRN-20260301-aaa", "--yes", "--rule", "Install pyyaml first.", cwd=revise_project, env=now)
    assert same.returncode == 0, same.stderr
    kept = Store(revise_project).get("LRN-20260301-aaa")
    assert (kept.promoted_on, kept.recurred_after_promotion) == (day(10), 2)  # the same rule: nothing restarts
    new = run_cli("promote", "LRN-20260301-aaa", "--yes", "--rule", "Run `pip install pyyaml` before `python3 app.py`.",
                  cwd=revise_project, env=now)
    assert new.returncode == 0, new.stderr
    rewritten = Store(revise_project).get("LRN-20260301-aaa")
    assert (rewritten.promoted_on, rewritten.recurred_after_promotion) == ("2026-03-02", 0)
    data = json.loads(run_cli("review", "--json", cwd=revise_project, env={"SELF_IMPROVE_TODAY": "2026-03-02"}).stdout)
    assert data["revise"] == []
