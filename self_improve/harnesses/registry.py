"""Every harness self-improve works with, in one list: a new harness is a package under
``harnesses/`` (its ``__init__.py`` is the adapter, its ``install.py`` the installer, see
``base.py``) and one line in :data:`HARNESSES`.

Everything that enumerates harnesses goes through here: the hooks' choice of adapter, agent
session detection, ``install``/``uninstall``/``doctor``. Modules are imported when first asked
for, so the hooks load only the adapters they try.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from self_improve.harnesses.base import Adapter, HookAdapter, Installer, InstallModule


class Harness:
    """One harness: its name, its package, and whether it runs our hook scripts (``hooks``) or
    leaves us its transcripts to read (``sweep``, ``watch``)."""

    __slots__ = ("name", "package", "hooks", "marks")

    def __init__(self, name: str, package: str, *, hooks: bool, marks: tuple[str, ...] = ()) -> None:
        self.name = name
        self.package = package
        self.hooks = hooks
        # Payload keys of which one holds a string in every payload this harness's ``matches``
        # claims (its module says why): a payload with none of them is not asked about, so the
        # hooks never load the module. Empty: every payload is asked about.
        self.marks = marks

    def may_match(self, payload: dict[str, Any]) -> bool:
        """Whether ``payload`` could be this harness's: only then is its module imported and asked."""
        if not self.marks:
            return True
        return isinstance(payload, dict) and any(isinstance(payload.get(key), str) for key in self.marks)

    def _module(self, name: str = "") -> Any:
        dotted = f"{self.package}.{name}" if name else self.package
        return __import__(dotted, fromlist=(name or "*",))

    # The package itself is the adapter: what the hooks import on every call is one module, not a
    # package and a module in it (each costs the hook a directory scan and a load).
    def adapter(self) -> Adapter:
        adapter: Adapter = self._module()
        return adapter

    def hook_adapter(self) -> HookAdapter:
        adapter: HookAdapter = self._module()
        return adapter

    def installer(self, root: Path | None = None, python: str | None = None) -> Installer:
        module: InstallModule = self._module("install")
        return module.installer(root, python)


# In this order in listings and for ``--harness all``.
HARNESSES = (
    Harness("claude", "self_improve.harnesses.claude", hooks=True),
    Harness("codex", "self_improve.harnesses.codex", hooks=True, marks=("turn_id", "tool_response")),
    Harness("openclaw", "self_improve.harnesses.openclaw", hooks=False),
)
NAMES = tuple(harness.name for harness in HARNESSES)
# Claude Code's hook payload is the shape the others copy (Codex's adds fields to it): a payload
# no other harness claims is read as Claude Code's.
DEFAULT_HOOKS = "claude"


def get(name: str) -> Harness:
    for harness in HARNESSES:
        if harness.name == name:
            return harness
    from self_improve.errors import UsageError

    raise UsageError(f"unknown harness {name!r} (choose from {', '.join(NAMES)}, all, none)")


def hook_adapter_for(payload: dict[str, Any]) -> HookAdapter:
    """The adapter of the harness that sent a hook payload. A harness whose marks the payload
    lacks is not asked (``Harness.marks``): a Claude Code payload loads no Codex module."""
    for harness in HARNESSES:
        if harness.hooks and harness.name != DEFAULT_HOOKS and harness.may_match(payload):
            adapter = harness.hook_adapter()
            if adapter.matches(payload):
                return adapter
    return get(DEFAULT_HOOKS).hook_adapter()


def adapters() -> list[Adapter]:
    return [harness.adapter() for harness in HARNESSES]


def select(names: str) -> list[Installer]:
    """The installers ``--harness`` names: ``claude``, ``claude,codex``, ``all`` or ``none``."""
    if names == "none":
        return []
    chosen = NAMES if names == "all" else [part.strip() for part in names.split(",") if part.strip()]
    return [get(name).installer() for name in chosen]
