"""Suite-wide isolation: what the code keeps in the user's state dir (the registry of projects,
the hooks' debug log) goes to a temporary folder, never to the developer's home; the user-level
config is read from an empty temporary folder, never from the developer's own; ``HOME`` is an
empty temporary folder too, so the developer's own Claude Code or Codex install is not seen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def isolated_user_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    state = tmp_path_factory.mktemp("xdg-state")
    config = tmp_path_factory.mktemp("xdg-config")
    home = tmp_path_factory.mktemp("home")
    names = ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "HOME", "CODEX_HOME", "SELF_IMPROVE_TEST_CACHE")
    previous = {name: os.environ.get(name) for name in names}
    # The e2e clients stay cached where they were (in the developer's real home), not per run.
    os.environ.setdefault("SELF_IMPROVE_TEST_CACHE", str(Path.home() / ".cache" / "self-improve-tests"))
    os.environ["XDG_STATE_HOME"] = str(state)
    os.environ["XDG_CONFIG_HOME"] = str(config)
    # Review's default targets follow the harnesses installed in ~/.claude and ~/.codex
    # (review/installed.py): a developer's own install must not change what the suite expects.
    os.environ["HOME"] = str(home)
    os.environ.pop("CODEX_HOME", None)
    yield state
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under ``CI=true`` a skip is a failure: CI must run every test, and a skip there hides a
    missing install step (an e2e client's registry, say) behind a green run."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if os.environ.get("CI") == "true" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped under CI=true (a skip is a failure in CI): {reason}"
