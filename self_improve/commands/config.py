"""``self-improve config list|get|set``: documented defaults overlaid with ``.learnings/config.toml``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from self_improve.store import config as config_mod
from self_improve.store import settings
from self_improve.atomic import atomic_write
from self_improve.changes import PlannedChange
from self_improve.commands._common import add_dry_run_flag, add_json_flag, store_from
from self_improve.errors import UsageError
from self_improve.output import print_json
from self_improve.paths import user_config_path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "config", help="show or change settings in .learnings/config.toml",
        epilog="examples:\n"
        "  self-improve config list\n"
        "  self-improve config set promotion.min_occurrences 2",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="every setting, its value and what it does")
    add_json_flag(listing)
    get = actions.add_parser("get", help="one setting's value")
    get.add_argument("key")
    add_json_flag(get)
    set_ = actions.add_parser("set", help="change one setting (edits one line; comments stay)")
    set_.add_argument("key")
    set_.add_argument("value")
    set_.add_argument("--user", action="store_true", help="write the user-level config (the only place personal settings are honoured)")
    add_dry_run_flag(set_)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = store_from(args)
    if args.action == "list":
        config = store.config
        rows = [
            {"key": s.key, "value": config_mod.get(config, s.key), "default": s.default, "doc": s.doc}
            for s in config_mod.SETTINGS
        ]
        if args.json:
            print_json(rows)
        else:
            for row in rows:
                marker = "" if row["value"] == row["default"] else "  (set)"
                print(f"{row['key']} = {json.dumps(row['value'])}{marker}\n    {row['doc']}")
        return 0
    if args.action == "get":
        value = config_mod.get(store.config, args.key)
        if args.json:
            print_json(value)
        else:
            print(value if isinstance(value, str) else json.dumps(value))
        return 0
    value = config_mod.parse_value(args.key, args.value)
    section, _, name = args.key.partition(".")
    if args.user:
        path = Path(user_config_path())
    else:
        store._require()
        if store.scope == "project" and settings.is_personal(section, name):
            raise UsageError(
                f"{args.key} is personal: a project's config cannot set it (it arrives with the repository); "
                f"use `self-improve config set --user {args.key} {args.value}`"
            )
        bounds = settings.BOUNDS.get(args.key)
        if store.scope == "project" and bounds is not None and not bounds[0] <= value <= bounds[1]:
            # Loading would clamp it: say so now rather than have another value apply in silence.
            raise UsageError(
                f"{args.key} takes {bounds[0]} to {bounds[1]} in a project's config (it arrives with the repository), "
                f"not {args.value!r}; `self-improve config set --user {args.key} {args.value}` sets it for you alone"
            )
        path = config_mod.config_path(store.dir)
    config_mod.read_user_config(path)  # refuse to edit a corrupt file
    original = path.read_bytes().decode("utf-8") if path.exists() else ""
    updated = config_mod.set_value_text(original, args.key, value)
    config_mod.read_user_config_text(updated, path)
    if args.dry_run:  # every check above ran: the diff is exactly what the write would do
        before = original.encode("utf-8") if path.exists() else None
        label_root = Path("/") if args.user else store.root  # the user's file absolute, as the installer names it
        sys.stdout.write(PlannedChange(path, before, updated.encode("utf-8")).diff(label_root))
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, updated.encode("utf-8"))
    print(f"{args.key} = {json.dumps(value)}")
    return 0
