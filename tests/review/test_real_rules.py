"""A rule is a rule, or it is not proposed: real-world Suggested Action sections, exact results.

Each section is written in a style seen in real users' ``.learnings/`` files (our own words):
code blocks, numbered procedures, notes to self, wrapped paragraphs, labels, Chinese, text from
a GBK file. ``propose_rule`` takes one whole imperative sentence, or says "needs a rule".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.review.policy import propose_rule, rule_problem
from self_improve.store.entry import Entry, parse_text
from tests.helpers import entry_text, record_here, run_cli, tree_hash, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
ID = "LRN-20260201-aaa"
NO_RULE = f"needs a rule: no sentence of the Suggested Action of {ID} is a rule on its own (an imperative sentence, not a fragment): pass --rule TEXT"
RECENT = [(20, "1a2b3c4d"), (10, "5e6f7a8b"), (2, "1a2b3c4d")]


def entry(action: str, **kwargs: object) -> Entry:
    return parse_text(entry_text(ID, "A lesson", action=action, **kwargs)).entries[0]  # type: ignore[arg-type]


SECTIONS = {
    # The issue's own examples: none of them is a rule.
    "a closing code fence": ("Install the dependencies with:\n\n```bash\npnpm install\n```", None),
    "a procedure step": (
        "1. Open the Music app.\n2. Open the left sidebar.\n3. Then click the first music item within that sidebar.", None,
    ),
    "a note to self": ("suggest writing this into memory", None),
    "a capitalised note": ("Write this lesson into MEMORY.md so the next session sees it.", None),
    "an introduction": ("Run the following:", None),
    "code alone": ("`pnpm install --frozen-lockfile`", None),
    "a table": ("| Do | Don't |\n|----|-------|\n| pnpm | npm |", None),
    "too vague": ("Fix it.", None),
    "a statement": ("The lockfile is pnpm-lock.yaml.", None),
    "a Chinese continuation": ("然后重启服务。", None),
    "a Chinese memory note": ("建议写入记忆，下次注意。", None),
    # Rules: the author's own sentence, whole, without list marker, label or emoji.
    "one logged action": ("Use `pnpm install`, not npm: this repo is a pnpm workspace.", "Use `pnpm install`, not npm: this repo is a pnpm workspace."),
    "two words": ("Use pnpm.", "Use pnpm."),
    "the newest logged action": ("Run `npm ci`.\n- Use `pnpm install`, not npm.", "Use `pnpm install`, not npm."),
    "a rule before the code": ("Always use pnpm in this repo:\n\n```bash\npnpm install\n```\n\nNever run npm install.", "Never run npm install."),
    "an imperative before a fence": ("Use pnpm in this repo.\n```bash\npnpm install\n```", "Use pnpm in this repo."),
    "details first": (
        "The config is cached between runs. Clear it with `make clean` before building.", "Clear it with `make clean` before building.",
    ),
    "a bold label": ("- **Fix**: Always pass `--frozen-lockfile` in CI.", "Always pass `--frozen-lockfile` in CI."),
    "a wrapped line": ("Run the integration tests with\nthe docker daemon running.", "Run the integration tests with the docker daemon running."),
    "an emoji": ("✅ Never push to main directly.", "Never push to main directly."),
    "a condition": (
        "When `pytest` cannot import the package, run `python -m pytest` from the root.",
        "When `pytest` cannot import the package, run `python -m pytest` from the root.",
    ),
    "an abbreviation": ("Use a formatter, e.g. Black, before committing.", "Use a formatter, e.g. Black, before committing."),
    "one sentence of two": ("Do not edit generated files. They are rebuilt on every run.", "Do not edit generated files."),
    "Chinese": ("使用 pnpm 安装依赖，不要用 npm。", "使用 pnpm 安装依赖，不要用 npm。"),
    "Chinese, the rule first": ("先运行 `make clean` 再构建。\n原因是缓存过期，详见日志。", "先运行 `make clean` 再构建。"),
    "a Chinese label": ("修复：必须先备份数据库再迁移。", "必须先备份数据库再迁移。"),
}


@pytest.mark.parametrize("name", list(SECTIONS))
def test_the_proposed_rule_of_a_real_world_section(name: str) -> None:
    section, expected = SECTIONS[name]
    proposal = propose_rule(entry(section), 200)
    if expected is None:
        assert (proposal.text, proposal.problem, proposal.section) == ("", NO_RULE, section)
    else:
        assert (proposal.text, proposal.problem) == (expected, "")


def test_no_action_and_a_too_long_rule_need_a_rule() -> None:
    assert propose_rule(entry(""), 200).problem == f"needs a rule: {ID} has no Suggested Action to turn into a rule: pass --rule TEXT"
    long = propose_rule(entry("Use " + "x" * 300 + "."), 200)
    assert long.problem == (
        f"needs a rule: the Suggested Action of {ID} is 305 characters, over promotion.max_rule_chars (200): write a shorter one (or pass --rule TEXT)"
    )


UNREADABLE = f"needs a rule: the Suggested Action of {ID} is not readable text (bytes that are neither UTF-8 nor GB18030): pass --rule TEXT"


@pytest.mark.parametrize(
    "garbled",
    ["\udcff\udcfe\udcfd\udcfc", "Use pnpm \udcb0 here.", "Use \ufffd\ufffd for the path.", "Use 锟斤拷 for the path."],
    ids=["undecodable-bytes", "a-lone-byte", "U+FFFD", "GBK-of-U+FFFD"],
)
def test_garbled_text_is_never_a_rule(garbled: str) -> None:
    proposal = propose_rule(entry(garbled), 200)
    assert (proposal.text, proposal.problem) == ("", UNREADABLE)


def test_the_observed_fix_is_the_fallback() -> None:
    observed = propose_rule(entry("```\npnpm i\n```", meta=[("Observed-Fix", "pnpm install")]), 200)
    assert (observed.text, observed.problem) == ("pnpm install", "")


def test_gbk_text_is_read_as_its_author_wrote_it() -> None:
    # A GBK file decoded with surrogateescape: its Chinese is a rule once read as GB18030.
    raw = "使用 pnpm 安装依赖，不要用 npm。".encode("gbk").decode("utf-8", "surrogateescape")
    assert propose_rule(entry(raw), 200).text == "使用 pnpm 安装依赖，不要用 npm。"


def test_a_garbled_rule_given_by_hand_is_refused() -> None:
    assert rule_problem("Use \udcb0\udce5", 200) == "--rule holds undecodable text (U+FFFD or bytes that were not UTF-8): write it again"
    assert rule_problem("Use \ufffd", 200) == "--rule holds undecodable text (U+FFFD or bytes that were not UTF-8): write it again"


# ---- through the CLI -------------------------------------------------------------------------------

FENCE_ONLY = "Install the dependencies with:\n\n```bash\npnpm install\n```"


# These tests are about rules taken from real sections and GBK files, in the user's own CLAUDE.md: the project's config chooses it,
# since the default target is now .claude/rules/self-improve.md (tests/review/test_rules_target.py).
PIN_CLAUDE_MD = '[targets]\nlearning = "CLAUDE.md"\nerror = "CLAUDE.md"\nfeature = "CLAUDE.md"\n'


def pin_claude_md(root: Path) -> None:
    (root / ".learnings" / "config.toml").write_text(PIN_CLAUDE_MD, encoding="utf-8")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text(ID, "pnpm, not npm", category="correction", action=FENCE_ONLY, occurrences=RECENT)])
    pin_claude_md(tmp_path)
    record_here(tmp_path)
    return tmp_path


def test_review_json_says_needs_a_rule_and_carries_the_section(project: Path) -> None:
    result = run_cli("review", "--json", cwd=project, env=TODAY)
    (item,) = json.loads(result.stdout)["promote"]
    assert (item["rule"], item["rule_problem"], item["rule_section"]) == (
        None, NO_RULE, {"title": "Suggested Action", "text": FENCE_ONLY},
    )


def test_review_shows_the_section_instead_of_a_rule(project: Path) -> None:
    result = run_cli("review", cwd=project, env=TODAY)
    shown = result.stdout.split("      rule:   ", 1)[1].split("      target:", 1)[0]
    assert shown == (
        f"(none) {NO_RULE}\n"
        "      its Suggested Action reads:\n"
        "      | Install the dependencies with:\n"
        "      |\n"
        "      | ```bash\n"
        "      | pnpm install\n"
        "      | ```\n"
    )


def test_review_yes_skips_it_and_promote_refuses_it_writing_nothing(project: Path) -> None:
    result = run_cli("review", "--yes", cwd=project, env=TODAY)
    assert result.stdout.splitlines()[0] == f"skipped {ID}: {NO_RULE} (`self-improve promote {ID} --rule TEXT`)"
    assert not (project / "CLAUDE.md").exists()
    before = tree_hash(project)
    refused = run_cli("promote", ID, "--yes", cwd=project)
    assert (refused.returncode, refused.stdout, refused.stderr) == (2, "", f"self-improve: error: {NO_RULE}\n")
    assert tree_hash(project) == before


def test_a_long_rule_is_shown_in_full(tmp_path: Path) -> None:
    rule = "Always run `pnpm install --frozen-lockfile` before `pnpm test`, in CI and locally, so the lockfile and node_modules never drift apart."
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text(ID, "lockfile drift", action=rule, occurrences=RECENT)])
    assert f"      rule:   {rule}\n" in run_cli("review", cwd=tmp_path, env=TODAY).stdout


# ---- GBK content: no traceback, ever ----------------------------------------------------------------


def gbk_project(root: Path, action: str) -> Path:
    (root / ".git").mkdir()
    write_project(root, [entry_text(ID, "依赖安装", action=action, occurrences=RECENT)])
    pin_claude_md(root)
    learnings = root / ".learnings" / "LEARNINGS.md"
    learnings.write_bytes(learnings.read_text(encoding="utf-8").encode("gbk"))
    return root


def test_promote_and_retire_on_a_gbk_file(tmp_path: Path) -> None:
    root = gbk_project(tmp_path, "使用 pnpm 安装依赖，不要用 npm。")
    learnings = root / ".learnings" / "LEARNINGS.md"
    original = learnings.read_bytes()
    result = run_cli("promote", ID, "--yes", cwd=root, env={"SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"})
    assert (result.returncode, result.stdout, result.stderr) == (0, f"promoted {ID} to CLAUDE.md\n", "")
    assert f"- 使用 pnpm 安装依赖，不要用 npm。 <!-- {ID} -->\n" in (root / "CLAUDE.md").read_text(encoding="utf-8")
    # The GBK bytes stay as they are: only ASCII lines (valid in both) change or are added.
    after = learnings.read_bytes()
    assert after.replace(b"- Promoted-On: 2026-03-01\n", b"", 1) == original.replace(
        b"**Status**: pending\n", b"**Status**: promoted\n**Promoted**: CLAUDE.md\n", 1
    )
    retired = run_cli("retire", ID, "--yes", cwd=root)
    assert (retired.returncode, retired.stdout, retired.stderr) == (0, f"retired {ID}: its rule is gone from CLAUDE.md\n", "")
    assert not (root / "CLAUDE.md").exists()


def test_review_yes_on_an_unreadable_section_is_one_line_and_changes_no_instruction_file(tmp_path: Path) -> None:
    root = gbk_project(tmp_path, "Use pnpm.")
    learnings = root / ".learnings" / "LEARNINGS.md"
    # A byte that is neither UTF-8 nor GB18030 inside the action: garbled, never a rule.
    learnings.write_bytes(learnings.read_bytes().replace(b"Use pnpm.", b"Use \xff\xfe pnpm."))
    result = run_cli("review", "--yes", cwd=root, env=TODAY)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines()[0] == (
        f"skipped {ID}: needs a rule: the Suggested Action of {ID} is not readable text (bytes that are neither UTF-8 nor GB18030): "
        f"pass --rule TEXT (`self-improve promote {ID} --rule TEXT`)"
    )
    assert not (root / "CLAUDE.md").exists()
