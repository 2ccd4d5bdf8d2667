"""Clients installed from npm for the end-to-end tests: one install scheme, one way to run them.

Install (:class:`NpmBinary` for a package that provides one executable, :func:`stamped_install`
for anything else): a pinned package goes into a cache directory outside the repo,
``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/<name>-<version>``. An exclusive
``flock`` on the sibling ``<name>-<version>.lock`` serialises parallel test processes; the install
is built in a staging directory next to it and renamed into place together with its completion
stamp (JSON), so an interrupted install is redone, never half-used. A cached executable is
re-checked with ``--version``.

Skips: only when ``npm`` is not on PATH or the npm registry cannot be reached, always with the
reason in the skip message. Set ``SELF_IMPROVE_E2E_REQUIRED=1`` (e.g. in CI) to turn those skips
into failures. Anything else that goes wrong (npm error, missing or broken executable, wrong
version) is a test failure.

Running (:func:`run_client`): one headless client process in its own process group, in an
environment scrubbed down to PATH/locale (:func:`scrubbed_env`: nothing of the caller's client
configuration leaks in), killed with all its children after a hard timeout, which fails the test.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NoReturn, TypeVar

import pytest

NPM_TIMEOUT = 300.0
REGISTRY_PROBE_TIMEOUT = 60.0
VERSION_TIMEOUT = 60.0

# npm error codes / messages that mean "cannot reach the registry", not "the install is broken".
_NETWORK_ERRORS = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH"
    r"|UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT|CERT_HAS_EXPIRED|request to \S+ failed|network"
    r"|socket hang up|getaddrinfo|\bE50[234]\b",
    re.IGNORECASE,
)

# The only variables passed through from the caller's environment to a client.
PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL", "SYSTEMROOT")


# --- the cache, the lock, the skip rule --------------------------------------------------


def cache_root() -> Path:
    configured = os.environ.get("SELF_IMPROVE_TEST_CACHE")
    root = Path(configured).expanduser() if configured else Path.home() / ".cache" / "self-improve-tests"
    return root.absolute()


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail when ``SELF_IMPROVE_E2E_REQUIRED`` is set."""
    if os.environ.get("SELF_IMPROVE_E2E_REQUIRED", "") not in ("", "0"):
        pytest.fail(f"{reason} (SELF_IMPROVE_E2E_REQUIRED is set, so this is a failure, not a skip)")
    pytest.skip(reason)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_stamp(stamp: Path) -> dict | None:
    if not stamp.is_file():
        return None
    try:
        info = json.loads(stamp.read_text())
    except ValueError:
        return None
    return info if isinstance(info, dict) else None


def stamped_install(
    prefix: Path,
    build: Callable[[Path], dict],
    *,
    accept: Callable[[dict], bool],
    stamp: str = ".installed",
) -> tuple[dict, bool]:
    """A finished install at ``prefix``: ``(stamp info, True)`` when the cached one's stamp is
    ``accept``ed, else ``(info, False)`` after ``build(staging)`` (which returns the stamp's info)
    filled a staging directory that was then renamed to ``prefix`` together with its stamp.

    Runs under an exclusive lock on ``<prefix>.lock``; whatever ``build`` raises (a skip, a
    failure) leaves ``prefix`` as it was and removes the staging directory."""
    with locked(prefix.parent / f"{prefix.name}.lock"):
        info = _read_stamp(prefix / stamp)
        if info is not None and accept(info):
            return info, True
        for stale in prefix.parent.glob(f".{prefix.name}.staging-*"):  # left by a killed run; we hold the lock
            shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.staging-", dir=prefix.parent))
        try:
            info = build(staging)
            (staging / stamp).write_text(json.dumps(info, indent=2) + "\n")
            if prefix.exists():  # a stale or half-finished install without a valid stamp
                shutil.rmtree(prefix)
            staging.chmod(0o755)  # mkdtemp made it 0700
            staging.rename(prefix)  # the stamp arrives together with the finished install
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # gone already unless build() or the move failed
        return info, False


