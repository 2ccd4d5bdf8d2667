"""Build tests/data/corpus/fresh.jsonl: real command results, run for real on this machine.

    python3 bench/make_fresh_corpus.py [--only ID,ID...] [--keep]

Every row is a command actually run by ``bash -c`` in its own scratch project (made by the
case's ``setup``), with stdout and stderr merged, and wrapped in the hook payload Claude Code
sends, exactly as tests/data/corpus/public.jsonl is (see /work/shared/corpus/README.md):
PostToolUse with ``tool_response.stdout`` on exit 0, PostToolUseFailure with
``error: "Exit code N\\n<output>"`` otherwise.  Scratch paths are rewritten to /home/dev/...

Labels and kinds are written in the case table BEFORE the command is run (they say what the
command did, by construction of its setup), and checked by reading the output, never the
detector.  ``split`` ("tune" ~60% / "dev" ~40%) is a hash of the id alone: rules are tuned on
"tune" only.

What the cases need: python3, node + npm (mocha, jest, typescript, prettier and eslint are
installed with npm into the scratch tools dir), gcc/g++, make, cmake, cargo, javac/java, mvn,
git, perl, tclsh, jq, curl, wget, sqlite3, the PostgreSQL 15 server binaries (a throw-away
cluster is started on a private port and stopped at the end), dnsutils (host, dig), rsync,
valgrind, terraform, docker (its daemon is not running here), and the translations of
coreutils, bash, git, make, tar and psql (selected with LANGUAGE=xx under C.UTF-8).
A tiny local HTTP server (started and stopped here) plays the API for curl/wget.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "corpus" / "fresh.jsonl"
SCRATCH = Path("/tmp/fresh-corpus")
SRC = SCRATCH / "src"
HOME = SCRATCH / "home"
TOOLS = SCRATCH / "tools"
PG = SCRATCH / "pg"
PORT = 18642  # the local HTTP server
PG_PORT = 54329  # the throw-away PostgreSQL cluster
NS = uuid.UUID("8a4b1f7e-3c2d-4e5f-9a6b-7c8d9e0f1a2b")
MAX_OUTPUT = 20_000


def split_of(case_id: str) -> str:
    """"tune" or "dev", from the id alone (about 60/40), fixed before any result is seen."""
    return "tune" if int(hashlib.sha256(case_id.encode()).hexdigest(), 16) % 10 < 6 else "dev"


@dataclass
class Case:
    id: str
    description: str
    command: str
    label: str  # "error" | "ok"
    kind: str  # a Pattern-Key for errors, "ok" otherwise
    note: str
    setup: str = ""
    env: dict[str, str] = field(default_factory=dict)
    timeout: int = 120


# ---------------------------------------------------------------------------------------------
# Reusable project setups (bash, run in the case's directory)

GIT_INIT = """git init -q . && git config user.name Dev && git config user.email dev@example.com
printf 'print("hello")\\n' > app.py && printf 'build/\\n*.o\\n' > .gitignore && git add -A && git commit -qm 'Initial commit'
"""
PY_TESTS_PASS = """mkdir -p tests && cat > calc.py <<'EOF'
def add(a, b):
    return a + b

def parse(text):
    if not text:
        raise ValueError("empty input")
    return int(text)
EOF
cat > tests/test_calc.py <<'EOF'
import pytest
from calc import add, parse

def test_add():
    assert add(2, 3) == 5

def test_parse_raises_error_on_empty():
    with pytest.raises(ValueError):
        parse("")

def test_fatal_error_message_is_clear():
    with pytest.raises(ValueError, match="empty"):
        parse("")
EOF
touch tests/__init__.py
"""
NODE_LINK = f"ln -s {TOOLS}/node_modules node_modules\n"
MOCHA_PROJECT = NODE_LINK + """mkdir -p test && cat > package.json <<'EOF'
{"name": "mathlib", "version": "1.0.0", "scripts": {"test": "mocha"}}
EOF
cat > lib.js <<'EOF'
exports.divide = (a, b) => { if (b === 0) throw new RangeError('division by zero'); return a / b; };
EOF
cat > test/lib.spec.js <<'EOF'
const assert = require('assert');
const { divide } = require('../lib');
describe('divide', () => {
  it('divides two numbers', () => assert.strictEqual(divide(6, 3), 2));
  it('throws an error when dividing by zero', () => assert.throws(() => divide(1, 0), RangeError));
});
EOF
"""
JEST_PROJECT = NODE_LINK + """cat > package.json <<'EOF'
{"name": "strings", "version": "1.0.0", "scripts": {"test": "jest"}}
EOF
cat > slug.js <<'EOF'
module.exports = (s) => { if (typeof s !== 'string') throw new TypeError('expected a string'); return s.toLowerCase().replace(/\\s+/g, '-'); };
EOF
cat > slug.test.js <<'EOF'
const slug = require('./slug');
test('slugifies a title', () => expect(slug('Hello World')).toBe('hello-world'));
test('throws TypeError on bad input', () => expect(() => slug(42)).toThrow(TypeError));
EOF
"""
CARGO_PROJECT = """cargo init --quiet --vcs none --name app . && cat > src/main.rs <<'EOF'
fn parse(s: &str) -> Result<i32, String> { s.parse::<i32>().map_err(|e| format!("bad number: {e}")) }
fn main() { println!("{}", parse("42").unwrap()); }
#[cfg(test)]
mod tests {
    use super::*;
    #[test] fn parses_a_number() { assert_eq!(parse("7"), Ok(7)); }
    #[test] fn error_on_garbage() { assert!(parse("x").is_err()); }
}
EOF
"""
C_PROJECT = """cat > main.c <<'EOF'
#include <stdio.h>
int main(void) { printf("sum=%d\\n", 2 + 3); return 0; }
EOF
"""
MAKEFILE = """cat > Makefile <<'EOF'
CFLAGS ?= -Wall -O2
app: main.c
\t$(CC) $(CFLAGS) -o $@ main.c
clean:
\trm -f app
.PHONY: clean
EOF
"""
SQLITE_DB = """sqlite3 app.db "CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, name TEXT);
INSERT INTO users(email, name) VALUES ('ada@example.com', 'Ada'), ('bob@example.com', 'Bob');"
"""
BARE_REMOTE = """git init -q --bare ../{id}-remote.git && git remote add origin ../{id}-remote.git && git push -q origin main 2>/dev/null
"""


def L(lang: str) -> dict[str, str]:
    return {"LANGUAGE": lang}


def U(path: str) -> str:
    return f"http://127.0.0.1:{PORT}{path}"


# ---------------------------------------------------------------------------------------------
# The cases.  Label and kind are decided here, by what the setup makes the command do.

CASES: list[Case] = [
    # --- test runs that ran nothing, though they exit 0 (or 5) -------------------------------
    Case("f001", "Run the unit tests", "python3 -m unittest discover -s tests", "error", "test.none-ran",
         "unittest found no tests (files are named *_spec.py): 'Ran 0 tests ... OK', exit 0",
         "mkdir -p tests && printf 'def test_x():\\n    assert True\\n' > tests/calc_spec.py"),
    Case("f002", "Run the unit tests", "python3 -m unittest", "error", "test.none-ran",
         "unittest discovery in a project without test modules: Ran 0 tests, OK", "printf 'x = 1\\n' > app.py"),
    Case("f003", "Run the tests", "python3 -m unittest -v tests.test_calc", "ok", "ok",
         "three tests run and pass, including test names with 'error'",
         PY_TESTS_PASS + """cat > tests/test_calc.py <<'EOF'
import unittest
from calc import add, parse

