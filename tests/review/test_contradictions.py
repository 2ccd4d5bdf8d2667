"""A lesson whose "do X, not Y" inverts a promoted rule is a proposed supersede: the parser
(``review/contradictions.py``) exactly, its hard negatives, and what ``review`` shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.review.contradictions import Stance, conflicts, find_contradictions, stances, thing
from self_improve.review.managed_block import rehash
from self_improve.store.entry import parse_text
from tests.helpers import entry_text, run_cli, tree_hash, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"


def do(name: str) -> Stance:
    return Stance(True, name)


def dont(name: str) -> Stance:
    return Stance(False, name)


# ---- the parser --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "expected"), [
    ("use npm", (do("npm"),)),
    ("Use yarn, not npm.", (do("yarn"), dont("npm"))),
    ("Use pnpm not npm", (do("pnpm"), dont("npm"))),
    ("Use `pnpm install`, not npm: this is a pnpm workspace", (do("pnpm install"), dont("npm"))),
    ("Use yarn instead of npm", (do("yarn"), dont("npm"))),
    ("Instead of npm, use yarn.", (do("yarn"), dont("npm"))),
    ("Prefer rg over grep", (do("rg"), dont("grep"))),
    ("Run ruff rather than flake8", (do("ruff"), dont("flake8"))),
    ("Always use tabs", (do("tabs"),)),
    ("Never use tabs", (dont("tabs"),)),
    ("Don't use sudo with docker here.", (dont("sudo with docker"),)),
    ("Do not use npm, not even for scripts", (dont("npm"),)),
    ("Avoid using the global pip", (dont("global pip"),)),
    ("Stop using npm; switch to pnpm", (dont("npm"), do("pnpm"))),
    ("Always run `npm test` first.", (do("npm test first"),)),
    ("Use yarn because the lockfile is yarn's", (do("yarn"),)),
    ("ｕｓｅ ＹＡＲＮ， ｎｏｔ ｎｐｍ", (do("yarn"), dont("npm"))),  # full-width: NFKC first
    # Chinese
    ("用pnpm，不要用npm", (do("pnpm"), dont("npm"))),
    ("使用 yarn，别用 npm", (do("yarn"), dont("npm"))),
    ("用 pnpm 而不是 npm", (do("pnpm"), dont("npm"))),
    ("用 yarn 代替 npm", (do("yarn"), dont("npm"))),
    ("不要用 npm", (dont("npm"),)),
    ("别用sudo", (dont("sudo"),)),
    ("永远不要用 tabs", (dont("tabs"),)),
    ("总是用 tabs", (do("tabs"),)),
    ("用 npm 吧", (do("npm"),)),
    ("不要用npm,用yarn。因为这是 yarn 工作区", (dont("npm"), do("yarn"))),
    # No stance: a statement, a question, a rule that says both
    ("This is a pnpm workspace", ()),
    ("Tests need the dev requirements", ()),
    ("Use npm, not npm", ()),
])
def test_stances(rule: str, expected: tuple[Stance, ...]) -> None:
    assert stances(rule) == expected


def test_a_text_too_long_to_be_a_rule_takes_no_stance() -> None:
    assert stances("use npm, not yarn " + "x" * 400) == ()
    assert stances("use npm, " + "not " * 30_000) == ()  # and costs nothing


def test_things_are_normalised_alike() -> None:
    assert thing("`npm`") == thing("the npm") == thing("npm here") == thing("用 npm") == thing("ｎｐｍ") == "npm"
    assert thing("npm test (the whole suite)") == "npm test"
    assert thing("x" * 81) == ""


@pytest.mark.parametrize(("new", "old", "on"), [
    ("use npm", "use yarn, not npm", ("npm",)),
    ("always use tabs", "never use tabs", ("tabs",)),
    ("Never use tabs.", "Always use tabs", ("tabs",)),
    ("Use npm instead of yarn", "Use yarn instead of npm", ("npm", "yarn")),
    ("Use grep", "Prefer rg over grep", ("grep",)),
    ("用npm", "用yarn，不要用npm", ("npm",)),
    ("别用 sudo", "Always use sudo", ("sudo",)),
    ("Use `npm`.", "用 yarn，不要用 npm", ("npm",)),  # across languages
])
def test_contradictions(new: str, old: str, on: tuple[str, ...]) -> None:
    assert conflicts(new, old) == on


@pytest.mark.parametrize(("new", "old"), [
    # The same tool in two unrelated rules.
    ("Use pnpm, not npm", "Always run `npm test` first."),
    ("Don't run npm install as root", "Use npm"),
    ("Use npm ci, not npm install", "Use npm"),
    ("Never use npm to install global tools", "use npm"),
    ("不要用 npm 安装全局工具", "用 npm"),
    # Different scopes.
    ("Never use tabs in Python files", "Always use tabs in Makefiles"),
    ("Never run the tests after midnight", "Always run the tests before committing"),
    # The same stance twice is a duplicate, not a contradiction.
    ("use yarn, not npm", "use yarn instead of npm"),
    ("用 yarn，不要用 npm", "Use yarn, not npm"),
    # Statements take no stance.
    ("npm is slow here", "Use npm"),
    ("Run `make deps` before `make test`.", "Never run make test before make deps"),
])
def test_hard_negatives(new: str, old: str) -> None:
    assert conflicts(new, old) == ()
    assert conflicts(old, new) == ()


# ---- in a store's entries ---------------------------------------------------------------------------


def entries_of(*texts: str) -> list:
    return [entry for text in texts for entry in parse_text(text).entries]


OLD = entry_text("LRN-20260101-old", "We use yarn", status="promoted", promoted="CLAUDE.md", category="correction",
                 action="Use yarn, not npm.", occurrences=[(40, "1a2b3c4d")], pattern_key="tooling.package-manager")


def test_find_contradictions_reads_the_rule_in_its_block_and_skips_what_is_settled() -> None:
    new = entry_text("LRN-20260220-new", "User: use npm now", category="correction", action="Use npm.", occurrences=[(2, "5e6f7a8b")])
    unrelated = entry_text("LRN-20260221-oth", "npm test runs everything", action="Always run `npm test` first.",
                           occurrences=[(2, "5e6f7a8b")])
    done = entry_text("LRN-20260222-don", "npm it is", action="Use npm", occurrences=[(1, "5e6f7a8b")],
                      meta=[("Supersedes", "LRN-20260101-old")])
    feature = entry_text("FEAT-20260223-fea", "use npm", action="use npm", occurrences=[(1, "5e6f7a8b")])
    found = find_contradictions(entries_of(OLD, new, unrelated, done, feature), {"LRN-20260101-OLD": "Use yarn, not npm."})
    assert [(c.new.id, c.old.id, c.new_rule, c.old_rule, c.things, c.proposal) for c in found] == [
        ("LRN-20260220-new", "LRN-20260101-old", "Use npm.", "Use yarn, not npm.", ("npm",), "supersede"),
    ]
    # The rule as the block has it wins over the entry's own action (it may have been promoted with --rule).
    assert find_contradictions(entries_of(OLD, new), {"LRN-20260101-OLD": "Use pnpm."}) == []
    superseded = OLD.replace("- Recurrence-Count", "- Superseded-By: LRN-20260222-don\n- Recurrence-Count")
    assert find_contradictions(entries_of(superseded, new), {}) == []


def test_a_promoted_entry_whose_newest_fix_inverts_its_rule() -> None:
    merged = OLD.replace("Use yarn, not npm.\n", "Use yarn, not npm.\nUse npm, not yarn.\n")
    (found,) = find_contradictions(entries_of(merged), {"LRN-20260101-OLD": "Use yarn, not npm."})
    assert (found.new.id, found.old.id, found.new_rule, found.things, found.proposal) == (
        "LRN-20260101-old", "LRN-20260101-old", "Use npm, not yarn.", ("npm", "yarn"), "replace_rule")


# ---- what review shows ------------------------------------------------------------------------------


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        OLD,
        entry_text("LRN-20260220-new", "User: use npm now", category="correction", action="Use npm.", occurrences=[(2, "5e6f7a8b")],
                   pattern_key="tooling.npm"),
        entry_text("LRN-20260221-oth", "npm test runs everything", action="Always run `npm test` first.", occurrences=[(2, "5e6f7a8b")]),
    ])
    (tmp_path / "CLAUDE.md").write_text(
        rehash(f"# P\n\n{BEGIN}\n## Learned rules\n- Use yarn, not npm. <!-- LRN-20260101-old -->\n{END}\n"), encoding="utf-8")
    return tmp_path


def test_review_json_has_the_contradictions(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("review", "--json", cwd=project, env=TODAY)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["contradictions"] == [{
        "new_id": "LRN-20260220-new",
        "old_id": "LRN-20260101-old",
        "new_rule": "Use npm.",
        "old_rule": "Use yarn, not npm.",
        "conflicts_on": ["npm"],
        "proposal": "supersede",
        "target": "CLAUDE.md",
        "command": "self-improve supersede LRN-20260101-old --by LRN-20260220-new",
    }]
    assert tree_hash(project) == before


def test_review_lists_them_and_yes_never_applies_them(project: Path) -> None:
    # A registry of its own: another test's project with the same key would add a "user scope" line.
    env = {**TODAY, "XDG_STATE_HOME": f"{project}-state"}
    before = tree_hash(project)
    listing = run_cli("review", cwd=project, env=env)
    assert (listing.returncode, listing.stderr) == (0, "")
    assert listing.stdout == (
        "Contradicts a promoted rule (proposed supersede) (1)\n"
        "  LRN-20260220-new  inverts the rule of LRN-20260101-old (on npm)\n"
        "      new:    Use npm.\n"
        "      old:    Use yarn, not npm. (in CLAUDE.md)\n"
        "      to supersede it: self-improve supersede LRN-20260101-old --by LRN-20260220-new\n"
        "\n"
    )
    assert tree_hash(project) == before
    applied = run_cli("review", "--yes", cwd=project, env=env)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.splitlines()[-1] == (
        "contradiction (not applied): LRN-20260220-new inverts the rule of LRN-20260101-old; "
        "to supersede it: self-improve supersede LRN-20260101-old --by LRN-20260220-new"
    )
    after = tree_hash(project)
    for name in ("CLAUDE.md", ".learnings/LEARNINGS.md"):  # --yes writes only when the review ran
        assert after[name] == before[name]


def test_the_printed_command_supersedes_and_review_then_proposes_retiring(project: Path) -> None:
    done = run_cli("supersede", "LRN-20260101-old", "--by", "LRN-20260220-new", cwd=project)
    assert done.returncode == 0, done.stderr
    data = json.loads(run_cli("review", "--json", cwd=project, env=TODAY).stdout)
    assert "contradictions" not in data
    assert [(item["id"], item["reasons"]) for item in data["retire"]] == [("LRN-20260101-old", ["superseded by LRN-20260220-new"])]
