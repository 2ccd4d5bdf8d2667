"""The hooks' tests: a project with ``.learnings/``, and a home of their own for each test (its
debug log, its user config), with none of the XDG variables that would point elsewhere; and our
CLI on ``PATH``, as after an install that put it there (the nudges then print it by name)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from self_improve.store.store import Store
from tests.helpers import REPO


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    Store(tmp_path).init()
    return tmp_path


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "SELF_IMPROVE_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", f"{REPO / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return home