class CalcTest(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
    def test_error_on_empty(self):
        self.assertRaises(ValueError, parse, "")
    def test_fatal_error_message(self):
        with self.assertRaisesRegex(ValueError, "empty"):
            parse("")
EOF"""),
    Case("f004", "Run the tests matching 'parse'", "python3 -m pytest -q -k parsing", "error", "test.none-ran",
         "-k matches no test: all deselected, pytest exits 5", PY_TESTS_PASS),
    Case("f005", "Run the test suite", "python3 -m pytest -q", "error", "test.none-ran",
         "no test files collected: 'no tests ran', exit 5", "mkdir -p tests && printf 'x = 1\\n' > tests/helpers.py"),
    Case("f006", "Run the test suite", "python3 -m pytest -q", "ok", "ok", "all 3 tests pass", PY_TESTS_PASS),
    Case("f007", "Run the divide tests", "npx mocha --grep 'modulo'", "error", "test.none-ran",
         "mocha --grep matches nothing: '0 passing', exit 0", MOCHA_PROJECT),
    Case("f008", "Run the tests", "npx mocha", "ok", "ok",
         "2 passing, one titled 'throws an error when dividing by zero'", MOCHA_PROJECT),
    Case("f009", "Run the slug tests", "npx jest --passWithNoTests slugify", "error", "test.none-ran",
         "path pattern matches no test file; --passWithNoTests makes it exit 0 with 'No tests found'", JEST_PROJECT),
    Case("f010", "Run the tests named 'camel'", "npx jest -t camel", "error", "test.none-ran",
         "-t matches no test name: every test skipped, exit 0", JEST_PROJECT),
    Case("f011", "Run the jest tests", "npx jest", "ok", "ok", "2 tests pass (one named 'throws TypeError')", JEST_PROJECT),
    Case("f012", "Run the tests for the parser", "cargo test --quiet parser", "error", "test.none-ran",
         "filter matches no test: 'running 0 tests ... 2 filtered out', exit 0", CARGO_PROJECT),
    Case("f013", "Run the Rust tests", "cargo test --quiet", "ok", "ok", "2 tests pass, one named error_on_garbage", CARGO_PROJECT),
    Case("f014", "Run the node tests", "node --test", "error", "test.none-ran",
         "node's test runner finds no test file: tests 0, exit 0", "printf 'module.exports = 1;\\n' > index.js"),
    Case("f015", "Run the CTest suite", "cd build && ctest", "error", "test.none-ran",
         "project defines no tests: 'No tests were found!!!', exit 0",
         C_PROJECT + "printf 'cmake_minimum_required(VERSION 3.16)\\nproject(demo C)\\nenable_testing()\\nadd_executable(app main.c)\\n' > CMakeLists.txt && "
         "cmake -S . -B build >/dev/null"),
    Case("f016", "Run the test suite", "npx jest", "error", "test.none-ran",
         "no test files at all: 'No tests found, exiting with code 1'", NODE_LINK + "printf '{\"name\":\"x\"}\\n' > package.json"),
    Case("f017", "Run npm test", "npm test", "error", "test.none-ran",
         "package.json's default test script: 'Error: no test specified', exit 1",
         "npm init -y >/dev/null"),
    Case("f018", "Check formatting of the TSX files", "npx prettier --check 'src/**/*.tsx'", "error", "cli.nothing-matched",
         "the glob matches no file: '[error] No files matching the pattern were found', exit 2",
         NODE_LINK + "mkdir -p src && printf 'export const a = 1;\\n' > src/a.ts"),
    Case("f019", "Lint the lib folder", "npx eslint 'lib/**/*.js'", "error", "cli.nothing-matched",
         "no file matches the pattern, exit 2",
         NODE_LINK + "printf 'module.exports = {root: true, rules: {}};\\n' > .eslintrc.js && mkdir -p src && printf 'var a = 1;\\n' > src/a.js"),
    Case("f020", "Type-check the scripts", f"{ROOT}/.venv/bin/mypy scripts/", "error", "cli.nothing-matched",
         "mypy: no .py files in the directory, exit 2", "mkdir -p scripts && printf 'echo hi\\n' > scripts/run.sh"),
    Case("f021", "Lint the scripts folder", f"{ROOT}/.venv/bin/ruff check scripts/", "error", "cli.nothing-matched",
         "ruff finds no Python file under the path: 'warning: No Python files found', exit 0",
         "mkdir -p scripts && printf 'echo hi\\n' > scripts/run.sh"),
    Case("f022", "Lint the package", f"{ROOT}/.venv/bin/ruff check .", "ok", "ok", "'All checks passed!'",
         "printf 'import os\\n\\nprint(os.sep)\\n' > app.py"),
    Case("f023", "Stage the generated files", "git add '*.pb.go'", "error", "vcs.git-fatal",
         "pathspec matches no file: fatal, exit 128", GIT_INIT),
    Case("f024", "Zip the reports", "zip -r reports.zip reports/", "error", "cli.nothing-matched",
         "zip: 'name not matched' + 'Nothing to do!', exit 12", ""),
    Case("f025", "Build the app", "make", "ok", "ok", "make: 'app' is up to date (already built)",
         C_PROJECT + MAKEFILE + "make -s >/dev/null"),
    Case("f026", "Build everything", "make all", "ok", "ok", "'Nothing to be done for 'all'' -- nothing to rebuild",
         "printf 'all:\\n' > Makefile"),
    Case("f027", "Pull the latest changes", "git pull", "ok", "ok", "'Already up to date.'",
         GIT_INIT + BARE_REMOTE.format(id="f027") + "git branch -q -u origin/main"),
    Case("f028", "Run the test suite", "python3 -m pytest -q tests/test_api.py", "error", "fs.no-such-file",
         "the test file does not exist: 'ERROR: file or directory not found', exit 4", PY_TESTS_PASS),

    # --- bare failing HTTP status printed by a client that exits 0 ---------------------------
    Case("f030", "Check the users endpoint", f"curl -s -o /dev/null -w '%{{http_code}}' {U('/api/users')}", "error",
         "net.http-error", "curl prints only the status: 404", ""),
    Case("f031", "Check the orders endpoint", f"curl -s -o /dev/null -w '%{{http_code}}\\n' {U('/api/orders')}", "error",
         "net.http-error", "curl prints only the status: 500", ""),
    Case("f032", "Check the health endpoint", f"curl -s -o /dev/null -w '%{{http_code}}' {U('/health')}", "ok", "ok",
         "status 200", ""),
    Case("f033", "Fetch the headers of the download", f"curl -sI {U('/downloads/app-1.2.tar.gz')}", "error", "net.http-error",
         "HEAD answers 404 File not found", ""),
    Case("f034", "Check the API is up", f"curl -sI {U('/health')}", "ok", "ok", "HTTP/1.0 200 OK headers", ""),
    Case("f035", "Call the orders API", f"curl -s -w '\\n%{{http_code}}\\n' {U('/api/orders')}", "error", "net.http-error",
         "JSON error body then the status 500", ""),
    Case("f036", "Call the report endpoint", f"curl -s {U('/api/boom')}", "error", "net.http-error",
         "plain-text body '500 Internal Server Error'", ""),
    Case("f037", "Get the repo settings", f"curl -s -w 'status %{{http_code}}\\n' -o settings.json {U('/api/repos/acme/web/settings')}",
         "error", "net.http-error", "prints 'status 403' (body saved to a file)", ""),
    Case("f038", "Download the release notes", f"wget -q -O notes.md {U('/releases/notes.md')}", "error", "net.http-error",
         "wget exits 8 on a 404, prints nothing with -q", ""),
    Case("f039", "List the items", f"curl -s {U('/api/items')}", "ok", "ok",
         "JSON with \"error\": null and \"errors\": []", ""),
    Case("f040", "Get the bot user", f"curl -s {U('/api/users/7')}", "ok", "ok",
         "a user called error-bot whose bio mentions failed builds", ""),
    Case("f041", "Query the user name", f"curl -s -X POST -d '{{\"query\": \"{{ user {{ nmae }} }}\"}}' {U('/graphql')}", "error",
         "app.error-message", "GraphQL answers 200 with an errors array", ""),
    Case("f042", "Submit the export job", f"curl -s -X POST {U('/api/jobs')}", "error", "app.error-message",
         "job API answers {\"status\": \"failed\", \"error\": \"queue full\"}", ""),
    Case("f043", "List the recent jobs", f"curl -s {U('/api/jobs')}", "ok", "ok",
         "job list; an old job's last_error field holds an error text: data", ""),
    Case("f044", "Get the service stats", f"curl -s {U('/api/stats')}", "ok", "ok",
         "stats JSON with error counters at 0", ""),
    Case("f045", "Open the error codes doc page", f"curl -s {U('/docs/errors.html')}", "ok", "ok",
         "a documentation page titled 'Error codes reference' (HTTP 200)", ""),
    Case("f046", "Call the API with my token", f"curl -s {U('/api/me')}", "error", "net.http-error",
         "401 with {\"error\": \"invalid_token\"}", ""),
    Case("f047", "Fetch the issues", f"curl -s -w '\\nHTTP %{{http_code}}\\n' {U('/api/issues')}", "error", "net.http-error",
         "rate limited: 429 and a message", ""),
    Case("f048", "Check the API with python", "python3 check_api.py", "error", "net.http-error",
         "script prints 'GET /api/orders -> 500 Internal Server Error' and exits 0",
         f"""cat > check_api.py <<'EOF'
import urllib.request, urllib.error
try:
    with urllib.request.urlopen("{U('/api/orders')}") as r:
        print("GET /api/orders ->", r.status, r.reason)
except urllib.error.HTTPError as e:
    print("GET /api/orders ->", e.code, e.reason)
EOF"""),
    Case("f049", "Check the API with python", "python3 check_api.py", "ok", "ok", "prints 'GET /health -> 200 OK'",
         f"""cat > check_api.py <<'EOF'
import urllib.request
with urllib.request.urlopen("{U('/health')}") as r:
    print("GET /health ->", r.status, r.reason)
EOF"""),
    Case("f050", "Run the client tests", "python3 -m pytest -q -s test_client.py", "ok", "ok",
         "tests of 404 handling pass; the stub server logs '... 404 -' lines",
         """cat > test_client.py <<'EOF'
import http.server, threading, urllib.request, urllib.error, pytest

class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/ok":
            self.send_response(200); self.end_headers(); self.wfile.write(b"fine")
        else:
            self.send_error(404)

@pytest.fixture(scope="module")
def server():
    s = http.server.HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=s.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{s.server_port}"
    s.shutdown()

def test_missing_page_is_404(server):
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(server + "/missing")
    assert e.value.code == 404

def test_ok_page(server):
    assert urllib.request.urlopen(server + "/ok").read() == b"fine"
EOF"""),
    Case("f051", "Fetch the status and the body", f"curl -s -w ' %{{http_code}}' {U('/health')}", "ok", "ok",
         "health JSON followed by 200", ""),
    Case("f052", "Download the artefact", f"curl -fsS -o app.tgz {U('/downloads/app-1.2.tar.gz')}", "error", "net.http-error",
         "curl -f: 'The requested URL returned error: 404', exit 22", ""),
    Case("f053", "Call the unreachable service", "curl -s http://127.0.0.1:9/api", "error", "net.connection-refused",
         "nothing listens on port 9: curl exits 7 silently (-s)", ""),
    Case("f054", "Call the staging API", "curl -sS https://staging.internal.invalid/api", "error", "net.dns",
         "host does not resolve: 'Could not resolve host', exit 6", ""),
    Case("f055", "Retry the flaky endpoint", "python3 fetch.py", "ok", "ok",
         "first two attempts get 503 and are retried; the third succeeds",
         f"""cat > fetch.py <<'EOF'
import time, urllib.request, urllib.error
for attempt in range(1, 6):
    try:
        body = urllib.request.urlopen("{U('/flaky?key=f055')}").read().decode()
        print(f"attempt {{attempt}} succeeded: {{body}}")
        break
    except urllib.error.HTTPError as e:
        print(f"attempt {{attempt}} failed: HTTP {{e.code}} {{e.reason}}, retrying in 0.1s...")
        time.sleep(0.1)
EOF"""),

    # --- yes/no checks answering "no" --------------------------------------------------------
    Case("f060", "Does the feature branch exist?", "git rev-parse --verify -q refs/heads/feature-x", "ok", "ok",
         "quiet ref check: no such branch, exit 1, no output", GIT_INIT),
    Case("f061", "Is there an origin/main?", "git rev-parse --verify --quiet origin/main", "ok", "ok",
         "no remote-tracking branch: exit 1 silently", GIT_INIT),
    Case("f062", "Does the release branch exist?", "git show-ref --verify --quiet refs/heads/release", "ok", "ok",
         "show-ref --verify --quiet: no, exit 1", GIT_INIT),
    Case("f063", "Is tag v9.9 there?", "git show-ref --tags v9.9", "ok", "ok", "no such tag: exit 1, no output", GIT_INIT),
    Case("f064", "Is main.c ignored?", "git check-ignore -v src/main.c", "ok", "ok",
         "not ignored: check-ignore exits 1 with no output", GIT_INIT),
    Case("f065", "Are there unstaged changes?", "git diff --quiet", "ok", "ok", "changes exist: exit 1, no output",
         GIT_INIT + "echo 'print(2)' >> app.py"),
    Case("f066", "Anything staged?", "git diff --cached --quiet --exit-code", "ok", "ok", "something is staged: exit 1",
         GIT_INIT + "echo 'print(2)' >> app.py && git add app.py"),
    Case("f067", "Is feature merged into main?", "git merge-base --is-ancestor feature main", "ok", "ok",
         "feature is ahead of main: not an ancestor, exit 1",
         GIT_INIT + "git checkout -qb feature && echo x > f.txt && git add f.txt && git commit -qm f && git checkout -q main"),
    Case("f068", "Do we have that object?", "git cat-file -e 3f786850e387550fdab836ed7e6dc881de23001b", "ok", "ok",
         "a well-formed object id that is not in this repo: exit 1, no output", GIT_INIT),
    Case("f069", "Is commit signing configured?", "git config --get user.signingkey", "ok", "ok",
         "key unset: git config exits 1 with no output", GIT_INIT),
    Case("f070", "Does the remote have branch gh-pages?", "git ls-remote --exit-code origin refs/heads/gh-pages", "ok", "ok",
         "no such remote ref: exit 2, no output", GIT_INIT + BARE_REMOTE.format(id="f070")),
    Case("f071", "Are we on a branch?", "git symbolic-ref -q HEAD", "ok", "ok", "detached HEAD: exit 1, no output",
         GIT_INIT + "git checkout -q --detach"),
    Case("f072", "Is the beta feature flag on?", "jq -e '.features.beta' config.json", "ok", "ok",
         "jq -e prints false and exits 1: the answer is no",
         "printf '{\"features\": {\"beta\": false, \"dark_mode\": true}}\\n' > config.json"),
    Case("f073", "Is lodash a dependency?", "jq -e '.dependencies.lodash' package.json", "ok", "ok",
         "jq -e prints null and exits 1", "printf '{\"dependencies\": {\"express\": \"^4.19.0\"}}\\n' > package.json"),
    Case("f074", "Does the deploy user exist?", "getent passwd deploy", "ok", "ok", "no such user: getent exits 2 silently"),
    Case("f075", "Does db.internal resolve?", "getent hosts db.internal", "ok", "ok", "unknown host: exit 2, no output"),
    Case("f076", "What is deploy's uid?", "id -u deploy", "ok", "ok", "id: 'deploy': no such user, exit 1 -- the answer is no"),
    Case("f077", "Does the staging host resolve?", "host staging.example.invalid", "ok", "ok",
         "lookup answers NXDOMAIN: 'not found: 3(NXDOMAIN)', exit 1"),
    Case("f078", "Resolve the cache host", "dig +short cache.example.invalid", "ok", "ok", "no address: empty answer, exit 0"),
    Case("f079", "Is nginx installed?", "dpkg -s nginx", "ok", "ok",
         "dpkg-query: package 'nginx' is not installed, exit 1 -- a check"),
    Case("f080", "Is yarn available?", "command -v yarn", "ok", "ok", "not on PATH: exit 1"),
    Case("f081", "Is node_modules there?", "test -d node_modules && echo present", "ok", "ok", "no: exit 1"),
    Case("f082", "Is gunicorn running?", "pgrep -f 'gunicorn app:app'", "ok", "ok", "no such process: exit 1"),
    Case("f083", "Is the old worker alive?", "kill -0 4194000", "ok", "ok",
         "no such process: 'kill: (4194000) - No such process', exit 1 -- a check"),
    Case("f084", "Is requests installed?", "pip show requests-toolbelt", "ok", "ok",
         "'WARNING: Package(s) not found', exit 1 -- the answer is no"),
    Case("f085", "Is lodash installed?", "npm ls lodash", "ok", "ok", "npm ls prints '(empty)' and exits 1",
         "npm init -y >/dev/null"),
    Case("f086", "Are the two builds identical?", "cmp -s build/a.bin dist/a.bin", "ok", "ok", "files differ: exit 1",
         "mkdir -p build dist && printf 'a' > build/a.bin && printf 'b' > dist/a.bin"),
    Case("f087", "Is node_modules/ in .gitignore?", "grep -qx 'node_modules/' .gitignore", "ok", "ok", "no: exit 1",
         "printf 'build/\\n' > .gitignore"),
    Case("f088", "Is the working tree clean?", "test -z \"$(git status --porcelain)\"", "ok", "ok", "not clean: exit 1",
         GIT_INIT + "touch new.txt"),
    Case("f089", "Is something on port 8080?", "lsof -i :8080", "ok", "ok", "nothing listening: exit 1, no output"),
    Case("f090", "Is TODO left in python files?", "git grep -q TODO -- '*.py'", "ok", "ok", "none: exit 1", GIT_INIT),
    Case("f091", "Is rustfmt installed?", "type -P rustfmt-nightly", "ok", "ok", "not found: exit 1, no output"),
    Case("f092", "Is postgres running?", "pgrep -x postgres", "ok", "ok", "it runs: pid printed, exit 0"),
    Case("f093", "Where is HEAD?", "git rev-parse --verify HEAD", "ok", "ok", "prints the commit id", GIT_INIT),
    Case("f094", "Does the feature branch exist?", "git rev-parse --verify feature-x", "error", "vcs.git-fatal",
         "without -q: 'fatal: Needed a single revision', exit 128", GIT_INIT),
    Case("f095", "Is the release tag an ancestor?", "git merge-base --is-ancestor v1.0 HEAD", "error", "vcs.git-fatal",
         "the tag does not exist: fatal, exit 128 -- not a 'no'", GIT_INIT),
    Case("f096", "Check the flag in config", "jq -e '.features.beta' config.json", "error", "data.json-parse-error",
         "config.json is not valid JSON: parse error, exit 2", "printf '{\"features\": {\"beta\": false,}}\\n' > config.json"),
    Case("f097", "Is the file there and non-empty?", "[ -s dist/app.js -a ]", "error", "shell.syntax-error",
         "malformed test expression: '[: argument expected', exit 2"),
    Case("f098", "Which group does www-data have?", "getent group www-data", "ok", "ok", "prints the group line"),
    Case("f099", "Is the uid 0?", "id -u", "ok", "ok", "prints 0"),
    Case("f100", "Is the docker image built?", "docker image inspect myapp:latest", "error", "docker.daemon-unavailable",
         "the docker daemon is not running here: cannot connect, exit 1"),

    # --- error words that are data of a successful command -----------------------------------
    Case("f110", "Create the branch", "git checkout -b fix-error-handling", "ok", "ok",
         "new branch named fix-error-handling", GIT_INIT),
    Case("f111", "List the branches", "git branch", "ok", "ok", "branch names with error/failed in them",
         GIT_INIT + "git branch fix/failed-upload-retry && git branch feature/error-page && git branch hotfix/fatal-crash"),
    Case("f112", "Push the branch", "git push -u origin fix-error-handling", "ok", "ok",
         "push of a new branch called fix-error-handling to a local remote",
         GIT_INIT + BARE_REMOTE.format(id="f112") + "git checkout -qb fix-error-handling && echo 'x' > e.py && git add e.py && git commit -qm 'Handle errors'"),
    Case("f113", "Commit the fix", "git commit -am 'Fix: raise error when config is missing'", "ok", "ok",
         "commit message holds 'error'", GIT_INIT + "echo 'print(3)' >> app.py"),
    Case("f114", "Merge the error-handling branch", "git merge fix-error-handling", "ok", "ok",
         "fast-forward; file names like src/errors.py in the stat",
         GIT_INIT + "git checkout -qb fix-error-handling && mkdir -p src && printf 'class FatalError(Exception):\\n    pass\\n' > src/errors.py && git add -A && git commit -qm 'Add FatalError' && git checkout -q main"),
    Case("f115", "Show the stashes", "git stash list", "ok", "ok", "stash messages mention a failed attempt",
         GIT_INIT + "echo 1 >> app.py && git stash push -qm 'wip: failed attempt at retry logic'"),
    Case("f116", "Rebase onto main", "git rebase main", "ok", "ok", "'Successfully rebased' a branch named fix-error-handling",
         GIT_INIT + "git checkout -qb fix-error-handling && echo e > e.txt && git add e.txt && git commit -qm e && git checkout -q main && echo m > m.txt && git add m.txt && git commit -qm m && git checkout -q fix-error-handling"),
    Case("f117", "Run the tests verbosely", "python3 -m pytest -v", "ok", "ok",
         "test names with raises_error / fatal_error, all PASSED", PY_TESTS_PASS),
    Case("f118", "Run the unit tests", "python3 -m unittest -v", "ok", "ok",
         "unittest -v: test_error_when_missing ... ok",
         "mkdir -p tests && touch tests/__init__.py && cat > tests/test_cfg.py <<'EOF'\nimport unittest\n\nclass T(unittest.TestCase):\n    def test_error_when_missing(self):\n        with self.assertRaises(FileNotFoundError):\n            open('/nonexistent/config.yml')\n    def test_failed_login_is_logged(self):\n        self.assertIn('failed', 'login failed')\nEOF"),
    Case("f119", "Run the cargo tests", "cargo test", "ok", "ok", "test tests::error_on_garbage ... ok", CARGO_PROJECT),
    Case("f120", "Clean the job queue", "python3 cleanup.py", "ok", "ok", "'Removed 12 failed jobs from the queue'",
         "printf 'print(\"Scanning queue...\")\\nprint(\"Removed 12 failed jobs from the queue\")\\nprint(\"Done.\")\\n' > cleanup.py"),
    Case("f121", "Show the error statistics", "node report.js", "ok", "ok", "a report listing error types and counts",
         "cat > report.js <<'EOF'\nconst stats = {TimeoutError: 12, ECONNRESET: 4, ValidationError: 2};\nconsole.log('Top errors this week:');\nfor (const [k, v] of Object.entries(stats)) console.log(`  ${k}: ${v}`);\nEOF"),
    Case("f122", "Summarise the log levels", "python3 summarize.py app.log", "ok", "ok", "'ERROR lines: 0'",
         "printf 'INFO start\\nWARN slow\\nINFO done\\n' > app.log && printf 'import sys\\nlines = open(sys.argv[1]).read().splitlines()\\nfor lvl in (\"ERROR\", \"WARN\", \"INFO\"):\\n    print(f\"{lvl} lines: {sum(l.startswith(lvl) for l in lines)}\")\\n' > summarize.py"),
    Case("f123", "Build (German messages)", "./build.sh", "ok", "ok", "'Kompilierung abgeschlossen: 0 Fehler, 0 Warnungen'",
         "printf '#!/bin/sh\\necho \"Kompiliere 3 Dateien ...\"\\necho \"Kompilierung abgeschlossen: 0 Fehler, 0 Warnungen\"\\n' > build.sh && chmod +x build.sh"),
    Case("f124", "Build (Spanish messages)", "./build.sh", "ok", "ok", "'Compilación terminada: 0 errores, 0 advertencias'",
         "printf '#!/bin/sh\\necho \"Compilando 3 archivos...\"\\necho \"Compilación terminada: 0 errores, 0 advertencias\"\\n' > build.sh && chmod +x build.sh"),
    Case("f125", "Build (French messages)", "./build.sh", "ok", "ok", "'Compilation terminée : 0 erreurs, 0 avertissements'",
         "printf '#!/bin/sh\\necho \"Compilation de 3 fichiers...\"\\necho \"Compilation terminée : 0 erreurs, 0 avertissements\"\\n' > build.sh && chmod +x build.sh"),
    Case("f126", "Build (Chinese messages)", "./build.sh", "ok", "ok", "'构建完成。错误: 0，警告: 0'",
         "printf '#!/bin/sh\\necho \"正在编译 3 个文件...\"\\necho \"构建完成。错误: 0，警告: 0\"\\n' > build.sh && chmod +x build.sh"),
    Case("f127", "Validate the data (German)", "python3 validate.py", "ok", "ok", "'Fehler: 0' in a validation summary",
         "printf 'print(\"Prüfe 120 Datensätze ...\")\\nprint(\"Gültig: 120\")\\nprint(\"Fehler: 0\")\\n' > validate.py"),
    Case("f128", "Check the documents (Russian)", "python3 check.py", "ok", "ok", "'Проверено 40 файлов, ошибок: 0'",
         "printf 'print(\"Проверено 40 файлов, ошибок: 0\")\\n' > check.py"),
    Case("f129", "Run the import (Japanese)", "python3 import.py", "ok", "ok", "'インポート完了: 成功 50 件, エラー 0 件'",
         "printf 'print(\"インポート完了: 成功 50 件, エラー 0 件\")\\n' > import.py"),
    Case("f130", "Load the optional plugins", "python3 load_plugins.py", "ok", "ok",
         "one optional plugin fails to load and is skipped; the app starts",
         "cat > load_plugins.py <<'EOF'\nimport importlib\nfor name in ('json', 'nosuch_optional_plugin', 'csv'):\n    try:\n        importlib.import_module(name)\n        print(f'loaded plugin {name}')\n    except ImportError as e:\n        print(f'Failed to load optional plugin {name!r} ({e}), skipping')\nprint('app started with 2 plugins')\nEOF"),
    Case("f131", "Start with the local config", "python3 start.py", "ok", "ok",
         "config file missing, defaults are used, service starts",
         "cat > start.py <<'EOF'\nimport json, logging\nlogging.basicConfig(level=logging.INFO, format='%(levelname)s %(message)s')\ntry:\n    cfg = json.load(open('local.json'))\nexcept FileNotFoundError:\n    logging.warning('local.json not found; using default settings')\n    cfg = {'port': 8080}\nlogging.info('listening on port %d', cfg['port'])\nEOF"),
    Case("f132", "Sync with the mirror", "python3 sync.py", "ok", "ok",
         "primary mirror refuses the connection, the script falls back to the secondary and syncs",
         f"""cat > sync.py <<'EOF'
import urllib.request, urllib.error
for url in ("http://127.0.0.1:9/data", "{U('/health')}"):
    try:
        urllib.request.urlopen(url, timeout=2).read()
        print(f"synced from {{url}}")
        break
    except urllib.error.URLError as e:
        print(f"mirror {{url}} failed ({{e.reason}}), trying the next one")
EOF"""),
    Case("f133", "Run the mocha tests", "npx mocha", "ok", "ok",
         "code under test logs console.error on purpose; 2 passing",
         MOCHA_PROJECT + "cat > test/log.spec.js <<'EOF'\nconst assert = require('assert');\nit('logs an error for bad input', () => { console.error('Error: invalid input \"\"'); assert.ok(true); });\nEOF"),
    Case("f134", "Dry-run the cleanup", "python3 purge.py --dry-run", "ok", "ok", "'Would delete 3 failed uploads'",
         "printf 'print(\"Would delete 3 failed uploads (dry run)\")\\n' > purge.py"),
    Case("f135", "Compile with the error-level flag", "gcc -DERROR_LEVEL=2 -Wall -o app main.c && ./app", "ok", "ok",
         "prints sum=5", C_PROJECT),
    Case("f136", "Configure the build", "cmake -S . -B build", "ok", "ok",
         "configure succeeds; check lines say 'not found' / 'Failed' for optional features",
         C_PROJECT + "printf 'cmake_minimum_required(VERSION 3.16)\\nproject(demo C)\\ninclude(CheckIncludeFile)\\ncheck_include_file(nosuch_optional.h HAVE_NOSUCH)\\ninclude(CheckCSourceCompiles)\\ncheck_c_source_compiles(\"int main(void){return __builtin_nosuch();}\" HAVE_BUILTIN_NOSUCH)\\nadd_executable(app main.c)\\n' > CMakeLists.txt"),
    Case("f137", "Install rimraf 3", "npm install --no-audit --no-fund rimraf@3", "ok", "ok",
         "installs with 'npm warn deprecated' lines", "npm init -y >/dev/null"),
    Case("f138", "Search the issues", f"curl -s '{U('/api/search?q=timeout')}'", "ok", "ok",
         "search results whose titles hold error text", ""),
    Case("f139", "Print the titles of open bugs", "jq -r '.[].title' issues.json", "ok", "ok", "issue titles starting with 'Error:'",
         "printf '[{\"title\": \"Error: crash when saving a draft\"}, {\"title\": \"fatal: bad object after gc\"}, {\"title\": \"Upload failed for big files\"}]\\n' > issues.json"),
    Case("f140", "Find the failing checks in the log", "python3 -c \"import re,sys; print(*[l for l in open('ci.log') if 'FAILED' in l], sep='')\"", "ok", "ok",
         "python one-liner printing the FAILED lines of an old CI log: data",
         "printf 'PASSED a\\nFAILED tests/test_io.py::test_read - OSError\\nPASSED b\\n' > ci.log"),
    Case("f141", "Run the perl report", "perl report.pl", "ok", "ok", "prints '0 errors, 0 failures in 12 records'",
         "printf 'my ($e, $f) = (0, 0);\\nprint \"$e errors, $f failures in 12 records\\\\n\";\\n' > report.pl"),
    Case("f142", "Backup the db", "sqlite3 app.db '.backup backup.db' && ls", "ok", "ok", "backup done; listing shows the files",
         SQLITE_DB),

    # --- ordinary failures, and key families (database errors, non-test 'N failed', locales) --
    Case("f150", "Query the users", "sqlite3 app.db 'SELEC * FROM users;'", "error", "sql.error",
         "typo in SQL: sqlite 'Parse error: near \"SELEC\": syntax error'", SQLITE_DB),
    Case("f151", "Extract a JSON field in sqlite", "sqlite3 app.db \"SELECT json_extract('{bad', '$.a');\"", "error", "sql.error",
         "sqlite refuses malformed JSON in the query: 'malformed JSON'", SQLITE_DB),
    Case("f152", "Insert a user", "sqlite3 app.db \"INSERT INTO users(email, name) VALUES ('ada@example.com', 'Ada');\"", "error",
         "sql.constraint-violation", "UNIQUE constraint failed", SQLITE_DB),
    Case("f153", "Query the users", "psql -c 'SELECT * FROM userz;'", "error", "sql.error",
         "relation \"userz\" does not exist", ""),
    Case("f154", "Cast the payload", "psql -c \"SELECT '{bad'::json;\"", "error", "sql.error",
         "Postgres: invalid input syntax for type json -- a query error, not a parse of our file", ""),
    Case("f155", "Read a JSON field", "psql -At -c \"SELECT '{\\\"a\\\": 1}'::jsonb ->> 'a';\"", "ok", "ok", "prints 1", ""),
    Case("f156", "Insert a duplicate", "psql -c \"INSERT INTO accounts(email) VALUES ('ada@example.com');\"", "error",
         "sql.constraint-violation", "duplicate key value violates unique constraint", ""),
    Case("f157", "Connect to the reports db", "psql -d reports -c 'SELECT 1;'", "error", "sql.error",
         "database \"reports\" does not exist", ""),
    Case("f158", "Connect to the replica", "psql -h 127.0.0.1 -p 5999 -c 'SELECT 1;'", "error", "net.connection-refused",
         "nothing listens on 5999: connection refused", ""),
    Case("f159", "Parse the payload with node", "node -e \"JSON.parse(require('fs').readFileSync('data.json', 'utf8'))\"", "error",
         "data.json-parse-error", "trailing comma: SyntaxError ... in JSON at position", "printf '{\"a\": 1,}\\n' > data.json"),
    Case("f160", "Load the fixtures", "python3 -c \"import json; json.load(open('fixtures.json'))\"", "error", "data.json-parse-error",
         "JSONDecodeError: Expecting property name", "printf '{\"a\": 1,}\\n' > fixtures.json"),
    Case("f161", "Query the orders table", "python3 db.py", "error", "sql.error",
         "sqlite3.OperationalError: no such column: emial",
         SQLITE_DB + "printf 'import sqlite3\\ncon = sqlite3.connect(\"app.db\")\\nprint(con.execute(\"SELECT emial FROM users\").fetchall())\\n' > db.py"),
    Case("f162", "Run the migrations", "python3 migrate.py", "error", "app.error-message",
         "one of five migrations fails; summary 'Applied 4 migrations, 1 failed', exit 1",
         "cat > migrate.py <<'EOF'\nimport sys\nfor i in range(1, 6):\n    print(f'migration 000{i}: ' + ('FAILED (column already exists)' if i == 3 else 'applied'))\nprint('Applied 4 migrations, 1 failed')\nsys.exit(1)\nEOF"),
    Case("f163", "Upload the assets", "python3 upload.py", "error", "app.error-message",
         "exits 0 but one upload failed: 'Uploaded 9 files, 1 failed'",
         "printf 'print(\"uploading 10 files\")\\nprint(\"logo.png: upload failed (HTTP 413)\")\\nprint(\"Uploaded 9 files, 1 failed\")\\n' > upload.py"),
    Case("f164", "Sync the assets", "rsync -a static/ /tmp/fresh-corpus/out-f164/", "error", "fs.no-such-file",
         "source folder does not exist: rsync change_dir failed, code 23", ""),
    Case("f165", "Sync the assets", "rsync -av static/ out/", "ok", "ok", "rsync copies files (one named error-page.html)",
         "mkdir -p static && touch static/error-page.html static/index.html"),
    Case("f166", "Validate the terraform config", "terraform validate -no-color", "error", "app.error-message",
         "unsupported block type: 'Error: Unsupported block type', exit 1",
         "printf 'resorce \"x\" \"y\" {\\n}\\n' > main.tf"),
    Case("f167", "Check terraform formatting", "terraform fmt -check", "error", "lint.violations",
         "an unformatted file: fmt -check lists it and exits 3", "printf 'variable \"a\" {\\ndefault=1\\n}\\n' > main.tf"),
    Case("f168", "Build the image", "docker build -t myapp .", "error", "docker.daemon-unavailable",
         "docker daemon not reachable", "printf 'FROM alpine\\n' > Dockerfile"),
    Case("f169", "Verify the checksums", "sha256sum -c SHA256SUMS", "error", "app.error-message",
         "a file does not match: 'FAILED' + 'WARNING: 1 computed checksum did NOT match'",
         "echo a > a.txt && echo b > b.txt && sha256sum a.txt b.txt > SHA256SUMS && echo changed > b.txt"),
    Case("f170", "Verify the checksums", "sha256sum -c SHA256SUMS", "ok", "ok", "both files OK",
         "echo a > a.txt && echo b > b.txt && sha256sum a.txt b.txt > SHA256SUMS"),
    Case("f171", "Build the java project", "mvn -o -B -q compile", "error", "deps.install-failed",
         "offline Maven cannot resolve plugin dependencies: BUILD FAILURE",
         "mkdir -p src/main/java/demo && printf '<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion><groupId>demo</groupId><artifactId>demo</artifactId><version>1.0</version></project>\\n' > pom.xml && printf 'package demo; public class App {}\\n' > src/main/java/demo/App.java"),
    Case("f172", "Run the batch", "python3 batch.py", "error", "app.error-message",
         "3 of 20 records fail; the script prints '17 succeeded, 3 failed' and exits 2",
         "printf 'import sys\\nprint(\"processed 20 records: 17 succeeded, 3 failed\")\\nsys.exit(2)\\n' > batch.py"),

    # --- localised messages of real tools (LANGUAGE=xx) --------------------------------------
    Case("f180", "Show the config", "cat config.yml", "error", "fs.no-such-file",
         "German: 'Datei oder Verzeichnis nicht gefunden', exit 1", "", L("de")),
    Case("f181", "List the build output", "ls build/; echo fertig", "error", "fs.no-such-file",
         "German ls error hidden by '; echo' (exit 0)", "", L("de")),
    Case("f182", "Run the deploy script", "./deploy.sh", "error", "fs.permission-denied",
         "French: not executable: 'Permission non accordée', exit 126", "printf '#!/bin/sh\\necho deploy\\n' > deploy.sh", L("fr")),
    Case("f183", "Run the deploy script", "./deploy.sh || true", "error", "fs.permission-denied",
         "Spanish: 'Permiso denegado' masked by || true", "printf '#!/bin/sh\\necho deploy\\n' > deploy.sh", L("es")),
    Case("f184", "Start the dev server", "yarn dev", "error", "shell.command-not-found", "Russian: 'команда не найдена', exit 127",
         "", L("ru")),
    Case("f185", "Start the dev server", "pnpm dev; echo done", "error", "shell.command-not-found",
         "Japanese: 'コマンドが見つかりません', exit 0 after echo", "", L("ja")),
    Case("f186", "Create the build dir", "mkdir build", "error", "fs.already-exists",
         "German: 'Die Datei existiert bereits', exit 1", "mkdir build", L("de")),
    Case("f187", "Remove the lock file", "rm yarn.lock", "error", "fs.no-such-file",
         "French: 'Aucun fichier ou dossier de ce type', exit 1", "", L("fr")),
    Case("f188", "Switch to the feature branch", "git checkout feature/login", "error", "vcs.git-error",
         "Spanish git: 'error: pathspec ... no concordó ...', exit 1", GIT_INIT, L("es")),
    Case("f189", "Show the status", "git status", "error", "vcs.git-fatal",
         "German git outside a repo: 'Schwerwiegend: Kein Git-Repository', exit 128", "", L("de")),
    Case("f190", "Commit the parser", "git commit -m 'Add parser'", "error", "vcs.nothing-to-commit",
         "German: nothing added to commit (untracked file), exit 1", GIT_INIT + "touch parser.py", L("de")),
    Case("f191", "Show the log file", "cat logs/app.log || true", "error", "fs.no-such-file",
         "Russian: 'Нет такого файла или каталога' masked by || true", "", L("ru")),
    Case("f192", "List the dist folder", "ls dist; echo", "error", "fs.no-such-file",
         "Japanese: 'そのようなファイルやディレクトリはありません', exit 0", "", L("ja")),
    Case("f193", "Install the app", "make instal", "error", "build.make-error",
         "German make: 'Keine Regel, um ... zu erstellen', exit 2", C_PROJECT + MAKEFILE, L("de")),
    Case("f194", "Install the app", "make instal", "error", "build.make-error",
         "French make: 'Aucune règle pour fabriquer la cible', exit 2", C_PROJECT + MAKEFILE, L("fr")),
    Case("f195", "Unpack the release", "tar xzf release.tgz", "error", "fs.no-such-file",
         "German tar: archive missing, 'Datei oder Verzeichnis nicht gefunden', exit 2", "", L("de")),
    Case("f196", "Build in the build dir", "cd build && make", "error", "fs.no-such-file",
         "Spanish: cd: 'No existe el fichero o el directorio', exit 1", "", L("es")),
    Case("f197", "Show the status", "git status", "ok", "ok", "German git status of a clean tree", GIT_INIT, L("de")),
    Case("f198", "Build", "make", "ok", "ok", "French make: nothing to do, up to date",
         C_PROJECT + MAKEFILE + "make -s >/dev/null", L("fr")),
    Case("f199", "Pull", "git pull", "ok", "ok", "Chinese git: already up to date",
         GIT_INIT + BARE_REMOTE.format(id="f199") + "git branch -q -u origin/main", L("zh_CN")),
    Case("f200", "Show the config", "cat settings.ini", "error", "fs.no-such-file",
         "Italian: 'File o directory non esistente', exit 1", "", L("it")),
    Case("f201", "Show the config", "cat settings.ini; true", "error", "fs.no-such-file",
         "Brazilian Portuguese: 'Arquivo ou diretório inexistente', exit 0", "", L("pt_BR")),
    Case("f202", "Show the config", "head -5 settings.ini; echo ---", "error", "fs.no-such-file",
         "Polish: 'Nie ma takiego pliku ani katalogu', exit 0", "", L("pl")),
    Case("f203", "Show the config", "cat settings.ini", "error", "fs.no-such-file",
         "Korean: '그런 파일이나 디렉터리가 없습니다', exit 1", "", L("ko")),
    Case("f204", "Show the config", "cat settings.ini || echo", "error", "fs.no-such-file",
         "Traditional Chinese: '沒有此一檔案或目錄', exit 0", "", L("zh_TW")),
    Case("f205", "Connect to the app db", "psql -h /tmp/fresh-corpus/nosock -c 'SELECT 1'", "error", "sql.error",
         "German psql: no server socket: 'Verbindung ... fehlgeschlagen: Datei oder Verzeichnis nicht gefunden', exit 2",
         "", L("de")),
    Case("f206", "Install jq", "apt-get install -y nosuchpkg-xyz", "error", "deps.install-failed",
         "German apt: 'E: Paket nosuchpkg-xyz kann nicht gefunden werden.', exit 100", "", L("de")),
    Case("f207", "Check out the release tag", "git checkout v9.9", "error", "vcs.git-error",
         "French git error: pathspec did not match, exit 1", GIT_INIT, L("fr")),
    Case("f208", "Show the status", "git status", "error", "vcs.git-fatal",
         "Chinese git outside a repo: '致命错误：不是 git 仓库', exit 128", "", L("zh_CN")),
    Case("f209", "List the logs", "ls /var/log/nosuchapp", "error", "fs.no-such-file",
         "Chinese ls: '无法访问 ... 没有那个文件或目录', exit 2", "", L("zh_CN")),
    Case("f210", "Run the script (German locale)", "python3 app.py", "ok", "ok", "German locale, app prints its results",
         "printf 'print(\"Ergebnis: 42\")\\n' > app.py", L("de")),
    Case("f211", "Run the deploy script", "bash -c 'set -u; echo \"Ziel: $ZIEL\"'", "error", "shell.unbound-variable",
         "German bash: 'ZIEL: Ungebundene Variable', exit 1", "", L("de")),
    Case("f212", "Run the deploy script", "bash deploy.sh", "error", "shell.syntax-error",
         "French bash syntax error: 'erreur de syntaxe'", "printf 'if true; then\\n echo x\\n' > deploy.sh", L("fr")),
    Case("f213", "Compress the logs", "gzip nosuch.log; echo ok", "error", "fs.no-such-file",
         "Spanish gzip message hidden by '; echo ok'", "", L("es")),
    Case("f214", "Copy the config", "cp config.example.yml config.yml", "error", "fs.no-such-file",
         "Russian cp: 'не удалось выполнить stat ... Нет такого файла или каталога', exit 1", "", L("ru")),
    Case("f215", "Search the code", "grep -rn TODO src/", "error", "fs.no-such-file",
         "German grep: src/ missing, exit 2", "", L("de")),

    # --- ordinary errors and successes of many ecosystems ------------------------------------
    Case("f220", "Run the report", "python3 report.py", "error", "python.traceback",
         "TypeError: unsupported operand, exit 1", "printf 'total = 0\\nfor x in [\"1\", 2]:\\n    total += x\\nprint(total)\\n' > report.py"),
    Case("f221", "Run the tool", "python3 tool.py", "error", "deps.module-not-found", "ModuleNotFoundError: requests_oauthlib",
         "printf 'import requests_oauthlib\\n' > tool.py"),
    Case("f222", "Run the server", "python3 server.py", "error", "python.syntax-error", "SyntaxError: unmatched ')'",
         "printf 'print(\"a\"))\\n' > server.py"),
    Case("f223", "Run the tests", "python3 -m pytest -q", "error", "test.failures", "1 failed, 2 passed",
         PY_TESTS_PASS + "printf 'def test_sub():\\n    assert 5 - 3 == 3\\n' > tests/test_sub.py"),
    Case("f224", "Run the tests", "python3 -m pytest -q", "error", "test.errors", "a fixture is missing: 1 error",
         "mkdir -p tests && printf 'def test_db(database):\\n    assert database\\n' > tests/test_db.py"),
    Case("f225", "Run the mocha tests", "npx mocha", "error", "test.failures", "1 failing", MOCHA_PROJECT
         + "cat > test/bad.spec.js <<'EOF'\nconst assert = require('assert');\nit('adds', () => assert.strictEqual(1 + 1, 3));\nEOF"),
    Case("f226", "Run the jest tests", "npx jest", "error", "test.failures", "1 failed test", JEST_PROJECT
         + "cat > bad.test.js <<'EOF'\ntest('upper', () => expect('a'.toUpperCase()).toBe('B'));\nEOF"),
    Case("f227", "Run the script", "node index.js", "error", "js.exception", "ReferenceError: config is not defined",
         "printf 'console.log(config.port);\\n' > index.js"),
    Case("f228", "Run the script", "node index.js", "error", "deps.module-not-found", "Cannot find module 'dotenv'",
         "printf 'require(\"dotenv\").config();\\n' > index.js"),
    Case("f229", "Build", "npm run build", "error", "js.npm-error", "Missing script: build", "npm init -y >/dev/null"),
    Case("f230", "Type-check", "npx tsc --noEmit", "error", "build.type-error", "TS2322 type error",
         NODE_LINK + "printf '{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\\n' > tsconfig.json && mkdir -p src && printf 'const n: number = \"x\";\\nexport {};\\n' > src/a.ts"),
    Case("f231", "Type-check", "npx tsc --noEmit", "ok", "ok", "no output: types are fine",
         NODE_LINK + "printf '{\"compilerOptions\": {\"strict\": true}, \"include\": [\"src\"]}\\n' > tsconfig.json && mkdir -p src && printf 'export const errorCount: number = 0;\\n' > src/a.ts"),
    Case("f232", "Type-check the empty project", "npx tsc --noEmit", "error", "cli.nothing-matched",
         "tsconfig includes nothing: TS18003 No inputs were found, exit 2",
         NODE_LINK + "printf '{\"include\": [\"src\"]}\\n' > tsconfig.json"),
    Case("f233", "Lint", "npx eslint src", "error", "lint.violations", "no-unused-vars problem",
         NODE_LINK + "printf 'module.exports = {root: true, parserOptions: {ecmaVersion: 2022}, rules: {\"no-unused-vars\": \"error\"}};\\n' > .eslintrc.js && mkdir -p src && printf 'const unused = 1;\\n' > src/a.js"),
    Case("f234", "Check formatting", "npx prettier --check src", "error", "lint.violations",
         "'Code style issues found in the above file', exit 1",
         NODE_LINK + "mkdir -p src && printf 'const a = {b:1,c:2}\\n' > src/a.js"),
    Case("f235", "Check formatting", "npx prettier --check src", "ok", "ok", "'All matched files use Prettier code style!'",
         NODE_LINK + "mkdir -p src && printf 'const a = { b: 1, c: 2 };\\n' > src/a.js"),
    Case("f236", "Compile", "gcc -Wall -c util.c", "error", "build.compile-error", "implicit declaration + error",
         "printf 'int f(void) { return undefined_var; }\\n' > util.c"),
    Case("f237", "Link", "gcc -o app main.c", "error", "build.link-error", "undefined reference to `helper'",
         "printf 'int helper(void);\\nint main(void) { return helper(); }\\n' > main.c"),
    Case("f238", "Compile", "gcc -Wall -o app main.c", "ok", "ok", "compiles with a warning only",
         "printf '#include <stdio.h>\\nint main(void) { int unused; printf(\"ok\\\\n\"); return 0; }\\n' > main.c"),
    Case("f239", "Compile strictly", "gcc -Wall -Werror -o app main.c", "error", "build.compile-error",
         "-Werror turns the warning into an error",
         "printf '#include <stdio.h>\\nint main(void) { int unused; printf(\"ok\\\\n\"); return 0; }\\n' > main.c"),
    Case("f240", "Run the program", "./a.out", "error", "runtime.segfault", "NULL dereference: Segmentation fault, 139",
         "printf 'int main(void) { int *p = 0; return *p; }\\n' > m.c && gcc -O0 -o a.out m.c"),
    Case("f241", "Run the program", "./a.out", "error", "runtime.abort", "assertion failed, Aborted, 134",
         "printf '#include <assert.h>\\nint main(void) { int n = 0; assert(n > 0); return 0; }\\n' > m.c && gcc -o a.out m.c"),
    Case("f242", "Check for leaks", "valgrind -q --error-exitcode=0 ./a.out", "error", "runtime.memcheck",
         "invalid read found although exit 0",
         "printf '#include <stdlib.h>\\nint main(void) { int *p = malloc(4); int x = p[2]; free(p); return x & 0; }\\n' > m.c && gcc -g -O0 -o a.out m.c"),
    Case("f243", "Compile the C++ code", "g++ -std=c++17 -c shapes.cpp", "error", "build.compile-error",
         "no member named / has no member", "printf '#include <vector>\\nint f() { std::vector<int> v; v.push(1); return 0; }\\n' > shapes.cpp"),
    Case("f244", "Build", "make", "error", "build.compile-error", "compile error inside make: make reports Error 1",
         "printf 'int main(void) { return x; }\\n' > main.c && " + MAKEFILE.strip()),
    Case("f245", "Build", "make", "ok", "ok", "compiles main.c", C_PROJECT + MAKEFILE),
    Case("f246", "Configure", "cmake -S . -B build", "error", "build.cmake-error", "find_package(Foo REQUIRED) fails",
         "printf 'cmake_minimum_required(VERSION 3.16)\\nproject(demo C)\\nfind_package(LibFoo REQUIRED)\\n' > CMakeLists.txt"),
    Case("f247", "Build", "cmake -S . -B build && cmake --build build", "ok", "ok", "configure and build succeed",
         C_PROJECT + "printf 'cmake_minimum_required(VERSION 3.16)\\nproject(demo C)\\nadd_executable(app main.c)\\n' > CMakeLists.txt"),
    Case("f248", "Build the crate", "cargo build --quiet", "error", "build.compile-error", "E0308 mismatched types",
         "cargo init --quiet --vcs none --name app . && printf 'fn main() { let x: i32 = \"a\"; println!(\"{x}\"); }\\n' > src/main.rs"),
    Case("f249", "Run the crate", "cargo run --quiet", "error", "runtime.panic", "unwrap on Err: panicked",
         "cargo init --quiet --vcs none --name app . && printf 'fn main() { let n: i32 = \"x\".parse().unwrap(); println!(\"{n}\"); }\\n' > src/main.rs"),
    Case("f250", "Test the crate", "cargo test --quiet", "error", "test.failures", "one failing test",
         CARGO_PROJECT.replace("assert_eq!(parse(\"7\"), Ok(7))", "assert_eq!(parse(\"7\"), Ok(8))")),
    Case("f251", "Build the crate", "cargo build", "ok", "ok", "builds with an unused-variable warning",
         "cargo init --quiet --vcs none --name app . && printf 'fn main() { let unused = 1; println!(\"hi\"); }\\n' > src/main.rs"),
    Case("f252", "Compile", "javac Main.java", "error", "build.compile-error", "cannot find symbol",
         "printf 'public class Main { public static void main(String[] a) { System.out.println(cnt); } }\\n' > Main.java"),
    Case("f253", "Run", "javac Main.java && java Main", "error", "java.exception", "ArrayIndexOutOfBoundsException",
         "printf 'public class Main { public static void main(String[] a) { System.out.println(a[0]); } }\\n' > Main.java"),
    Case("f254", "Run", "java com.acme.App", "error", "java.class-not-found", "Could not find or load main class", ""),
    Case("f255", "Run", "javac Main.java && java Main", "ok", "ok", "prints the result",
         "printf 'public class Main { public static void main(String[] a) { System.out.println(\"errors=0\"); } }\\n' > Main.java"),
    Case("f256", "Run the perl script", "perl report.pl", "error", "deps.module-not-found", "Can't locate JSON/XS.pm",
         "printf 'use JSON::XS;\\n' > report.pl"),
    Case("f257", "Run the perl script", "perl report.pl", "error", "fs.no-such-file",
         "die: 'cannot open data.csv: No such file or directory' (kind corrected from app.error-message: the cause is the missing file)",
         "printf 'open(my $fh, \"<\", \"data.csv\") or die \"cannot open data.csv: $!\\\\n\";\\n' > report.pl"),
    Case("f258", "Check the perl syntax", "perl -c report.pl", "error", "app.error-message", "syntax error at report.pl line 1",
         "printf 'my $x = ;\\n' > report.pl"),
    Case("f259", "Run the tcl build", "tclsh build.tcl", "error", "tcl.error", "invalid command name", "printf 'pust hello\\n' > build.tcl"),
    Case("f260", "Run the deploy script", "bash deploy.sh", "error", "fs.no-such-file",
         "kubectl apply on a folder that does not exist: 'the path \"k8s/\" does not exist', exit 1",
         "printf 'echo deploying\\nkubectl apply -f k8s/\\n' > deploy.sh"),
    Case("f261", "Run the deploy script", "bash -euo pipefail deploy.sh", "error", "fs.no-such-file",
         "set -e stops at a missing file", "printf 'echo start\\ncp dist/app.js /tmp/fresh-corpus/out-app.js\\necho copied\\n' > deploy.sh"),
    Case("f262", "Merge the feature", "git merge feature", "error", "vcs.merge-conflict", "CONFLICT (content)",
         GIT_INIT + "git checkout -qb feature && echo 'print(\"f\")' > app.py && git commit -qam f && git checkout -q main && echo 'print(\"m\")' > app.py && git commit -qam m"),
    Case("f263", "Push", "git push origin main", "error", "vcs.push-rejected", "non-fast-forward: rejected",
         GIT_INIT + BARE_REMOTE.format(id="f263") + "git clone -q ../f263-remote.git ../f263-other && (cd ../f263-other && git config user.email o@x && git config user.name O && echo o > o.txt && git add o.txt && git commit -qm o && git push -q origin main) && echo l > l.txt && git add l.txt && git commit -qm l"),
    Case("f264", "Commit", "git commit -m 'Add parser'", "error", "vcs.nothing-to-commit", "nothing added to commit",
         GIT_INIT + "touch parser.py"),
    Case("f265", "Push", "git push origin main", "ok", "ok", "push succeeds", GIT_INIT + BARE_REMOTE.format(id="f265")
         + "echo l > l.txt && git add l.txt && git commit -qm 'Fix failed login handling'"),
    Case("f266", "Show the log", "git log --oneline -3", "ok", "ok", "commit subjects mention errors",
         GIT_INIT + "echo 1 >> app.py && git commit -qam 'Fix fatal error on startup' && echo 2 >> app.py && git commit -qam 'Handle ECONNREFUSED when the db is down'"),
    Case("f267", "Install the dependency", "pip install --no-input --disable-pip-version-check nosuch-internal-pkg-zz", "error",
         "deps.install-failed", "No matching distribution found", ""),
    Case("f268", "Install the test deps", "pip install --disable-pip-version-check pytest", "ok", "ok",
         "Requirement already satisfied", ""),
    Case("f269", "Unzip the bundle", "unzip -q bundle.zip", "error", "archive.corrupt", "not a zip file",
         "printf '<html>error</html>' > bundle.zip"),
    Case("f270", "Unpack", "tar xzf release.tgz", "error", "archive.corrupt", "gzip: stdin: not in gzip format",
         "printf 'not an archive' > release.tgz"),
    Case("f271", "Unpack", "tar xzf release.tgz && ls", "ok", "ok", "unpacks and lists",
         "mkdir -p r && echo x > r/error_handler.py && tar czf release.tgz r && rm -r r"),
    Case("f272", "Fetch the page", "curl -sS http://127.0.0.1:9/", "error", "net.connection-refused",
         "curl: (7) Failed to connect ... Connection refused", ""),
    Case("f273", "Run with a time limit", "timeout 1 python3 -c 'import time; time.sleep(5)'", "error", "runtime.timeout",
         "killed by timeout: exit 124", ""),
    Case("f274", "Count the errors in the log", "grep -c ERROR app.log", "ok", "ok", "prints 2: the requested count",
         "printf 'ERROR a\\nINFO b\\nERROR c\\n' > app.log"),
    Case("f275", "Show the failures", "grep -n 'FAILED' ci.log", "ok", "ok", "prints FAILED lines of an old log: data",
         "printf 'test_a PASSED\\ntest_b FAILED\\n' > ci.log"),
    Case("f276", "Show the tail of the log", "tail -n 3 app.log", "ok", "ok", "log lines with ERROR: data",
         "printf 'INFO start\\nERROR db connection refused\\nINFO retry ok\\n' > app.log"),
    Case("f277", "Pretty-print the config", "jq . config.json", "ok", "ok", "config values named error_*",
         "printf '{\"on_error\": \"fail\", \"error_log\": \"/var/log/err.log\", \"max_failures\": 3}\\n' > config.json"),
    Case("f278", "Run the script", "python3 main.py", "ok", "ok", "prints results", "printf 'print(\"processed 3 records\")\\n' > main.py"),
    Case("f279", "Run the script", "node main.js", "ok", "ok", "prints a summary with failed: 0",
         "printf 'console.log(JSON.stringify({processed: 3, failed: 0, errors: []}));\\n' > main.js"),
    Case("f280", "Start the worker", "python3 worker.py", "error", "python.traceback",
         "logs an ERROR and crashes with a traceback, exit 1",
         "printf 'import logging\\nlogging.basicConfig()\\nlogging.error(\"queue url not set\")\\nraise RuntimeError(\"QUEUE_URL missing\")\\n' > worker.py"),
    Case("f281", "Start the worker", "python3 worker.py", "error", "app.error-message",
         "prints 'ERROR: QUEUE_URL is not set' and exits 0 without doing its job",
         "printf 'import os\\nif not os.environ.get(\"QUEUE_URL\"):\\n    print(\"ERROR: QUEUE_URL is not set\")\\n    raise SystemExit(0)\\n' > worker.py"),
    Case("f282", "Run the ruby script", "ruby app.rb", "error", "shell.command-not-found", "ruby is not installed: command not found", ""),
    Case("f283", "Show the disk usage", "du -sh .", "ok", "ok", "prints the size", ""),
    Case("f284", "Run the test script", "./run_tests.sh", "error", "test.failures",
         "a shell test script printing '2 passed, 1 failed' and exit 1",
         "printf '#!/bin/sh\\necho \"test_login ... ok\"\\necho \"test_logout ... ok\"\\necho \"test_reset ... FAIL\"\\necho \"2 passed, 1 failed\"\\nexit 1\\n' > run_tests.sh && chmod +x run_tests.sh"),
    Case("f285", "Format check with ruff", f"{ROOT}/.venv/bin/ruff format --check .", "error", "lint.violations",
         "'Would reformat: app.py' / '1 file would be reformatted', exit 1", "printf 'x  =  1\\n' > app.py"),
    Case("f286", "Type-check", f"{ROOT}/.venv/bin/mypy app.py", "error", "build.type-error", "incompatible types",
         "printf 'x: int = \"a\"\\n' > app.py"),
    Case("f287", "Type-check", f"{ROOT}/.venv/bin/mypy app.py", "ok", "ok", "Success: no issues found",
         "printf 'def error_count() -> int:\\n    return 0\\n' > app.py"),
    Case("f290", "Run the report", "python3 report.py 2>&1 | tail -5", "error", "python.traceback",
         "the script crashes; the pipe into tail hides the exit code (0)",
         "printf 'import json\\ncfg = json.load(open(\"cfg.json\"))\\nprint(cfg[\"db\"])\\n' > report.py && printf '{}' > cfg.json"),
    Case("f291", "Run the tests", "npx jest 2>&1 | tail -15", "error", "test.failures",
         "a failing jest test; exit 0 through tail", JEST_PROJECT
         + "cat > bad.test.js <<'EOF'\ntest('upper', () => expect('a'.toUpperCase()).toBe('B'));\nEOF"),
    Case("f292", "Build", "cargo build 2>&1 | tail -3", "error", "build.compile-error",
         "compile error; only the last lines, exit 0 through tail",
         "cargo init --quiet --vcs none --name app . && printf 'fn main() { let x: i32 = \"a\"; }\\n' > src/main.rs"),
    Case("f293", "Run the tests", "python3 -m pytest -q 2>&1 | tail -3", "ok", "ok", "all pass", PY_TESTS_PASS),
    Case("f294", "Install exactly the locked deps", "npm ci", "error", "js.npm-error",
         "no package-lock.json: npm ci refuses, exit 1", "npm init -y >/dev/null"),
    Case("f295", "Add the UI kit", "npm install --no-audit --no-fund @acme-internal-zz/ui-kit", "error", "js.npm-error",
         "E404: not in the registry", "npm init -y >/dev/null"),
    Case("f297", "Fetch the remote branches", "git fetch origin", "ok", "ok", "new remote branches with error words in their names",
         GIT_INIT + BARE_REMOTE.format(id="f297") + "git clone -q ../f297-remote.git ../f297-other && (cd ../f297-other && git checkout -qb fix/failed-build && git push -q origin fix/failed-build 2>/dev/null)"),
    Case("f298", "Lint", "npx eslint src", "ok", "ok", "no problems: no output",
         NODE_LINK + "printf 'module.exports = {root: true, parserOptions: {ecmaVersion: 2022}, rules: {\"no-unused-vars\": \"error\"}};\\n' > .eslintrc.js && mkdir -p src && printf 'const errorCount = 0;\\nconsole.log(errorCount);\\n' > src/a.js"),
    Case("f299", "Summarise the changes", "git diff --stat", "ok", "ok", "diffstat of files named error_*",
         GIT_INIT + "printf 'class FatalError(Exception): pass\\n' > errors.py && git add errors.py && git commit -qm e && echo '# failed' >> errors.py"),
    Case("f300", "Pretty-print the payload", "python3 -m json.tool payload.json", "ok", "ok", "JSON with error fields: data",
         "printf '{\"error\": null, \"errors\": [], \"last_failure\": \"none\"}' > payload.json"),
    Case("f301", "Pretty-print the payload", "python3 -m json.tool payload.json", "error", "data.json-parse-error",
         "invalid JSON: 'Expecting property name enclosed in double quotes', exit 1", "printf '{\"a\": 1,}' > payload.json"),
    Case("f303", "Run the node tests", "node --test", "error", "test.failures", "node test runner: 1 failing test, exit 1",
         "mkdir -p test && printf 'const test = require(\"node:test\");\\nconst assert = require(\"node:assert\");\\ntest(\"adds\", () => assert.strictEqual(1 + 1, 3));\\n' > test/add.test.js"),
    Case("f304", "Run the node tests", "node --test", "ok", "ok", "node test runner: 2 pass, fail 0",
         "mkdir -p test && printf 'const test = require(\"node:test\");\\nconst assert = require(\"node:assert\");\\ntest(\"adds\", () => assert.strictEqual(1 + 1, 2));\\ntest(\"throws an error on bad input\", () => assert.throws(() => { throw new Error(\"bad\"); }));\\n' > test/add.test.js"),
    Case("f305", "Run the unit tests", "python3 -m unittest", "error", "test.failures", "unittest: FAILED (failures=1)",
         "mkdir -p tests && touch tests/__init__.py && printf 'import unittest\\nclass T(unittest.TestCase):\\n    def test_x(self):\\n        self.assertEqual(1, 2)\\n' > tests/test_x.py"),
    Case("f306", "List the users", "sqlite3 app.db 'SELECT * FROM users;'", "ok", "ok", "two rows", SQLITE_DB),
    Case("f307", "List the accounts", "psql -c 'SELECT * FROM accounts;'", "ok", "ok", "a one-row table", ""),
    Case("f308", "Apply the migration script", "psql -f migrate.sql", "error", "sql.error",
         "second statement fails (column does not exist); psql without ON_ERROR_STOP exits 0",
         "printf 'SELECT count(*) FROM accounts;\\nUPDATE accounts SET nme = 1;\\nSELECT 1 AS done;\\n' > migrate.sql"),
    Case("f309", "List the tables of reports", "psql -c '\\dt reports.*'", "ok", "ok", "'Did not find any relation named' -- an answer", ""),
    Case("f310", "Run the spec", "npx mocha test/nosuch.spec.js", "error", "test.none-ran",
         "the spec file does not exist: 'Error: No test files found', exit 1", MOCHA_PROJECT),
    Case("f311", "Get the first item name", f"curl -s {U('/api/items')} | jq -r '.items[0].name'", "ok", "ok", "prints widget", ""),
    Case("f312", "Get the orders", f"curl -s {U('/api/orders')} | jq -r .message", "error", "net.http-error",
         "the API answered 500; only its message 'database unavailable' is printed", ""),
    Case("f313", "Fetch the health", f"wget -O- {U('/health')}", "ok", "ok", "wget progress on stderr, JSON body", ""),
    Case("f314", "Download the orders", f"wget {U('/api/orders')}", "error", "net.http-error", "'ERROR 500: Internal Server Error.', exit 8", ""),
    Case("f315", "Link against libfoo", "gcc -o app main.c -lfoo", "error", "build.link-error", "ld: cannot find -lfoo", C_PROJECT),
    Case("f316", "Run the analysis", "python3 -c 'import polars as pl; print(pl.read_csv(\"sales.csv\"))'", "error",
         "deps.module-not-found", "polars is not installed: ModuleNotFoundError", "printf 'a,b\\n1,2\\n' > sales.csv"),
    Case("f318", "Push", "git push origin main", "error", "vcs.push-rejected", "French git: rejected (fetch first)",
         GIT_INIT + BARE_REMOTE.format(id="f318") + "git clone -q ../f318-remote.git ../f318-other && (cd ../f318-other && git config user.email o@x && git config user.name O && echo o > o.txt && git add o.txt && git commit -qm o && git push -q origin main) && echo l > l.txt && git add l.txt && git commit -qm l",
         L("fr")),
    Case("f319", "Merge the feature", "git merge feature", "error", "vcs.merge-conflict", "German git: KONFLIKT, merge failed",
         GIT_INIT + "git checkout -qb feature && echo 'print(\"f\")' > app.py && git commit -qam f && git checkout -q main && echo 'print(\"m\")' > app.py && git commit -qam m",
         L("de")),
    Case("f322", "List the files", "ls -la", "ok", "ok", "German ls -la listing with error-named files",
         "touch error.log failed_jobs.csv", L("de")),
    Case("f323", "Show the status", "git status", "ok", "ok", "Chinese git status of a clean tree", GIT_INIT, L("zh_CN")),
    Case("f324", "Commit", "git commit -m 'Add parser'", "error", "vcs.nothing-to-commit",
         "Chinese git: nothing added to commit, exit 1", GIT_INIT + "touch parser.py", L("zh_CN")),
    Case("f325", "Clean the build", "rm -r build; echo ok", "error", "fs.no-such-file",
         "French rm: no such directory, hidden by '; echo ok'", "", L("fr")),
    Case("f326", "Build", "make", "ok", "ok", "German make: target is up to date",
         C_PROJECT + MAKEFILE + "make -s >/dev/null", L("de")),
    Case("f327", "Show the secrets file", "runuser -u nobody -- cat secrets.env", "error", "fs.permission-denied",
         "Russian: a service user cannot read a 0600 root file: 'Отказано в доступе', exit 1",
         "printf 'TOKEN=x\\n' > secrets.env && chmod 600 secrets.env", L("ru")),
]


# ---------------------------------------------------------------------------------------------
# The local HTTP API and the throw-away PostgreSQL cluster

SERVER = r'''
import http.server, json, sys
FLAKY = {}
class H(http.server.BaseHTTPRequestHandler):
    server_version = "demo-api/1.0"
    sys_version = ""
    def log_message(self, *a):
        pass
    def send(self, code, body, ctype="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
    def do_HEAD(self):
        self.do_GET()
    def do_GET(self):
        p = self.path
        if p == "/health":
            return self.send(200, {"status": "ok", "error": None, "uptime_s": 12})
        if p == "/api/items":
            return self.send(200, {"items": [{"id": 1, "name": "widget"}], "errors": [], "next": None})
        if p == "/api/users/7":
            return self.send(200, {"id": 7, "login": "error-bot", "bio": "I report failed builds and fatal errors"})
        if p == "/api/orders":
            return self.send(500, {"message": "database unavailable", "request_id": "r-7f3a"})
        if p == "/api/boom":
            return self.send(500, "500 Internal Server Error", "text/plain")
        if p == "/api/repos/acme/web/settings":
            return self.send(403, {"message": "Must have admin rights to Repository."})
        if p == "/api/jobs":
            return self.send(200, [{"id": 41, "state": "done", "retries": 0, "last_error": None},
                                   {"id": 42, "state": "done", "retries": 1, "last_error": "Connection reset by peer"}])
        if p == "/api/stats":
            return self.send(200, {"requests": 1200, "errors": 0, "error_rate": 0.0, "failed_logins": 0})
        if p == "/docs/errors.html":
            return self.send(200, "<!doctype html>\n<html><head><title>Error codes reference</title></head>\n"
                             "<body><h1>Error codes</h1><p>E001: the input file was not found.</p></body></html>\n", "text/html")
        if p == "/api/me":
            return self.send(401, {"error": "invalid_token", "error_description": "The access token expired"})
        if p == "/api/issues":
            return self.send(429, {"message": "API rate limit exceeded for 127.0.0.1."})
        if p.startswith("/api/search"):
            return self.send(200, {"total": 2, "results": [{"title": "Error: read ECONNRESET when the proxy times out"},
                                                           {"title": "Upload failed: request timeout after 30s"}]})
        if p.startswith("/flaky"):
            n = FLAKY[p] = FLAKY.get(p, 0) + 1
            if n <= 2:
                return self.send(503, {"message": "try again"})
            return self.send(200, "payload-v3", "text/plain")
        self.send_error(404, "File not found")
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        if self.path == "/graphql":
            return self.send(200, {"data": None, "errors": [{"message": "Cannot query field \"nmae\" on type \"User\". Did you mean \"name\"?"}]})
        if self.path == "/api/jobs":
            return self.send(200, {"status": "failed", "error": "queue full", "job": None})
        self.send_error(404, "File not found")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def start_server() -> subprocess.Popen[bytes]:
    (SCRATCH / "server.py").write_text(SERVER)
    proc = subprocess.Popen([sys.executable, str(SCRATCH / "server.py"), str(PORT)])
    for _ in range(50):
        try:
            subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{PORT}/health"], check=True)
            return proc
        except subprocess.CalledProcessError:
            time.sleep(0.1)
    raise SystemExit("the local HTTP server did not start")


def pg(*args: str, check: bool = True) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *args], check=check, stdout=subprocess.DEVNULL)


def start_postgres() -> None:
    bin_dir = "/usr/lib/postgresql/15/bin"
    shutil.rmtree(PG, ignore_errors=True)
    PG.mkdir(parents=True)
    shutil.chown(PG, "postgres", "postgres")
    pg(f"{bin_dir}/initdb", "-D", str(PG / "data"), "-A", "trust", "-U", "dev", "--no-locale", "-E", "UTF8")
    pg(f"{bin_dir}/pg_ctl", "-D", str(PG / "data"), "-l", str(PG / "log"), "-w", "-o",
       f"-p {PG_PORT} -k {PG} -c listen_addresses=''", "start")
    subprocess.run(["psql", "-h", str(PG), "-p", str(PG_PORT), "-U", "dev", "-d", "postgres", "-qc",
                    "CREATE DATABASE app; "], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["psql", "-h", str(PG), "-p", str(PG_PORT), "-U", "dev", "-d", "app", "-qc",
                    "CREATE TABLE accounts(id serial PRIMARY KEY, email text UNIQUE NOT NULL);"
                    "INSERT INTO accounts(email) VALUES ('ada@example.com');"], check=True, stdout=subprocess.DEVNULL)


def stop_postgres() -> None:
    pg("/usr/lib/postgresql/15/bin/pg_ctl", "-D", str(PG / "data"), "-m", "fast", "-w", "stop", check=False)


# ---------------------------------------------------------------------------------------------
# Running a case and writing its row


def rewrite(text: str) -> str:
    for old, new in ((str(SRC), "/home/dev/src"), (str(HOME), "/home/dev"), (str(TOOLS), "/home/dev/.tools"),
                     (str(PG), "/home/dev/pg"), (str(SCRATCH), "/home/dev/tmp"), (str(ROOT), "/home/dev/self-improve")):
        text = text.replace(old, new)
    return text


def truncate(output: str) -> tuple[str, bool]:
    if len(output) <= MAX_OUTPUT:
        return output, False
    half = MAX_OUTPUT // 2
    return f"{output[:half]}\n\n... [{len(output) - MAX_OUTPUT} characters truncated] ...\n\n{output[-half:]}", True


def environment(case: Case) -> dict[str, str]:
    env = {
        "PATH": f"{TOOLS}/node_modules/.bin:/root/.pyenv/shims:/root/.pyenv/bin:/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
        "HOME": str(HOME), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "USER": "root",
        "PGHOST": str(PG), "PGPORT": str(PG_PORT), "PGUSER": "dev", "PGDATABASE": "app",
        "CARGO_HOME": os.environ.get("CARGO_HOME", "/root/.cargo"), "RUSTUP_HOME": os.environ.get("RUSTUP_HOME", "/root/.rustup"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1", "npm_config_update_notifier": "false", "NO_UPDATE_NOTIFIER": "1",
        "GIT_CONFIG_NOSYSTEM": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYENV_ROOT": "/root/.pyenv",
    }
    env.update(case.env)
    return env


def run_case(case: Case) -> dict:
    workdir = SRC / case.id
    for old in (workdir, *SRC.glob(f"{case.id}-*")):  # and its remotes and clones
        shutil.rmtree(old, ignore_errors=True)
    workdir.mkdir(parents=True)
    env = environment(case)
    if case.setup:
        done = subprocess.run(["bash", "-c", case.setup], cwd=workdir, env={**env, "LANGUAGE": ""},
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"{case.id}: setup failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    start = time.perf_counter()
    try:
        # Claude Code's Bash tool evals the command in a bash shell: a crash is reported by bash
        # ("bash: line 1: 4242 Segmentation fault ...") with exit 128+signal.
        done = subprocess.run(["bash", "-c", 'eval "$1"', "bash", case.command], cwd=workdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=case.timeout,
                              stdin=subprocess.DEVNULL)
        code, raw = done.returncode, done.stdout
        if code < 0:
            code = 128 - code
    except subprocess.TimeoutExpired as exc:
        code, raw = 124, exc.stdout or b""
    duration = int((time.perf_counter() - start) * 1000)
    full = rewrite(raw.decode("utf-8", "replace")).rstrip("\n")
    output, truncated = truncate(full)
    command = rewrite(case.command)
    sid = str(uuid.uuid5(NS, f"session-{case.id}"))
    cwd = f"/home/dev/src/{case.id}"
    payload: dict = {
        "session_id": sid,
        "transcript_path": f"/home/dev/.claude/projects/-home-dev-src-{case.id}/{sid}.jsonl",
        "cwd": cwd,
        "prompt_id": str(uuid.uuid5(NS, f"prompt-{case.id}")),
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "PostToolUse" if code == 0 else "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": case.description},
    }
    tool_use_id = "toolu_01" + hashlib.sha256(case.id.encode()).hexdigest()[:24]
    if code == 0:
        payload["tool_response"] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False,
                                    "noOutputExpected": False}
        payload["tool_use_id"] = tool_use_id
    else:
        payload["tool_use_id"] = tool_use_id
        payload["error"] = f"Exit code {code}\n{output}" if output else f"Exit code {code}"
        payload["is_interrupt"] = False
    payload["duration_ms"] = duration
    return {"id": case.id, "command": command, "exit_code": code, "output": output, "output_chars": len(full),
            "output_truncated": truncated, "payload": payload, "label": case.label, "kind": case.kind,
            "note": case.note, "duration_ms": duration, "split": split_of(case.id)}


def main(argv: list[str]) -> int:
    only = set(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else None
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    for path in (SRC, HOME):
        path.mkdir(parents=True, exist_ok=True)
    (HOME / ".gitconfig").write_text("[user]\n\tname = Dev\n\temail = dev@example.com\n[init]\n\tdefaultBranch = main\n"
                                     "[advice]\n\tdetachedHead = false\n")
    if not (TOOLS / "node_modules" / ".bin" / "jest").exists():
        TOOLS.mkdir(parents=True, exist_ok=True)
        subprocess.run("npm init -y >/dev/null && npm install --no-audit --no-fund mocha jest typescript prettier eslint@8",
                       shell=True, cwd=TOOLS, check=True)
    server = start_server()
    start_postgres()
    rows: dict[str, dict] = {}
    if only and OUT.exists():
        rows = {r["id"]: r for r in map(json.loads, OUT.read_text(encoding="utf-8").splitlines()) if r}
    try:
        for case in CASES:
            if only and case.id not in only:
                continue
            rows[case.id] = run_case(case)
            print(f"{case.id} exit={rows[case.id]['exit_code']:<4} {case.label:<5} {case.command[:70]}", flush=True)
    finally:
        stop_postgres()
        server.terminate()
        server.wait()
    ordered = [rows[i] for i in ids if i in rows]
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered), encoding="utf-8")
    print(f"wrote {len(ordered)} rows to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
