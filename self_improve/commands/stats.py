"""``self-improve stats [--json]``: what the loop has done so far, at a glance.

- entries by kind and status (archived ones included);
- the top recurring Pattern-Keys, with a small bar chart;
- the nudges the hooks fired (their counters in ``.learnings/.state/counters.json``);
- who recorded the entries and their occurrences (``review/stats_figures.py``, from this machine's
  provenance ledger): the hooks, the agent or user, or nobody here; so the nudges fired can be read
  against the lessons logged;
- rules promoted and retired (from the entries), and the promote / retire /
  archive / restore actions this tool counted itself (in the same counters file, under the same
  lock the hooks use); ``n/a`` where nothing was ever counted;
- efficacy per promoted rule (``review/efficacy.py``): its fingerprint's occurrences per session
  before and after ``Promoted-On``, the sessions seen since, helpful and harmful as marked and as
  measured (``unknown`` for a rule promoted before Promoted-On was written);
- the oldest pending entries.

``--injected`` shows instead what the hooks told the agent: the journal the hooks keep of every
block they printed for the model (``store/injections.py``: the newest 200, each cut at 2,000
characters), newest last; ``--since DAY`` keeps those of that UTC day and after. With
``--scope user`` it is the journal of the hooks acting without a project store
(``hooks.enabled_without_learnings``), in the user's state dir.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import Any

from self_improve.commands._common import add_hidden_test_flags, add_json_flag, add_scope_flag, store_from, today_from
from self_improve.detect.pattern_keys import folded
from self_improve.errors import UsageError
from self_improve.output import colour, print_json
from self_improve.review.efficacy import efficacy, efficacy_lines
from self_improve.review.stats_figures import origin_lines, origins
from self_improve.store import archive as archive_mod
from self_improve.store import counters, injections, provenance
from self_improve.store.counters import HOOK_COUNTERS as COUNTER_NAMES
from self_improve.store.entry import KINDS, STATUSES, Entry
from self_improve.store.store import Store
from self_improve.store.trust import StoreDir

NUDGE_NAMES = tuple(name for name in COUNTER_NAMES if name not in ("errors_recorded", "errors_scanned"))  # counts, not nudges
ACTION_COUNTER_NAMES = ("rules_promoted", "rules_retired", "entries_archived", "entries_restored")
KIND_LABELS = {"learning": "learnings", "error": "errors", "feature": "feature requests"}
TOP_PATTERN_KEYS = 10
OLDEST_PENDING = 5
BAR_WIDTH = 20


# ---- our own counters ----------------------------------------------------------------------------


def _counters(store: Store) -> dict[str, Any] | None:
    """The counters file (the hooks' and ours), read without following links; None if unreadable."""
    return counters.read(store.fs)


def _named_counters(store: Store, names: Iterable[str]) -> dict[str, int] | None:
    """These counters of the shared file, or None when none of them was ever counted."""
    data = _counters(store)
    wanted = tuple(names)
    if data is None or not any(name in data for name in wanted):
        return None
    return {name: _int(data.get(name)) for name in wanted}


def read_action_counters(store: Store) -> dict[str, int] | None:
    """Our action counters, or None when no action was ever counted."""
    return _named_counters(store, ACTION_COUNTER_NAMES)


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


# ---- the numbers -----------------------------------------------------------------------------------


def _by_kind_and_status(entries: Iterable[Entry]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {kind: {} for kind in KINDS}
    for entry in entries:
        statuses = table.setdefault(entry.kind or "unknown", {})
        statuses[entry.status] = statuses.get(entry.status, 0) + 1
    order = {status: i for i, status in enumerate(STATUSES)}
    return {kind: dict(sorted(counts.items(), key=lambda item: (order.get(item[0], 99), item[0]))) for kind, counts in table.items()}


def _pattern_keys(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    keys: dict[str, dict[str, Any]] = {}
    for entry in entries:
        key = entry.pattern_key
        if not key:
            continue
        item = keys.setdefault(folded(key), {"pattern_key": key, "occurrences": 0, "entries": 0, "ids": []})
        item["occurrences"] += entry.recurrence_count
        item["entries"] += 1
        item["ids"].append(entry.id)
    ranked = sorted(keys.values(), key=lambda item: (-item["occurrences"], item["pattern_key"]))
    return [item for item in ranked if item["occurrences"] > 1][:TOP_PATTERN_KEYS]


def collect(store: Store) -> dict[str, Any]:
    store._require()
    entries = store.entries()
    archived_items = archive_mod.archived_entries(store)
    archived = [item.entry for item in archived_items]
    retired_then_archived = sum(
        1 for item in archived_items if item.record is not None and item.record.status.strip().casefold() == "retired"
    )
    pending = sorted(
        (entry for entry in entries if entry.status == "pending"),
        key=lambda entry: (entry.first_seen or "9999", entry.id),
    )
    hooks = _named_counters(store, COUNTER_NAMES)  # the hooks' nudges share the file with our actions
    return {
        "entries": _by_kind_and_status([*entries, *archived]),
        "total": len(entries) + len(archived),
        "pattern_keys": _pattern_keys(entries),
        "hooks": hooks,
        # Every entry, whoever logged it (kept as it was for --json readers); "origin" splits it.
        "logged": {
            "entries": len(entries) + len(archived),
            "occurrences": sum(entry.recurrence_count for entry in [*entries, *archived]),
        },
        "origin": origins([*entries, *archived], provenance.Ledger.load(str(store.root))),
        "rules": {
            "promoted": sum(1 for entry in entries if entry.status == "promoted"),
            "retired": sum(1 for entry in entries if entry.status == "retired") + retired_then_archived,
            "skills": sum(1 for entry in entries if entry.status == "promoted_to_skill"),
            "actions": read_action_counters(store),
        },
        "efficacy": [item.as_json() for item in efficacy(entries, archived)],
        "oldest_pending": [
            {"id": e.id, "kind": e.kind, "summary": e.summary, "first_seen": e.first_seen, "last_seen": e.last_seen}
            for e in pending[:OLDEST_PENDING]
        ],
    }


# ---- text ------------------------------------------------------------------------------------------


def bar(value: int, largest: int, width: int = BAR_WIDTH) -> str:
    encoding = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "").replace("_", "")
    block = "█" if encoding in ("utf8", "utf8mb4") else "#"
    size = max(1, round(width * value / largest)) if largest else 0
    return block * size


def render(stats: dict[str, Any]) -> str:
    lines = [colour(f"Entries: {stats['total']}", "bold")]
    width = max(len(label) for label in KIND_LABELS.values())
    for kind, counts in stats["entries"].items():
        total = sum(counts.values())
        detail = ", ".join(f"{status} {n}" for status, n in counts.items())
        label = KIND_LABELS.get(kind, kind)
        lines.append(f"  {label:<{width}}  {total:>4}{'  ' + detail if detail else ''}")
    lines.append("")
    lines.append(colour("Top recurring Pattern-Keys", "bold"))
    keys = stats["pattern_keys"]
    if keys:
        key_width = max(len(item["pattern_key"]) for item in keys)
        largest = max(item["occurrences"] for item in keys)
        for item in keys:
            chart = bar(item["occurrences"], largest)
            lines.append(f"  {item['pattern_key']:<{key_width}}  {chart:<{BAR_WIDTH}}  {item['occurrences']}")
    else:
        lines.append("  none recur yet")
    lines.append("")
    hooks = stats["hooks"]
    if hooks is None:
        lines.append("Nudges fired: n/a")
    else:
        # Recording an error is no nudge: its count goes with what the hooks recorded, below.
        fired = ", ".join(f"{name.replace('_', ' ')} {hooks[name]}" for name in NUDGE_NAMES)
        lines.append(f"Nudges fired: {fired}")
    lines += origin_lines(stats["origin"], hooks)
    rules = stats["rules"]
    actions = rules["actions"]
    counted = (
        "n/a"
        if actions is None
        # "name count", as on the nudges' line: "2 promote" would not read.
        else f"promote {actions['rules_promoted']}, retire {actions['rules_retired']}, "
        f"archive {actions['entries_archived']}, restore {actions['entries_restored']}"
    )
    lines.append(
        f"Rules: {rules['promoted']} promoted, {rules['retired']} retired, {rules['skills']} extracted to skills"
        f" (actions counted: {counted})"
    )
    lines.append("")
    lines.append(colour("Efficacy per promoted rule", "bold"))
    lines += efficacy_lines(stats["efficacy"]) or ["  no promoted rule"]
    lines.append("")
    lines.append(colour("Oldest pending", "bold"))
    if stats["oldest_pending"]:
        for item in stats["oldest_pending"]:
            lines.append(f"  {item['id']}  {item['first_seen'] or '?':<10}  {item['summary']}")
    else:
        lines.append("  none")
    return "\n".join(lines) + "\n"


# ---- --injected: what the hooks told the agent ----------------------------------------------------

NOTHING_INJECTED = "nothing injected yet"


def _since(value: str | None) -> str:
    """``--since DAY`` as the ISO day a record's time must not sort before ("" without it)."""
    if value is None:
        return ""
    from datetime import date

    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        raise UsageError(f"--since must be a day YYYY-MM-DD, not {value!r}") from None


def journal_fs(args: argparse.Namespace) -> tuple[StoreDir, str]:
    """(the directory, the state prefix) of the journal ``--scope`` names: the project's
    ``.learnings/.state/``, or the user's state dir, where the hooks keep their state when they
    act without a project store (``hooks/state.Context.for_cwd``)."""
    if getattr(args, "scope", None) == "user":
        from self_improve.paths import user_state_dir

        return StoreDir(user_state_dir()), ""
    store = store_from(args)
    store._require()
    return store.fs, injections.STATE


def injected(args: argparse.Namespace, since: str = "") -> list[dict[str, Any]]:
    """The journal's records (``Injection.as_json``), oldest first, from the day ``since`` on."""
    fs, state = journal_fs(args)
    return [record.as_json() for record in injections.read(fs, state) if record.time >= since]


def render_injected(records: list[dict[str, Any]], since: str = "") -> str:
    """One header line per record (``2026-12-01 14:03 UTC  post-bash  claude  session 1a2b3c4d``),
    then its block indented by two spaces; newest last."""
    if not records:
        return (f"nothing injected since {since}" if since else NOTHING_INJECTED) + "\n"
    lines = []
    for record in records:
        day, clock = record["time"][:10], record["time"][11:16]
        session = record["session"][:8] or "-"
        lines.append(f"{day} {clock} UTC  {record['hook']}  {record['harness']}  session {session}")
        lines += [f"  {_printable(line)}" if line else "" for line in record["text"].split("\n")]
        if record["truncated"]:
            lines.append(f"  [cut at {injections.MAX_TEXT_CHARS:,} characters]")
    return "\n".join(lines) + "\n"


def _printable(line: str) -> str:
    """``line`` with each control character spelled as an escape: the journal holds our own
    sanitised text, but a terminal must never receive an escape sequence from a file."""
    if line.isprintable():
        return line
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in line)


def run_injected(args: argparse.Namespace) -> int:
    since = _since(args.since)  # a malformed day is refused before anything is read
    records = injected(args, since)
    if args.json:
        print_json(records)
    else:
        sys.stdout.write(render_injected(records, since))
    return 0


# ---- the verb ------------------------------------------------------------------------------------


def run_curve(args: argparse.Namespace) -> int:
    """``--curve``: the series of ``review/curve.py``, drawn for the terminal or as JSON."""
    from datetime import date

    from self_improve.review.curve_text import curve_json, curve_main

    since_text = _since(args.since)  # a malformed day is refused before anything is read
    since = date.fromisoformat(since_text) if since_text else None
    today = today_from(args)
    if since is not None and since > today:
        raise UsageError(f"--since {since_text} is after today ({today.isoformat()})")
    store = store_from(args)
    store._require()
    if args.json:
        print_json(curve_json(store, since, args.by or "week", today))
    else:
        sys.stdout.write(curve_main(store, since, args.by or "week", today))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stats", help="entries by kind and status, top Pattern-Keys, nudges, rules",
        epilog="examples:\n"
        "  self-improve stats --curve --by day --since 2026-11-01\n"
        "  self-improve stats --injected --since 2026-12-01",
    )
    add_json_flag(parser)
    add_scope_flag(parser)
    parser.add_argument("--injected", action="store_true",
                        help="show what the hooks told the agent (their journal: the newest 200 blocks), newest last")
    parser.add_argument("--curve", action="store_true",
                        help="the learning curve: mistakes, repeats, fixed in time, rules promoted and retired, per week or day")
    parser.add_argument("--by", choices=("week", "day"), default=None,
                        help="with --curve: one row per ISO week (Monday start, the default) or per day")
    parser.add_argument("--since", metavar="DAY", default=None,
                        help="with --injected or --curve: from that UTC day (YYYY-MM-DD) on")
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.injected and args.curve:
        raise UsageError("--injected and --curve are two views: choose one")
    if args.since is not None and not (args.injected or args.curve):
        raise UsageError("--since goes with --injected or --curve")
    if args.by is not None and not args.curve:
        raise UsageError("--by goes with --curve")
    if args.injected:
        return run_injected(args)
    if args.curve:
        return run_curve(args)
    stats = collect(store_from(args))
    if args.json:
        print_json(stats)
    else:
        sys.stdout.write(render(stats))
    return 0
