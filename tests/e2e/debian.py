"""Debian packages a test needs (Chromium, fish, zsh): installed with ``apt-get`` when missing.

    ensure_debian_package(binary, package) -> how   # "already installed" | "installed now with apt-get"

Run as root, a missing package is installed (``apt-get update``, then ``install -y``), under a
lock so that parallel sessions install it once. The test skips, with the reason, only when the
package archive cannot be reached or there is no apt-get; under ``CI=true`` that skip is a
failure (``tests/conftest.py``), as with ``SELF_IMPROVE_E2E_REQUIRED`` (``npm_client.skip_or_fail``).
A broken install fails the test, whatever the environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from tests.e2e.npm_client import cache_root, locked, skip_or_fail

APT_TIMEOUT = 900.0
# apt's words for "the archive cannot be reached", not "the install is broken".
_APT_NETWORK = re.compile(
    r"Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|Connection timed out"
    r"|Network is unreachable|No route to host|Could not connect",
    re.IGNORECASE,
)


def _apt(args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        return subprocess.run(["apt-get", *args], capture_output=True, text=True, timeout=APT_TIMEOUT, env=env,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        skip_or_fail(f"Debian package archive unreachable: `apt-get {' '.join(args)}` timed out after {APT_TIMEOUT:.0f}s")


def _apt_checked(args: list[str]) -> None:
    proc = _apt(args)
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        if _APT_NETWORK.search(output):
            line = next((ln for ln in output.splitlines() if _APT_NETWORK.search(ln)), "")
            skip_or_fail(f"Debian package archive unreachable (`apt-get {' '.join(args)}`): {line.strip()}")
        pytest.fail(f"`apt-get {' '.join(args)}` failed (exit {proc.returncode}):\n{output[-3000:]}")


def _present(binary: str) -> bool:
    return os.access(binary, os.X_OK) if os.path.isabs(binary) else shutil.which(binary) is not None


def ensure_debian_package(binary: str, package: str) -> str:
    """Make ``binary`` (an absolute path, or a name looked up on PATH) present, installing
    Debian's ``package`` when it is not; says how it came to be there."""
    if _present(binary):
        return "already installed"
    if shutil.which("apt-get") is None:
        skip_or_fail(f"{package} is not installed and there is no apt-get to install it (a Debian package)")
    if os.geteuid() != 0:
        pytest.fail(f"{binary} is missing: run `apt-get install -y {package}` as root (the test installs it when run as root)")
    with locked(cache_root() / f"{package}-apt.lock"):
        if _present(binary):
            return "already installed"
        _apt_checked(["update"])
        _apt_checked(["install", "-y", "--no-install-recommends", package])
    if not _present(binary):
        pytest.fail(f"`apt-get install -y {package}` succeeded but {binary} is still missing")
    return "installed now with apt-get"
