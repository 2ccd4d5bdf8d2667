"""Claude Code: install our hooks into a settings file, or ship them as a plugin.

Two ways in, same hooks:

1. **Settings install** (this module, ``self-improve install --harness claude``): merges our
   registrations into ``~/.claude/settings.json`` (user), ``<project>/.claude/settings.json``
   (project) or ``<project>/.claude/settings.local.json`` (local), pointing at this checkout's
   ``hooks/`` by absolute path with the interpreter pinned (see ``installer.hook_command``);
   except the shared project file, which gets ``installer.portable_hook_command``.
   The settings install also copies our skill (``skill/``: SKILL.md and references/) to
   ``~/.claude/skills/self-improve/`` (user) or ``<project>/.claude/skills/self-improve/``
   (project, local), where Claude Code loads skills, by the OpenClaw skill's code
   (``openclaw/skill.py``): stamped as ours, never written over a folder that is not ours (that
   folder is skipped, with one line, and the hooks still go in), and on uninstall only our
   stamped files go, with the folders we created.
2. **Plugin** (``build-plugin`` renders ``.claude-plugin/`` and ``hooks/hooks.json``): the hooks
   run as ``"${CLAUDE_PLUGIN_ROOT}/hooks/<script>"``, and the plugin loads the skill itself.

Verified on Claude Code 2.1.328 (npm ``@anthropic-ai/claude-code``), one ``claude -p`` turn per
probe against a loopback mock, a plugin whose hooks dumped their environment:

- ``CLAUDE_PLUGIN_DATA`` exists and is set in the environment of every plugin hook: for
  ``--plugin-dir`` it was ``~/.claude/plugins/data/<plugin>-inline``, after a marketplace install
  ``~/.claude/plugins/data/<plugin>-<marketplace>`` (the binary creates the folder). It is NOT set
  in the Bash tool's environment, so ``bin/self-improve`` looks for that folder itself.
- A plugin's ``bin/`` is appended (last) to the Bash tool's ``PATH``: a ``bin/probe-tool`` ran
  by bare name, and ``PATH`` ended with ``<plugin root>/bin``. (The binary drops a bin path that
  holds shell metacharacters: ``Dropping plugin bin path with shell metacharacters``.)
- Skills: a bare ``skill/SKILL.md`` at the plugin root is NOT loaded. Both
  ``skills/<name>/SKILL.md`` and a plugin.json ``"skills": ["./skill"]`` entry load it, listed as
  ``<plugin>:<frontmatter name>``. We use the manifest entry: no copy of ``skill/`` to keep in sync.
- ``claude plugin validate`` warns about an unquoted ``${CLAUDE_PLUGIN_ROOT}`` in a hook command
  ("If the expanded path contains a space the command can split"), so we quote it.
- ``claude plugin marketplace add <dir>`` + ``claude plugin install <plugin>@<marketplace>``
  copies the folder into ``~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/`` (``.git``
  left out, a non-ignored ``.venv`` copied). For a *directory* marketplace the hooks still ran
  with ``CLAUDE_PLUGIN_ROOT`` = the source folder; a git marketplace has no ``.venv`` at all,
  hence the SessionStart bootstrap (``hooks/session-start``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.claude import NAME
from self_improve.harnesses.hooks_file import HooksFileInstaller
from self_improve.harnesses.installer import FileChange, Target, checkout_root, expand, load_manifest, unchanged
from self_improve.harnesses.openclaw.skill import (
    INSTALLED_BY,
    NOTHING_WRITTEN,
    SkillFolder,
    plan_skill_install,
    plan_skill_uninstall,
    skill_sources,
    skill_state,
)
from self_improve.review.installed import hook_commands, plugin_enabled


@dataclass
class ClaudeInstaller(HooksFileInstaller):
    name: str = NAME
    scopes: tuple[str, ...] = ("user", "project", "local")
    path_option: ClassVar[str] = "settings"
    # .claude/settings.json is committed and shared; settings.local.json (git-ignored) and the
    # user's own file may pin this machine's paths, which are faster (no CLI start-up).
    portable_scopes: ClassVar[tuple[str, ...]] = ("project",)

    def scope_for(self, requested: str | None, project_given: bool) -> str:
        if requested is None:
            # --project without a scope means "this project only": settings.local.json is
            # git-ignored by Claude Code, the right home for absolute paths into one machine.
            return "local" if project_given else "user"
        if requested not in self.scopes:
            raise UsageError(f"claude: unknown scope {requested!r} (choose from {', '.join(self.scopes)})")
        return requested

    def settings_path(self, target: Target) -> Path:
        """Claude Code keeps its hooks in its settings file."""
        return self.hooks_path(target)

    # -- the skill --

    def skill_folder(self, target: Target) -> SkillFolder:
        return SkillFolder.read(skill_root(target), skill_dir(target))

    def plan_skill(self, target: Target) -> FileChange:
        """Our skill into ``.claude/skills/self-improve/``; a folder there that is not ours (or
        holds an edit of ours) is left alone with one line: the hooks go in regardless."""
        try:
            return plan_skill_install(self.skill_folder(target), self._skill_sources(), self.manifest.version, label=NAME)
        except SelfImproveError as exc:
            reason = str(exc).removeprefix(f"{NAME}: ").removesuffix(f"; {NOTHING_WRITTEN}")
            return unchanged(skill_dir(target), f"{NAME}: skipped the skill: {reason}")

    def _skill_sources(self) -> dict[str, bytes]:
        return skill_sources(self.root / self.manifest.skill_path)

    def plan_install(self, target: Target) -> list[FileChange]:
        return [*super().plan_install(target), self.plan_skill(target)]

    def plan_uninstall(self, target: Target) -> list[FileChange]:
        # The hooks file first, as in install; the skill's removal then prunes the folders we
        # created (a .claude/ the settings file's removal had to leave: the skill was in it).
        return [*super().plan_uninstall(target), plan_skill_uninstall(self.skill_folder(target), label=NAME)]

    def status(self, target: Target) -> list[str]:
        change = super().plan_install(target)[0]
        path = self.settings_path(target)
        if not change.changed:
            lines = [f"claude ({target.scope}): installed in {path}"]
        else:
            installed = bool(change.before) and any(self._is_ours(command) for command in hook_commands(_value(change.before)))
            state = "installed but out of date (run install again)" if installed else "not installed"
            lines = [f"claude ({target.scope}): {state} in {path}"]
        return [*lines, self.skill_status(target)]

    def skill_status(self, target: Target) -> str:
        where = skill_dir(target)
        state, detail = skill_state(self.skill_folder(target), self._skill_sources(), self.manifest.version)
        what = {
            "current": f"installed in {where} ({INSTALLED_BY} {detail})",
            "outdated": f"out of date in {where} (run install again)",
            "missing": f"not installed in {where}",
            "foreign": f"not installed: {where} holds a skill self-improve did not install",
            "edited": f"edited since install in {where} ({detail}): install leaves it alone",
        }[state]
        return f"claude ({target.scope}): skill {what}"

    def notes(self, target: Target) -> list[str]:
        notes = []
        for path in {expand(self.manifest.option(NAME, "settings", "user"), target), self.settings_path(target)}:
            if plugin_enabled(path, self.manifest.name):
                notes.append(
                    f"claude: the {self.manifest.name} plugin is also enabled in {path}: its hooks and these "
                    "would both run; keep one (`claude plugin uninstall` or `self-improve uninstall`)"
                )
        return notes


SKILL_FOLDER = "self-improve"  # .claude/skills/<this>/SKILL.md; the skill's name is its frontmatter's


def skill_root(target: Target) -> Path:
    """What the skill's files are confined to, and its created folders are recorded relative
    to: the home (user scope) or the project; a linked ``.claude`` itself where it is one (a
    dotfile manager's: writing through the user's own link is theirs to choose)."""
    base = target.home if target.scope == "user" else target.project
    linked = base / ".claude"
    return linked if linked.is_symlink() and linked.is_dir() else base


def skill_dir(target: Target) -> Path:
    base = target.home if target.scope == "user" else target.project
    return base / ".claude" / "skills" / SKILL_FOLDER


def _value(data: bytes | None) -> object:
    try:
        return json.loads(data or b"")
    except ValueError:
        return None


def installer(root: Path | None = None, python: str | None = None) -> ClaudeInstaller:
    root = root or checkout_root()
    return ClaudeInstaller(manifest=load_manifest(root), root=root, python=python)
