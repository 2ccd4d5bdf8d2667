"""``self-improve import FILE``: merge exported entries into this store (``-`` reads stdin).

FILE is what ``self-improve export`` printed: Markdown entries, or the ``--json`` array (only each
object's ``text`` is read). Each entry merges as ``log`` would merge it -- see
:mod:`self_improve.store.bulk` for the rules -- and importing the same file twice changes nothing
the second time. The whole import is refused, with nothing written, if one entry has no valid ID.

A ``promoted`` (or ``promoted_to_skill``) entry whose rule is in no instruction file of this
project is imported as ``pending``, with ``- Imported-Status: promoted`` in its Metadata and a
note naming ``self-improve promote``: its rule stayed in the other project's files, and a status
without its rule is one ``lint`` would report. Its previous status is not known, and ``pending``
is the one that lets ``review`` propose it again. Where the rule is here already, it stays
``promoted``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from self_improve.commands._common import add_json_flag, add_scope_flag, store_from
from self_improve.errors import SelfImproveError
from self_improve.output import print_json
from self_improve.review.drift import RULE_STATUSES, rule_files_by_id
from self_improve.store.bulk import import_entries
from self_improve.store.entry import Entry, parse_text, split_lines
from self_improve.store.store import Store

IMPORTED_STATUS = "Imported-Status"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import", help="merge entries exported by `self-improve export` into this store",
        epilog="examples:\n"
        "  self-improve import learnings.json --dry-run\n"
        "  self-improve import - < learnings.md",
    )
    parser.add_argument("file", help="an export (Markdown or --json); - for stdin")
    parser.add_argument("--dry-run", action="store_true", help="say what would happen, write nothing")
    add_scope_flag(parser)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def read_export(text: str, source: str = "") -> list[Entry]:
    """Entries from an export: a JSON array of objects with ``text``, or Markdown entries."""
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SelfImproveError(f"{source}: not valid JSON ({exc})") from None
        entries: list[Entry] = []
        for n, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise SelfImproveError(f"{source}: item {n} has no \"text\" string (expected `self-improve export --json`)")
            parsed = parse_text(item["text"])
            if len(parsed.entries) != 1:
                raise SelfImproveError(f"{source}: item {n}'s text holds {len(parsed.entries)} entries, expected 1")
            entries.append(parsed.entries[0])
        return entries
    return [Entry(tuple(split_lines(entry.text))) for entry in parse_text(text).entries]


def _read_source(name: str) -> str:
    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    return Path(name).read_bytes().decode("utf-8", "surrogateescape")


def rule_ids(store: Store) -> set[str]:
    """The IDs (upper case) that have a rule bullet in one of this project's instruction files."""
    return set(rule_files_by_id(store)) if store.exists() else set()


def without_ruleless_promotions(store: Store, entries: list[Entry]) -> tuple[list[Entry], dict[str, str]]:
    """The entries with each promotion that has no rule here turned into ``pending`` (see the
    module docstring), and those entries' IDs with the status they came with."""
    live = rule_ids(store)
    out: list[Entry] = []
    demoted: dict[str, str] = {}
    for entry in entries:
        if entry.status in RULE_STATUSES and entry.id.upper() not in live:
            demoted[entry.id] = entry.status
            entry = entry.with_status("pending").with_metadata(IMPORTED_STATUS, entry.status)
        out.append(entry)
    return out, demoted


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    entries = read_export(_read_source(args.file), "stdin" if args.file == "-" else args.file)
    entries, demoted = without_ruleless_promotions(store, entries)
    outcomes = import_entries(store, entries, dry_run=args.dry_run)
    if not args.dry_run:  # who brought them in, for `review`'s provenance (no local evidence)
        from self_improve.store import provenance
        from self_improve.store.store import utcnow

        landed = [(o.entry_id, o.action == "appended") for o in outcomes if o.action in ("appended", "merged")]
        provenance.record_import(str(store.root), landed, utcnow().strftime("%Y-%m-%d"))
    totals = Counter(outcome.action for outcome in outcomes)
    if args.json:
        print_json(
            {
                "outcomes": [outcome.as_json() for outcome in outcomes],
                "appended": totals["appended"],
                "merged": totals["merged"],
                "unchanged": totals["unchanged"],
                "imported_as_pending": sorted(demoted),
                "dry_run": args.dry_run,
            }
        )
        return 0
    for outcome in outcomes:
        reason = f" ({outcome.reason})" if outcome.reason else ""
        print(f"{outcome.source_id} {outcome.action}{_where(outcome.action, outcome.source_id, outcome.entry_id)}{reason}")
        if outcome.source_id in demoted and outcome.action != "unchanged":
            print(
                f"note: {outcome.source_id} was {demoted[outcome.source_id]} with no rule in this project: imported as pending "
                f"(`self-improve promote {outcome.entry_id}` writes its rule)"
            )
    suffix = " (dry run: nothing was written)" if args.dry_run else ""
    print(f"{len(outcomes)} entries: {totals['appended']} appended, {totals['merged']} merged, {totals['unchanged']} unchanged{suffix}")
    return 0


def _where(action: str, source_id: str, entry_id: str) -> str:
    if entry_id == source_id:
        return ""
    return {"merged": " into ", "appended": " as "}.get(action, " in ") + entry_id
