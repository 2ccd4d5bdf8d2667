"""Codex (OpenAI's coding agent CLI): hook payloads in, hook output out, and the installer.

Sources:
- openai/codex ``codex-rs/hooks/src/engine/discovery.rs``: hooks come from ``hooks.json`` beside
  each config layer (``~/.codex/hooks.json``, ``<project>/.codex/hooks.json``) or a ``[hooks]``
  table in ``config.toml``, shaped like Claude Code's: ``{"hooks": {Event: [{"matcher": regex,
  "hooks": [{"type": "command", "command": str, "timeout": secs}]}]}}``. Unmanaged hooks run only
  once *trusted* (a ``trusted_hash`` saved in config.toml by reviewing them); plugin hooks get
  ``PLUGIN_ROOT``/``CLAUDE_PLUGIN_ROOT`` and ``PLUGIN_DATA``/``CLAUDE_PLUGIN_DATA``.
- openai/codex ``codex-rs/hooks/schema/generated/post-tool-use.command.input.schema.json``: the
  PostToolUse stdin (``session_id``, ``turn_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name``, ``model``, ``permission_mode``, ``tool_name``, ``tool_input``,
  ``tool_response``, ``tool_use_id``); ``...user-prompt-submit.command.output.schema.json``:
  ``hookSpecificOutput.additionalContext`` is accepted, other keys are not.
- https://developers.openai.com/codex/hooks (history at spybara.com/openai/codex/history/docs/en/hooks):
  hooks are on by default since 0.124; ``[features] hooks = false`` turns them off
  (``codex_hooks`` is the deprecated alias of the old opt-in flag).

Verified on codex-cli 0.171.0 (npm ``@openai/codex``) with ``codex exec`` against a loopback mock of
the Responses API, hooks dumping their stdin:
- the shell tool (``exec_command``) fires ``PostToolUse`` with ``tool_name: "Bash"``,
  ``tool_input: {"command": "<the command line>"}`` and ``tool_response``: a plain STRING of
  stdout and stderr merged. There is no exit code, and a failing command fires the same
  ``PostToolUse`` (there is no ``PostToolUseFailure``; an unknown event key in hooks.json is ignored).
- ``UserPromptSubmit`` carries ``prompt``; plain stdout and ``hookSpecificOutput.additionalContext``
  JSON both reach the model as a developer message, and so does PostToolUse's additionalContext.
- payloads carry ``turn_id`` and ``model``, which Claude Code's never do: that is :func:`matches`.
- no feature flag was needed, but unreviewed hooks are skipped SILENTLY (``codex exec`` ran none
  until ``--dangerously-bypass-hook-trust``): after installing, the user must review them in
  ``/hooks``. We do not write the trust ourselves: it is Codex's consent step, not ours.
- ``codex plugin marketplace add <checkout>`` reads our ``.claude-plugin/marketplace.json`` and
  ``codex plugin add self-improve@self-improve`` runs the plugin's ``hooks/hooks.json`` with
  ``CLAUDE_PLUGIN_ROOT``/``CLAUDE_PLUGIN_DATA`` set: the Claude plugin is also a Codex plugin.
"""

from __future__ import annotations

from self_improve.events import ToolResult, clean_text
from self_improve.harnesses import claude as claude

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

NAME = "codex"
LABEL = "Codex"
POST_TOOL_EVENT = "PostToolUse"
PROMPT_EVENT = "UserPromptSubmit"
# Codex names its shell tool "Bash" in hook payloads (the model-facing tool is exec_command).
SHELL_TOOLS = ("Bash",)
# Same cap as Claude Code's; Codex spills larger contexts to a file, which the model may not read.
MAX_CONTEXT_CHARS = claude.MAX_CONTEXT_CHARS


def matches(payload: Any) -> bool:
    """Whether ``payload`` came from Codex rather than Claude Code.

    Codex's tool and prompt events carry ``turn_id`` (and ``model``); Claude Code's carry
    neither. A string ``tool_response`` is Codex's too (Claude Code's is an object).
    So True needs a string ``turn_id`` or ``tool_response``: the registry's ``marks`` for Codex,
    which ask this function only about a payload that has one (keep the two in step).
    """
    if not isinstance(payload, dict):
        return False
    if isinstance(payload.get("turn_id"), str):
        return True
    return payload.get("hook_event_name") == POST_TOOL_EVENT and isinstance(payload.get("tool_response"), str)


def tool_event(payload: dict[str, Any]) -> str:
    return str(payload.get("hook_event_name") or POST_TOOL_EVENT)


def _output(response: Any) -> str:
    """The command output from ``tool_response``: a string on 0.171.0; an object is tolerated."""
    if isinstance(response, str):
        return clean_text(response)
    if isinstance(response, dict):
        parts = [clean_text(response.get(key)) for key in ("output", "stdout", "stderr")]
        return "\n".join(part for part in parts if part)
    return ""


def parse_tool_result(payload: dict[str, Any]) -> ToolResult | None:
    """A shell command's result from a Codex PostToolUse payload, or None for anything else."""
    if payload.get("hook_event_name") != POST_TOOL_EVENT or payload.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    command = clean_text(tool_input.get("command")) if isinstance(tool_input, dict) else ""
    response = payload.get("tool_response")
    exit_code = response.get("exit_code") if isinstance(response, dict) else None
    return ToolResult(
        command=command,
        output=_output(response),
        # Codex does not say (see the module doc): never guess 0.
        exit_code=exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None,
        session=clean_text(payload.get("session_id")),
        cwd=clean_text(payload.get("cwd")),
    )


# Codex's prompt payload and its hook output have Claude Code's shape: one implementation serves
# both. (Codex validates the output strictly, ``additionalProperties: false``: exactly
# ``hookSpecificOutput.{hookEventName, additionalContext}``, which is what Claude's formatter prints.)
parse_prompt = claude.parse_prompt
parse_tool_call = claude.parse_tool_call
format_context = claude.format_context


# Set by codex-cli 0.171.0 on every command its shell tool (exec_command) runs, verified on the
# real client (tests/e2e/test_codex_agent_env.py): CODEX_THREAD_ID and CODEX_SESSION_ID (the
# thread), CODEX_TOOL_CALL_ID (the call), CODEX_CI=1. The sandbox variables are from the
# openai/codex source (``CODEX_SANDBOX=seatbelt`` on macOS, ``CODEX_SANDBOX_NETWORK_DISABLED=1``
# when the sandbox has no network); the e2e run uses danger-full-access, which sets neither.
AGENT_ENV = ("CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_TOOL_CALL_ID", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")
# Those of them that name the thread (``agent_env.agent_session_ids``).
SESSION_ENV = ("CODEX_THREAD_ID", "CODEX_SESSION_ID")


def agent_session(environ: Mapping[str, str]) -> bool:
    """Whether this process runs under Codex's shell tool. (``CODEX_HOME`` is no sign: users set
    it in their own shell profile.)"""
    return any(environ.get(name, "").strip() for name in AGENT_ENV)
