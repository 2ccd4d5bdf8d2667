"""Installing into an OpenClaw workspace: the skill folder and the AGENTS.md block, exact bytes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from self_improve.commands import watch as watch_cmd
from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses import installer as inst
from self_improve.harnesses import registry
from self_improve.harnesses.openclaw.install import OpenClawInstaller
from self_improve.harnesses.openclaw.install import installer as openclaw_installer
from self_improve.harnesses.openclaw.skill import STAMP_NAME, Stamp, skill_sources
from self_improve.harnesses.openclaw.block import MAX_BLOCK_CHARS, install_text, pending_count, refresh_pending_line, refresh_text
from self_improve.review.managed_block import OPENCLAW_FILE_LIMIT
from self_improve.store.store import LogRequest, Store
from tests.helpers import REPO, run_cli, tree_hash

BEGIN = "<!-- self-improve:openclaw:begin (managed by `self-improve install`) -->"
END = "<!-- self-improve:openclaw:end -->"
REMINDER = """\
## Self-improvement
Record lessons with the `self-improve` CLI (see the self-improvement skill), never by editing .learnings/. Log at once when:
- the user corrects you: `self-improve log learning --category correction --action "do X, not Y" "<their words>"`
- a command failed and you found why: `self-improve log error --action "<fix>" "<what failed>"`
- you learn something non-obvious (workaround, convention, tool gotcha): `--category insight`
- the user wants what the tools cannot do: `self-improve log feature "<request>"`
Never log secrets, tokens, personal data or raw transcripts: short summaries in your words.
`self-improve review` promotes proven lessons: behaviour to SOUL.md, workflows and tool gotchas to AGENTS.md.
"""
USER_AGENTS = "# AGENTS.md\n\n## Tools\n- Use exec for shell commands.\n"
SKILL = "skills/self-improvement"


def block(count: int = 0, eol: str = "\n") -> str:
    noun = "error" if count == 1 else "errors"
    body = f"{BEGIN}\n{REMINDER}Pending triage: {count} {noun} recorded since last review\n{END}\n"
    return body.replace("\n", eol)


def workspace(tmp_path: Path, agents: str | bytes | None = USER_AGENTS) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    if agents is not None:
        (ws / "AGENTS.md").write_bytes(agents.encode() if isinstance(agents, str) else agents)
    return ws


def harness(ws: Path, root: Path = REPO) -> OpenClawInstaller:
    found = openclaw_installer(root)
    found.workspace = ws
    found.env = {"OPENCLAW_STATE_DIR": str(ws.parent / "state")}  # never the developer's ~/.openclaw
    return found


def target(ws: Path) -> inst.Target:
    return inst.Target("user", ws.parent, ws.parent / "home")


def install(ws: Path, root: Path = REPO) -> list[inst.FileChange]:
    changes = harness(ws, root).plan_install(target(ws))
    inst.apply(changes)
    return changes


def uninstall(ws: Path) -> list[inst.FileChange]:
    changes = harness(ws).plan_uninstall(target(ws))
    inst.apply(changes)
    return changes


def agents(ws: Path) -> str:
    return (ws / "AGENTS.md").read_bytes().decode()


def checkout_copy(tmp_path: Path) -> Path:
    """A checkout whose skill/ we may change: plugin.toml and skill/ copied."""
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy(REPO / "plugin.toml", root / "plugin.toml")
    shutil.copytree(REPO / "skill", root / "skill")
    return root


# --- the block text ----------------------------------------------------------------------------


def test_the_block_is_short_and_never_points_at_tools_md() -> None:
    assert install_text("") == block()
    assert len(block(99_999)) <= MAX_BLOCK_CHARS
    assert "TOOLS.md" not in block()
    for needed in ("self-improve log", "self-improve review", "secrets", "SOUL.md", "AGENTS.md", "correct"):
        assert needed in block()


# --- install: exact bytes ------------------------------------------------------------------------


def test_install_appends_one_block_and_copies_the_skill(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    assert agents(ws) == USER_AGENTS + "\n" + block()
    skill = ws / SKILL
    sources = skill_sources(REPO / "skill")
    assert {"SKILL.md", "references/formats.md"} <= set(sources)
    for relative, data in sources.items():
        assert (skill / relative).read_bytes() == data
    assert sorted(p.relative_to(skill).as_posix() for p in skill.rglob("*") if p.is_file()) == sorted(
        [*sources, STAMP_NAME]
    )
    stamp = Stamp.parse((skill / STAMP_NAME).read_bytes())
    assert stamp is not None and stamp.version == harness(ws).manifest.version
    assert set(stamp.files) == set(sources)
    assert stamp.created == ("skills", SKILL, f"{SKILL}/references")


def test_install_twice_gives_a_byte_identical_tree_and_writes_nothing(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    first = tree_hash(ws)
    mtime = (ws / "AGENTS.md").stat().st_mtime_ns
    again = install(ws)
    assert not any(change.changed for change in again)
    assert tree_hash(ws) == first
    assert (ws / "AGENTS.md").stat().st_mtime_ns == mtime
    assert [change.summary for change in again] == [
        f"openclaw: skill {ws / SKILL} is up to date (self-improve {harness(ws).manifest.version})",
        f"openclaw: reminder block in {ws / 'AGENTS.md'} is up to date",
    ]


def test_duplicate_blocks_of_ours_collapse_into_one(tmp_path: Path) -> None:
    stale = f"{BEGIN}\nold text\n{END}\n"
    ws = workspace(tmp_path, USER_AGENTS + "\n" + stale + "\n## Mine\nkeep me\n\n" + stale)
    install(ws)
    assert agents(ws) == USER_AGENTS + "\n" + block() + "\n## Mine\nkeep me\n"
    install(ws)
    assert agents(ws).count(END) == 1


def test_crlf_file_without_final_newline_round_trips(tmp_path: Path) -> None:
    original = b"# Agents\r\n\r\n## Tools\r\n- exec"
    ws = workspace(tmp_path, original)
    install(ws)
    assert agents(ws) == original.decode() + "\r\n\r\n" + block(eol="\r\n")[:-2]
    uninstall(ws)
    assert (ws / "AGENTS.md").read_bytes() == original


def test_install_keeps_the_pending_count_the_block_shows(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    assert refresh_pending_line(ws, 4)
    install(ws)
    assert agents(ws) == USER_AGENTS + "\n" + block(4)


# --- refusals: nothing written -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "text"),
    [
        ("AGENTS.md", USER_AGENTS + "\n## Self-Improvement\nLog mistakes to .learnings/.\n"),
        ("AGENTS.md", USER_AGENTS + "\nRemember the self-improvement reminder below.\n"),
        ("SOUL.md", "# Soul\n\n## Self improvement\nLearn.\n"),
        ("SELF_IMPROVEMENT_REMINDER.md", "## Self-Improvement Reminder\n"),
        ("hooks/self-improvement/HOOK.md", "---\nname: self-improvement\n---\n"),
        ("hooks/my-reminder/HOOK.md", "---\nname: self-improvement\nevents: [agent:bootstrap]\n---\n"),
    ],
)
def test_a_reminder_of_the_users_own_is_refused_and_nothing_written(tmp_path: Path, file: str, text: str) -> None:
    ws = workspace(tmp_path)
    (ws / file).parent.mkdir(parents=True, exist_ok=True)
    (ws / file).write_text(text)
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match="self-improve wrote nothing") as refused:
        install(ws)
    assert file.split("/")[-2 if "/" in file else -1] in str(refused.value)
    assert tree_hash(ws) == before


def test_the_reference_hook_in_the_managed_hooks_dir_is_refused(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    hook = tmp_path / "state" / "hooks" / "self-improvement" / "HOOK.md"
    hook.parent.mkdir(parents=True)
    hook.write_text("---\nname: self-improvement\n---\n")
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match="injects its own self-improvement reminder"):
        install(ws)
    assert tree_hash(ws) == before


def test_a_reminder_inside_fenced_code_does_not_occupy(tmp_path: Path) -> None:
    ws = workspace(tmp_path, USER_AGENTS + "\n```\n## Self-improvement\n```\n")
    install(ws)
    assert agents(ws).endswith(block())


def test_a_block_that_would_pass_openclaws_limit_is_refused(tmp_path: Path) -> None:
    room = OPENCLAW_FILE_LIMIT - len("\n" + block())
    fits = "x" * (room - 1) + "\n"
    ws = workspace(tmp_path, fits)
    install(ws)
    assert len(agents(ws)) == OPENCLAW_FILE_LIMIT  # exactly at the limit is fine
    uninstall(ws)

    too_big = "é" * room + "\n"  # one character over; é is one UTF-16 unit (two bytes in UTF-8)
    (ws / "AGENTS.md").write_text(too_big)
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match=r"20,001 characters .* over OpenClaw's 20,000-character limit"):
        install(ws)
    assert tree_hash(ws) == before  # the skill was not copied either


def test_emoji_count_twice_as_openclaw_counts_them(tmp_path: Path) -> None:
    room = OPENCLAW_FILE_LIMIT - len("\n" + block())
    ws = workspace(tmp_path, "🙂" * (room // 2) + "x" * (room % 2) + "\n")  # one UTF-16 unit over
    with pytest.raises(SelfImproveError, match="limit"):
        install(ws)
    assert not (ws / "skills").exists()


def test_a_foreign_skill_in_our_folder_is_refused(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    theirs = ws / SKILL / "SKILL.md"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("---\nname: self-improvement\ndescription: theirs\n---\n")
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match=f"holds a skill self-improve did not install .no {STAMP_NAME}"):
        install(ws)
    assert tree_hash(ws) == before
    # Uninstall leaves it alone too, and still takes nothing else.
    (change, _) = uninstall(ws)
    assert not change.changed and "self-improve did not install it" in change.summary
    assert theirs.is_file()


def test_a_stamp_that_is_not_ours_is_foreign(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (ws / SKILL).mkdir(parents=True)
    (ws / SKILL / STAMP_NAME).write_text('{"installed_by": "someone-else"}\n')
    with pytest.raises(SelfImproveError, match="its .self-improve-stamp is not ours"):
        install(ws)


def test_install_refuses_to_overwrite_a_file_the_user_edited(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    (ws / SKILL / "SKILL.md").write_text("my own notes\n")
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match="SKILL.md in .* changed since self-improve installed it"):
        install(ws)
    assert tree_hash(ws) == before


def test_damaged_markers_are_refused(tmp_path: Path) -> None:
    ws = workspace(tmp_path, USER_AGENTS + f"\n{BEGIN}\nno end\n")
    before = tree_hash(ws)
    with pytest.raises(SelfImproveError, match="damaged self-improve:openclaw markers"):
        install(ws)
    assert tree_hash(ws) == before


# --- update ---------------------------------------------------------------------------------------


def test_a_changed_skill_is_updated_file_by_file(tmp_path: Path) -> None:
    root = checkout_copy(tmp_path)
    ws = workspace(tmp_path)
    install(ws, root)
    (ws / SKILL / "mine.md").write_text("the user's own file\n")
    (root / "skill" / "SKILL.md").write_text("---\nname: self-improvement\ndescription: v2\n---\n")
    (root / "skill" / "references" / "formats.md").unlink()
    (root / "skill" / "references" / "zz-new.md").write_text("# New\n")
    block_bytes = agents(ws)

    (skill_change, block_change) = install(ws, root)
    assert skill_change.summary == (
        f"openclaw: update the skill in {ws / SKILL} (SKILL.md, references/formats.md, references/zz-new.md)"
    )
    assert not block_change.changed and agents(ws) == block_bytes
    assert (ws / SKILL / "SKILL.md").read_text() == "---\nname: self-improvement\ndescription: v2\n---\n"
    assert (ws / SKILL / "references" / "zz-new.md").read_text() == "# New\n"
    assert not (ws / SKILL / "references" / "formats.md").exists()
    assert (ws / SKILL / "mine.md").read_text() == "the user's own file\n"
    stamp = Stamp.parse((ws / SKILL / STAMP_NAME).read_bytes())
    assert stamp is not None and set(stamp.files) == set(skill_sources(root / "skill"))
    assert "references/zz-new.md" in stamp.files and "references/formats.md" not in stamp.files
    assert not any(change.changed for change in install(ws, root))


def test_a_deleted_file_of_ours_comes_back(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    tree = tree_hash(ws)
    (ws / SKILL / "references" / "formats.md").unlink()
    install(ws)
    assert tree_hash(ws) == tree


# --- uninstall --------------------------------------------------------------------------------------


RULES_BLOCK = "<!-- self-improve:begin x -->\n## Learned rules\n- a <!-- LRN-20261129-a7b -->\n<!-- self-improve:end -->\n"


@pytest.mark.parametrize("original", [USER_AGENTS, USER_AGENTS.rstrip("\n"), "", "\n", RULES_BLOCK])
def test_uninstall_gives_back_the_exact_tree(tmp_path: Path, original: str) -> None:
    ws = workspace(tmp_path, original)
    (ws / "SOUL.md").write_text("# Soul\n")
    (ws / "AGENTS.md").chmod(0o600)
    before = tree_hash(ws)
    install(ws)
    assert tree_hash(ws) != before
    uninstall(ws)
    assert tree_hash(ws) == before
    assert (ws / "AGENTS.md").stat().st_mode & 0o777 == 0o600
    assert not (ws / "skills").exists()


def test_an_empty_agents_md_stays_an_empty_file_after_uninstall(tmp_path: Path) -> None:
    ws = workspace(tmp_path, "")
    install(ws)
    assert agents(ws) == block()
    (_, block_change) = uninstall(ws)
    assert block_change.summary.endswith("(it held nothing else: it stays, empty)")
    assert (ws / "AGENTS.md").read_bytes() == b""


def test_a_workspace_without_agents_md_gets_the_skill_and_waits_for_the_block(tmp_path: Path) -> None:
    # OpenClaw seeds its own AGENTS.md template into a workspace that has none (verified on
    # 2026.9.6): a file we created would keep that template out. The block waits for it
    # (tests/harnesses/test_openclaw_first_run.py).
    ws = workspace(tmp_path, None)
    (ws / "SOUL.md").write_text("# Soul\n")
    (skill, waiting) = install(ws)
    assert skill.changed and (ws / SKILL / STAMP_NAME).is_file()
    assert not waiting.changed and waiting.summary.startswith(f"openclaw: {ws}/AGENTS.md does not exist yet: OpenClaw seeds it")
    assert not (ws / "AGENTS.md").exists()
    assert harness(ws).status(target(ws))[1] == (
        f"✗ openclaw: {ws} has no AGENTS.md yet (run OpenClaw once: it seeds one; "
        "the next `self-improve watch` or `sweep` pass then adds the reminder block)"
    )
    uninstall(ws)
    assert not (ws / "skills").exists()


def test_uninstall_keeps_folders_that_existed_and_files_the_user_added(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    other = ws / "skills" / "other" / "SKILL.md"
    other.parent.mkdir(parents=True)
    other.write_text("---\nname: other\n---\n")
    install(ws)
    (ws / SKILL / "notes.md").write_text("mine\n")
    (skill_change, _) = uninstall(ws)
    assert skill_change.summary.endswith("(kept 1 file(s) self-improve did not install)")
    assert sorted(p.relative_to(ws).as_posix() for p in ws.rglob("*")) == [
        "AGENTS.md", "skills", "skills/other", "skills/other/SKILL.md", SKILL, f"{SKILL}/notes.md"
    ]
    assert agents(ws) == USER_AGENTS


def test_uninstall_leaves_an_edited_skill_in_place_but_removes_the_block(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    install(ws)
    (ws / SKILL / "SKILL.md").write_text("edited\n")
    (skill_change, block_change) = uninstall(ws)
    assert not skill_change.changed and "SKILL.md changed since install" in skill_change.summary
    assert (ws / SKILL / "SKILL.md").read_text() == "edited\n" and (ws / SKILL / STAMP_NAME).is_file()
    assert block_change.changed and agents(ws) == USER_AGENTS


def test_uninstall_with_nothing_installed_changes_nothing(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    before = tree_hash(ws)
    changes = uninstall(ws)
    assert not any(change.changed for change in changes)
    assert tree_hash(ws) == before


# --- the pending line --------------------------------------------------------------------------------


def test_refresh_changes_only_the_pending_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path, USER_AGENTS)
    install(ws)
    (ws / "AGENTS.md").write_text(agents(ws) + "\n## After\nuser text\n")
    before = agents(ws)
    assert refresh_pending_line(ws, 1)
    after = agents(ws)
    assert after == before.replace(
        "Pending triage: 0 errors recorded since last review", "Pending triage: 1 error recorded since last review"
    )
    assert not refresh_pending_line(ws, 1)  # same count: nothing written
    assert agents(ws) == after


def test_refresh_without_a_block_writes_nothing(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert not refresh_pending_line(ws, 3)
    assert agents(ws) == USER_AGENTS
    (ws / "AGENTS.md").unlink()
    assert not refresh_pending_line(ws, 3)
    assert not (ws / "AGENTS.md").exists()


def test_refresh_never_pushes_the_file_past_the_limit() -> None:
    at_limit = "x" * (OPENCLAW_FILE_LIMIT - len("\n" + block(9)) - 1) + "\n"
    text = install_text(at_limit)
    text = refresh_text(text, 9)
    assert len(text) == OPENCLAW_FILE_LIMIT
    assert refresh_text(text, 10) == text  # one more digit would cross the limit


def _project_with_errors(root: Path, count: int) -> Path:
    root.mkdir()
    store = Store(root)
    store.init()
    for number in range(count):
        store.log(LogRequest(kind="error", summary=f"failure number {number} of {root.name}", pattern_key=f"x.k{number}"))
    return root


def test_pending_count_sums_the_projects(tmp_path: Path) -> None:
    first = _project_with_errors(tmp_path / "a", 2)
    second = _project_with_errors(tmp_path / "b", 3)
    assert pending_count([first, second]) == 5
    assert pending_count([first, first]) == 2
    assert pending_count([tmp_path / "no-store"]) == 0


def test_the_watcher_refreshes_the_line_over_every_project_it_saw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace(tmp_path)
    install(ws)
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(ws))
    first = _project_with_errors(tmp_path / "a", 2)
    second = _project_with_errors(tmp_path / "b", 1)
    watch_cmd.on_recorded(frozenset({first}))
    assert "Pending triage: 2 errors recorded since last review" in agents(ws)
    seen = watch_cmd._ProjectsSeen()
    seen(frozenset({first}))
    seen(frozenset({second}))  # a pass that touched only the second project
    assert "Pending triage: 3 errors recorded since last review" in agents(ws)


def test_a_damaged_block_warns_and_never_raises_into_the_watcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(tmp_path, f"{BEGIN}\nno end\n")
    monkeypatch.setenv("OPENCLAW_WORKSPACE_DIR", str(ws))
    watch_cmd.on_recorded(frozenset({_project_with_errors(tmp_path / "a", 1)}))
    assert "not refreshed" in capsys.readouterr().err
    assert agents(ws) == f"{BEGIN}\nno end\n"


# --- where, scopes, and the CLI ---------------------------------------------------------------------------


def test_the_workspace_defaults_to_the_env_then_home(tmp_path: Path) -> None:
    found = openclaw_installer()
    found.env = {}
    assert found.workspace_for(inst.Target("user", tmp_path, tmp_path / "home")) == tmp_path / "home/.openclaw/workspace"
    found.env = {"OPENCLAW_WORKSPACE_DIR": str(tmp_path / "w")}
    assert found.workspace_for(inst.Target("user", tmp_path, tmp_path / "home")) == tmp_path / "w"
    with pytest.raises(UsageError, match="one workspace per user"):
        found.scope_for("project", False)
    assert found.scope_for(None, True) == "user"


def test_the_registry_offers_openclaw() -> None:
    (harness_,) = registry.select("openclaw")
    assert isinstance(harness_, OpenClawInstaller)
    assert isinstance(registry.get("openclaw").installer(), OpenClawInstaller)


def test_cli_dry_run_install_status_uninstall(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    env = {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    before = tree_hash(ws)

    dry = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert f"+++ b{ws / 'AGENTS.md'}\n" in dry.stdout and f"+{END}\n" in dry.stdout
    assert f"+++ b{ws / SKILL / 'SKILL.md'}\n" in dry.stdout
    assert dry.stdout.endswith("(dry run: nothing was written)\n")
    assert tree_hash(ws) == before

    status = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), "--status", env=env)
    assert status.stdout.splitlines() == [
        f"✗ openclaw: skill {ws / SKILL}: not installed",
        f"✗ openclaw: no reminder block in {ws / 'AGENTS.md'}",
    ]

    done = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"openclaw: install the skill into {ws / SKILL} ({len(skill_sources(REPO / 'skill'))} files)",
        f"openclaw: add the reminder block to {ws / 'AGENTS.md'}",
    ]
    status = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), "--status", env=env)
    size = len(USER_AGENTS + "\n" + block())
    assert status.stdout.splitlines() == [
        f"✓ openclaw: skill {ws / SKILL} (self-improve {harness(ws).manifest.version})",
        (
            f"✓ openclaw: reminder block in {ws / 'AGENTS.md'} ({size:,}/20,000 characters; "
            "Pending triage: 0 errors recorded since last review)"
        ),
    ]

    gone = run_cli("uninstall", "--harness", "openclaw", "--workspace", str(ws), env=env)
    assert gone.stdout.splitlines() == [
        f"openclaw: remove the skill from {ws / SKILL}",
        f"openclaw: remove the reminder block from {ws / 'AGENTS.md'}",
    ]
    assert tree_hash(ws) == before and not (ws / "skills").exists()


def test_cli_refusal_is_one_line_and_exit_1(tmp_path: Path) -> None:
    ws = workspace(tmp_path, USER_AGENTS + "\n## Self-improvement\nmine\n")
    env = {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    before = tree_hash(ws)
    done = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), env=env)
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "self-improve wrote nothing" in done.stderr
    assert tree_hash(ws) == before
    status = run_cli("install", "--harness", "openclaw", "--workspace", str(ws), "--status", env=env)
    assert status.stdout.splitlines()[-1] == (
        f"✗ openclaw: install would refuse: {ws / 'AGENTS.md'}: line 6 already holds a self-improvement section "
        "outside the self-improve:openclaw markers: '## Self-improvement'; remove it to use ours, or keep yours "
        "and skip --harness openclaw"
    )


def test_cli_workspace_errors_and_a_missing_default_workspace_is_skipped(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "OPENCLAW_WORKSPACE_DIR": str(tmp_path / "nowhere")}
    skipped = run_cli("install", "--harness", "openclaw", env=env)
    assert skipped.returncode == 0, skipped.stderr
    assert skipped.stdout.startswith(f"openclaw: skipped: no workspace at {tmp_path / 'nowhere'}")
    assert not (tmp_path / "nowhere").exists()

    missing = run_cli("install", "--harness", "openclaw", "--workspace", str(tmp_path / "nowhere"), env=env)
    assert missing.returncode == 1 and "is not a directory" in missing.stderr
    wrong = run_cli("install", "--harness", "claude", "--workspace", str(tmp_path), env=env)
    assert wrong.returncode == 2 and "--workspace applies to --harness openclaw only" in wrong.stderr