# --- npm ------------------------------------------------------------------------------


def require_npm(purpose: str) -> str:
    """The ``npm`` executable; a visible skip (see :func:`skip_or_fail`) when there is none."""
    npm = shutil.which("npm")
    if npm is None:
        skip_or_fail(f"npm is not on PATH: cannot install {purpose} (install Node.js + npm to run them)")
    return npm


def run_npm(
    npm: str, args: Sequence[str], *, cwd: Path, timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ if env is None else env)
    full_env.update({"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"})
    return subprocess.run(
        [npm, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=full_env,
        check=False,
    )


def npm_error_summary(output: str) -> str:
    """One line out of npm's error dump: its error code and the first real message."""
    lines = [re.sub(r"^npm (?:error|ERR!) ?", "", line).strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not line.startswith("at ")]
    code = next((line.split(None, 1)[1] for line in lines if line.startswith("code ")), "")
    detail = next(
        (line for line in lines if not re.match(r"(code|syscall|errno|A complete log)\b", line)),
        lines[0] if lines else "no output",
    )
    return f"{code}: {detail}" if code else detail


def npm_checked(
    npm: str,
    args: Sequence[str],
    *,
    cwd: Path,
    timeout: float = NPM_TIMEOUT,
    env: Mapping[str, str] | None = None,
    tail: int = 3000,
) -> str:
    """``npm ARGS``'s output; a visible skip when the registry cannot be reached (a timeout, or a
    network error in npm's output), a test failure on any other error."""
    what = f"npm {' '.join(args)}"
    try:
        proc = run_npm(npm, args, cwd=cwd, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        skip_or_fail(f"npm registry unreachable: `{what}` timed out after {timeout:.0f}s")
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        if _NETWORK_ERRORS.search(output):
            skip_or_fail(f"npm registry unreachable (`{what}`): {npm_error_summary(output)}")
        pytest.fail(f"`{what}` failed (exit {proc.returncode}):\n{output[-tail:]}")
    return output


def check_registry(npm: str, spec: str, cwd: Path) -> None:
    """Skip (visibly) when the registry cannot be reached; fail when it answers with an error."""
    # no retries: an unreachable registry should answer in seconds, not after npm's backoff
    args = ["view", spec, "version", "--fetch-retries=0", "--fetch-timeout=20000"]
    npm_checked(npm, args, cwd=cwd, timeout=REGISTRY_PROBE_TIMEOUT, tail=2000)


def npm_install(
    npm: str,
    spec: str,
    *,
    cwd: Path,
    extra_args: Sequence[str] = (),
    timeout: float = NPM_TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> tuple[str, float]:
    """``npm install [extra_args] SPEC`` in ``cwd``: its output and how long it took (skip/fail
    rules of :func:`npm_checked`)."""
    started = time.monotonic()
    output = npm_checked(
        npm,
        ["install", "--no-audit", "--no-fund", "--loglevel=error", *extra_args, spec],
        cwd=cwd,
        timeout=timeout,
        env=env,
    )
    return output, time.monotonic() - started


# --- one executable from one package ----------------------------------------------------


def scrubbed_env(home: Path) -> dict[str, str]:
    """PATH/locale from the caller (:data:`PASSTHROUGH_ENV`), an isolated HOME, no colours."""
    env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home)
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    return env


@dataclass(frozen=True)
class NpmInstall:
    binary: Path
    version: str
    install_seconds: float | None  # None when it came from the cache
    cached: bool
    name: str = ""
    prefix: Path | None = None

    def describe(self) -> str:
        """One line for the end-of-run summary."""
        how = "taken from cache" if self.cached else f"installed by npm in {self.install_seconds:.1f}s"
        return f"{self.name} {self.version}: {how} ({self.prefix})"


@dataclass(frozen=True)
class NpmBinary:
    """The executable ``bin`` of the npm package ``package@version``, cached as ``<name>-<version>``."""

    package: str
    version: str
    bin: str
    name: str  # the cache directory is cache_root() / f"{name}-{version}"
    label: str  # for messages: "Claude Code"
    version_env: Callable[[Path], Mapping[str, str]] = scrubbed_env  # environment of `bin --version`, given a HOME

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"

    def install_dir(self) -> Path:
        return cache_root() / f"{self.name}-{self.version}"

    def binary_in(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / self.bin

    def reported_version(self, binary: Path) -> str:
        """``BIN --version`` output (in a throwaway HOME); a test failure if the executable does not run."""
        hint = f" (delete {binary.parents[2]} to reinstall)"
        home = Path(tempfile.mkdtemp(prefix=f"{self.bin}-version-home-"))
        try:
            proc = subprocess.run(
                [str(binary), "--version"],
                capture_output=True,
                text=True,
                timeout=VERSION_TIMEOUT,
                stdin=subprocess.DEVNULL,
                env=dict(self.version_env(home)),
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            pytest.fail(f"installed {self.label} at {binary} does not run: {exc!r}{hint}")
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if proc.returncode != 0:
            pytest.fail(f"`{binary} --version` exited {proc.returncode}: {proc.stdout}{proc.stderr}{hint}")
        return proc.stdout.strip()

    def _build(self, staging: Path) -> dict:
        npm = require_npm(f"{self.spec} for the {self.label} end-to-end tests")
        check_registry(npm, self.spec, staging)
        # A package.json of its own keeps npm from walking up into some parent project.
        (staging / "package.json").write_text(json.dumps({"name": f"{self.name}-e2e", "private": True}) + "\n")
        output, seconds = npm_install(npm, self.spec, cwd=staging, extra_args=["--no-save"])
        binary = self.binary_in(staging)
        if not os.access(binary, os.X_OK):
            pytest.fail(f"`npm install {self.spec}` succeeded but left no executable {binary}:\n{output[-2000:]}")
        # a launcher that needs a platform package (an optional dependency) fails here
        reported = self.reported_version(binary)
        if self.version not in reported:
            pytest.fail(f"installed {self.spec} reports version {reported!r}")
        return {"package": self.package, "version": self.version, "seconds": round(seconds, 2), "reported": reported}

    def ensure(self) -> NpmInstall:
        """The executable, installing the package once if needed (see the module doc)."""
        prefix = self.install_dir()
        binary = self.binary_in(prefix)
        info, cached = stamped_install(
            prefix,
            self._build,
            accept=lambda info: info.get("version") == self.version and os.access(binary, os.X_OK),
        )
        reported = self.reported_version(binary)
        if cached and self.version not in reported:
            pytest.fail(f"cached {self.label} at {binary} reports {reported!r}, expected {self.version}; "
                        f"delete {prefix}")
        # a postinstall step may have linked through absolute paths; prove the moved copy runs
        if not cached and self.version not in reported:
            pytest.fail(f"{self.label} moved to {prefix} no longer reports version {self.version}")
        return NpmInstall(binary=binary, version=self.version, install_seconds=None if cached else info["seconds"],
                          cached=cached, name=self.name, prefix=prefix)


# --- running a client -----------------------------------------------------------------


@dataclass(frozen=True)
class ClientRun:
    """One finished headless client process."""

    label: ClassVar[str] = "client"  # how the command is named in messages

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    home: Path
    cwd: Path

    def describe(self) -> str:
        return (
            f"{self.label} exited {self.returncode} after {self.seconds:.1f}s\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


R = TypeVar("R", bound=ClientRun)


def run_client(run_class: type[R], args: list[str], *, cwd: Path, env: Mapping[str, str], home: Path,
               timeout: float) -> R:
    """Run ``args`` to the end in its own process group; after ``timeout`` seconds the whole group
    (hooks included) is killed and the test fails."""
    started = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, so a timeout can take hooks down too
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(
            f"{run_class.label} did not finish within {timeout:.0f}s (killed)\n"
            f"--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"
        )
    return run_class(
        args=args,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        seconds=time.monotonic() - started,
        home=home,
        cwd=cwd,
    )
