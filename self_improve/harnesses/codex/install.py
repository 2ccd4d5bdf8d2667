"""Codex installer: our hooks in ``~/.codex/hooks.json`` or ``<project>/.codex/hooks.json``.

The file has Claude Code's shape (see ``codex/__init__.py``), so the merge is ``hooks_file``'s;
what is Codex's own is the scopes, the trust review it needs, and its feature switch.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from self_improve.errors import UsageError
from self_improve.harnesses.codex import NAME
from self_improve.harnesses.hooks_file import HooksFileInstaller
from self_improve.harnesses.installer import Target, checkout_root, load_manifest


@dataclass
class CodexInstaller(HooksFileInstaller):
    name: str = NAME
    scopes: tuple[str, ...] = ("user", "project")
    path_option: ClassVar[str] = "hooks_file"

    def scope_for(self, requested: str | None, project_given: bool) -> str:
        if requested is None:
            return "project" if project_given else "user"
        if requested == "local":
            # Codex has no per-user project file; `--harness all --scope local` means "this
            # project only", which for Codex is the project's .codex/hooks.json.
            return "project"
        if requested not in self.scopes:
            raise UsageError(f"codex: unknown scope {requested!r} (choose from user, project)")
        return requested

    def status(self, target: Target) -> list[str]:
        change = self.plan_install(target)[0]
        state = "installed" if not change.changed else "not installed (or out of date)"
        return [f"codex ({target.scope}): {state} in {self.hooks_path(target)}"]

    def notes(self, target: Target) -> list[str]:
        notes = [
            (
                "codex: Codex runs new hooks only after you review them: start `codex`, open /hooks and "
                "trust the self-improve hooks (until then they are skipped without a warning)"
            )
        ]
        if target.scope == "project":
            notes.append(f"codex: project hooks load only when Codex trusts the project {target.project}")
        config = target.home / ".codex" / "config.toml"
        if hooks_switched_off(config):
            # On by default since 0.124; we never flip the user's own switch for them.
            notes.append(f"codex: hooks are switched off in {config} ([features] hooks = false): set it to true")
        return notes


def hooks_switched_off(config: Path) -> bool:
    """Whether config.toml turns hooks off (``[features] hooks``, or the old ``codex_hooks``)."""
    try:
        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(features, dict) and (features.get("hooks") is False or features.get("codex_hooks") is False)


def installer(root: Path | None = None, python: str | None = None) -> CodexInstaller:
    root = root or checkout_root()
    return CodexInstaller(manifest=load_manifest(root), root=root, python=python)
