"""``self-improve build-plugin [--check]``: render the plugin files from plugin.toml.

Writes (commit them; they are what `claude plugin install` and `codex plugin add` read):

- ``.claude-plugin/plugin.json``: the manifest; ``skills`` points at ``./skill`` (Claude Code
  2.1.328 does not load a bare ``skill/SKILL.md``, but does load a folder the manifest lists).
- ``.claude-plugin/marketplace.json``: a one-plugin marketplace whose plugin is this folder.
- ``hooks/hooks.json``: every hook of plugin.toml, run as ``"${CLAUDE_PLUGIN_ROOT}/hooks/<script>"``
  (quoted: `claude plugin validate` warns that an unquoted root splits on spaces).
- ``commands/<name>.md``: every ``[[commands]]`` of plugin.toml, a slash command Claude Code offers
  as ``/self-improve:<name>``: YAML frontmatter (``description``, ``argument-hint``,
  ``disable-model-invocation``, ``allowed-tools``; each value written as JSON, which YAML reads back as exactly that string or
  list), a blank line, then the prompt. Claude Code finds ``commands/`` by itself (no manifest
  key). A ``commands/*.md`` that plugin.toml does not list is reported by ``--check``.

Output is deterministic: fixed key order, events sorted, two-space JSON, one trailing newline.
``--check`` writes nothing and exits 1 listing every file that differs from what it would write,
plus any hook script that is missing or not executable, or a version that differs from the
package's.

There is no separate Codex file: codex-cli 0.171.0 installs this same plugin from the same
marketplace.json and runs the same hooks/hooks.json (it ignores the PostToolUseFailure key).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve import __version__
from self_improve.atomic import atomic_write
from self_improve.errors import SelfImproveError
from self_improve.harnesses.installer import (
    HookSpec,
    Manifest,
    MANIFEST_NAME,
    checkout_root,
    load_manifest,
)

PLUGIN_JSON = ".claude-plugin/plugin.json"
MARKETPLACE_JSON = ".claude-plugin/marketplace.json"
HOOKS_JSON = "hooks/hooks.json"
COMMANDS_DIR = "commands"
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"
# A command's name is its file name and the part after "self-improve:" the user types.
COMMAND_NAME = re.compile(r"[a-z][a-z0-9-]*\Z")
COMMAND_KEYS = frozenset({"name", "description", "prompt", "allowed_tools", "argument_hint", "disable_model_invocation"})


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build-plugin", help="render the Claude Code / Codex plugin files from plugin.toml",
        epilog="examples:\n"
        "  self-improve build-plugin\n"
        "  self-improve build-plugin --check",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated file is stale")
    parser.set_defaults(func=run)


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def plugin_json(manifest: Manifest) -> dict[str, Any]:
    return {
        "name": manifest.name,
        "version": manifest.version,
        "description": manifest.description,
        "author": {"name": manifest.author},
        "license": manifest.license,
        "keywords": list(manifest.keywords),
        "skills": [f"./{manifest.skill_path}"],
    }


def marketplace_json(manifest: Manifest) -> dict[str, Any]:
    return {
        "name": manifest.marketplace_name,
        "owner": {"name": manifest.marketplace_owner},
        "description": manifest.description,  # `claude plugin validate` warns without one
        "plugins": [
            {
                "name": manifest.name,
                "source": "./",
                "description": manifest.description,
                "version": manifest.version,
                "author": {"name": manifest.author},
                "license": manifest.license,
                "keywords": list(manifest.keywords),
            }
        ],
    }


def _group(spec: HookSpec, timeout: int | None) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": f'"{ROOT_VAR}/hooks/{spec.script}"'}
    if timeout is not None:
        handler["timeout"] = timeout
    group: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [handler]
    return group


def hooks_json(manifest: Manifest) -> dict[str, Any]:
    timeout = manifest.harness.get("claude", {}).get("timeout")
    events: dict[str, list[dict[str, Any]]] = {}
    for spec in manifest.hooks:
        events.setdefault(spec.event, []).append(_group(spec, timeout))
    return {"hooks": {event: events[event] for event in sorted(events)}}


# --- slash commands ----------------------------------------------------------------------


@dataclass(frozen=True)
class CommandSpec:
    """One ``[[commands]]`` of plugin.toml."""

    name: str
    description: str
    prompt: str
    allowed_tools: tuple[str, ...] = ()
    argument_hint: str | None = None
    disable_model_invocation: bool = False  # only the user can run it; the model is not offered it


def _one_line(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise SelfImproveError(f"{where} must be a non-empty one-line string")
    return value


def _command(item: Any, index: int, path: Path) -> CommandSpec:
    where = f"{path}: [[commands]] #{index + 1}"
    if not isinstance(item, dict):
        raise SelfImproveError(f"{where} must be a table")
    unknown = sorted(set(item) - COMMAND_KEYS)
    if unknown:
        raise SelfImproveError(f"{where}: unknown key {unknown[0]!r}")
    name = item.get("name")
    if not isinstance(name, str) or not COMMAND_NAME.match(name):
        raise SelfImproveError(f"{where}: name must be lowercase letters, digits and hyphens, got {name!r}")
    prompt = item.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise SelfImproveError(f"{where} ({name}): prompt must be a non-empty string")
    tools = item.get("allowed_tools", [])
    if not isinstance(tools, list):
        raise SelfImproveError(f"{where} ({name}): allowed_tools must be a list of strings")
    hint = item.get("argument_hint")
    user_only = item.get("disable_model_invocation", False)
    if not isinstance(user_only, bool):
        raise SelfImproveError(f"{where} ({name}): disable_model_invocation must be true or false")
    return CommandSpec(
        name=name,
        description=_one_line(item.get("description"), f"{where} ({name}): description"),
        prompt=prompt,
        allowed_tools=tuple(_one_line(tool, f"{where} ({name}): allowed_tools entry") for tool in tools),
        argument_hint=None if hint is None else _one_line(hint, f"{where} ({name}): argument_hint"),
        disable_model_invocation=user_only,
    )


def load_commands(root: Path) -> tuple[CommandSpec, ...]:
    """The ``[[commands]]`` of ``root``'s plugin.toml, checked (load_manifest read the file first)."""
    path = root / MANIFEST_NAME
    items = tomllib.loads(path.read_text(encoding="utf-8")).get("commands", [])
    if not isinstance(items, list):
        raise SelfImproveError(f"{path}: commands must be an array of tables ([[commands]])")
    commands = tuple(_command(item, index, path) for index, item in enumerate(items))
    names = [command.name for command in commands]
    for name in names:
        if names.count(name) > 1:
            raise SelfImproveError(f"{path}: [[commands]] name {name!r} appears twice")
    return commands


