"""Review per fingerprint: class-level entries are listed, never proposed; class figures are for people."""

from __future__ import annotations

from self_improve.detect.rules import class_keys, load_rules
from self_improve.review.candidates import plan_review, promote_candidates
from self_improve.review.fingerprints import class_aggregates, class_level_entries, is_class_level, subjects_seen
from self_improve.review.policy import Policy, TargetTable
from self_improve.review.report import render_listing, review_json
from self_improve.store.entry import Entry, parse_text
from tests.helpers import TODAY, entry_text

CLASSES = class_keys()
POLICY = Policy()
TARGETS = TargetTable()
THREE_IN_TWO = ((5, "t1"), (4, "t2"), (3, "t2"))


def hook_entry(entry_id: str, key: str, first: str, last: str = "", *, command: str = "python3 app.py",
               occurrences: tuple[tuple[int, str], ...] = THREE_IN_TWO, source: str = "error") -> Entry:
    """An entry as the hooks wrote them: Error section (the first excerpt), Context, Last-Excerpt."""
    meta = [("Source", source)] + ([("Last-Excerpt", last)] if last else [])
    text = entry_text(entry_id, "Module or package not found", category="python3", pattern_key=key,
                      action="pip install pyyaml", occurrences=occurrences, meta=meta)
    text = text.replace("### Metadata", f"### Error\n```\n{first}\n```\n\n### Context\nCommand: `{command}` (exit 1)\n\n### Metadata")
    (entry,) = parse_text(text).entries
    return entry


YAML = "ModuleNotFoundError: No module named 'yaml'"
NUMPY = "ModuleNotFoundError: No module named 'numpy'"


def test_the_class_keys_are_the_detectors() -> None:
    assert CLASSES == load_rules().keys


def test_an_old_hook_entry_counted_by_class_is_class_level_and_shows_its_subjects() -> None:
    mixed = hook_entry("ERR-20261101-aaa", "deps.module-not-found", YAML, NUMPY)
    assert is_class_level(mixed, CLASSES)
    assert subjects_seen(mixed) == ("python:yaml", "python:numpy")
    single = hook_entry("ERR-20261101-bbb", "deps.module-not-found", YAML, YAML)
    assert subjects_seen(single) == ("python:yaml",)
    (first, second) = class_level_entries([single, mixed], CLASSES)
    assert (first.entry.id, first.mixed, second.entry.id, second.mixed) == ("ERR-20261101-aaa", True, "ERR-20261101-bbb", False)


def test_fingerprinted_agent_made_and_custom_keyed_entries_are_not_class_level() -> None:
    assert not is_class_level(hook_entry("ERR-20261101-aaa", "deps.module-not-found/python:yaml", YAML), CLASSES)
    assert not is_class_level(hook_entry("ERR-20261101-bbb", "deps.module-not-found", YAML, source="conversation"), CLASSES)
    assert not is_class_level(hook_entry("ERR-20261101-ccc", "tooling.package-manager", YAML), CLASSES)


def test_review_never_proposes_a_class_level_entry_but_proposes_the_mistake() -> None:
    old = hook_entry("ERR-20261101-aaa", "deps.module-not-found", YAML, NUMPY)
    new = hook_entry("ERR-20261101-bbb", "deps.module-not-found/python:yaml", YAML, YAML)
    found = promote_candidates([old, new], TODAY, POLICY, TARGETS, False, CLASSES)
    assert [c.entry.id for c in found] == ["ERR-20261101-bbb"]
    assert [c.entry.id for c in promote_candidates([old, new], TODAY, POLICY, TARGETS, False)] == [
        "ERR-20261101-aaa", "ERR-20261101-bbb"]  # without the classes, as a plain reference-format store


def test_class_aggregates_count_different_mistakes_in_the_window_only() -> None:
    entries = [
        hook_entry("ERR-20261101-aaa", "deps.module-not-found/python:yaml", YAML, occurrences=((1, "t1"), (2, "t2"))),
        hook_entry("ERR-20261101-bbb", "deps.module-not-found/python:numpy", NUMPY, occurrences=((3, "t1"),)),
        hook_entry("ERR-20261101-ccc", "deps.module-not-found/node:esbuild", YAML, occurrences=((40, "t1"),)),  # outside 30 days
        hook_entry("ERR-20261101-ddd", "shell.command-not-found/docker", YAML, occurrences=((1, "t1"),)),  # one mistake only
        hook_entry("ERR-20261101-eee", "deps.module-not-found", YAML, occurrences=((1, "t1"),)),  # no subject: not counted
    ]
    (aggregate,) = class_aggregates(entries, TODAY, 30)
    assert (aggregate.pattern_key, aggregate.mistakes, aggregate.occurrences, aggregate.subjects) == (
        "deps.module-not-found", 2, 3, ("python:yaml", "python:numpy"))


def test_review_json_and_listing_show_class_level_entries_and_aggregates() -> None:
    entries = [
        hook_entry("ERR-20261101-aaa", "deps.module-not-found", YAML, NUMPY),
        hook_entry("ERR-20261101-bbb", "deps.module-not-found/python:yaml", YAML, occurrences=((1, "t1"),)),
        hook_entry("ERR-20261101-ccc", "deps.module-not-found/python:numpy", NUMPY, occurrences=((2, "t1"),)),
    ]
    plan = plan_review(entries, TODAY, POLICY, TARGETS, False, CLASSES)
    out = review_json(plan, [], POLICY)
    assert out["promote"] == []
    assert out["class_level"] == [{
        "id": "ERR-20261101-aaa", "pattern_key": "deps.module-not-found", "occurrences": 3,
        "subjects": ["python:yaml", "python:numpy"], "mixed": True,
        "reason": "counts 2 different mistakes (python:yaml, python:numpy) under one class: split it or archive it; "
                  "it is not proposed as a rule",
    }]
    assert out["classes"] == [{"pattern_key": "deps.module-not-found", "mistakes": 2, "occurrences": 2, "window_days": 30,
                               "subjects": ["python:numpy", "python:yaml"]}]
    listing = render_listing(plan, [], POLICY, "")
    assert "  ERR-20261101-aaa  [deps.module-not-found]  counts 2 different mistakes (python:yaml, python:numpy)" in listing
    assert "  deps.module-not-found: 2 different mistakes, 2 occurrences in 30 days (python:numpy, python:yaml)\n" in listing
