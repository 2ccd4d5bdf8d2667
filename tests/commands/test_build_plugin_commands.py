"""build-plugin's slash commands: plugin.toml ``[[commands]]`` -> ``commands/<name>.md`` (exact bytes)."""

from __future__ import annotations

import argparse
import hashlib
import shutil
import tomllib
from pathlib import Path

import pytest

from self_improve.commands import build_plugin
from self_improve.errors import SelfImproveError
from self_improve.harnesses import installer as inst
from tests.helpers import REPO

REVIEW_MD = """---
description: "Show the lessons self-improve proposes to promote, archive or retire, with their evidence; apply only what you approve"
disable-model-invocation: true
allowed-tools: ["Bash(self-improve review --json)", "Bash(self-improve config get promotion.agent_may_promote)"]
---

Show the user what self-improve proposes, with its evidence. Apply only what they approve.

1. Run `self-improve review --json`. If every list in it is empty, say there is nothing to review and stop.
2. Show each proposal: its entry ID and summary, how often and in how many sessions it was seen (`occurrences`, `tasks`, `last_seen`), and
   - promote: the proposed `rule` and `target`, and `provenance.line` (who logged it, what this machine recorded); when `rule` is null, its `rule_problem`;
   - archive, retire, revise: the `reason`;
   - merge, corrections, contradictions, lint: as listed.
   Change nothing yet.
3. Ask the user which proposals to apply.
4. Run `self-improve config get promotion.agent_may_promote`.
   - `false` (the default): change nothing. Tell the user to apply them in their own terminal with `self-improve review`.
   - `true` (the user's own opt-in): run the command for each proposal the user approved in this chat, and nothing else: `self-improve promote ID` (add `--rule "..."` or `--target FILE` only as the user said), `self-improve retire ID`, `self-improve archive ID`, `self-improve merge NEW OLD`. Never `review --yes`.

Never change `promotion.agent_may_promote` yourself. Never edit CLAUDE.md, AGENTS.md or `.learnings/` by hand.
"""

LEARN_MD = """---
description: "Log what just happened (a fix, a correction, a workaround) as a self-improve lesson, through the CLI"
argument-hint: "[what to remember]"
disable-model-invocation: true
allowed-tools: ["Bash(self-improve keys:*)", "Bash(self-improve log:*)"]
---

Log the lesson of what just happened in this session, through the `self-improve` CLI.

1. Name the lesson: the fix of a command that failed, a correction the user gave, a non-obvious workaround or project convention, or something the tools cannot do yet.
2. Run `self-improve keys` (`--grep WORD` narrows it) and reuse the Pattern-Key the lesson already has; mint a new `area.topic` only when none fits. After an `<error-detected>` nudge, run the log command it printed, as printed, with your fix and summary.
3. Log it with one command:
   - a fix: `self-improve log error --pattern-key KEY --action "RULE" "SUMMARY"`
   - a correction: `self-improve log learning --category correction --pattern-key KEY --action "RULE" "SUMMARY"`, the user's own words in the summary
   - a workaround or convention: `self-improve log learning --category insight --pattern-key KEY --action "RULE" "SUMMARY"`
   - a missing feature: `self-improve log feature "SUMMARY"`
   `--action` is a prevention rule ("do X, not Y", "before X, check Y"), one line, at most 200 characters. Add `--scope user` for a lesson about the user or this machine.
4. If `log` lists entries the new one may repeat and one says the same lesson, run the `self-improve merge NEW OLD` it printed.
5. Tell the user in one line what you logged.

Never log secrets, tokens, personal data or raw output. Never edit `.learnings/`, CLAUDE.md or AGENTS.md by hand.

The user's note (may be empty): $ARGUMENTS
"""


