"""The hooks read every setting's default from the one table (store/settings.py)."""

from __future__ import annotations

import pytest

from self_improve.detect.sanitise import MAX_INJECTED_CHARS
from self_improve.hooks import state
from self_improve.store.settings import SETTINGS, default

HOOK_KEYS = ("hooks.recall", "hooks.max_fix_chars", "reminder.mode", "reminder.every_n_prompts",
             "state.session_ttl_days", "hooks.enabled_without_learnings", "trust.safe_directories")


@pytest.mark.parametrize("key", HOOK_KEYS)
def test_a_missing_setting_is_the_tables_default(key: str) -> None:
    assert state._setting({}, key) == default(key)


@pytest.mark.parametrize("key", [setting.key for setting in SETTINGS])
def test_a_value_of_the_wrong_type_falls_back_to_the_default(key: str) -> None:
    section, _, name = key.partition(".")
    assert state._setting({section: {name: object()}}, key) == default(key)


def test_a_set_value_of_the_right_type_wins() -> None:
    assert state._setting({"reminder": {"every_n_prompts": 3}}, "reminder.every_n_prompts") == 3


def test_the_recalled_fix_cap_defaults_to_the_sanitisers_bound() -> None:
    assert default("hooks.max_fix_chars") == MAX_INJECTED_CHARS
