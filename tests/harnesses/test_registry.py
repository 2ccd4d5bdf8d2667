"""The one list of harnesses (``harnesses/registry.py``) and the interface each one implements
(``harnesses/base.py``): a new harness is a package and one line there."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from self_improve.errors import UsageError
from self_improve.harnesses import agent_env, base, registry
from self_improve.harnesses import claude as claude
from self_improve.harnesses import codex as codex
from tests.helpers import FIXTURES, REPO


def members(protocol: type) -> set[str]:
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass is object or not getattr(klass, "_is_protocol", False):
            continue
        names |= {name for name in vars(klass) if not name.startswith("_")} | set(getattr(klass, "__annotations__", {}))
    return names


@pytest.mark.parametrize("harness", registry.HARNESSES, ids=registry.NAMES)
def test_every_harness_implements_the_interface(harness: registry.Harness) -> None:
    adapter = harness.adapter()
    wanted = members(base.HookAdapter if harness.hooks else base.Adapter)
    assert wanted <= set(dir(adapter)), wanted - set(dir(adapter))
    assert adapter.NAME == harness.name
    assert adapter.agent_session({}) is False
    installer = harness.installer(REPO)
    assert members(base.Installer) <= set(dir(installer))
    assert installer.name == harness.name and installer.scopes


def test_a_hook_payload_finds_its_harness() -> None:
    claude_payload = json.loads((FIXTURES / "claude" / "PostToolUseFailure.json").read_text())
    codex_payload = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "turn_id": "t", "tool_response": "x"}
    assert registry.hook_adapter_for(claude_payload) is claude
    assert registry.hook_adapter_for(codex_payload) is codex
    assert registry.hook_adapter_for({}) is claude  # what no harness claims is read as Claude Code's


def test_unknown_and_listed_names() -> None:
    with pytest.raises(UsageError, match="choose from claude, codex, openclaw"):
        registry.get("vim")
    assert registry.select("none") == []
    assert [h.name for h in registry.select(" codex , claude ")] == ["codex", "claude"]


def test_agent_markers_are_every_adapters() -> None:
    for harness in registry.HARNESSES:
        assert set(harness.adapter().AGENT_ENV) <= set(agent_env.MARKERS)
    assert agent_env.agent_harness({"OPENCLAW_SHELL": "exec"}) == "OpenClaw"
    assert agent_env.agent_harness({"AI_AGENT": "other_1.0"}) == "an agent"
    assert agent_env.agent_harness({}) == ""


def test_the_hooks_load_only_the_adapters_they_try() -> None:
    code = (
        "import sys; from self_improve.harnesses import registry; "
        "registry.hook_adapter_for({'hook_event_name': 'UserPromptSubmit', 'prompt': 'x'}); "
        "print(sorted(m for m in sys.modules if m.startswith('self_improve.harnesses')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert "openclaw" not in out and "install" not in out and "base" not in out
