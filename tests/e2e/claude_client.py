"""The real Claude Code client, installed once from npm, and a helper that runs one headless turn.

Install: ``npm install @anthropic-ai/claude-code@2.1.328`` into a cache directory outside the repo,
``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/claude-code-2.1.328``. An exclusive
``flock`` on a sibling ``.lock`` file serialises parallel test processes; npm installs into a
staging directory that is renamed into place, and a ``.installed`` stamp (JSON: version, install
seconds) marks a finished install. A cached install is re-checked with ``claude --version``.

Skips: only when ``npm`` is not on PATH or the npm registry cannot be reached, always with the
reason in the skip message. Set ``SELF_IMPROVE_E2E_REQUIRED=1`` (e.g. in CI) to turn those skips
into failures. Anything else that goes wrong (npm error, missing or broken binary, wrong
version) is a test failure.

Running (``run_claude``): ``claude -p PROMPT --allowedTools Bash`` in the project directory, with a
scrubbed environment (no ``CLAUDE_*`` / ``ANTHROPIC_*`` variables leak from the caller:
``CLAUDE_CODE_SIMPLE=1`` would switch hooks off, ``CLAUDE_CONFIG_DIR`` would point at a real
config), an isolated HOME seeded by :func:`prepare_home`, ``TMPDIR`` / ``CLAUDE_CODE_TMPDIR``
inside that HOME, and a hard timeout that kills the client's whole process group.
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code"
CLAUDE_CODE_VERSION = "2.1.328"
DEFAULT_TIMEOUT = 120.0
NPM_TIMEOUT = 300.0
REGISTRY_PROBE_TIMEOUT = 60.0

# npm error codes / messages that mean "cannot reach the registry", not "the install is broken".
_NETWORK_ERRORS = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|ENETUNREACH|EHOSTUNREACH"
    r"|UNABLE_TO_GET_ISSUER_CERT|SELF_SIGNED_CERT|CERT_HAS_EXPIRED|request to \S+ failed|network"
    r"|socket hang up|getaddrinfo|\bE50[234]\b",
    re.IGNORECASE,
)

# The only variables passed through from the caller's environment.
_PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL", "SYSTEMROOT")


@dataclass(frozen=True)
class ClaudeInstall:
    binary: Path
    version: str
    install_seconds: float | None  # None when it came from the cache
    cached: bool


@dataclass(frozen=True)
class ClaudeRun:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    home: Path
    cwd: Path

    def describe(self) -> str:
        return (
            f"claude exited {self.returncode} after {self.seconds:.1f}s\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )


# --- install ------------------------------------------------------------------------


def cache_root() -> Path:
    configured = os.environ.get("SELF_IMPROVE_TEST_CACHE")
    root = Path(configured).expanduser() if configured else Path.home() / ".cache" / "self-improve-tests"
    return root.absolute()


def install_dir(version: str = CLAUDE_CODE_VERSION) -> Path:
    return cache_root() / f"claude-code-{version}"


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("SELF_IMPROVE_E2E_REQUIRED", "") not in ("", "0"):
        pytest.fail(f"{reason} (SELF_IMPROVE_E2E_REQUIRED is set, so this is a failure, not a skip)")
    pytest.skip(reason)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _binary_in(prefix: Path) -> Path:
    return prefix / "node_modules" / ".bin" / "claude"


def _reported_version(binary: Path) -> str:
    """``claude --version`` output; raises a test failure if the binary does not run."""
    hint = f" (delete {install_dir()} to reinstall)"
    try:
        proc = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env=_base_env(Path(tempfile.gettempdir())),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"installed Claude Code at {binary} does not run: {exc!r}{hint}")
    if proc.returncode != 0:
        pytest.fail(f"`{binary} --version` exited {proc.returncode}: {proc.stdout}{proc.stderr}{hint}")
    return proc.stdout.strip()


def _cached_install(prefix: Path, version: str) -> ClaudeInstall | None:
    stamp = prefix / ".installed"
    binary = _binary_in(prefix)
    if not stamp.is_file() or not os.access(binary, os.X_OK):
        return None
    try:
        info = json.loads(stamp.read_text())
    except ValueError:
        return None
    if info.get("version") != version:
        return None
    reported = _reported_version(binary)
    if version not in reported:
        pytest.fail(f"cached Claude Code at {binary} reports {reported!r}, expected {version}; delete {prefix}")
    return ClaudeInstall(binary=binary, version=version, install_seconds=info.get("seconds"), cached=True)


def _npm(npm: str, args: Sequence[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update({"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"})
    return subprocess.run(
        [npm, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def _npm_error_summary(output: str) -> str:
    """One line out of npm's error dump: its error code and the first real message."""
    lines = [re.sub(r"^npm (?:error|ERR!) ?", "", line).strip() for line in output.splitlines()]
    lines = [line for line in lines if line and not line.startswith("at ")]
    code = next((line.split(None, 1)[1] for line in lines if line.startswith("code ")), "")
    detail = next(
        (line for line in lines if not re.match(r"(code|syscall|errno|A complete log)\b", line)),
        lines[0] if lines else "no output",
    )
    return f"{code}: {detail}" if code else detail


