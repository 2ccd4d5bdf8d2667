"""Which harnesses self-improve is installed for, as seen from one project: cheap and read-only.

The one place that decides "our hooks are in this file" and "installed for this project":
``install --status`` (``harnesses/claude/install.py``, ``harnesses/codex/install.py``),
``doctor`` and the default rule targets (``review/targets.py``) all ask here. It lives in
``review/``, below ``harnesses/``, because review's defaults need it and a room imports only
the rooms below it; the installers import it from here.

- **Claude Code**: our hook commands in ``~/.claude/settings.json``,
  ``<project>/.claude/settings.json`` or ``<project>/.claude/settings.local.json``
  (``plugin.toml``'s ``[harness.claude] settings``), or the self-improve plugin enabled in one of them
  (``enabledPlugins``).
- **Codex**: our hook commands in ``~/.codex/hooks.json`` (and ``$CODEX_HOME/hooks.json``),
  ``<project>/.codex/hooks.json``, or in a ``[hooks]`` table of the ``config.toml`` beside one
  of them (Codex reads both, ``codex/__init__.py``).
- **OpenClaw**: the project is an OpenClaw workspace (``policy.is_openclaw_workspace``).

A file that cannot be read or parsed holds nothing of ours: the answer is only ever a default.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from self_improve.review.policy import is_openclaw_workspace

PYTHON_VAR = "SELF_IMPROVE_PYTHON"
# A file shared in a repository (Claude Code's project settings.json) cannot name this machine's
# paths. This runs the hook through whichever ``self-improve`` is on the PATH, and is a no-op,
# exit 0, where none is. ``|| true`` rather than ``exec``: whatever the CLI exits with (exit 2
# would block the agent), the hook exits 0. It costs the CLI's start-up (site-packages, the
# console script, argparse): about 20 ms more per event than ``hooks/<script>``.
PORTABLE_COMMAND = "command -v self-improve >/dev/null 2>&1 && self-improve hook {script} || true"
# The names `self-improve hook` takes; every script a settings install registers is one of them.
PORTABLE_SCRIPTS = ("prompt-submit", "pre-bash", "post-bash", "session-ready")
PLUGIN_NAME = "self-improve"  # plugin.toml's name (a test keeps them equal)
CLAUDE_FILES = (".claude/settings.json", ".claude/settings.local.json")  # the user's: ~/.claude/settings.json
CODEX_FILES = (".codex/hooks.json",)
OPENCLAW_MARKER_FILES = ("SOUL.md", "IDENTITY.md")


def is_our_command(command: object, scripts: Iterable[str] = PORTABLE_SCRIPTS) -> bool:
    """Whether a hook ``command`` is one our installer wrote (any checkout, any python): the
    portable command, or ``SELF_IMPROVE_PYTHON=<python> <path>/hooks/<script>``."""
    if not isinstance(command, str):
        return False
    names = set(scripts)
    if any(command == PORTABLE_COMMAND.format(script=name) for name in names & set(PORTABLE_SCRIPTS)):
        return True
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if len(words) != 2 or not words[0].startswith(f"{PYTHON_VAR}="):
        return False
    head, _, name = words[1].rpartition("/")
    return head.endswith("hooks") and name in names


def hook_commands(value: object) -> list[object]:
    """Every handler's ``command`` in a ``{"hooks": {Event: [{"hooks": [handler]}]}}`` value."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    out: list[object] = []
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if isinstance(handler, dict):
                    out.append(handler.get("command"))
    return out


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def _toml(path: Path) -> Any:
    if not path.is_file():
        return None
    import tomllib  # only when a config.toml is there

    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def has_our_hooks(value: object) -> bool:
    return any(is_our_command(command) for command in hook_commands(value))


def plugin_enabled(settings: Path, plugin: str = PLUGIN_NAME) -> bool:
    """Whether a Claude Code settings file enables ``plugin`` (``"<plugin>@<marketplace>": true``)."""
    value = _json(settings)
    enabled = value.get("enabledPlugins") if isinstance(value, dict) else None
    if not isinstance(enabled, dict):
        return False
    return any(key.split("@", 1)[0] == plugin and flag is True for key, flag in enabled.items())


def claude_files(project: Path, home: Path) -> list[Path]:
    return [home / CLAUDE_FILES[0], *(project / name for name in CLAUDE_FILES)]


def codex_homes(home: Path, environ: Mapping[str, str]) -> list[Path]:
    homes = [home / ".codex"]
    if environ.get("CODEX_HOME") and Path(environ["CODEX_HOME"]) != homes[0]:
        homes.append(Path(environ["CODEX_HOME"]))
    return homes


def claude_installed(project: Path, home: Path) -> bool:
    return any(has_our_hooks(_json(path)) or plugin_enabled(path) for path in claude_files(project, home))


def codex_installed(project: Path, home: Path, environ: Mapping[str, str]) -> bool:
    layers = [*codex_homes(home, environ), project / ".codex"]
    return any(has_our_hooks(_json(layer / "hooks.json")) or has_our_hooks(_toml(layer / "config.toml")) for layer in layers)


def installed_harnesses(project: Path, home: Path | None = None, environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The harnesses (registry names) self-improve is installed for in ``project``, by scope
    project or user. Reads a handful of small files; writes nothing."""
    home = Path(os.path.expanduser("~")) if home is None else home
    environ = os.environ if environ is None else environ
    found = set()
    if claude_installed(project, home):
        found.add("claude")
    if codex_installed(project, home, environ):
        found.add("codex")
    if is_openclaw_workspace(name for name in OPENCLAW_MARKER_FILES if (project / name).is_file()):
        found.add("openclaw")
    return frozenset(found)