def command_path(command: CommandSpec) -> str:
    return f"{COMMANDS_DIR}/{command.name}.md"


def command_markdown(command: CommandSpec) -> bytes:
    """Frontmatter (JSON values: YAML reads them back exactly), a blank line, the prompt."""
    lines = ["---", f"description: {json.dumps(command.description, ensure_ascii=False)}"]
    if command.argument_hint is not None:
        lines.append(f"argument-hint: {json.dumps(command.argument_hint, ensure_ascii=False)}")
    if command.disable_model_invocation:
        lines.append("disable-model-invocation: true")
    if command.allowed_tools:
        lines.append(f"allowed-tools: {json.dumps(list(command.allowed_tools), ensure_ascii=False)}")
    lines += ["---", "", command.prompt.strip("\n")]
    return ("\n".join(lines) + "\n").encode("utf-8")


def render(manifest: Manifest, commands: tuple[CommandSpec, ...] = ()) -> dict[str, bytes]:
    """Relative path -> exact bytes of every generated file."""
    files = {
        PLUGIN_JSON: _json(plugin_json(manifest)),
        MARKETPLACE_JSON: _json(marketplace_json(manifest)),
        HOOKS_JSON: _json(hooks_json(manifest)),
    }
    files.update((command_path(command), command_markdown(command)) for command in commands)
    return files


def problems(manifest: Manifest, root: Path, commands: tuple[CommandSpec, ...] = ()) -> list[str]:
    """What --check reports besides drifted files."""
    found = []
    listed = {command_path(command) for command in commands}
    for stray in sorted((root / COMMANDS_DIR).glob("*.md")):
        relative = f"{COMMANDS_DIR}/{stray.name}"
        if relative not in listed:  # Claude Code would still offer it as a command
            found.append(f"{relative} is not a [[commands]] of plugin.toml (remove it, or add it there)")
    if manifest.version != __version__:
        found.append(f"plugin.toml version {manifest.version} differs from self_improve.__version__ {__version__}")
    for script in sorted(manifest.scripts):
        path = root / "hooks" / script
        if not path.is_file():
            found.append(f"hooks/{script} is missing (plugin.toml registers it)")
        elif not os.access(path, os.X_OK):
            found.append(f"hooks/{script} is not executable")
    shim = root / "bin" / "self-improve"
    if shim.is_file() and not os.access(shim, os.X_OK):
        found.append("bin/self-improve is not executable")
    return found


def drifted(files: dict[str, bytes], root: Path) -> list[str]:
    out = []
    for relative, data in files.items():
        try:
            if (root / relative).read_bytes() == data:
                continue
        except FileNotFoundError:
            pass
        out.append(relative)
    return out


def run(args: argparse.Namespace) -> int:
    root = checkout_root()
    manifest = load_manifest(root)
    commands = load_commands(root)
    files = render(manifest, commands)
    stale = drifted(files, root)
    if args.check:
        issues = [f"{path} is out of date (run `self-improve build-plugin`)" for path in stale]
        issues += problems(manifest, root, commands)
        for issue in issues:
            sys.stderr.write(f"self-improve: build-plugin --check: {issue}\n")
        if not issues:
            print(f"plugin files up to date ({', '.join(files)})")
        return 1 if issues else 0
    for relative in files:
        path = root / relative
        if relative in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, files[relative])
            print(f"wrote {relative}")
        else:
            print(f"{relative} is up to date")
    for issue in problems(manifest, root, commands):
        sys.stderr.write(f"self-improve: build-plugin: warning: {issue}\n")
    return 0