def _check_registry(npm: str, spec: str, cwd: Path) -> None:
    """Skip (visibly) when the registry cannot be reached; fail when it answers with an error."""
    try:
        # no retries: an unreachable registry should answer in seconds, not after npm's backoff
        args = ["view", spec, "version", "--fetch-retries=0", "--fetch-timeout=20000"]
        proc = _npm(npm, args, cwd=cwd, timeout=REGISTRY_PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        _skip_or_fail(f"npm registry unreachable: `npm view {spec} version` timed out after {REGISTRY_PROBE_TIMEOUT:.0f}s")
        raise AssertionError("unreachable")  # for type checkers; skip/fail raised above
    output = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        if _NETWORK_ERRORS.search(output):
            _skip_or_fail(f"npm registry unreachable (`npm view {spec}`): {_npm_error_summary(output)}")
        pytest.fail(f"`npm view {spec} version` failed (exit {proc.returncode}): {output[-2000:]}")


def ensure_claude(version: str = CLAUDE_CODE_VERSION) -> ClaudeInstall:
    """The ``claude`` binary of ``@anthropic-ai/claude-code@VERSION``, installing it once if needed."""
    prefix = install_dir(version)
    with _locked(prefix.parent / f"{prefix.name}.lock"):
        cached = _cached_install(prefix, version)
        if cached is not None:
            return cached
        npm = shutil.which("npm")
        if npm is None:
            _skip_or_fail(
                f"npm is not on PATH: cannot install {CLAUDE_CODE_PACKAGE}@{version} for the Claude Code "
                "end-to-end tests (install Node.js + npm to run them)"
            )
        spec = f"{CLAUDE_CODE_PACKAGE}@{version}"
        for stale in prefix.parent.glob(f".{prefix.name}.staging-*"):  # left by a killed run; we hold the lock
            shutil.rmtree(stale, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{prefix.name}.staging-", dir=prefix.parent))
        try:
            _check_registry(npm, spec, staging)
            # A package.json of its own keeps npm from walking up into some parent project.
            (staging / "package.json").write_text(json.dumps({"name": "claude-e2e", "private": True}) + "\n")
            started = time.monotonic()
            try:
                proc = _npm(
                    npm,
                    ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", spec],
                    cwd=staging,
                    timeout=NPM_TIMEOUT,
                )
            except subprocess.TimeoutExpired:
                _skip_or_fail(f"npm registry unreachable: `npm install {spec}` timed out after {NPM_TIMEOUT:.0f}s")
                raise AssertionError("unreachable")
            seconds = time.monotonic() - started
            output = (proc.stdout + proc.stderr).strip()
            if proc.returncode != 0:
                if _NETWORK_ERRORS.search(output):
                    _skip_or_fail(f"npm registry unreachable (`npm install {spec}`): {_npm_error_summary(output)}")
                pytest.fail(f"`npm install {spec}` failed (exit {proc.returncode}):\n{output[-3000:]}")
            binary = _binary_in(staging)
            if not os.access(binary, os.X_OK):
                pytest.fail(f"`npm install {spec}` succeeded but left no executable {binary}:\n{output[-2000:]}")
            reported = _reported_version(binary)
            if version not in reported:
                pytest.fail(f"installed {spec} reports version {reported!r}")
            info = {"package": CLAUDE_CODE_PACKAGE, "version": version, "seconds": round(seconds, 2),
                    "reported": reported}
            (staging / ".installed").write_text(json.dumps(info, indent=2) + "\n")
            if prefix.exists():  # a stale or half-finished install without a valid stamp
                shutil.rmtree(prefix)
            staging.chmod(0o755)  # mkdtemp made it 0700
            staging.rename(prefix)  # the stamp arrives together with the finished install
            staging = None  # type: ignore[assignment]
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
        binary = _binary_in(prefix)
        # the postinstall step may have linked through absolute paths; prove the moved copy runs
        if version not in _reported_version(binary):
            pytest.fail(f"Claude Code moved to {prefix} no longer reports version {version}")
        return ClaudeInstall(binary=binary, version=version, install_seconds=seconds, cached=False)


# --- running --------------------------------------------------------------------------


def prepare_home(home: Path, project_dir: Path | None = None) -> Path:
    """Seed an isolated HOME so a headless run needs no onboarding and trusts the project.

    Observed on 2.1.328: ``claude -p`` runs with an empty HOME (it writes ``~/.claude.json`` and
    ``~/.claude/`` itself) and honours ``PROJECT/.claude/settings.json`` hooks without any trust
    entry. We still mark onboarding done and the project trusted, so a version that starts asking
    does not silently drop our hooks. Merges into an existing ``~/.claude.json`` (second sessions).
    """
    home.mkdir(parents=True, exist_ok=True)
    config_path = home / ".claude.json"
    config: dict = {}
    if config_path.is_file():
        try:
            config = json.loads(config_path.read_text())
        except ValueError:
            config = {}
    config.setdefault("hasCompletedOnboarding", True)
    if project_dir is not None:
        projects = config.setdefault("projects", {})
        for key in {str(Path(project_dir).absolute()), str(Path(project_dir).resolve())}:
            entry = projects.setdefault(key, {})
            entry["hasTrustDialogAccepted"] = True
            entry.setdefault("hasCompletedProjectOnboarding", True)
    config_path.write_text(json.dumps(config, indent=2) + "\n")
    (home / "tmp").mkdir(exist_ok=True)
    return home


def _base_env(home: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSTHROUGH_ENV if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home)
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    return env


def claude_env(home: Path, mock_url: str, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = _base_env(home)
    tmp = home / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "ANTHROPIC_BASE_URL": mock_url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "TMPDIR": str(tmp),
            "CLAUDE_CODE_TMPDIR": str(tmp),
        }
    )
    if env_extra:
        env.update(env_extra)
    return env


def run_claude(
    project_dir: Path | str,
    prompt: str,
    mock_url: str,
    *,
    env_extra: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    home: Path | str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    binary: Path | str | None = None,
) -> ClaudeRun:
    """Run one headless turn: ``claude -p PROMPT --allowedTools Bash [extra_args]`` in ``project_dir``.

    ``home`` defaults to a fresh temporary directory; pass the same one for a "second session"
    of the same user. ``env_extra`` is applied last (e.g. ``PATH`` with the venv's bin first).
    The run is killed (its whole process group) after ``timeout`` seconds, which fails the test.
    """
    project = Path(project_dir).absolute()
    home_path = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="claude-home-"))
    prepare_home(home_path, project)
    claude = Path(binary) if binary is not None else ensure_claude().binary
    args = [str(claude), "-p", prompt, "--allowedTools", "Bash", *extra_args]
    env = claude_env(home_path, mock_url, env_extra)
    started = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=project,
        env=env,
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
            f"claude -p did not finish within {timeout:.0f}s (killed)\n"
            f"--- stdout ---\n{stdout[-4000:]}\n--- stderr ---\n{stderr[-4000:]}"
        )
    return ClaudeRun(
        args=args,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        seconds=time.monotonic() - started,
        home=home_path,
        cwd=project,
    )
