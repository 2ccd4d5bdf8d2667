"""What a harness provides: an adapter (its payloads in, its hook output out, its agent sessions)
and an installer (our hooks or files into its configuration).

A harness is one package, ``harnesses/<name>/`` (its ``__init__.py`` is the adapter, its
``install.py`` the installer), and one line in ``harnesses/registry.py``. The adapter module itself is the :class:`Adapter` (module
functions, no class to instantiate): the hooks import it on every call, so it stays on the
cheapest standard library. ``install.py`` exposes ``installer(root, python)`` returning an
:class:`Installer`; only ``install``, ``uninstall`` and ``doctor`` import it.

Only type checkers import this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from self_improve.events import Prompt, ToolCall, ToolResult
from self_improve.harnesses.installer import FileChange, Target


class Adapter(Protocol):
    """Every harness's package (its ``__init__.py``)."""

    NAME: str  # the registry's name: ``--harness NAME``
    LABEL: str  # how messages name it: "Claude Code"
    AGENT_ENV: tuple[str, ...]  # the variables agent_session reads (tests scrub them)

    def agent_session(self, environ: Mapping[str, str]) -> bool:
        """Whether this process runs inside one of the harness's agent sessions (its shell tool)."""
        ...


class HookAdapter(Adapter, Protocol):
    """The package of a harness that runs our hook scripts (``registry.Harness.hooks``)."""

    def matches(self, payload: dict[str, Any]) -> bool:
        """Whether ``payload`` came from this harness."""
        ...

    def parse_tool_result(self, payload: dict[str, Any]) -> ToolResult | None:
        """The shell command a post-tool payload reports, or None for anything else."""
        ...

    def parse_tool_call(self, payload: dict[str, Any]) -> ToolCall | None:
        """The shell command a pre-tool payload is about to run, or None for anything else."""
        ...

    def tool_event(self, payload: dict[str, Any]) -> str:
        """The event name a post-tool payload's answer must carry."""
        ...

    def parse_prompt(self, payload: dict[str, Any]) -> Prompt | None:
        """The user's prompt in a prompt payload, or None for anything else."""
        ...

    def format_context(self, event: str, text: str) -> str:
        """What the hook prints so that ``text`` reaches the model after ``event``."""
        ...


class Installer(Protocol):
    """What ``install.py``'s ``installer()`` returns. Plans come first and write nothing:
    ``installer.apply`` writes them, ``--dry-run`` prints their diffs instead."""

    name: str
    scopes: tuple[str, ...]

    def scope_for(self, requested: str | None, project_given: bool) -> str:
        """The scope to use (``requested`` or the default); UsageError when it is not supported."""
        ...

    def plan_install(self, target: Target) -> list[FileChange]: ...

    def plan_uninstall(self, target: Target) -> list[FileChange]: ...

    def status(self, target: Target) -> list[str]:
        """What is installed where now, one line each."""
        ...

    def notes(self, target: Target) -> list[str]:
        """What the user must still do by hand after an install."""
        ...


class InstallModule(Protocol):
    """Every harness's ``install.py``."""

    def installer(self, root: Path | None = None, python: str | None = None) -> Installer: ...
