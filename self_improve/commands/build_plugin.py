"""``self-improve build-plugin [--check]``: render the plugin files from plugin.toml.

Writes (commit them; they are what `claude plugin install` and `codex plugin add` read):

- ``.claude-plugin/plugin.json``: the manifest; ``skills`` points at ``./skill`` (Claude Code
  2.1.328 does not load a bare ``skill/SKILL.md``, but does load a folder the manifest lists).
- ``.claude-plugin/marketplace.json``: a one-plugin marketplace whose plugin is this folder.
- ``hooks/hooks.json``: every hook of plugin.toml, run as ``"${CLAUDE_PLUGIN_ROOT}/hooks/<script>"``
  (quoted: `claude plugin validate` warns that an unquoted root splits on spaces).

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
import sys
from pathlib import Path
from typing import Any

from self_improve import __version__
from self_improve.atomic import atomic_write
from self_improve.harnesses.installer import (
    HookSpec,
    Manifest,
    checkout_root,
    load_manifest,
)

PLUGIN_JSON = ".claude-plugin/plugin.json"
MARKETPLACE_JSON = ".claude-plugin/marketplace.json"
HOOKS_JSON = "hooks/hooks.json"
ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}"


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


def render(manifest: Manifest) -> dict[str, bytes]:
    """Relative path -> exact bytes of every generated file."""
    return {
        PLUGIN_JSON: _json(plugin_json(manifest)),
        MARKETPLACE_JSON: _json(marketplace_json(manifest)),
        HOOKS_JSON: _json(hooks_json(manifest)),
    }


def problems(manifest: Manifest, root: Path) -> list[str]:
    """What --check reports besides drifted files."""
    found = []
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
    files = render(manifest)
    stale = drifted(files, root)
    if args.check:
        issues = [f"{path} is out of date (run `self-improve build-plugin`)" for path in stale]
        issues += problems(manifest, root)
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
    for issue in problems(manifest, root):
        sys.stderr.write(f"self-improve: build-plugin: warning: {issue}\n")
    return 0
