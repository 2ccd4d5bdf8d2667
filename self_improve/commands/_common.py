"""What several verbs share: finding the store, and the entry as a JSON object."""

from __future__ import annotations

import argparse
from typing import Any

from self_improve.store.location import find_root
from self_improve.store.entry import Entry
from self_improve.store.occurrences import distinct_tasks
from self_improve.store.store import Store


def store_from(args: argparse.Namespace) -> Store:
    if getattr(args, "scope", None) == "user":
        store = Store.user()
        if not store.exists():
            store.init()  # the user store needs no `init` ritual: it is created on first use
        return store
    store = Store(find_root(explicit=getattr(args, "root", None)))
    if store.dir.is_dir() or store.dir.is_symlink():
        store.check_trusted()  # the trust model holds for reading too: nothing of a link is read
    return store


def add_scope_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scope",
        choices=["project", "user"],
        default="project",
        help="project (.learnings/ of this project, the default) or user (~/.local/share/self-improve/, "
        "for lessons that belong to you, not to one project)",
    )


def selected_entries(args: argparse.Namespace, store: Store) -> list[Entry]:
    """The entries a listing verb shows: ``--kind`` and ``--status`` filters, in file order."""
    store._require()
    return [e for e in store.entries(args.kind) if args.status is None or e.status == args.status]


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def entry_json(entry: Entry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "kind": entry.kind,
        "category": entry.category,
        "status": entry.status,
        "priority": entry.priority,
        "area": entry.area,
        "summary": entry.summary,
        "pattern_key": entry.pattern_key,
        "recurrence_count": entry.recurrence_count,
        "tasks": distinct_tasks(entry.occurrences),
        "first_seen": entry.first_seen,
        "last_seen": entry.last_seen,
        "logged": entry.logged,
        "promoted": entry.promoted,
        "see_also": list(entry.see_also),
        "helpful": entry.helpful,
        "harmful": entry.harmful,
        "file": entry.file,
        "line": entry.line,
    }