def run_build(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    build_plugin.register(sub)
    args = parser.parse_args(["build-plugin", *argv])
    return int(args.func(args))


def checkout_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """What build-plugin reads and writes, copied; build-plugin pointed at the copy."""
    for relative in ("plugin.toml", "hooks", ".claude-plugin", "bin", "commands"):
        source = REPO / relative
        if source.is_dir():
            shutil.copytree(source, tmp_path / relative)
        else:
            shutil.copy2(source, tmp_path / relative)
    monkeypatch.setattr(build_plugin, "checkout_root", lambda: tmp_path)
    return tmp_path


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def with_commands(root: Path, commands_toml: str) -> None:
    """Replace the [[commands]] of root's plugin.toml with ``commands_toml``."""
    text = (REPO / "plugin.toml").read_text()
    head, _, rest = text.partition("\n[[commands]]\n")
    _, _, tail = rest.partition("\n[harness.claude]\n")
    assert head and tail, "plugin.toml no longer has [[commands]] before [harness.claude]"
    (root / "plugin.toml").write_text(f"{head}\n{commands_toml}\n[harness.claude]\n{tail}")


# --- the committed commands -----------------------------------------------------------------


def test_review_and_learn_are_rendered_byte_for_byte() -> None:
    files = build_plugin.render(inst.load_manifest(REPO), build_plugin.load_commands(REPO))
    assert [path for path in files if path.startswith("commands/")] == ["commands/review.md", "commands/learn.md"]
    assert files["commands/review.md"] == REVIEW_MD.encode()
    assert files["commands/learn.md"] == LEARN_MD.encode()


def test_committed_command_files_match_the_manifest() -> None:
    assert (REPO / "commands" / "review.md").read_bytes() == REVIEW_MD.encode()
    assert (REPO / "commands" / "learn.md").read_bytes() == LEARN_MD.encode()
    assert sorted(p.name for p in (REPO / "commands").iterdir()) == ["learn.md", "review.md"]


def test_frontmatter_values_read_back_exactly() -> None:
    """JSON in the frontmatter is YAML that reads back as the manifest's strings (checked with
    TOML here, whose basic strings and arrays are JSON's for these values)."""
    for command in build_plugin.load_commands(REPO):
        text = build_plugin.command_markdown(command).decode()
        front, _, body = text.removeprefix("---\n").partition("\n---\n\n")
        values = tomllib.loads("\n".join(line.replace(": ", " = ", 1) for line in front.splitlines()
                                         if not line.startswith("disable-model-invocation")))
        assert values["description"] == command.description
        assert values["allowed-tools"] == list(command.allowed_tools)
        assert values.get("argument-hint") == command.argument_hint
        assert body == command.prompt.strip("\n") + "\n"


def test_a_minimal_command_has_only_a_description(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = checkout_copy(tmp_path, monkeypatch)
    with_commands(root, '[[commands]]\nname = "hello"\ndescription = "Say: hi"\nprompt = """\nSay hi.\n"""\n')
    (root / "commands" / "review.md").unlink()
    (root / "commands" / "learn.md").unlink()
    assert run_build() == 0
    assert (root / "commands" / "hello.md").read_bytes() == b'---\ndescription: "Say: hi"\n---\n\nSay hi.\n'
    assert run_build("--check") == 0


# --- --check and refusals ----------------------------------------------------------------------


def test_check_reports_a_stale_and_a_stray_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = checkout_copy(tmp_path, monkeypatch)
    assert run_build("--check") == 0
    (root / "commands" / "review.md").write_text("---\ndescription: old\n---\n\nold\n")
    (root / "commands" / "old.md").write_text("---\ndescription: gone\n---\n\ngone\n")
    before = tree_digest(root)
    capsys.readouterr()
    assert run_build("--check") == 1
    assert capsys.readouterr().err == (
        "self-improve: build-plugin --check: commands/review.md is out of date (run `self-improve build-plugin`)\n"
        "self-improve: build-plugin --check: commands/old.md is not a [[commands]] of plugin.toml "
        "(remove it, or add it there)\n"
    )
    assert tree_digest(root) == before  # --check writes nothing
    assert run_build() == 0
    assert (root / "commands" / "review.md").read_bytes() == REVIEW_MD.encode()
    assert (root / "commands" / "old.md").exists()  # reported, never deleted
    assert "commands/old.md is not a [[commands]]" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("commands_toml", "message"),
    [
        ('[[commands]]\nname = "Review"\ndescription = "d"\nprompt = "p"\n',
         "[[commands]] #1: name must be lowercase letters, digits and hyphens, got 'Review'"),
        ('[[commands]]\nname = "a"\ndescription = "d"\nprompt = "p"\nmodel = "x"\n',
         "[[commands]] #1: unknown key 'model'"),
        ('[[commands]]\nname = "a"\ndescription = "two\\nlines"\nprompt = "p"\n',
         "[[commands]] #1 (a): description must be a non-empty one-line string"),
        ('[[commands]]\nname = "a"\ndescription = "d"\nprompt = "  "\n',
         "[[commands]] #1 (a): prompt must be a non-empty string"),
        ('[[commands]]\nname = "a"\ndescription = "d"\nprompt = "p"\nallowed_tools = "Bash"\n',
         "[[commands]] #1 (a): allowed_tools must be a list of strings"),
        ('[[commands]]\nname = "a"\ndescription = "d"\nprompt = "p"\ndisable_model_invocation = "yes"\n',
         "[[commands]] #1 (a): disable_model_invocation must be true or false"),
        ('[[commands]]\nname = "a"\ndescription = "d"\nprompt = "p"\n\n[[commands]]\nname = "a"\ndescription = "e"\nprompt = "q"\n',
         "[[commands]] name 'a' appears twice"),
    ],
    ids=["name", "unknown-key", "description", "prompt", "allowed-tools", "model-invocation", "duplicate"],
)
def test_a_malformed_command_is_refused_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commands_toml: str, message: str
) -> None:
    root = checkout_copy(tmp_path, monkeypatch)
    with_commands(root, commands_toml)
    before = tree_digest(root)
    with pytest.raises(SelfImproveError) as raised:
        run_build()
    assert str(raised.value) == f"{root / 'plugin.toml'}: {message}"
    assert tree_digest(root) == before
