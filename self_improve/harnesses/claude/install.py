"""Claude Code: install our hooks into a settings file, or ship them as a plugin.

Two ways in, same hooks:

1. **Settings install** (this module, ``self-improve install --harness claude``): merges our
   registrations into ``~/.claude/settings.json`` (user), ``<project>/.claude/settings.json``
   (project) or ``<project>/.claude/settings.local.json`` (local), pointing at this checkout's
   ``hooks/`` by absolute path with the interpreter pinned (see ``installer.hook_command``);
   except the shared project file, which gets ``installer.portable_hook_command``.
2. **Plugin** (``build-plugin`` renders ``.claude-plugin/`` and ``hooks/hooks.json``): the hooks
   run as ``"${CLAUDE_PLUGIN_ROOT}/hooks/<script>"``.

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

from self_improve.errors import UsageError
from self_improve.harnesses.claude import NAME
from self_improve.harnesses.hooks_file import HooksFileInstaller
from self_improve.harnesses.installer import Target, checkout_root, expand, load_manifest


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

    def status(self, target: Target) -> list[str]:
        change = self.plan_install(target)[0]
        path = self.settings_path(target)
        if not change.changed:
            return [f"claude ({target.scope}): installed in {path}"]
        installed = bool(change.before) and any(
            self._is_ours(command) for command in _commands(change.before or b"")
        )
        state = "installed but out of date (run install again)" if installed else "not installed"
        return [f"claude ({target.scope}): {state} in {path}"]

    def notes(self, target: Target) -> list[str]:
        notes = []
        for path in {expand(self.manifest.option(NAME, "settings", "user"), target), self.settings_path(target)}:
            if plugin_enabled(path, self.manifest.name):
                notes.append(
                    f"claude: the {self.manifest.name} plugin is also enabled in {path}: its hooks and these "
                    "would both run; keep one (`claude plugin uninstall` or `self-improve uninstall`)"
                )
        return notes


def _commands(data: bytes) -> list[object]:
    try:
        value = json.loads(data)
    except ValueError:
        return []
    hooks = value.get("hooks") if isinstance(value, dict) else None
    out: list[object] = []
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if isinstance(handler, dict):
                    out.append(handler.get("command"))
    return out


def plugin_enabled(settings: Path, plugin: str) -> bool:
    try:
        value = json.loads(settings.read_bytes())
    except (OSError, ValueError):
        return False
    enabled = value.get("enabledPlugins") if isinstance(value, dict) else None
    if not isinstance(enabled, dict):
        return False
    return any(key.split("@", 1)[0] == plugin and flag is True for key, flag in enabled.items())


def installer(root: Path | None = None, python: str | None = None) -> ClaudeInstaller:
    root = root or checkout_root()
    return ClaudeInstaller(manifest=load_manifest(root), root=root, python=python)
