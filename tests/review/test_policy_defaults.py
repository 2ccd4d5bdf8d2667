"""The policy's defaults are the settings table's: one copy of every default (store/settings.py)."""

from __future__ import annotations

from dataclasses import fields

from self_improve.review.policy import Policy, TargetTable
from self_improve.store import settings


def test_policy_defaults_are_the_settings_table_defaults() -> None:
    assert Policy() == Policy.from_settings(settings.default)
    assert TargetTable() == TargetTable.from_settings(settings.default)


def test_every_policy_field_names_a_known_setting() -> None:
    for cls in (Policy, TargetTable):
        for field in fields(cls):
            key = field.metadata["key"]
            assert key in settings.SETTINGS_BY_KEY, key
            expected = settings.default(key)
            actual = getattr(cls(), field.name)
            assert (list(actual) if isinstance(actual, tuple) else actual) == expected, key

