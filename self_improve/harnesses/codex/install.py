"""Codex installer: writes our hooks into ``.codex/hooks.json`` (split from ``codex.py``, which the
hooks import on their hot path and so must stay free of ``dataclasses`` and ``pathlib``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from self_improve.errors import UsageError
from self_improve.harnesses.codex.adapter import NAME

if TYPE_CHECKING:
    from self_improve.harnesses.installer import FileChange, Manifest, Target



@dataclass
class CodexInstaller:
    manifest: Manifest
    root: Path
    python: str | None = None
    name: str = NAME
    scopes: tuple[str, ...] = ("user", "project")

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

    def hooks_path(self, target: Target) -> Path:
        from self_improve.harnesses.installer import expand

        return expand(self.manifest.option(NAME, "hooks_file", target.scope), target)

    def _is_ours(self, command: object) -> bool:
        from self_improve.harnesses.installer import is_our_command

        return is_our_command(command, self.manifest.scripts)

    def plan_install(self, target: Target) -> list[FileChange]:
        from self_improve.harnesses.claude.install import hook_registrations
        from self_improve.harnesses.installer import plan_hooks_file

        wanted = hook_registrations(self.manifest, NAME, self.root, self.python)
        return [plan_hooks_file(self.hooks_path(target), wanted, self._is_ours, label=NAME)]

    def plan_uninstall(self, target: Target) -> list[FileChange]:
        from self_improve.harnesses.installer import plan_hooks_file

        return [plan_hooks_file(self.hooks_path(target), [], self._is_ours, label=NAME)]

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
    import tomllib

    try:
        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return isinstance(features, dict) and (features.get("hooks") is False or features.get("codex_hooks") is False)


def installer(root: Path | None = None, python: str | None = None) -> CodexInstaller:
    from self_improve.harnesses.installer import checkout_root, load_manifest

    root = root or checkout_root()
    return CodexInstaller(manifest=load_manifest(root), root=root, python=python)
