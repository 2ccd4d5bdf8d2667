"""Capture the real outputs bench/replay_mixed.py replays (writes bench/data/mixed_subjects.jsonl).

    python3 bench/capture_mixed.py [--root /home/dev/src/shop]

Builds a small project under --root (deleted first, so pass a scratch path), runs each command
there for real with bash, and stores its exit status and output (stdout and stderr merged, as the
Bash tool shows them) in the corpus's row format with the hook payload Claude Code would send
(PostToolUseFailure with "Exit code N" for a non-zero exit, PostToolUse otherwise).

Needs: python3 without yaml/numpy/requests in its own venv (a bare venv is made here), pytest
for the python3 running this script, node, cargo (offline is enough). The command-not-found rows run with an empty PATH, so
they fail the same way on a machine that has docker or jq.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent / "data" / "mixed_subjects.jsonl"

FILES = {
    "scripts/load_config.py": "import yaml\n\nwith open('config/shop.yaml') as f:\n    print(yaml.safe_load(f))\n",
    "analysis/forecast.py": "import csv\n\nimport numpy as np\n\nprint(np.mean([1, 2, 3]))\n",
    "scripts/sync_prices.py": "import json\nimport requests\n\nprint(requests.get('https://prices.example.com/v1').json())\n",
    "build.js": "const esbuild = require('esbuild');\n\nesbuild.buildSync({ entryPoints: ['src/cart.js'], bundle: true, outfile: 'dist/cart.js' });\n",
    "scripts/bundle.mjs": "import * as esbuild from 'esbuild';\n\nawait esbuild.build({ entryPoints: ['src/cart.js'], bundle: true, outdir: 'dist' });\n",
    "package.json": '{\n  "name": "shop",\n  "version": "1.4.2",\n  "private": true\n}\n',
    "config.py": (
        "import os\n\n\ndef load_settings():\n"
        "    return {\n        \"db\": os.environ[\"DATABASE_URL\"],\n        \"debug\": os.environ.get(\"DEBUG\") == \"1\",\n    }\n"
    ),
    "app.py": "from config import load_settings\n\nsettings = load_settings()\nprint(f\"serving with {settings['db']}\")\n",
    "tests/__init__.py": "",
    "tests/test_app.py": "from config import load_settings\n\n\ndef test_settings_have_a_database():\n    assert load_settings()[\"db\"]\n",
    "reports/__init__.py": "",
    "reports/summary.py": (
        "import csv\nimport sys\nfrom collections import defaultdict\n\n\n"
        "def summarise(rows):\n    totals = defaultdict(float)\n    for row in rows:\n"
        "        totals[row[\"region\"]] += float(row[\"amount\"])\n    return dict(totals)\n\n\n"
        "if __name__ == \"__main__\":\n    with open(sys.argv[1], newline=\"\") as f:\n"
        "        print(summarise(csv.DictReader(f)))\n"
    ),
    "cart.py": "def total(prices):\n    return sum(prices)\n",
    "tests/test_cart.py": (
        "from cart import total\n\n\ndef test_total_of_two_items():\n    assert total([0.10, 0.20]) == 0.30\n"
    ),
    "data/sales-2024.csv": "date,sales_region,amount\n2024-01-03,north,120.50\n2024-01-03,south,80.00\n",
    "ledger/Cargo.toml": '[package]\nname = "ledger"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "ledger/src/money.rs": "pub fn parse_amount(s: &str) -> i64 {\n    s.replace('.', \"\").parse().unwrap_or(0)\n}\n",
}
E0432 = "mod money;\nuse serde_json::Value;\n\nfn main() {\n    let v: Value = Value::Null;\n    println!(\"{}\", v);\n}\n"
E0425 = "mod money;\n\nfn main() {\n    let cents = parse_amount(\"12.50\");\n    println!(\"{cents}\");\n}\n"

# (id, command, cwd under the root, what state, how: "venv" | "python" | "tools" | "nopath"), in capture order.
COMMANDS = (
    ("m01", "python3 scripts/load_config.py", "", None, "venv"),
    ("m02", "python3 analysis/forecast.py", "", None, "venv"),
    ("m03", "python3 scripts/sync_prices.py", "", None, "venv"),
    ("m04", "node build.js", "", None, "tools"),
    ("m05", "node scripts/bundle.mjs", "", None, "tools"),
    ("m06", "uv sync", "", None, "nopath"),
    ("m07", "uv run pytest -q", "", None, "nopath"),
    ("m08", "docker compose up -d db", "", None, "nopath"),
    ("m09", "docker build -t shop:dev .", "", None, "nopath"),
    ("m10", "jq -r '.version' package.json", "", None, "nopath"),
    ("m11", "jq '.scripts' package.json", "", None, "nopath"),
    ("m12", "python3 app.py", "", None, "python"),
    ("m13", "python3 -m pytest -q tests/test_app.py", "", None, "python"),
    ("m14", "python3 -m reports.summary data/sales-2024.csv", "", None, "python"),
    ("m15", "cargo build", "ledger", E0432, "tools"),
    ("m16", "cargo build 2>&1 | tail -n 15", "ledger", E0432, "tools"),
    ("m17", "cargo build", "ledger", E0425, "tools"),
    ("m18", "cargo build 2>&1 | tail -n 15", "ledger", E0425, "tools"),
    ("m19", "python3 -m pytest -q tests/test_app.py 2>&1 | tail -n 20", "", None, "python"),
    ("m20", "python3 -m pytest -q tests/test_cart.py", "", None, "python"),
)


def build(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv-bare")], check=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(root / ".venv")], check=True)


def capture(root: Path, cid: str, command: str, sub: str, main_rs: str | None, how: str) -> dict:
    cwd = root / sub
    if main_rs is not None:
        (cwd / "src" / "main.rs").write_text(main_rs, encoding="utf-8")
        shutil.rmtree(cwd / "target", ignore_errors=True)
    # A minimal environment: pytest prints os.environ in its KeyError report.
    env = {"HOME": "/home/dev", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1"}
    if how == "venv":  # a project venv without the third-party modules
        env["PATH"] = f"{root / '.venv-bare' / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    elif how == "python":  # a project venv that sees the system's site-packages (pytest)
        env["PATH"] = f"{root / '.venv' / 'bin'}:/usr/local/bin:/usr/bin:/bin"
    elif how == "tools":  # node, cargo
        tools = {os.path.dirname(shutil.which(name) or "/usr/bin/x") for name in ("node", "cargo")}
        env["PATH"] = ":".join([*sorted(tools), "/usr/local/bin", "/usr/bin", "/bin"])
        env.update({k: v for k, v in os.environ.items() if k in ("CARGO_HOME", "RUSTUP_HOME")})
        env.setdefault("CARGO_HOME", os.path.expanduser("~/.cargo"))
        env.setdefault("RUSTUP_HOME", os.path.expanduser("~/.rustup"))
        env["CARGO_TERM_COLOR"] = "never"
    else:  # "nopath": the command is not installed
        env["PATH"] = str(root / ".empty-path")
    row = run_and_capture("mixed", cid, command, cwd, env, "shop", timeout=120)
    return {**row, "label": "error"}


def run_and_capture(trace: str, cid: str, command: str, cwd: Path, env: dict[str, str], project: str,
                    timeout: float) -> dict:
    """Run ``command`` for real in ``cwd``; its row: output, exit status and the Claude Code hook
    payload of that result (PostToolUse for exit 0, PostToolUseFailure otherwise). One copy, for
    every capture script."""
    done = subprocess.run(["bash", "-c", command], executable="/bin/bash", cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False, timeout=timeout)
    output = done.stdout.decode("utf-8", "replace").rstrip("\n")
    session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"self-improve/bench/{trace}/{cid}"))
    payload = {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-src-{project}/{session}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure" if done.returncode else "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"},
        "tool_use_id": f"toolu_{trace}_{cid}",
    }
    if done.returncode:
        payload.update(error=f"Exit code {done.returncode}\n{output}", is_interrupt=False)
    else:
        payload["tool_response"] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False,
                                    "noOutputExpected": False}
    return {"id": cid, "command": command, "exit_code": done.returncode, "output": output, "payload": payload,
            "label": "error" if done.returncode else "ok", "captured_in": str(cwd)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default="/home/dev/src/shop", help="scratch project dir (deleted first)")
    args = parser.parse_args(argv)
    root = Path(args.root)
    build(root)
    (root / ".empty-path").mkdir()
    rows = [capture(root, *spec) for spec in COMMANDS]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    for row in rows:
        print(f"{row['id']} exit {row['exit_code']:>3}  {row['command']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
