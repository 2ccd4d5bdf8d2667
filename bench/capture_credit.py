"""Capture the real outputs the credit trace replays (writes bench/data/credit_rows.jsonl).

    python3 bench/capture_credit.py [--root /home/dev/src/cart] [--pnpm PATH]

Run it with an interpreter whose site-packages hold PyYAML and pytest (the wheelhouse is repacked
from them), e.g. the machine's python3; not the project's .venv.

Builds a small cart service under --root (deleted first, so pass a scratch path): a Python app that
reads a YAML file and DATABASE_URL from .env, pytest tests, a pnpm workspace of two packages, and a
git clone of a local bare remote (--root's sibling `git/cart.git`) that a teammate's clone pushes to.
Then it runs each command of ``COMMANDS`` there for real with bash, in order, each in the state the
earlier commands left (a fresh venv without PyYAML, no .env, no node_modules, the remote ahead), and
stores its exit status and output (stdout and stderr merged, as the Bash tool shows them) in the
corpus's row format with the hook payload Claude Code sends: PostToolUseFailure with
``error: "Exit code N\\n" + output`` for a non-zero exit, PostToolUse with ``tool_response`` otherwise
(the shape of tests/fixtures/claude/*.json).

Offline only. `pip install pyyaml` installs from a local wheelhouse (PIP_NO_INDEX, PIP_FIND_LINKS:
the wheel is repacked from the PyYAML this interpreter's site-packages holds, as a company mirror
would serve it); pytest gets into the project venv the same way, before the captures. `git push`
goes to a bare repository on disk. pnpm installs only workspace packages (no registry request);
it must be on PATH or given with --pnpm (e.g. `npm install --prefix /tmp/tools pnpm@9`).
The machine's PATH has only python3 (no `python`): the project venv's `python` link is removed,
as on a Debian image where only python3 exists.
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capture_mixed import run_and_capture

OUT = Path(__file__).resolve().parent / "data" / "credit_rows.jsonl"

FILES = {
    "app.py": (
        "import yaml\n\nfrom config import load_settings\n\n"
        "with open(\"config/app.yaml\") as f:\n    app = yaml.safe_load(f)\n"
        "settings = load_settings()\n"
        "print(f\"{app['name']} ready: {len(app['routes'])} routes, database {settings['database_url'].split(':')[0]}\")\n"
    ),
    "config.py": (
        "import os\nfrom pathlib import Path\n\n\n"
        "def load_dotenv(path=\".env\"):\n    if not Path(path).is_file():\n        return\n"
        "    for line in Path(path).read_text().splitlines():\n"
        "        if line.strip() and not line.startswith(\"#\") and \"=\" in line:\n"
        "            key, _, value = line.partition(\"=\")\n            os.environ.setdefault(key.strip(), value.strip())\n\n\n"
        "def load_settings():\n    load_dotenv()\n"
        "    return {\"database_url\": os.environ[\"DATABASE_URL\"], \"debug\": os.environ.get(\"DEBUG\") == \"1\"}\n"
    ),
    "config/app.yaml": "name: cart\nroutes:\n  - /cart\n  - /checkout\n  - /refund\n",
    ".env.example": "# Copy to .env for local development\nDATABASE_URL=sqlite:///cart.db\nDEBUG=1\n",
    "cart.py": (
        "from decimal import Decimal\n\n\n"
        "def checkout_total(items, discount=Decimal(\"0\")):\n"
        "    total = sum(Decimal(str(price)) * qty for price, qty in items)\n"
        "    return (total * (1 - discount)).quantize(Decimal(\"0.01\"))\n\n\n"
        "def refund_total(items):\n    return -checkout_total(items)\n"
    ),
    "tests/__init__.py": "",
    "tests/test_checkout.py": (
        "from decimal import Decimal\n\nfrom cart import checkout_total, refund_total\n\n\n"
        "def test_checkout_total():\n    assert checkout_total([(9.99, 2), (0.02, 1)]) == Decimal(\"20.00\")\n\n\n"
        "def test_checkout_discount():\n    assert checkout_total([(10, 1)], Decimal(\"0.1\")) == Decimal(\"9.00\")\n\n\n"
        "def test_refund_total():\n    assert refund_total([(5, 2)]) == Decimal(\"-10.00\")\n"
    ),
    "package.json": (
        '{\n  "name": "cart-frontend",\n  "private": true,\n  "scripts": {"test": "node --test packages/"},\n'
        '  "devDependencies": {"@cart/eslint-config": "workspace:*"},\n  "packageManager": "pnpm@9.15.9"\n}\n'
    ),
    "packages/eslint-config/package.json": (
        '{\n  "name": "@cart/eslint-config",\n  "version": "0.3.0",\n  "main": "index.js"\n}\n'
    ),
    "packages/eslint-config/index.js": "module.exports = { rules: { 'no-var': 'error' } };\n",
    "pnpm-workspace.yaml": "packages:\n  - \"packages/*\"\n",
    "packages/ui/package.json": '{\n  "name": "@cart/ui",\n  "version": "0.3.0",\n  "main": "index.js"\n}\n',
    "packages/ui/index.js": "exports.price = (cents) => `$${(cents / 100).toFixed(2)}`;\n",
    "packages/web/package.json": (
        '{\n  "name": "@cart/web",\n  "version": "0.3.0",\n  "dependencies": {"@cart/ui": "workspace:*"}\n}\n'
    ),
    "packages/web/price.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { price } = require('../ui');\n\ntest('formats cents', () => assert.strictEqual(price(1999), '$19.99'));\n"
    ),
    ".gitignore": ".env\n.venv/\nnode_modules/\n__pycache__/\n.pytest_cache/\n*.db\n",
    "README.md": "# cart\n\nCheckout and refunds. Copy .env.example to .env; `pnpm install` for the frontend.\n",
}
CHANGE = ("cart.py", "\n\ndef with_tax(total, rate=Decimal(\"0.2\")):\n    return (total * (1 + rate)).quantize(Decimal(\"0.01\"))\n")
TEAMMATE_CHANGE = ("README.md", "\nRun `pytest -k checkout` for the checkout tests only.\n")

# (id, command, what the state is when it runs), in capture order: each runs in the state the
# earlier ones left; "teammate": the teammate pushes a commit first (the remote is then ahead).
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("k01", "python app.py", "only python3 is installed"),
    ("k02", "python3 app.py", "fresh venv: PyYAML missing"),
    ("k03", "pip install pyyaml", "PyYAML missing"),
    ("k04", "python3 app.py", "PyYAML installed, no .env"),
    ("k05", "grep -n DATABASE_URL config.py", "read-only"),
    ("k06", "cat .env.example", "read-only"),
    ("k07", "cp .env.example .env", "no .env"),
    ("k08", "python3 app.py", "PyYAML installed, .env present"),
    ("k09", "pip install pyyaml", "PyYAML already installed"),
    ("k10", "pytest --filter checkout", "pytest has no --filter"),
    ("k11", "pytest -k checkout", "the checkout tests"),
    ("k12", "pytest -q", "the whole suite"),
    ("k13", "npm install", "a pnpm workspace (workspace: protocol)"),
    ("k14", "ls", "read-only"),
    ("k15", "pnpm install", "no node_modules"),
    ("k16", "pnpm install", "node_modules present"),
    ("k17", "pnpm test", "node --test"),
    ("k18", "git status", "read-only, a change to commit"),
    ("k19", "git add -A", "a change to stage"),
    ("k20", "git commit -m \"Add with_tax to the cart\"", "a staged change"),
    ("k21", "git push", "teammate"),
    ("k22", "git pull --rebase", "the remote is ahead"),
    ("k23", "git push", "rebased on the remote"),
    ("k24", "git pull --rebase", "up to date"),
    ("k25", "git log --oneline -3", "read-only"),
)


# ---- a wheelhouse from installed distributions (offline) ----------------------------------------


def installed_dist(name: str) -> Path:
    for folder in site.getsitepackages():
        for info in Path(folder).glob("*.dist-info"):
            if info.name.lower().split("-")[0].replace("_", "-") == name.lower():
                return info
    raise SystemExit(f"{name} is not installed for {sys.executable}: it is needed to build the wheelhouse")


def repack(name: str, wheelhouse: Path) -> Path:
    """A wheel of an installed distribution: the files its RECORD lists inside site-packages."""
    info = installed_dist(name)
    root = info.parent
    meta = {k: v for k, _, v in (line.partition(": ") for line in (info / "METADATA").read_text().splitlines()[:20])}
    tags = [line.split(": ", 1)[1] for line in (info / "WHEEL").read_text().splitlines() if line.startswith("Tag: ")]
    wheel = wheelhouse / f"{meta['Name'].replace('-', '_')}-{meta['Version']}-{tags[0]}.whl"
    records = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        for row in csv.reader((info / "RECORD").read_text().splitlines()):
            rel = row[0]
            if rel.startswith("..") or "__pycache__" in rel or rel.endswith(("/RECORD", "/INSTALLER", "/REQUESTED", "/direct_url.json")):
                continue
            data = (root / rel).read_bytes()
            out.writestr(rel, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{rel},sha256={digest},{len(data)}")
        records.append(f"{info.name}/RECORD,,")
        out.writestr(f"{info.name}/RECORD", "\n".join(records) + "\n")
    return wheel


# ---- the project --------------------------------------------------------------------------------


def git(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def build(root: Path, env: dict[str, str]) -> None:
    remote = root.parent / "git" / f"{root.name}.git"
    teammate = root.parent / f"{root.name}-teammate"
    for path in (root, remote, teammate, root.parent / ".wheelhouse"):
        shutil.rmtree(path, ignore_errors=True)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    wheelhouse = root.parent / ".wheelhouse"
    wheelhouse.mkdir()
    for name in ("pyyaml", "pytest", "pluggy", "iniconfig", "packaging", "pygments"):
        repack(name, wheelhouse)
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (venv / "bin" / "python").unlink()  # only python3 exists here
    subprocess.run([str(venv / "bin" / "python3"), "-m", "pip", "install", "-q", "--no-index", "--find-links",
                    str(wheelhouse), "pytest"], check=True, env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    remote.parent.mkdir(parents=True, exist_ok=True)
    git(["init", "-q", "--bare", "-b", "main", str(remote)], root.parent, env)
    git(["init", "-q", "-b", "main"], root, env)
    git(["add", "-A"], root, env)
    git(["commit", "-q", "-m", "Cart service: checkout, refunds, the price widget"], root, env)
    git(["remote", "add", "origin", str(remote)], root, env)
    git(["push", "-q", "-u", "origin", "main"], root, env)
    git(["clone", "-q", str(remote), str(teammate)], root.parent, env)


def teammate_pushes(root: Path, env: dict[str, str]) -> None:
    teammate = root.parent / f"{root.name}-teammate"
    name, text = TEAMMATE_CHANGE
    with (teammate / name).open("a", encoding="utf-8") as handle:
        handle.write(text)
    git(["commit", "-q", "-am", "README: how to run the checkout tests"], teammate, env)
    git(["push", "-q"], teammate, env)


def capture_env(root: Path, pnpm: str) -> dict[str, str]:
    # A minimal environment; the project venv's bin first (as an activated venv), no `python` anywhere.
    tools = {os.path.dirname(shutil.which("node") or "/usr/bin/node"), os.path.dirname(pnpm)}
    path = [str(root / ".venv" / "bin"), *sorted(tools), "/usr/local/bin", "/usr/bin", "/bin"]
    git_config = root.parent / ".gitconfig-capture"
    git_config.write_text("[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n"
                          "[advice]\n\tdetachedHead = false\n")
    return {"HOME": "/home/dev", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "PATH": ":".join(path),
            "GIT_CONFIG_GLOBAL": str(git_config), "GIT_CONFIG_NOSYSTEM": "1", "VIRTUAL_ENV": str(root / ".venv"),
            "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(root.parent / ".wheelhouse"),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "npm_config_update_notifier": "false",
            "npm_config_cache": str(root.parent / ".npm-cache"), "npm_config_offline": "true"}


def capture(root: Path, cid: str, command: str, state: str, env: dict[str, str]) -> dict:
    if state == "teammate":
        teammate_pushes(root, env)
    row = run_and_capture("credit", cid, command, root, env, root.name, timeout=180)
    return {**row, "state": state}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="/home/dev/src/cart", help="scratch project dir (deleted first)")
    parser.add_argument("--pnpm", default=shutil.which("pnpm") or "/tmp/si-tools/node_modules/.bin/pnpm")
    args = parser.parse_args(argv)
    if not os.access(args.pnpm, os.X_OK):
        parser.error(f"no pnpm at {args.pnpm}: pass --pnpm")
    root = Path(args.root)
    root.parent.mkdir(parents=True, exist_ok=True)
    env = capture_env(root, os.path.abspath(args.pnpm))
    build(root, env)
    rows = []
    for cid, command, state in COMMANDS:
        if cid == "k18":  # the change the agent commits: written before `git status` shows it
            name, text = CHANGE
            with (root / name).open("a", encoding="utf-8") as handle:
                handle.write(text)
        rows.append(capture(root, cid, command, state, env))
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    for row in rows:
        print(f"{row['id']} exit {row['exit_code']:>3}  {row['command']:<40} {row['output'][:60]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
