"""The one table of settings: every key's type, default, accepted range or choices, and doc;
and what a project's config may set of it.

``config`` (load, ``config list``, ``config set``), the review policy and the hooks all read
their defaults here; no other module writes a default down. For a number, ``min``..``max`` is what ``config set`` accepts and ``project`` the
narrower range a project's value is clamped into. ``personal`` keys are honoured only from the
user's own config (see below).

This module is imported by the hooks: no imports at all, no ``typing`` at run time.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Setting:
    """One key of ``.learnings/config.toml`` (dotted: ``"section.name"``)."""

    __slots__ = ("choices", "default", "doc", "key", "max", "min", "personal", "project", "type")

    def __init__(
        self,
        key: str,
        type: type,
        default: Any,
        doc: str,
        *,
        min: float | None = None,
        max: float | None = None,
        project: tuple[float, float] | None = None,
        choices: tuple[str, ...] = (),
        personal: bool = False,
    ) -> None:
        self.key = key
        self.type = type
        self.default = default
        self.doc = doc
        self.min = min
        self.max = max
        self.project = project
        self.choices = choices
        self.personal = personal

    def __repr__(self) -> str:
        return f"Setting({self.key!r}, default={self.default!r})"


CLAUDE_RULES_TARGET = ".claude/rules/self-improve.md"
"""Claude Code's default target: a rules file of ours, which Claude Code loads like CLAUDE.md
(``.claude/rules/*.md``), so that no default edits the user's own CLAUDE.md."""

SETTINGS: tuple[Setting, ...] = (
    Setting("log.similarity_threshold", float, 0.8, "Jaccard similarity of case-folded summary words at or above which `log` merges into an existing entry that has no Pattern-Key match.", min=0.0, max=1.0, project=(0.5, 1.0)),
    Setting("log.extra_areas", list, [], "Areas `log --area` accepts besides the reference ones (frontend, backend, infra, tests, docs, config)."),
    Setting("log.max_occurrences", int, 20, "Occurrences kept per entry (date and task); older ones are folded into the totals.", min=1, max=1000, project=(5, 100)),
    Setting("hooks.enabled_without_learnings", bool, False, "Let the hooks act in projects that have no .learnings/ (default: opt-in per project via `self-improve init`).", personal=True),
    Setting("hooks.record_errors", bool, True, "post-bash records each detected error as an occurrence in ERRORS.md."),
    Setting("hooks.recall", bool, True, "post-bash injects the one known fix for a recurring Pattern-Key (just-in-time recall)."),
    Setting("hooks.max_fix_chars", int, 240, "Cap on the known-fix text injected by recall.", min=20, max=240, personal=True),
    Setting("reminder.mode", str, "adaptive", "every | adaptive | off. adaptive: first prompt of a session, then after N prompts, after a detected error, or on a correction.", choices=("every", "adaptive", "off"), personal=True),
    Setting("reminder.every_n_prompts", int, 10, "In adaptive mode, remind again after this many prompts.", min=1, max=1000, personal=True),
    Setting("state.session_ttl_days", int, 7, "Per-session hook state older than this is pruned.", min=1, max=3650, personal=True),
    Setting("corrections.queue", bool, True, "prompt-submit keeps each correction it detects (a redacted excerpt of at most 200 characters, the session, the date) in .learnings/.state/corrections.jsonl until a lesson is logged for it; review lists them. Personal: what is kept of your prompts is yours to decide.", personal=True),
    Setting("corrections.queue_max", int, 50, "Most corrections kept in that queue; the oldest are dropped first.", min=1, max=200, personal=True),
    Setting("promotion.min_occurrences", int, 3, "Occurrences within the window needed to propose promotion.", min=1, max=1000, project=(2, 1000)),
    Setting("promotion.min_tasks", int, 2, "Distinct tasks (sessions) among those occurrences.", min=1, max=1000, project=(2, 1000)),
    Setting("promotion.window_days", int, 30, "The window, in days, counted back from today.", min=1, max=3650, project=(1, 365)),
    Setting("promotion.require_approval", bool, True, "`promote` refuses without --yes unless it runs on a TTY. Personal: honoured only from the user-level config.", personal=True),
    Setting("promotion.agent_may_promote", bool, False, "Let promote, review --yes and extract-skill change instruction files when run from inside an agent session (default: they only propose). Personal.", personal=True),
    Setting("promotion.max_rule_chars", int, 200, "Longest rule that may be promoted.", min=20, max=200, project=(20, 200)),
    Setting("forgetting.archive_after_days", int, 90, "Closed entries (resolved, wont_fix, retired) unseen this long are archive candidates.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.decay_after_days", int, 180, "Pending entries unseen this long stop counting towards promotion.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.stale_after_days", int, 180, "No longer used: age alone never retires a promoted rule (only evidence does: harm outweighing help, a successor, its subject gone). Kept so configs that set it stay valid.", min=1, max=36500, project=(7, 3650)),
    Setting("forgetting.max_active_entries", int, 200, "Above this many active entries, review lists the lowest-value ones for archiving.", min=1, max=1000000, project=(10, 100000)),
    Setting("trust.safe_directories", list, [], "Directories whose .learnings/ is trusted even when another user owns it (like git's safe.directory; \"*\" trusts all). User-level config only.", personal=True),
    Setting("targets.learning", str, CLAUDE_RULES_TARGET, "Default promotion target for learnings (a file of ours that Claude Code reads like CLAUDE.md; set CLAUDE.md to write there)."),
    Setting("targets.error", str, CLAUDE_RULES_TARGET, "Default promotion target for errors (a file of ours that Claude Code reads like CLAUDE.md; set CLAUDE.md to write there)."),
    Setting("targets.feature", str, CLAUDE_RULES_TARGET, "Default promotion target for feature requests (a file of ours that Claude Code reads like CLAUDE.md; set CLAUDE.md to write there)."),
    Setting("targets.workflow_areas", list, ["infra", "config", "tests"], "Areas whose rules are workflows, promoted to targets.workflow instead."),
    Setting("targets.workflow", str, "AGENTS.md", "Default promotion target for workflows (entries of an area in targets.workflow_areas)."),
    Setting("targets.openclaw_behaviour", str, "SOUL.md", "In an OpenClaw workspace (SOUL.md or IDENTITY.md at the root): target for behaviour, i.e. learnings of a category in targets.behaviour_categories."),
    Setting("targets.openclaw_default", str, "AGENTS.md", "In an OpenClaw workspace: target for everything else, tool gotchas included (OpenClaw does not read TOOLS.md)."),
    Setting("targets.behaviour_categories", list, ["correction", "best_practice"], "Learning categories that describe the agent's behaviour (SOUL.md in an OpenClaw workspace)."),
)
SETTINGS_BY_KEY: dict[str, Setting] = {setting.key: setting for setting in SETTINGS}
# Free-form tables passed to other modules as they are (their schema is documented there).
FREE_TABLES = ("detect",)


def default(key: str) -> Any:
    """The documented default of ``key`` (a fresh list for a list: callers may change it).

    An unknown key is a programming error: ``KeyError``.
    """
    value = SETTINGS_BY_KEY[key].default
    return list(value) if isinstance(value, list) else value


def defaults() -> dict[str, Any]:
    """Every default as a nested table (``{"section": {"name": value}}``), free tables empty."""
    out: dict[str, Any] = {}
    for setting in SETTINGS:
        section, name = setting.key.split(".", 1)
        out.setdefault(section, {})[name] = default(setting.key)
    for table in FREE_TABLES:
        out.setdefault(table, {})
    return out


# ---- what a project may set ---------------------------------------------------------------------
#
# What a project's ``.learnings/config.toml`` may set, and what only the user's own config may.
#
# A project's config arrives with the repository: whoever can push to it, or open a pull request,
# wrote it. So the settings that decide what reaches the model, how much of it, whether a human
# must approve a change to the user's instruction files, and how long local state lives are
# *personal*: they are honoured only from the user-level config
# (``$XDG_CONFIG_HOME/self-improve/config.toml``) or the user-wide store's own config. A project
# may tune detection and thresholds, each clamped to a safe range.
#
# The effective configuration is: documented defaults, overlaid with the user-level config (all
# keys), overlaid with the project's config (non-personal keys only, clamped). What was ignored or
# clamped is returned so that ``doctor`` can list it.

# Settings a project's config may not set (honoured only from the user's own config).
PERSONAL = frozenset(setting.key for setting in SETTINGS if setting.personal)

# Sections of which a project may set nothing at all.
PERSONAL_SECTIONS = frozenset({"trust"})

# [detect] keys a project may set: switching builtin rules off and ignoring output only ever make
# the hooks say less. New rules carry titles that reach the model in every nudge: personal.
PROJECT_DETECT_KEYS = frozenset({"disable", "ignore"})

# (lowest, highest) a project's value is clamped into (``Setting.project``). The low ends keep
# the evidence rule meaningful (a repo cannot make one occurrence a promotion candidate); the
# high ends keep the work bounded.
BOUNDS: dict[str, tuple[float, float]] = {
    setting.key: setting.project for setting in SETTINGS if setting.project is not None
}


def is_personal(section: str, name: str) -> bool:
    return section in PERSONAL_SECTIONS or f"{section}.{name}" in PERSONAL


def overlay_user(merged: dict[str, Any], user: dict[str, Any]) -> None:
    """The user's own config: every key is honoured (types are checked by the caller)."""
    for section, table in user.items():
        if not isinstance(table, dict):
            continue
        target = merged.setdefault(section, {})
        if section == "detect" and isinstance(target, dict):
            _merge_detect(target, table)
            continue
        target.update(table)


def overlay_project(merged: dict[str, Any], project: dict[str, Any]) -> list[str]:
    """The project's config, less what it may not set; returns one line per key ignored or clamped."""
    ignored: list[str] = []
    for section, table in project.items():
        if not isinstance(table, dict):
            continue
        if section == "detect":
            allowed = {k: v for k, v in table.items() if k in PROJECT_DETECT_KEYS}
            ignored.extend(f"detect.{k}: only the user-level config may add detection rules" for k in table if k not in allowed)
            _merge_detect(merged.setdefault("detect", {}), allowed)
            continue
        target = merged.setdefault(section, {})
        for name, value in table.items():
            key = f"{section}.{name}"
            if is_personal(section, name):
                ignored.append(f"{key}: personal, honoured only from the user-level config")
                continue
            clamped = _clamp(key, value)
            if clamped is not value:
                ignored.append(f"{key}: {value!r} is out of bounds, {clamped!r} used")
            target[name] = clamped
    return ignored


def _clamp(key: str, value: Any) -> Any:
    bounds = BOUNDS.get(key)
    if bounds is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    low, high = bounds
    if value < low:
        return type(value)(low)
    if value > high:
        return type(value)(high)
    return value


def _merge_detect(target: dict[str, Any], table: dict[str, Any]) -> None:
    """Lists (disable, ignore, rules) from both configs add up; anything else: the later wins."""
    for key, value in table.items():
        current = target.get(key)
        if isinstance(current, list) and isinstance(value, list):
            target[key] = [*current, *value]
        else:
            target[key] = value
