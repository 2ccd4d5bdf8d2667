"""Installing our hooks into Claude Code settings: every byte of the user's file is respected."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.commands import install as install_cmd
from self_improve.commands import uninstall as uninstall_cmd
from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses import installer as inst
from self_improve.harnesses.claude.install import ClaudeInstaller
from self_improve.harnesses.claude.install import installer as claude_installer
from tests.helpers import REPO

PY = "/opt/python/bin/python3"
HOOKS = REPO / "hooks"
ORIGINAL = """{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write"
          }
        ]
      }
    ]
  }
}
"""


def cmd(script: str, python: str = PY, root: Path = REPO) -> str:
    return f"SELF_IMPROVE_PYTHON={python} {root}/hooks/{script}"


def ours(script: str, python: str = PY, root: Path = REPO, matcher: str | None = "Bash") -> dict[str, Any]:
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": cmd(script, python, root), "timeout": 30}]
    return group


def harness(python: str = PY) -> ClaudeInstaller:
    return claude_installer(REPO, python=python)


def target(home: Path, scope: str = "user", project: Path | None = None) -> inst.Target:
    return inst.Target(scope, project or home / "project", home)


def install(home: Path, python: str = PY, **kw: Any) -> inst.FileChange:
    (change, skill) = harness(python).plan_install(target(home, **kw))  # the settings file, then the skill
    inst.apply([change, skill])
    return change


def uninstall(home: Path, **kw: Any) -> inst.FileChange:
    (change, skill) = harness().plan_uninstall(target(home, **kw))
    inst.apply([change, skill])
    return change


def settings_file(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


# --- exact outputs -------------------------------------------------------------------------


def test_install_into_an_existing_file_appends_our_groups_in_its_style(tmp_path: Path) -> None:
    write(settings_file(tmp_path), ORIGINAL)
    change = install(tmp_path)
    text = settings_file(tmp_path).read_text()
    expected = json.loads(ORIGINAL)
    expected["hooks"]["PostToolUse"].append(ours("post-bash"))
    expected["hooks"]["PreToolUse"] = [ours("pre-bash")]
    expected["hooks"]["PostToolUseFailure"] = [ours("post-bash")]
    expected["hooks"]["SessionStart"] = [ours("session-ready", matcher=None)]
    expected["hooks"]["UserPromptSubmit"] = [ours("prompt-submit", matcher=None)]
    assert json.loads(text) == expected
    # Untouched lines stay as written (the one-line permissions object, the other hook).
    assert text.startswith(ORIGINAL[: ORIGINAL.index("      }\n    ]")])
    assert '  "permissions": {"allow": ["Bash(ls:*)"]},\n' in text
    assert f'            "command": "{cmd("post-bash")}",\n            "timeout": 30\n' in text
    assert change.backup is not None and change.backup.read_text() == ORIGINAL


def test_install_into_no_file_creates_it_and_uninstall_deletes_it(tmp_path: Path) -> None:
    install(tmp_path)
    path = settings_file(tmp_path)
    assert path.read_text() == json.dumps(
        {
            "hooks": {
                "PostToolUse": [ours("post-bash")],
                "PostToolUseFailure": [ours("post-bash")],
                "PreToolUse": [ours("pre-bash")],
                "SessionStart": [ours("session-ready", matcher=None)],
                "UserPromptSubmit": [ours("prompt-submit", matcher=None)],
            }
        },
        indent=2,
    ) + "\n"
    assert not inst.backup_path(path).exists()  # nothing to back up
    change = uninstall(tmp_path)
    assert change.after is None and not path.exists()


def test_uninstall_keeps_what_the_user_added_to_a_file_we_created(tmp_path: Path) -> None:
    install(tmp_path)
    path = settings_file(tmp_path)
    doc = json.loads(path.read_text())
    doc["model"] = "sonnet"
    path.write_text(json.dumps(doc, indent=2) + "\n")
    uninstall(tmp_path)
    assert path.read_text() == '{\n  "model": "sonnet"\n}\n'


def test_install_twice_is_byte_identical_and_writes_nothing(tmp_path: Path) -> None:
    write(settings_file(tmp_path), ORIGINAL)
    install(tmp_path)
    first = settings_file(tmp_path).read_bytes()
    stat = settings_file(tmp_path).stat()
    second = install(tmp_path)
    assert not second.changed
    assert settings_file(tmp_path).read_bytes() == first
    assert settings_file(tmp_path).stat().st_mtime_ns == stat.st_mtime_ns


def test_reinstall_from_another_interpreter_or_checkout_replaces_ours(tmp_path: Path) -> None:
    write(settings_file(tmp_path), ORIGINAL)
    # An install from an older checkout somewhere else, with another interpreter.
    (old, _) = ClaudeInstaller(harness().manifest, REPO, python="/old/py").plan_install(target(tmp_path))
    old.apply()
    text = settings_file(tmp_path).read_text().replace(str(REPO), "/old/checkout")
    settings_file(tmp_path).write_text(text)
    install(tmp_path)
    value = json.loads(settings_file(tmp_path).read_text())
    assert value["hooks"]["PostToolUse"] == [json.loads(ORIGINAL)["hooks"]["PostToolUse"][0], ours("post-bash")]
    assert "/old/" not in settings_file(tmp_path).read_text()
    uninstall(tmp_path)
    assert settings_file(tmp_path).read_text() == ORIGINAL


def test_someone_elses_hooks_are_never_touched(tmp_path: Path) -> None:
    theirs = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{REPO}/hooks/post-bash"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "SELF_IMPROVE_PYTHON=x /a/b/other"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "SELF_IMPROVE_PYTHON=x /a/hooks/post-bash --flag"}]},
            ]
        }
    }
    original = json.dumps(theirs, indent=4)
    write(settings_file(tmp_path), original)
    install(tmp_path)
    assert len(json.loads(settings_file(tmp_path).read_text())["hooks"]["PostToolUse"]) == 4
    uninstall(tmp_path)
    assert settings_file(tmp_path).read_text() == original


def test_our_handler_inside_a_users_group_is_removed_alone(tmp_path: Path) -> None:
    mixed = {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}, {"type": "command", "command": cmd("post-bash")}]}
            ]
        }
    }
    write(settings_file(tmp_path), json.dumps(mixed, indent=2))
    uninstall(tmp_path)
    value = json.loads(settings_file(tmp_path).read_text())
    assert value == {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}]}}


def test_empty_containers_the_user_had_come_back_exactly(tmp_path: Path) -> None:
    original = '{\n  "hooks": {\n    "PostToolUse": [ ],\n    "Stop": []\n  },\n  "env": {}\n}\n'
    write(settings_file(tmp_path), original)
    install(tmp_path)
    uninstall(tmp_path)
    assert settings_file(tmp_path).read_text() == original
    assert not inst.backup_path(settings_file(tmp_path)).exists()  # fully restored: dropped


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"hooks": {"PostToolUse": [}', "not valid JSON (unexpected character '}' at line 1 column 28)"),
        ("// comment\n{}", "not valid JSON"),
        ("", "not valid JSON (empty document"),
        ("[1, 2]", "the top level is not a JSON object"),
        ('{"hooks": []}', '"hooks" is not an object'),
        ('{"hooks": {"PostToolUse": {}}}', '"hooks"."PostToolUse" is not a list'),
        ('{"hooks": {}, "hooks": {}}', "duplicate key 'hooks'"),
        (b'{"a": "\xff"}', "not UTF-8"),
    ],
)
def test_refusals_leave_the_file_untouched(tmp_path: Path, content: str | bytes, message: str) -> None:
    write(settings_file(tmp_path), content)
    before = settings_file(tmp_path).read_bytes()
    with pytest.raises(SelfImproveError) as info:
        harness().plan_install(target(tmp_path))
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert settings_file(tmp_path).read_bytes() == before
    assert not inst.backup_path(settings_file(tmp_path)).exists()


def test_a_symlinked_settings_file_is_written_through(tmp_path: Path) -> None:
    managed = tmp_path / "dotfiles" / "claude-settings.json"
    write(managed, ORIGINAL)
    settings_file(tmp_path).parent.mkdir(parents=True)
    settings_file(tmp_path).symlink_to(managed)
    install(tmp_path)
    assert settings_file(tmp_path).is_symlink() and "post-bash" in managed.read_text()
    uninstall(tmp_path)
    assert settings_file(tmp_path).is_symlink() and managed.read_text() == ORIGINAL


def test_uninstall_from_an_odd_file_finds_nothing_of_ours(tmp_path: Path) -> None:
    write(settings_file(tmp_path), '{"hooks": []}')
    change = uninstall(tmp_path)
    assert not change.changed and "nothing of ours" in change.summary
    write(settings_file(tmp_path), "{oops")
    with pytest.raises(SelfImproveError, match="not valid JSON"):
        uninstall(tmp_path)


def test_backup_is_written_once(tmp_path: Path) -> None:
    write(settings_file(tmp_path), ORIGINAL)
    install(tmp_path)
    backup = inst.backup_path(settings_file(tmp_path))
    assert backup.read_text() == ORIGINAL
    install(tmp_path, python="/another/python")  # a second change: the backup stays the original
    assert backup.read_text() == ORIGINAL


def test_scopes_pick_their_files(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    h = harness()
    assert h.settings_path(target(tmp_path, "user", project)) == tmp_path / ".claude" / "settings.json"
    assert h.settings_path(target(tmp_path, "project", project)) == project / ".claude" / "settings.json"
    assert h.settings_path(target(tmp_path, "local", project)) == project / ".claude" / "settings.local.json"
    assert h.scope_for(None, project_given=False) == "user"
    assert h.scope_for(None, project_given=True) == "local"
    with pytest.raises(UsageError):
        h.scope_for("global", project_given=False)


def test_status_and_plugin_note(tmp_path: Path) -> None:
    h = harness()
    assert "not installed" in h.status(target(tmp_path))[0]
    install(tmp_path)
    assert h.status(target(tmp_path)) == [
        f"claude (user): installed in {settings_file(tmp_path)}",
        f"claude (user): skill installed in {tmp_path}/.claude/skills/self-improve (self-improve {h.manifest.version})",
    ]
    assert h.notes(target(tmp_path)) == []
    value = json.loads(settings_file(tmp_path).read_text())
    value["enabledPlugins"] = {"self-improve@self-improve": True}
    settings_file(tmp_path).write_text(json.dumps(value))
    assert "both run" in h.notes(target(tmp_path))[0]


def test_command_marker() -> None:
    scripts = {"post-bash", "prompt-submit"}
    assert inst.is_our_command(inst.hook_command(Path("/a b/hooks/post-bash"), "/p y/python"), scripts)
    assert inst.hook_command(Path("/a b/hooks/post-bash"), "/py") == "SELF_IMPROVE_PYTHON=/py '/a b/hooks/post-bash'"
    for other in ["/x/hooks/post-bash", "SELF_IMPROVE_PYTHON=/p /x/hooks/other", "SELF_IMPROVE_PYTHON=/p /x/post-bash",
                  "SELF_IMPROVE_PYTHON=/p /x/hooks/post-bash; rm -rf /", "SELF_IMPROVE_PYTHON='", None, 3]:
        assert not inst.is_our_command(other, scripts), other


# --- the CLI verbs -------------------------------------------------------------------------


def run_verb(module: Any, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root")
    sub = parser.add_subparsers(dest="command", required=True)
    module.register(sub)
    name = "install" if module is install_cmd else "uninstall"
    args = parser.parse_args([name, *argv])
    return int(args.func(args))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(settings_file(home), ORIGINAL)
    assert run_verb(install_cmd, "--harness", "all", "--dry-run") == 0
    out = capsys.readouterr().out
    # git-style headers (changes.unified_diff): a/ and b/ before the absolute path
    assert f"--- a{settings_file(home)}\n+++ b{settings_file(home)}\n" in out
    assert f"--- /dev/null\n+++ b{home}/.codex/hooks.json\n" in out
    assert '+        "PostToolUseFailure": [' not in out and '+    "PostToolUseFailure": [\n' in out
    assert out.endswith("(dry run: nothing was written)\n")
    assert settings_file(home).read_text() == ORIGINAL
    assert sorted(p.name for p in home.rglob("*") if p.is_file()) == ["settings.json"]


def test_cli_install_all_then_uninstall_all(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(settings_file(home), ORIGINAL)
    assert run_verb(install_cmd, "--harness", "all") == 0
    out = capsys.readouterr().out
    assert f"claude: update {settings_file(home)} (backup of the original: " in out
    assert f"codex: create {home}/.codex/hooks.json" in out and "note: codex:" in out
    assert run_verb(install_cmd, "--harness", "all") == 0
    assert "already up to date" in capsys.readouterr().out
    assert run_verb(install_cmd, "--status", "--harness", "claude,codex") == 0
    assert capsys.readouterr().out.count(": installed in ") == 2
    assert run_verb(uninstall_cmd, "--harness", "all") == 0
    assert settings_file(home).read_text() == ORIGINAL
    assert not (home / ".codex" / "hooks.json").exists()
    assert not inst.backup_path(settings_file(home)).exists()


def test_cli_refusal_writes_nothing_anywhere(home: Path) -> None:
    write(settings_file(home), "{oops")
    with pytest.raises(SelfImproveError):
        run_verb(install_cmd, "--harness", "codex,claude")
    assert not (home / ".codex").exists()  # codex planned fine, but nothing is written


def test_cli_project_scope_default_is_local(home: Path) -> None:
    project = home / "proj"
    project.mkdir()
    assert run_verb(install_cmd, "--project", str(project)) == 0
    assert (project / ".claude" / "settings.local.json").is_file()
    assert not settings_file(home).exists()
    with pytest.raises(SelfImproveError):
        run_verb(install_cmd, "--project", str(home / "missing"))


def test_cli_harness_none_and_unknown(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_verb(install_cmd, "--harness", "none") == 0
    assert "nothing to do" in capsys.readouterr().out
    with pytest.raises(UsageError):
        run_verb(install_cmd, "--harness", "vim")


def test_all_is_every_harness_of_the_registry_in_its_order() -> None:
    from self_improve.harnesses import registry

    names = [h.name for h in registry.select("all")]
    assert names == list(registry.NAMES) == ["claude", "codex", "openclaw"]


# --- hypothesis: arbitrary user settings -----------------------------------------------------

_text = st.text(max_size=10)
_scalar = st.none() | st.booleans() | st.integers(-1000, 1000) | _text
_json = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(_text, c, max_size=3), max_leaves=10)
_handler = st.fixed_dictionaries({"type": st.just("command"), "command": _text | st.just(f"{HOOKS}/post-bash")})
_group = st.fixed_dictionaries({"hooks": st.lists(_handler, max_size=2)}, optional={"matcher": st.sampled_from(["Bash", "Edit", "*", ""]) | _text})
_events = st.dictionaries(
    st.sampled_from(["PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart"]) | _text,
    st.lists(_group, max_size=3),
    max_size=4,
)


@st.composite
def user_settings(draw: st.DrawFn) -> bytes:
    value: dict[str, Any] = draw(st.dictionaries(_text.filter(lambda k: k != "hooks"), _json, max_size=4))
    if draw(st.booleans()):
        keys = list(value)
        position = draw(st.integers(0, len(keys)))
        items = list(value.items())
        items.insert(position, ("hooks", draw(_events)))
        value = dict(items)
    indent = draw(st.sampled_from([None, 2, 4, "\t", 1]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": ")]))
    text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    text += draw(st.sampled_from(["", "\n", "\r\n"]))
    data = text.encode("utf-8")
    return (b"\xef\xbb\xbf" + data) if draw(st.integers(0, 9)) == 0 else data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_settings())
def test_install_then_uninstall_gives_back_every_byte(original: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        path = settings_file(home)
        write(path, original)
        install(home)
        installed = path.read_bytes()
        value = json.loads(installed.decode("utf-8-sig"))
        before = json.loads(original.decode("utf-8-sig"))
        # Every key of the user is kept with its value; only hooks grew.
        assert {k: v for k, v in value.items() if k != "hooks"} == {k: v for k, v in before.items() if k != "hooks"}
        for event, groups in before.get("hooks", {}).items():
            assert value["hooks"][event][: len(groups)] == groups
        assert value["hooks"]["PostToolUseFailure"][-1] == ours("post-bash")
        # Idempotent: a second install changes nothing.
        assert not install(home).changed
        assert path.read_bytes() == installed
        assert inst.backup_path(path).read_bytes() == original
        uninstall(home)
        assert path.read_bytes() == original
        assert not inst.backup_path(path).exists()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(user_settings())
def test_dry_run_never_writes(original: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        write(settings_file(home), original)
        (change, _) = harness().plan_install(target(home))
        assert change.diff().startswith(f"--- a{settings_file(home)}")
        assert settings_file(home).read_bytes() == original
        assert os.listdir(settings_file(home).parent) == ["settings.json"]
