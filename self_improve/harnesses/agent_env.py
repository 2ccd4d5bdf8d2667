"""Is this command running inside an agent session? One question, asked of every harness.

Each harness marks the environment of the commands its shell tool runs (see each adapter's
``agent_session``). ``promote``, ``review --yes`` and ``extract-skill`` use the answer to only
*propose* when an agent runs them: a change to the user's instruction files needs a person.

This is a guard against an agent that follows its instructions (or a prompt injection) into
promoting its own rules, not against one that sets out to hide: ``env -u CLAUDECODE …`` removes
the marks. The user can turn the guard off with ``promotion.agent_may_promote = true`` in the
user-level config, never from a project's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from self_improve.harnesses import registry

# The vendor-neutral variable some agents set (Claude Code does: claude-code_<version>_agent).
GENERIC_VARIABLE = "AI_AGENT"


def agent_harness(environ: Mapping[str, str] | None = None) -> str:
    """The label of the harness whose session this is ("an agent" for a bare ``AI_AGENT``), or ""."""
    env = os.environ if environ is None else environ
    for adapter in registry.adapters():
        if adapter.agent_session(env):
            return adapter.LABEL
    if env.get(GENERIC_VARIABLE, "").strip():
        return "an agent"
    return ""


def in_agent_session(environ: Mapping[str, str] | None = None) -> bool:
    return bool(agent_harness(environ))


def agent_session_ids(environ: Mapping[str, str] | None = None) -> list[str]:
    """The session ids the harnesses' shell tools export (each adapter's ``SESSION_ENV``, such as
    ``CLAUDE_CODE_SESSION_ID``), in registry order, each once; [] for a person's shell. ``log``
    uses them to find the correction a hook queued in the session the agent logs from."""
    env = os.environ if environ is None else environ
    found: list[str] = []
    for adapter in registry.adapters():
        for name in getattr(adapter, "SESSION_ENV", ()):
            value = env.get(name, "").strip()
            if value and value not in found:
                found.append(value)
    return found


# The variables any check reads: tests scrub these so that a suite run from inside an agent
# does not see itself as one.
MARKERS = tuple(dict.fromkeys([*(name for adapter in registry.adapters() for name in adapter.AGENT_ENV), GENERIC_VARIABLE]))
