"""``session-ready`` (Claude Code's ``SessionStart``): one line for the user, none for the model.

When ``review`` has proposals waiting, the hook prints ``{"systemMessage": "self-improve: 2
lessons ready, run /self-improve:review"}``. Verified on Claude Code 2.1.328
(``tests/e2e/test_claude_rules.py``): the client accepts it, shows it under the prompt box as
``SessionStart:startup says: …``, and sends it in no model request, so it costs no context
tokens. (A SessionStart hook's plain stdout would reach the model: we never print any.)

What is counted is what ``review`` would propose now (``review/session.build_plan``): rules to
promote, to revise and to retire. That plan reads every entry, which costs a big store hundreds of
milliseconds, so the count is kept in ``.learnings/.state/ready.json`` with the day and the size
and modification time of each learnings file and of ``config.toml`` it was computed from; a
session that starts the same day with those unchanged reads one small file. The signature is a hint, read with
``lstat``: every byte that is counted is read through the trusted store directory.

The command named is the plugin's slash command when the hook runs from the plugin
(``CLAUDE_PLUGIN_ROOT`` is set), else the CLI's ``self-improve review``.
"""

from __future__ import annotations

import os
from typing import Any

from self_improve.hooks import state as hook_state
from self_improve.hooks.budget import BUDGET, parse_json
from self_improve.paths import LEARNINGS_DIR, STATE_DIR

READY_FILE = f"{STATE_DIR}/ready.json"
SIGNED_FILES = ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md", "config.toml")
SESSION_START = "SessionStart"


def session_ready(payload: dict[str, Any]) -> str:
    if payload.get("hook_event_name") != SESSION_START:
        return ""
    cwd = payload.get("cwd")
    session = payload.get("session_id")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return ""
    context = hook_state.Context.for_cwd(cwd, session if isinstance(session, str) else "")
    if context is None or context.root is None:
        return ""
    count = ready_count(context)
    if count <= 0:
        return ""
    return system_message(message(count, plugin=bool(os.environ.get("CLAUDE_PLUGIN_ROOT"))))


def message(count: int, *, plugin: bool) -> str:
    command = "/self-improve:review" if plugin else "`self-improve review`"
    return f"self-improve: {count} {'lesson' if count == 1 else 'lessons'} ready, run {command}"


def system_message(text: str) -> str:
    """``json.dumps({"systemMessage": text}, ensure_ascii=False)``, without importing json."""
    from self_improve.jsontext import quote

    return f'{{"systemMessage": {quote(text)}}}'


def signature(root: str) -> str:
    """The day (review's windows age an entry out) and the size and mtime of each file the count
    depends on ("-" for a missing one)."""
    from self_improve.clock import utcnow

    parts = [utcnow().date().isoformat()]
    for name in SIGNED_FILES:
        try:
            found = os.lstat(os.path.join(root, LEARNINGS_DIR, name))
            parts.append(f"{name}:{found.st_size}:{found.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:-")
    return "|".join(parts)


def ready_count(context: hook_state.Context) -> int:
    """Proposals waiting: from ``ready.json`` when its signature holds, else computed and kept."""
    assert context.root is not None
    signed = signature(context.root)
    cached = _cached(context, signed)
    if cached is not None:
        return cached
    count = _computed(context)
    if count is None:
        return 0
    from self_improve.jsontext import quote

    with BUDGET.critical("keeping the ready count"):
        try:
            context.fs.replace(READY_FILE, f'{{"signature": {quote(signed)}, "count": {count}}}\n'.encode(), durable=False)
        except Exception:  # noqa: BLE001 - a cache we cannot write costs the next session a recount
            pass
    return count


def _cached(context: hook_state.Context, signed: str) -> int | None:
    try:
        raw = context.fs.read(READY_FILE, limit=4096)
        data = parse_json(raw.decode("utf-8")) if raw else None
    except Exception:  # noqa: BLE001 - unreadable or garbage: recount
        return None
    if not isinstance(data, dict) or data.get("signature") != signed:
        return None
    count = data.get("count")
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def _computed(context: hook_state.Context) -> int | None:
    """What ``review`` would propose today; None when the store cannot be planned."""
    from self_improve.clock import utcnow
    from self_improve.review.session import build_plan

    store = context.store()
    if store is None or not store.exists():
        return None
    try:
        plan = build_plan(store, utcnow().date())
    except Exception:  # noqa: BLE001 - a store review would refuse: no nudge, review will say why
        return None
    return len(plan.promote) + len(plan.revise) + len(plan.retire)
