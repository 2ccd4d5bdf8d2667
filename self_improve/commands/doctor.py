"""``self-improve doctor``: is everything wired up, and does each hook really answer?

For every harness it finds (Claude Code, Codex, OpenClaw) it prints one line per check, ✓ or ✗,
with the fix for each ✗:
- our hooks are registered (in settings, or through the plugin) for every event we need;
- every registered command's script and its pinned interpreter exist and are executable;
- each hook, fed a sample payload in a scratch project, answers as it should, and how fast;
- the plugin and the settings hooks are not both active (every hook would fire twice);
- a settings install's skill is in ``.claude/skills/self-improve/`` (the plugin brings its own);
- OpenClaw: our skill, and our reminder block in the workspace's AGENTS.md.
Then it lints the project's ``.learnings/``. Exit 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.commands._common import add_json_flag
from self_improve.output import colour, print_json
from self_improve.store.location import find_root
from self_improve.store.projects import forget_project

# (event, matcher) pairs each harness needs; see plugin.toml.
CLAUDE_EVENTS = (
    ("UserPromptSubmit", None), ("PostToolUse", "Bash"), ("PreToolUse", "Bash"), ("PostToolUseFailure", "Bash"), ("SessionStart", None),
)
CODEX_EVENTS = (("UserPromptSubmit", None), ("PostToolUse", "Bash"), ("PreToolUse", "Bash"))
FIXTURE_SESSION = "self-improve-doctor"
SAMPLE_COMMAND = 'python3 -c "import nosuchmod"'
SAMPLE_FINGERPRINT = "deps.module-not-found/python:nosuchmod"
# What each script is fed, and what its answer must hold.
SAMPLE_EVENTS = {"post-bash": ("PostToolUseFailure", "<error-detected>"), "pre-bash": ("PreToolUse", "<known-fix>"),
                 "prompt-submit": ("UserPromptSubmit", "<self-improvement-reminder>"),
                 "session-ready": ("SessionStart", '{"systemMessage": "self-improve: 1 lesson ready, run ')}


@dataclass(frozen=True)
class Check:
    harness: str
    ok: bool
    what: str
    fix: str = ""

    def render(self) -> str:
        mark = colour("✓", "green") if self.ok else colour("✗", "red")
        line = f"{mark} {self.harness}: {self.what}"
        return line if self.ok or not self.fix else f"{line}\n    fix: {self.fix}"


def cli_check() -> Check:
    """Whether the agent's shell runs ``self-improve`` by name, as the hooks' commands are printed
    (where it does not, they print its absolute path instead, so they still run)."""
    from self_improve.paths import CLI_NAME, cli_invocation

    cli = cli_invocation()
    if cli == CLI_NAME:
        return Check("cli", True, f"`{CLI_NAME}` is on PATH")
    link_dir = Path.home() / ".local" / "bin"
    return Check("cli", False, f"`{CLI_NAME}` is not on PATH: the hooks print {cli} in the commands they suggest",
                 f"add {link_dir} (where ./install.sh links it) to PATH in your shell's profile")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check the hooks, the plugin and .learnings/; exit 1 on a problem",
        epilog="examples:\n"
        "  self-improve doctor\n"
        "  self-improve doctor --project ~/src/app --json",
    )
    parser.add_argument("--project", metavar="DIR", help="the project whose settings and .learnings/ to check (default: --root or .)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    project = find_root(explicit=args.project or getattr(args, "root", None))
    home = Path.home()
    from self_improve.harnesses.registry import NAMES

    per_harness: dict[str, Callable[[Path, Path], list[Check]]] = {
        "claude": claude_checks,
        "codex": codex_checks,
        "openclaw": lambda home, project: openclaw_checks(),
    }
    checks = [check for name in NAMES for check in per_harness[name](home, project)]
    checks.append(cli_check())
    checks += learnings_checks(project)
    if args.json:
        print_json([{"harness": c.harness, "ok": c.ok, "check": c.what, "fix": c.fix} for c in checks])
    else:
        for check in checks:
            print(check.render())
        if not checks:
            print("no harness found (no ~/.claude, ~/.codex or OpenClaw workspace) and no .learnings/ here")
    return 0 if all(c.ok for c in checks) else 1


# ---- reading hook registrations ------------------------------------------------------------------


@dataclass(frozen=True)
class FoundHook:
    file: Path
    event: str
    matcher: str | None
    command: str


def registrations(settings: Path) -> list[FoundHook]:
    """Every command hook in a settings / hooks.json file (an unreadable file has none)."""
    try:
        data = json.loads(settings.read_bytes())
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out = []
    for event, groups in hooks.items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for handler in group.get("hooks") or []:
                if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                    out.append(FoundHook(settings, event, matcher, handler["command"]))
    return out


def _ours(registration: FoundHook) -> bool:
    from self_improve.harnesses.installer import is_our_command, load_manifest

    return is_our_command(registration.command, load_manifest().scripts)


def _covers(matcher: str | None, wanted: str | None) -> bool:
    if wanted is None:
        return True
    return matcher in (None, "", "*") or wanted in matcher.split("|")


def _invalid_json(path: Path) -> str | None:
    try:
        json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return f"{path}: {exc}"
    return None


# ---- per harness ---------------------------------------------------------------------------------


def claude_checks(home: Path, project: Path) -> list[Check]:
    files = [home / ".claude/settings.json", project / ".claude/settings.json", project / ".claude/settings.local.json"]
    from self_improve.harnesses.claude.install import plugin_enabled

    plugin_in = [f for f in files if plugin_enabled(f, "self-improve")]
    if not (home / ".claude").is_dir() and not any(f.exists() for f in files[1:]):
        return []
    checks = _hook_checks("claude", files, CLAUDE_EVENTS, plugin_in, "self-improve install --harness claude")
    return checks + _claude_skill_checks(home, project, files, plugin_in)


def _claude_skill_checks(home: Path, project: Path, files: list[Path], plugin_in: list[Path]) -> list[Check]:
    """A settings install's skill (``claude/install.py``): the plugin brings its own, and without
    our hooks in settings there is nothing to check (the hook checks say so)."""
    if plugin_in or not any(_ours(r) for f in files for r in registrations(f)):
        return []
    from self_improve.harnesses.claude.install import skill_dir
    from self_improve.harnesses.installer import Target
    from self_improve.harnesses.openclaw.skill import SkillFolder

    folders = [skill_dir(Target(scope, project, home)) for scope in ("user", "project")]
    ours = [folder for folder in folders if SkillFolder.read(folder, folder).stamp is not None]
    if ours:
        return [Check("claude", True, f"skill installed in {', '.join(map(str, ours))}")]
    where = " or ".join(f"{folder.parent}/" for folder in folders)
    return [Check("claude", False, f"no self-improve skill in {where}: the agent is not told how to log a fix",
                  "self-improve install --harness claude")]


def codex_checks(home: Path, project: Path) -> list[Check]:
    codex_home = Path(os.environ.get("CODEX_HOME") or home / ".codex")
    files = [codex_home / "hooks.json", project / ".codex/hooks.json"]
    if not codex_home.is_dir() and not files[1].exists():
        return []
    checks = _hook_checks("codex", files, CODEX_EVENTS, [], "self-improve install --harness codex")
    return checks + _codex_trust_checks(codex_home, files)


def _codex_trust_checks(codex_home: Path, files: list[Path]) -> list[Check]:
    """Codex runs a hook only after the user reviewed it in /hooks, and skips it silently until
    then: the review stores ``[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`` in its
    config.toml (openai/codex, codex-rs/hooks/src/engine/discovery.rs)."""
    import tomllib

    try:
        config = tomllib.loads((codex_home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        config = {}
    hooks = config.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    state = hooks.get("state")
    if not isinstance(state, dict):
        state = {}
    checks = []
    for path in files:
        if not any(_ours(r) for r in registrations(path)):
            continue
        reviewed = any(key.startswith(f"{path}:") for key in state)
        what = f"hooks in {path} {'were reviewed in /hooks' if reviewed else 'are not trusted yet, so Codex skips them'}"
        fix = "start `codex`, open /hooks and trust the self-improve hooks (again after every reinstall that moved them)"
        checks.append(Check("codex", reviewed, what, fix))
    return checks


def _hook_checks(name: str, files: list[Path], events: tuple[tuple[str, str | None], ...], plugin_in: list[Path], fix: str) -> list[Check]:
    checks = [Check(name, False, f"{problem} (not valid JSON)", "fix the file by hand") for f in files if (problem := _invalid_json(f))]
    ours = [r for f in files for r in registrations(f) if _ours(r)]
    for event, matcher in events:
        found = [r for r in ours if r.event == event and _covers(r.matcher, matcher)]
        where = ", ".join(sorted({str(r.file) for r in found}))
        label = f"{event}{f' ({matcher})' if matcher else ''}"
        if found:
            checks.append(Check(name, True, f"{label} hook registered in {where}"))
        elif plugin_in:
            checks.append(Check(name, True, f"{label} hook registered through the plugin (enabled in {plugin_in[0]})"))
        else:
            checks.append(Check(name, False, f"{label} hook is not registered", fix))
    if ours and plugin_in:
        checks.append(
            Check(name, False, "registered twice: in settings and as the enabled plugin (every hook fires twice)",
                  f"keep one: `self-improve uninstall --harness {name}` or `claude plugin uninstall self-improve`")
        )
    seen: set[str] = set()
    for registration in ours:
        if registration.command not in seen:
            seen.add(registration.command)
            checks.extend(_command_checks(name, registration, fix, seen))
    return checks


def _command_checks(name: str, registration: FoundHook, fix: str, seen: set[str]) -> list[Check]:
    """The script and its pinned interpreter (each path once), then one sample call."""
    from self_improve.harnesses.installer import PORTABLE_SCRIPTS, portable_hook_command

    portable = next((s for s in PORTABLE_SCRIPTS if registration.command == portable_hook_command(s)), None)
    if portable is not None:  # the shared project file's command: it runs whatever is on PATH
        cli = shutil.which("self-improve")
        checks = []
        if "self-improve on PATH" not in seen:
            seen.add("self-improve on PATH")
            what = f"`self-improve` {'is on PATH' if cli else 'is not on PATH: the portable hooks of the project settings do nothing'}"
            checks.append(Check(name, cli is not None, what, "add ~/.local/bin (where ./install.sh links it) to PATH"))
        if cli is not None:
            checks.append(_fire(name, ["/bin/sh", "-c", registration.command], portable, {}))
        return checks
    words = shlex.split(registration.command)
    python = words[0].split("=", 1)[1]
    script = Path(words[1])
    checks, healthy = [], True
    for path, what in ((Path(python), "interpreter"), (script, "hook script")):
        ok = path.is_file() and os.access(path, os.X_OK)
        healthy = healthy and ok
        if str(path) not in seen:
            seen.add(str(path))
            checks.append(Check(name, ok, f"{what} {path} {'is executable' if ok else 'is missing or not executable'}", fix))
    if healthy:
        checks.append(_fire(name, [str(script)], script.name, {"SELF_IMPROVE_PYTHON": python}))
    return checks


def _sample_payloads(project: Path) -> dict[str, dict[str, Any]]:
    common = {"session_id": FIXTURE_SESSION, "cwd": str(project), "transcript_path": "", "permission_mode": "default"}
    return {
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit", "prompt": "run the tests"},
        "SessionStart": {**common, "hook_event_name": "SessionStart", "source": "startup"},
        "PostToolUseFailure": {
            **common,
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": SAMPLE_COMMAND, "description": "run"},
            "error": "Exit code 1\nModuleNotFoundError: No module named 'nosuchmod'",
            "is_interrupt": False,
        },
        "PreToolUse": {
            **common,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": SAMPLE_COMMAND, "description": "run"},
            "tool_use_id": "self-improve-doctor",
        },
        "PostToolUse": {
            **common,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "echo ok", "description": "run"},
            "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False, "isImage": False},
        },
    }


def _fire(name: str, argv: list[str], script: str, env_extra: dict[str, str]) -> Check:
    """Feed the hook a sample payload in a scratch project (never the user's) and time it."""
    from self_improve.store.store import Store

    event, expected = SAMPLE_EVENTS.get(script, SAMPLE_EVENTS["prompt-submit"])
    with tempfile.TemporaryDirectory(prefix="self-improve-doctor-") as scratch:
        project = Path(scratch)
        try:
            store = Store(project)
            store.init()
            if event == "PreToolUse":
                _seed_known_mistake(store)
            elif event == "SessionStart":
                _seed_ready_lesson(store)
            payload = json.dumps(_sample_payloads(project)[event]).encode()
            env = {**os.environ, **env_extra}
            started = time.perf_counter()
            try:
                result = subprocess.run(argv, input=payload, capture_output=True, timeout=10, env=env)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return Check(name, False, f"{script} did not run: {exc}", "reinstall: " + "self-improve install --harness " + name)
            elapsed = (time.perf_counter() - started) * 1000
        finally:
            # The scratch project goes with the folder: no line of it stays in the project
            # registry (nor its provenance ledger), where review would count it as a project.
            forget_project(str(project))
    output = result.stdout.decode("utf-8", "replace")
    ok = result.returncode == 0 and expected in output
    what = f"{script} answered a sample {event} {'correctly' if ok else 'wrongly'} in {elapsed:.0f} ms (exit {result.returncode})"
    return Check(name, ok, what, "see ~/.local/state/self-improve/debug.log, or run it with SELF_IMPROVE_DEBUG=1")


def _seed_known_mistake(store: Any) -> None:
    """The scratch store of a pre-bash check: the sample command failed before, with a fix."""
    from self_improve.detect.intent import Intent
    from self_improve.store import evidence
    from self_improve.store.store import LogRequest

    store.log(LogRequest(kind="error", summary="nosuchmod is not installed", pattern_key=SAMPLE_FINGERPRINT,
                         action="pip install nosuchmod", session=FIXTURE_SESSION))
    intent = Intent.of(SAMPLE_COMMAND)
    record = {"key": intent.key, "fp": SAMPLE_FINGERPRINT, "shape": intent.shape, "program": intent.program, "t": 0}
    evidence.write_index(store.fs, evidence.STATE, {intent.key: record})


def _seed_ready_lesson(store: Any) -> None:
    """The scratch store of a session-ready check: one mistake seen in three sessions, with a fix."""
    from self_improve.store.store import LogRequest

    for n in range(3):
        store.log(LogRequest(kind="error", summary="nosuchmod is not installed", pattern_key=SAMPLE_FINGERPRINT,
                             action="Install nosuchmod with pip before importing it.", session=f"{FIXTURE_SESSION}-{n}"))


def openclaw_checks() -> list[Check]:
    from self_improve.harnesses.openclaw import default_workspace

    workspace = Path(default_workspace())
    if not workspace.is_dir():
        return []
    from self_improve.harnesses.openclaw.block import has_block

    checks = []
    agents = workspace / "AGENTS.md"
    try:
        text = agents.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    fix = "self-improve install --harness openclaw"
    if agents.exists():
        checks.append(Check("openclaw", has_block(text), f"reminder block {'present' if has_block(text) else 'missing'} in {agents}", fix))
    else:
        from self_improve.harnesses.openclaw import pending

        then = ("the next `self-improve watch` or `sweep` pass then adds the reminder block" if pending.is_waiting(workspace)
                else f"then `{fix}`")
        checks.append(Check("openclaw", False, f"reminder block missing: {workspace} has no AGENTS.md yet (OpenClaw seeds it on its first run)",
                            f"run OpenClaw once; {then}"))
    stamp = workspace / "skills" / "self-improvement" / ".self-improve-stamp"
    checks.append(Check("openclaw", stamp.is_file(), f"skill {'installed' if stamp.is_file() else 'missing'} in {stamp.parent}", fix))
    return checks


def learnings_checks(project: Path) -> list[Check]:
    from self_improve.errors import SelfImproveError
    from self_improve.review.problems import drift_problems, store_problems
    from self_improve.store import config as config_mod
    from self_improve.store.store import Store

    store = Store(project)
    if not store.exists():
        return [Check("learnings", True, f"no .learnings/ in {project}: the hooks stay out of this project (`self-improve init` to take part)")]
    try:
        store.check_trusted()
        problems = store_problems(store)
        drift = drift_problems(store)
        _, ignored = config_mod.load_with_report(store.dir)
    except SelfImproveError as exc:
        return [Check("learnings", False, str(exc), "see the README's Trust section, then `self-improve lint`")]
    checks = [
        Check("config", True, f"{store.relative(store.dir)}/config.toml: ignored {line}")
        for line in ignored
    ]
    from self_improve.store.entry import KINDS

    # A deleted file is no lint problem (nothing to parse), but nothing is recorded in it either.
    checks += [
        Check("learnings", False, f"{store.relative(store.dir)}/{file} is missing: nothing can be recorded in it",
              "`self-improve init` creates the missing files (and changes no other)")
        for _, file in KINDS.values() if not store.fs.is_file(file)
    ]
    if not problems and not drift and all(check.ok for check in checks):
        return [*checks, Check("learnings", True, f"lint: no problems in {store.relative(store.dir)}/")]
    checks += [Check("learnings", False, f"lint: {p.render()}", "fix the entry by hand, then `self-improve lint`") for p in problems]
    # Rule drift: review reconciles it (damaged markers excepted, which are for a person).
    fix = "`self-improve review` offers to reconcile it (damaged markers: fix them by hand)"
    return [*checks, *(Check("rules", False, f"lint: {p.render()}", fix) for p in drift)]
