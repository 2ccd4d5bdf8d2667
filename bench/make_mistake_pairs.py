"""Build tests/data/corpus/mistake_pairs.jsonl by running real commands on this machine.

    .venv/bin/python bench/make_mistake_pairs.py [OUT]

Creates small throw-away projects (Python, Node, C/C++, Rust, Java, git, make, npm) under a
temporary root, runs each command with ``bash -c`` (stdout and stderr combined, as the agent's
Bash tool shows them), and writes one row per command in the public corpus format plus
``mistake`` (a hand-chosen label: rows of one mistake share it) and ``split`` ("tune" / "dev", a
hash of the label, see fingerprints.split_of).  Several rows per mistake on purpose: the same
mistake reached from different commands or with different volatile parts (temp dirs, numbers,
SHAs, object-file names), next to sibling mistakes of the same class.

The labels and kinds are chosen here by hand, from what each fixture is built to get wrong; this
script never runs self-improve.  Project paths are rewritten to /home/dev/src/<project> and the
home directory to /home/dev; other temporary directories (the volatile parts) are kept as run.
Outputs differ between runs (PIDs, temp names, SHAs), so regenerating changes the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fingerprints import split_of

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus" / "mistake_pairs.jsonl"
HOME = str(Path.home())
MAX_OUTPUT = 20_000
NS = uuid.UUID("6f1d3a52-9b0e-4c61-8a37-2d5e4f0b9c11")


@dataclass(frozen=True)
class Step:
    mistake: str
    kind: str
    cwd: str  # a project under the root, or "{tmp_x}/..." for a named temporary directory
    command: str
    description: str
    note: str
    setup: str = ""  # run before, not recorded
    cleanup: str = ""  # run after, not recorded


# ---------------------------------------------------------------------------------------------
# Fixture projects: path -> content

SHOP = {
    "report.py": "import pandas as pd\n\n\ndef summarize(path):\n    return pd.read_csv(path).describe()\n\n\nif __name__ == '__main__':\n    print(summarize('sales.csv'))\n",
    "tests/__init__.py": "",
    "tests/test_report.py": "from report import summarize\n\n\ndef test_summarize():\n    assert summarize('sales.csv') is not None\n",
    "db.py": "from sqlalchemy import create_engine\n\nengine = create_engine('sqlite:///app.db')\nprint(engine)\n",
    "worker.py": "from jobs.queue import enqueue\n\nenqueue('refresh')\n",
    "jobs/__init__.py": "",
    "jobs/queue.py": "import redis\n\n_conn = redis.Redis()\n\n\ndef enqueue(name):\n    _conn.lpush('jobs', name)\n",
    "tests/test_worker.py": "from jobs.queue import enqueue\n\n\ndef test_enqueue():\n    enqueue('x')\n",
    "settings.py": "def load_config(path='settings.toml'):\n    return {'path': path}\n",
    "main.py": "from settings import load_settings\n\nprint(load_settings())\n",
    "tests/test_main.py": "from settings import load_settings\n\n\ndef test_settings():\n    assert load_settings()\n",
    "utils.py": "def parse_line(line):\n    return line.strip().split(',')\n",
    "export.py": "import sys\n\nfrom utils import parse_row\n\nfor line in sys.stdin:\n    print(parse_row(line))\n",
    "app/__init__.py": "",
    "app/models.py": (
        "import json\n\n\n"
        "def load(path='config.json'):\n"
        "    with open(path) as fh:\n"
        "        config = json.load(fh)\n"
        "    return config['database']['host']\n\n\n"
        "def save(record):\n"
        "    return record.to_json()\n"
    ),
    "app/views.py": "def render(ctx):\n    greeting = 'Hello, ' + ctx['user']\n    return greeting\n",
    "config.json": '{"db": {"host": "localhost", "port": 5432}}\n',
    "run.py": (
        "import sys\n\n"
        "from app.models import load, save\n"
        "from app.views import render\n\n"
        "command = sys.argv[1] if len(sys.argv) > 1 else 'serve'\n"
        "if command == 'serve':\n"
        "    print('connecting to', load())\n"
        "elif command == 'render':\n"
        "    print(render({'name': 'ada'}))\n"
        "elif command == 'save':\n"
        "    save({'id': int(sys.argv[2]) if len(sys.argv) > 2 else 1})\n"
    ),
    "tests/test_models.py": "from app.models import load\n\n\ndef test_load():\n    assert load() == 'localhost'\n",
    "tests/test_views.py": "from app.views import render\n\n\ndef test_render():\n    assert 'ada' in render({'name': 'ada'})\n",
    "stats.py": (
        "import csv\nimport sys\n\n\n"
        "def mean(values):\n"
        "    return sum(values) / len(values)\n\n\n"
        "def main(path):\n"
        "    with open(path) as fh:\n"
        "        values = [float(row[1]) for row in csv.reader(fh) if row and row[0] != 'day']\n"
        "    print(f'{path}: mean={mean(values):.2f}')\n\n\n"
        "if __name__ == '__main__':\n"
        "    main(sys.argv[1])\n"
    ),
    "data/week-07.csv": "day,value\n",
    "data/week-08.csv": "day,value\n",
    "server.py": "def handle(request)\n    return 'ok'\n\n\nprint(handle(None))\n",
    "sync_worker.py": "import time\n\n\ndef tick():\n    print('tick', time.time()\n\n\ntick()\n",
    "tests/test_sync.py": "import sync_worker\n\n\ndef test_tick():\n    sync_worker.tick()\n",
    "cart.py": "def total(price, qty):\n    return price * (qty - 1)\n\n\ndef discount(price, percent):\n    return price - percent\n",
    "tests/test_cart.py": (
        "import os\n\nfrom cart import discount, total\n\n"
        "QTY = int(os.environ.get('QTY', '3'))\n\n\n"
        "def test_total():\n    assert total(4, QTY) == 4 * QTY\n\n\n"
        "def test_discount():\n    assert discount(200, 10) == 180\n"
    ),
    "tax.py": "def vat(amount):\n    return round(amount * 1.02, 2)\n",
    "tests/test_tax.py": "from tax import vat\n\n\ndef test_vat():\n    assert vat(100) == 120\n",
    "client.py": "class Client\n    def __init__(self, url):\n        self.url = url\n",
    "invoice.py": "def total(lines):\n    return sum(price for price, qty in lines)\n",
    "tests/test_invoice.py": "from invoice import total\n\n\ndef test_total():\n    assert total([(5, 2), (3, 1)]) == 13\n",
    "import_data.py": "import csv\n\nwith open('data/customers.csv', newline='') as fh:\n    rows = list(csv.DictReader(fh))\nprint(len(rows), 'customers')\n",
    "load_customers.py": "from pathlib import Path\n\ntext = Path('data/customers.csv').read_text()\nprint(text.count('\\n'))\n",
    "config/settings.toml": "[app]\nname = 'shop'\n",
}

WEBAPP = {
    "package.json": json.dumps({"name": "webapp", "version": "1.0.0", "private": True,
                                "scripts": {"test": "node --test", "start": "node server.js"},
                                "dependencies": {"express": "^4.19.2", "lodash": "^4.17.21"}}, indent=2) + "\n",
    "server.js": "const express = require('express');\nconst app = express();\napp.listen(3000);\n",
    "app.mjs": "import express from 'express';\n\nexpress().listen(3000);\n",
    "util.js": "const _ = require('lodash');\n\nconsole.log(_.chunk([1, 2, 3, 4], 2));\n",
    "index.js": "const config = require('./lib/config');\n\nconsole.log(config.port);\n",
    "cli.js": "#!/usr/bin/env node\nconst { port } = require('./lib/config');\n\nconsole.log(`listening on ${port}`);\n",
    "lib/server.js": "module.exports = {};\n",
    "cart.js": "exports.lineTotal = (price, qty) => price + qty;\n",
    "test/cart.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { lineTotal } = require('../cart');\n\n"
        "const qty = Number(process.env.QTY || 3);\n\n"
        "test('applies quantity', () => {\n  assert.strictEqual(lineTotal(2, qty), 2 * qty);\n});\n"
    ),
    "discount.js": "exports.applyDiscount = (price, pct) => price - pct;\n",
    "spec/discount.spec.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { applyDiscount } = require('../discount');\n\n"
        "const pct = Number(process.env.PCT || 10);\n\n"
        "test('applies discount', () => {\n  assert.strictEqual(applyDiscount(200, pct), 200 * (1 - pct / 100));\n});\n"
    ),
}

TOOL = {
    "net.c": '#include <stdio.h>\n#include "protocol.h"\n\nint send_packet(void) { return PROTO_VERSION; }\n',
    "server.c": '#include <stdlib.h>\n#include "protocol.h"\n\nint serve(void) { return PROTO_PORT; }\n',
    "parse.c": "#include <string.h>\n\nint parse(const char *s) {\n    for (int i = 0; i < buf_len; i++) {\n        if (s[i] == ',') return i;\n    }\n    return -1;\n}\n",
    "parser.cpp": "#include <vector>\n\nint parse_all() {\n    std::vector<int> tokens;\n    tokens.push(3);\n    return tokens.size();\n}\n",
    "main.c": '#include <stdio.h>\n\nint compute_checksum(const char *data);\n\nint main(void) {\n    printf("%d\\n", compute_checksum("abc"));\n    return 0;\n}\n',
    "logmain.c": "void log_event(const char *name, int level);\n\nint main(void) {\n    log_event(\"start\", 1);\n    return 0;\n}\n",
    "main2.c": "int main(void) { return 0; }\n",
    "Makefile": (
        "CC = gcc\nPREFIX ?= /usr/local\n\n"
        "all: app2\n\n"
        "net.o: net.c\n\t$(CC) -c -o net.o net.c\n\n"
        "app2: main2.o util.o\n\t$(CC) -o app2 main2.o util.o\n\n"
        "install: all\n\tinstall -m 755 app2 $(PREFIX)/bin/\n\n"
        ".PHONY: all install\n"
    ),
    "legacy/Makefile": "all: tool\n\ntool: tool.c\n        cc -o tool tool.c\n\ntest: tool\n\t./tool --self-test\n",
    "legacy/tool.c": "int main(void) { return 0; }\n",
    "docs/Makefile": "html:\n    sphinx-build -b html . _build/html\n",
}

RUST = {
    "json_tool/Cargo.toml": '[package]\nname = "json_tool"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "json_tool/src/main.rs": 'use serde_json::Value;\n\nfn main() {\n    let v: Value = Value::Null;\n    println!("{v:?}");\n}\n',
    "stats/Cargo.toml": '[package]\nname = "stats"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "stats/src/main.rs": 'fn main() {\n    let values = [3, 4, 5];\n    let total: i32 = values.iter().sum();\n    println!("total = {}", totl);\n    let _ = total;\n}\n',
    "counter/Cargo.toml": '[package]\nname = "counter"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "counter/src/main.rs": 'fn count_words(s: &str) -> usize {\n    let count = s.split_whitespace().count();\n    cnt\n}\n\nfn main() {\n    println!("{}", count_words("a b c"));\n}\n',
    "parsing/Cargo.toml": '[package]\nname = "parsing"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
    "parsing/src/main.rs": 'fn parse_port(s: &str) -> u16 {\n    s.trim()\n}\n\nfn main() {\n    println!("{}", parse_port("8080"));\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn port() {\n        assert_eq!(super::parse_port("80"), 80);\n    }\n}\n',
}

BILLING = {
    "OrderService.java": "import java.util.ArrayList;\nimport java.util.List;\n\npublic class OrderService {\n    private final List<Order> orders = new ArrayList<>();\n\n    public int count() { return orders.size(); }\n}\n",
    "InvoiceService.java": "public class InvoiceService {\n    public Invoice draft(String customer) {\n        return new Invoice(customer);\n    }\n}\n",
    "Main.java": "public class Main {\n    public static void main(String[] args) {\n        int count = args.length\n        System.out.println(count);\n    }\n}\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _sh(cwd: Path | str, script: str) -> None:
    subprocess.run(["bash", "-c", script], cwd=cwd, check=True, capture_output=True, text=True, env=_env())


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTEST", "NODE_PATH"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["npm_config_update_notifier"] = "false"
    env.setdefault("LANG", "C.UTF-8")
    for k in ("GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"):
        env[k] = "Dev"
    for k in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        env[k] = "dev@example.com"
    return env


GIT_SETUP = r"""
git init -q -b main
printf 'def retry(fn, times=3):\n    for _ in range(times):\n        fn()\n' > retry.py
printf 'TIMEOUT = 10\nRETRIES = 3\n' > config.py
mkdir -p src docs && printf 'def fetch(url):\n    return url\n' > src/fetcher.py && printf '# Fetcher\n' > README.md
git add . && git commit -q -m 'Initial import' && git tag v1.0.0
git checkout -q -b feature/retry
printf 'def retry(fn, times=5, delay=0.5):\n    for _ in range(times):\n        fn()\n' > retry.py && git commit -q -am 'Retry with delay'
git checkout -q main && git checkout -q -b feature/config
printf 'TIMEOUT = 30\nRETRIES = 3\n' > config.py && git commit -q -am 'Raise timeout'
git checkout -q main
printf 'def retry(fn, times=3, backoff=2):\n    for _ in range(times):\n        fn()\n' > retry.py
printf 'TIMEOUT = 5\nRETRIES = 3\n' > config.py
git commit -q -am 'Backoff and shorter timeout'
"""

# ---------------------------------------------------------------------------------------------
# The steps: (mistake, kind, cwd, command, description, note[, setup, cleanup])

PY = "python3 -m pytest -q"


def steps() -> list[Step]:
    s: list[Step] = []

    def add(mistake: str, kind: str, cwd: str, command: str, description: str, note: str,
            setup: str = "", cleanup: str = "") -> None:
        s.append(Step(mistake, kind, cwd, command, description, note, setup, cleanup))

    # Python: missing third-party modules, reached by a script, by pytest collection, by -c
    m = "python-missing-pandas"
    add(m, "deps.module-not-found", "shop", "python3 report.py", "Generate the sales report", "pandas not installed; script fails at import")
    add(m, "deps.module-not-found", "shop", f"{PY} tests/test_report.py", "Run the report tests", "pandas not installed; pytest collection error importing report.py")
    add(m, "deps.module-not-found", "shop", "python3 -c 'import pandas; print(pandas.__version__)'", "Check the pandas version", "pandas not installed; python -c")
    m = "python-missing-sqlalchemy"
    add(m, "deps.module-not-found", "shop", "python3 db.py", "Create the database engine", "sqlalchemy not installed")
    add(m, "deps.module-not-found", "shop", "python3 -c 'from sqlalchemy import create_engine'", "Check sqlalchemy is importable", "sqlalchemy not installed; python -c")
    m = "python-missing-redis"
    add(m, "deps.module-not-found", "shop", "python3 worker.py", "Start the worker", "redis not installed; imported by jobs/queue.py, not by the script itself")
    add(m, "deps.module-not-found", "shop", f"{PY} tests/test_worker.py", "Run the worker tests", "redis not installed; pytest collection error")
    # Python: wrong names imported from the project's own modules
    m = "python-wrong-import-load_settings-from-settings"
    add(m, "python.import-error", "shop", "python3 main.py", "Run the app entry point", "settings.py defines load_config, not load_settings")
    add(m, "python.import-error", "shop", f"{PY} tests/test_main.py", "Run the settings test", "same wrong import, reached by pytest collection")
    m = "python-wrong-import-parse_row-from-utils"
    add(m, "python.import-error", "shop", "echo 'a,b' | python3 export.py", "Export the rows", "utils.py defines parse_line, not parse_row")
    add(m, "python.import-error", "shop", "python3 -c 'from utils import parse_row'", "Check the parser import", "same wrong import, python -c")
    # Python: exceptions in project code, the same one reached from several commands
    m = "python-keyerror-database-in-app.models.load"
    add(m, "python.traceback", "shop", "python3 run.py serve", "Start the server", "config.json has no 'database' key; KeyError in app/models.py:load")
    add(m, "python.traceback", "shop", f"{PY} tests/test_models.py", "Run the model tests", "same KeyError in app/models.py:load, shown by pytest")
    add(m, "python.traceback", "shop", "python3 -c 'from app.models import load; load()'", "Try loading the config", "same KeyError, python -c")
    add(m, "python.traceback", "shop", "python3 run.py serve || true", "Start the server (ignore failure)", "same KeyError, exit code masked by || true")
    m = "python-keyerror-user-in-app.views.render"
    add(m, "python.traceback", "shop", "python3 run.py render", "Render the greeting", "render() reads ctx['user'] but callers pass 'name'; KeyError in app/views.py:render")
    add(m, "python.traceback", "shop", f"{PY} tests/test_views.py", "Run the view tests", "same KeyError in app/views.py:render, shown by pytest")
    m = "python-attributeerror-to_json-in-app.models.save"
    add(m, "python.traceback", "shop", "python3 run.py save 1", "Save record 1", "save() calls .to_json() on a dict")
    add(m, "python.traceback", "shop", "python3 run.py save 42", "Save record 42", "same AttributeError with another record id")
    add(m, "python.traceback", "shop", "python3 -c 'from app.models import save; save({\"id\": 7})'", "Save a record from the shell", "same AttributeError, python -c")
    m = "python-zerodivision-in-stats.mean-on-empty-data"
    add(m, "python.traceback", "shop", "python3 stats.py data/week-07.csv", "Weekly stats for week 7", "mean() of an empty list; ZeroDivisionError in stats.py:mean")
    add(m, "python.traceback", "shop", "python3 stats.py data/week-08.csv", "Weekly stats for week 8", "same ZeroDivisionError on another empty file")
    # Python: syntax errors in two files
    m = "python-syntax-server.py-def-handle-missing-colon"
    add(m, "python.syntax-error", "shop", "python3 server.py", "Start the request handler", "def handle(request) lacks ':'")
    add(m, "python.syntax-error", "shop", "python3 -m py_compile server.py", "Byte-compile the server", "same SyntaxError via py_compile")
    m = "python-syntax-client.py-class-missing-colon"
    add(m, "python.syntax-error", "shop", "python3 client.py", "Load the client", "class Client lacks ':' (same message as server.py, another file)")
    add(m, "python.syntax-error", "shop", "python3 -m py_compile client.py", "Byte-compile the client", "same SyntaxError via py_compile")
    m = "python-syntax-sync_worker.py-unclosed-paren"
    add(m, "python.syntax-error", "shop", "python3 sync_worker.py", "Run the sync worker", "print( never closed")
    add(m, "python.syntax-error", "shop", f"{PY} tests/test_sync.py", "Run the sync tests", "same SyntaxError, reached by pytest collection")
    # pytest: the same failing test with different numbers, and other tests
    m = "python-cart.total-drops-one-item"
    add(m, "test.failures", "shop", f"{PY} tests/test_cart.py::test_total", "Run the total test", "total() multiplies by qty-1; assert 8 == 12")
    add(m, "test.failures", "shop", f"QTY=5 {PY} tests/test_cart.py::test_total", "Run the total test with 5 items", "same test, other numbers: assert 16 == 20")
    add(m, "test.failures", "shop", f"QTY=7 {PY} tests/test_cart.py -k total", "Run the total tests with 7 items", "same test selected with -k: assert 24 == 28")
    m = "python-cart.discount-subtracts-percent"
    add(m, "test.failures", "shop", f"{PY} tests/test_cart.py::test_discount", "Run the discount test", "discount() subtracts the percent as an amount")
    add(m, "test.failures", "shop", "python3 -m pytest tests/test_cart.py -k discount --tb=short", "Run the discount tests, short tracebacks", "same failing test, other flags")
    m = "python-invoice.total-ignores-qty"
    add(m, "test.failures", "shop", f"{PY} tests/test_invoice.py", "Run the invoice tests", "invoice.total() ignores qty; a test_total in another file")
    add(m, "test.failures", "shop", f"{PY} tests/test_invoice.py::test_total --tb=line", "Run the invoice total test", "same failing test, --tb=line")
    m = "python-tax.vat-rate-wrong"
    add(m, "test.failures", "shop", f"{PY} tests/test_tax.py", "Run the tax tests", "vat() uses 1.02 instead of 1.2")
    add(m, "test.failures", "shop", "python3 -m pytest tests/test_tax.py::test_vat -v", "Run the VAT test verbosely", "same failing test, -v")
    # Missing paths: the same missing file reached by different tools, with volatile temp dirs
    m = "missing-run-report.json-never-written"
    add(m, "fs.no-such-file", "shop", "cat {tmp_run_a}/run-41/report.json", "Show the test report", "the step that writes report.json into the run directory never ran", setup="mkdir -p {tmp_run_a}/run-41")
    add(m, "fs.no-such-file", "shop", "python3 -c \"import json; print(json.load(open('{tmp_run_b}/run-42/report.json')))\"", "Parse the test report", "same missing report, another run directory, open()", setup="mkdir -p {tmp_run_b}/run-42")
    add(m, "fs.no-such-file", "shop", "ls -l {tmp_run_c}/run-1187/report.json", "Check the report exists", "same missing report, another run directory, ls", setup="mkdir -p {tmp_run_c}/run-1187")
    m = "missing-config/settings.local.toml"
    add(m, "fs.no-such-file", "shop", "cat config/settings.local.toml", "Show the local settings", "settings.local.toml was never created (only settings.toml exists)")
    add(m, "fs.no-such-file", "shop", "head -n 5 config/settings.local.toml", "Peek at the local settings", "same missing file, head")
    m = "missing-data/customers.csv"
    add(m, "fs.no-such-file", "shop", "python3 import_data.py", "Import the customers", "data/customers.csv does not exist; FileNotFoundError from open()")
    add(m, "fs.no-such-file", "shop", "python3 load_customers.py", "Count the customers", "same missing file, Path.read_text() in another script")
    add(m, "fs.no-such-file", "shop", "wc -l data/customers.csv", "Count customer lines", "same missing file, wc")
    # Missing commands
    m = "command-helm-not-installed"
    add(m, "shell.command-not-found", "shop", "helm install web ./chart", "Install the chart", "helm is not installed")
    add(m, "shell.command-not-found", "shop", "helm list -A", "List releases", "helm is not installed")
    m = "command-yarn-not-installed"
    add(m, "shell.command-not-found", "webapp", "yarn install", "Install dependencies with yarn", "yarn is not installed")
    add(m, "shell.command-not-found", "webapp", "yarn build && yarn test", "Build and test with yarn", "yarn is not installed")
    m = "command-typo-pyhton3"
    add(m, "shell.command-not-found", "shop", "pyhton3 run.py serve", "Start the server", "typo: pyhton3")
    add(m, "shell.command-not-found", "shop", "pyhton3 -m pytest -q", "Run the tests", "same typo")
    # Node: missing packages (CommonJS, ESM, -e) and a missing local module
    m = "node-missing-express"
    add(m, "deps.module-not-found", "webapp", "node server.js", "Start the web server", "node_modules not installed: express missing")
    add(m, "deps.module-not-found", "webapp", "node app.mjs", "Start the ESM server", "express missing, ESM import (ERR_MODULE_NOT_FOUND)")
    add(m, "deps.module-not-found", "webapp", "node -e \"require('express')\"", "Check express resolves", "express missing, node -e")
    m = "node-missing-lodash"
    add(m, "deps.module-not-found", "webapp", "node util.js", "Run the chunk helper", "lodash missing")
    add(m, "deps.module-not-found", "webapp", "node -e \"const _ = require('lodash'); console.log(_.VERSION)\"", "Check the lodash version", "lodash missing, node -e")
    m = "node-missing-local-lib/config"
    add(m, "js.module-not-found", "webapp", "node index.js", "Print the configured port", "lib/config.js was never written")
    add(m, "js.module-not-found", "webapp", "node cli.js", "Run the CLI", "same missing local module from another file")
    m = "node-cart.lineTotal-adds-instead-of-multiplies"
    add(m, "test.failures", "webapp", "npm test", "Run the test suite", "lineTotal adds; 2 + 3 !== 6")
    add(m, "test.failures", "webapp", "QTY=4 node --test test/cart.test.js", "Run the cart test with 4 items", "same test, other numbers: 6 !== 8")
    m = "node-discount.applyDiscount-subtracts-percent"
    add(m, "test.failures", "webapp", "node --test spec/discount.spec.js", "Run the discount spec", "applyDiscount subtracts the percent as an amount: 190 !== 180")
    add(m, "test.failures", "webapp", "PCT=20 node --test spec/discount.spec.js", "Run the discount spec at 20%", "same test, other numbers: 180 !== 160")
    # npm
    m = "npm-missing-script-build"
    add(m, "js.npm-error", "webapp", "npm run build", "Build the bundle", "package.json has no build script")
    add(m, "js.npm-error", "webapp", "npm run build -- --prod", "Production build", "same missing script")
    m = "npm-missing-script-lint"
    add(m, "js.npm-error", "webapp", "npm run lint", "Lint the code", "package.json has no lint script")
    add(m, "js.npm-error", "webapp", "npm run lint -- --fix", "Lint and fix", "same missing script")
    m = "npm-ci-without-lockfile"
    add(m, "js.npm-error", "webapp", "npm ci", "Clean install", "no package-lock.json")
    add(m, "js.npm-error", "webapp", "npm ci --omit=dev", "Clean install without dev deps", "no package-lock.json")
    # C / C++
    m = "c-missing-header-protocol.h"
    add(m, "build.compile-error", "tool", "gcc -c net.c", "Compile the network module", "protocol.h does not exist")
    add(m, "build.compile-error", "tool", "gcc -Wall -O2 -c -o server.o server.c", "Compile the server module", "same missing header from another file")
    add(m, "build.compile-error", "tool", "make net.o", "Build net.o", "same missing header inside make")
    m = "c-undeclared-buf_len-in-parse.c"
    add(m, "build.compile-error", "tool", "gcc -c parse.c", "Compile the parser", "buf_len is never declared")
    add(m, "build.compile-error", "tool", "gcc -O2 -Wall -c parse.c -o /tmp/parse.o", "Compile the parser with warnings", "same error, other flags")
    m = "cpp-vector-has-no-member-push"
    add(m, "build.compile-error", "tool", "g++ -std=c++17 -c parser.cpp", "Compile the C++ parser", "std::vector has push_back, not push")
    add(m, "build.compile-error", "tool", "g++ -O2 -Wall -c parser.cpp -o parser.o", "Compile the C++ parser optimised", "same error")
    m = "cpp-vector-has-no-member-pop_front"
    pop = "sed -i 's/tokens.push(3);/tokens.push_back(3);\\n    tokens.pop_front();/' parser.cpp"
    add(m, "build.compile-error", "tool", "g++ -std=c++17 -c parser.cpp", "Compile the C++ parser", "after push was fixed: std::vector has no pop_front", setup=pop)
    add(m, "build.compile-error", "tool", "g++ -O2 -Wall -c parser.cpp -o parser.o", "Compile the C++ parser optimised", "same error")
    m = "c-link-undefined-compute_checksum"
    add(m, "build.link-error", "tool", "gcc -o app main.c", "Build the app", "compute_checksum declared but never defined; temp object name varies")
    add(m, "build.link-error", "tool", "gcc -O2 -o app main.c", "Build the app optimised", "same undefined reference, other temp object")
    m = "c-link-undefined-log_event"
    add(m, "build.link-error", "tool", "gcc -o logger logmain.c", "Build the logger", "log_event declared but never defined")
    add(m, "build.link-error", "tool", "gcc -g -o logger logmain.c -lm", "Build the logger with symbols", "same undefined reference")
    # make
    m = "make-target-typo-instal"
    add(m, "build.make-error", "tool", "make instal", "Install the tool", "typo: instal")
    add(m, "build.make-error", "tool", "make instal PREFIX={tmp_prefix}", "Install the tool into a prefix", "same typo, with a temp prefix")
    m = "make-missing-util.c-for-util.o"
    add(m, "build.make-error", "tool", "make app2", "Build app2", "util.c was deleted but the Makefile still needs util.o")
    add(m, "build.make-error", "tool", "make -j4", "Build everything", "same missing prerequisite via the default target")
    m = "make-legacy-Makefile-spaces-not-tab"
    add(m, "build.make-error", "tool", "make -C legacy", "Build the legacy tool", "recipe indented with spaces: missing separator")
    add(m, "build.make-error", "tool/legacy", "make test", "Test the legacy tool", "same Makefile, other target")
    m = "make-docs-Makefile-spaces-not-tab"
    add(m, "build.make-error", "tool", "make -C docs", "Build the docs", "another Makefile indented with spaces")
    add(m, "build.make-error", "tool/docs", "make html", "Build the HTML docs", "same Makefile, from its directory")
    # Rust
    m = "rust-E0432-serde_json-not-a-dependency"
    add(m, "build.compile-error", "rusty/json_tool", "cargo build", "Build the JSON tool", "serde_json used but not in Cargo.toml")
    add(m, "build.compile-error", "rusty/json_tool", "rustc --edition 2021 src/main.rs -o /tmp/json_tool", "Compile main.rs directly", "same unresolved import via rustc")
    m = "rust-E0425-typo-totl"
    add(m, "build.compile-error", "rusty/stats", "cargo build", "Build stats", "typo totl for total")
    add(m, "build.compile-error", "rusty/stats", "cargo run --quiet", "Run stats", "same error via cargo run")
    m = "rust-E0425-typo-cnt"
    add(m, "build.compile-error", "rusty/counter", "cargo build", "Build the word counter", "typo cnt for count")
    add(m, "build.compile-error", "rusty/counter", "cargo check", "Check the word counter", "same error via cargo check")
    m = "rust-E0308-parse_port-returns-str"
    add(m, "build.compile-error", "rusty/parsing", "cargo build", "Build the parser", "parse_port returns &str where u16 is expected")
    add(m, "build.compile-error", "rusty/parsing", "cargo test", "Test the parser", "same mismatched types via cargo test")
    m = "rust-E0308-retries-returns-str"
    retries = ("printf 'fn parse_port(s: &str) -> u16 {\\n    s.trim().parse().unwrap()\\n}\\n\\n"
               "fn retries() -> u32 {\\n    \"3\"\\n}\\n\\nfn main() {\\n    println!(\"{} {}\", parse_port(\"8080\"), retries());\\n}\\n' > src/main.rs")
    add(m, "build.compile-error", "rusty/parsing", "cargo build", "Build the parser", "after parse_port was fixed: retries() returns a &str literal", setup=retries)
    add(m, "build.compile-error", "rusty/parsing", "cargo run --quiet", "Run the parser", "same mismatched types via cargo run")
    # Java
    m = "java-missing-class-Order"
    add(m, "build.compile-error", "billing", "javac OrderService.java", "Compile the order service", "class Order does not exist")
    add(m, "build.compile-error", "billing", "javac -d out OrderService.java", "Compile the order service into out/", "same missing class")
    m = "java-missing-class-Invoice"
    add(m, "build.compile-error", "billing", "javac InvoiceService.java", "Compile the invoice service", "class Invoice does not exist")
    add(m, "build.compile-error", "billing", "javac -d build InvoiceService.java", "Compile the invoice service into build/", "same missing class")
    m = "java-main.java-missing-semicolon"
    add(m, "build.compile-error", "billing", "javac Main.java", "Compile Main", "';' expected")
    add(m, "build.compile-error", "billing", "javac -Xlint:all -d out Main.java", "Compile Main with lint", "same error, other flags")
    m = "java-missing-class-Customer"
    customer = ("printf 'public class Order {}\\n' > Order.java && "
                "sed -i 's/    public int count() { return orders.size(); }/    private Customer owner;\\n\\n    public int count() { return orders.size(); }/' OrderService.java")
    add(m, "build.compile-error", "billing", "javac OrderService.java", "Compile the order service", "after Order was added: class Customer does not exist (same file as the Order rows)", setup=customer)
    add(m, "build.compile-error", "billing", "javac -d out OrderService.java", "Compile the order service into out/", "same missing class")
    # git
    m = "git-tag-v2.0.0-does-not-exist"
    add(m, "vcs.git-fatal", "repo", "git diff v2.0.0..HEAD --stat", "Changes since 2.0.0", "tag v2.0.0 was never created/fetched")
    add(m, "vcs.git-fatal", "repo", "git log --oneline v2.0.0..HEAD", "Commits since 2.0.0", "same missing tag via git log")
    add(m, "vcs.git-error", "repo", "git checkout v2.0.0", "Check out 2.0.0", "same missing tag via checkout")
    m = "git-not-a-repository-notes"
    add(m, "vcs.git-fatal", "notes", "git status", "Show the working tree status", "notes/ is not a git repository")
    add(m, "vcs.git-fatal", "notes", "git log -1 --oneline", "Show the last commit", "same directory, another git command")
    m = "git-pathspec-src/fetch.py-is-src/fetcher.py"
    add(m, "vcs.git-fatal", "repo", "git add src/fetch.py", "Stage the fetcher", "the file is src/fetcher.py")
    add(m, "vcs.git-fatal", "repo", "git rm --cached src/fetch.py", "Unstage the fetcher", "same wrong path via git rm")
    m = "git-pathspec-docs/CHANGES.md-never-written"
    add(m, "vcs.git-fatal", "repo", "git add docs/CHANGES.md", "Stage the changelog", "docs/CHANGES.md was never written")
    add(m, "vcs.git-fatal", "repo", "git add docs/CHANGES.md README.md", "Stage the changelog and readme", "same missing file among others")
    m = "git-stale-index.lock"
    for i, t in enumerate(("tmp_lock_a", "tmp_lock_b", "tmp_lock_c")):
        add(m, "vcs.git-fatal", f"{{{t}}}/repo", ("git commit -am 'Update readme'", "git add README.md", "git restore README.md")[i],
            ("Commit the readme", "Stage the readme", "Discard the readme change")[i],
            "a stale .git/index.lock left by a killed git process; the clone's temp path varies",
            setup=f"git clone -q {{root}}/repo {{{t}}}/repo && cd {{{t}}}/repo && echo more >> README.md && touch .git/index.lock")
    m = "git-conflict-retry.py-main-vs-feature/retry"
    add(m, "vcs.merge-conflict", "repo", "git merge feature/retry", "Merge the retry branch", "both branches changed retry()'s signature", cleanup="git merge --abort")
    add(m, "vcs.merge-conflict", "repo", "git rebase main", "Rebase the retry branch on main", "same conflict via rebase; 'could not apply <sha>'",
        setup="git checkout -q feature/retry", cleanup="git rebase --abort; git checkout -q main")
    add(m, "vcs.merge-conflict", "repo", "git rebase main", "Rebase the retry branch on main again", "same conflict after the commit was amended: another SHA",
        setup="git checkout -q feature/retry && GIT_COMMITTER_DATE='2026-02-03T10:11:12' git commit -q --amend --no-edit", cleanup="git rebase --abort; git checkout -q main")
    m = "git-conflict-config.py-main-vs-feature/config"
    add(m, "vcs.merge-conflict", "repo", "git merge feature/config", "Merge the config branch", "both branches changed TIMEOUT", cleanup="git merge --abort")
    add(m, "vcs.merge-conflict", "repo", "git cherry-pick feature/config", "Cherry-pick the timeout change", "same conflict via cherry-pick", cleanup="git cherry-pick --abort")
    return s


# ---------------------------------------------------------------------------------------------


_PLACEHOLDER = re.compile(r"\{(root|tmp_[a-z_]+)\}")


def _rewrite(text: str, root: str) -> str:
    text = text.replace(root + "/", "/home/dev/src/").replace(root, "/home/dev/src")
    return text.replace(HOME + "/", "/home/dev/").replace(HOME, "/home/dev")


def _short(text: str) -> tuple[str, bool]:
    if len(text) <= MAX_OUTPUT:
        return text, False
    half = MAX_OUTPUT // 2
    return text[:half] + text[-half:], True


def _row(number: int, step: Step, command: str, cwd: str, code: int, output: str, ms: int) -> dict:
    row_id = f"p{number:03d}"
    sid = str(uuid.uuid5(NS, row_id + "/session"))
    project = cwd.replace("/", "-")
    payload: dict = {
        "session_id": sid,
        "transcript_path": f"/home/dev/.claude/projects/{project}/{sid}.jsonl",
        "cwd": cwd,
        "prompt_id": str(uuid.uuid5(NS, row_id + "/prompt")),
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PostToolUseFailure" if code else "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": step.description},
        "tool_use_id": "toolu_01" + hashlib.sha256(row_id.encode()).hexdigest()[:24],
    }
    if code:
        payload.update({"error": f"Exit code {code}\n{output}", "is_interrupt": False, "duration_ms": ms})
    else:
        payload.update({"tool_response": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False,
                                          "noOutputExpected": False}, "duration_ms": ms})
    shown, truncated = _short(output)
    if code:
        payload["error"] = f"Exit code {code}\n{shown}"
    else:
        payload["tool_response"]["stdout"] = shown
    return {"id": row_id, "command": command, "exit_code": code, "output": shown, "output_chars": len(output),
            "output_truncated": truncated, "payload": payload, "label": "error", "kind": step.kind,
            "note": step.note, "duration_ms": ms, "mistake": step.mistake, "split": split_of(step.mistake)}


def build(out: Path) -> int:
    base = Path(tempfile.mkdtemp(prefix="mistake-pairs-"))
    root = base / "src"
    temps: dict[str, str] = {}
    try:
        for name, files in (("shop", SHOP), ("webapp", WEBAPP), ("tool", TOOL), ("rusty", RUST), ("billing", BILLING)):
            _write(root / name, files)
        (root / "notes").mkdir()
        (root / "notes" / "todo.md").write_text("- ship it\n", encoding="utf-8")
        (root / "repo").mkdir()
        _sh(root / "repo", GIT_SETUP)
        rows = []
        all_steps = steps()
        for number, step in enumerate(all_steps, 1):
            for text in (step.command, step.cwd, step.setup):
                for name in _PLACEHOLDER.findall(text):
                    if name.startswith("tmp_") and name not in temps:
                        temps[name] = tempfile.mkdtemp()
            fields = {"root": str(root), **temps}

            def fill(text: str, fields: dict[str, str] = fields) -> str:
                return _PLACEHOLDER.sub(lambda m: fields[m.group(1)], text)

            cwd = Path(fill(step.cwd)) if step.cwd.startswith("{") else root / step.cwd
            command = fill(step.command)
            if step.setup:
                _sh(cwd if cwd.exists() else root, fill(step.setup))
            start = time.perf_counter()
            done = subprocess.run(["bash", "-c", command], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  env=_env(), timeout=300)
            ms = round((time.perf_counter() - start) * 1000)
            if step.cleanup:
                subprocess.run(["bash", "-c", step.cleanup], cwd=cwd, capture_output=True, env=_env())
            output = done.stdout.decode("utf-8", "replace").rstrip("\n")
            if done.returncode == 0 and "|| true" not in command:
                raise SystemExit(f"step {number} ({command!r}) unexpectedly succeeded:\n{output}")
            rows.append(_row(number, step, _rewrite(command, str(root)), _rewrite(str(cwd), str(root)),
                             done.returncode, _rewrite(output, str(root)), ms))
        with out.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        return len(rows)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        for path in temps.values():
            shutil.rmtree(path, ignore_errors=True)
        for leftover in ("/tmp/parse.o", "/tmp/json_tool"):
            Path(leftover).unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    n = build(out)
    print(f"wrote {n} rows to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
