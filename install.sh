#!/usr/bin/env bash
# self-improve installer. Idempotent: run it again at any time.
#
#   ./install.sh [--project DIR] [--harness claude|codex|openclaw|all|none] [--scope user|project|local]
#   ./install.sh --uninstall [--harness ...] [--scope ...] [--project DIR]
#   ./install.sh --test [pytest args...]   the checks CI runs, then pytest (it lists why tests were skipped)
#   ./install.sh --help
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd -P)"
venv="$here/.venv"
bin_dir="${HOME}/.local/bin"
mode=install
project=""
harness=""
scope=""
pytest_args=()

die() { echo "install.sh: $*" >&2; exit 2; }

# The comment block at the top of this file, without its "# ", and nothing after it.
usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }

# step WHAT COMMAND...: say what is being done, run it, then say how long it took. On a terminal
# a counter ticks meanwhile: a fresh venv's pip install is silent for half a minute.
step() {
    local what="$1" started=$SECONDS ticker="" status=0
    shift
    echo "==> $what"
    if [ -t 1 ]; then
        # It stops by itself once this script is gone (Ctrl-C included): it checks for us each second.
        (seconds=0; while sleep 1 && kill -0 $$ 2>/dev/null; do seconds=$((seconds + 1)); printf '\r    %d s' "$seconds"; done) &
        ticker=$!
    fi
    "$@" || status=$?
    if [ -n "$ticker" ]; then
        kill "$ticker" 2>/dev/null || true
        wait "$ticker" 2>/dev/null || true
        printf '\r'
    fi
    if [ "$status" -ne 0 ]; then
        echo "install.sh: failed (exit $status): $what" >&2
        exit "$status"
    fi
    echo "    done in $((SECONDS - started)) s"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --test) mode=test; shift; pytest_args=("$@"); break ;;
        --uninstall) mode=uninstall; shift ;;
        --project) [ $# -ge 2 ] || die "--project needs a directory"; project="$2"; shift 2 ;;
        --project=*) project="${1#*=}"; shift ;;
        --harness) [ $# -ge 2 ] || die "--harness needs a value"; harness="$2"; shift 2 ;;
        --harness=*) harness="${1#*=}"; shift ;;
        --scope) [ $# -ge 2 ] || die "--scope needs a value"; scope="$2"; shift 2 ;;
        --scope=*) scope="${1#*=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option: $1 (see --help)" ;;
    esac
done

find_python() {
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            # Resolve through pyenv-style shims once, here, so the venv never goes through one.
            "$candidate" -c 'import sys; print(sys.executable)'
            return 0
        fi
    done
    return 1
}

ensure_venv() {
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
        py="$(find_python)" || die "python3 >= 3.11 is required"
        step "creating the virtual environment $venv (with $py)" "$py" -m venv --clear "$venv"
    fi
}

pip_install() {  # pip_install WHAT PIP-ARGUMENTS...
    local what="$1"
    shift
    step "installing $what into $venv (pip)" "$venv/bin/python" -m pip install --disable-pip-version-check -q "$@"
}

case "$mode" in
test)
    ensure_venv
    pip_install "self-improve and its test tools" --config-settings editable_mode=compat -e "$here[test]"
    cd "$here"
    # The rules CI enforces, cheapest first; each stops the run when it fails (set -e).
    echo "== mypy (self_improve/, disallow_untyped_defs)"
    "$venv/bin/python" -m mypy
    echo "== import-linter (the rooms' layers, no cycles)"
    "$venv/bin/lint-imports" --no-cache
    echo "== ruff"
    "$venv/bin/ruff" check --no-cache self_improve tests bench
    echo "== pytest"
    # -rs first: pytest says why each skipped test was skipped (a later -r… of the caller wins).
    exec "$venv/bin/python" -m pytest -rs "${pytest_args[@]}"
    ;;
install)
    ensure_venv
    pip_install self-improve --config-settings editable_mode=compat -e "$here"
    mkdir -p "$bin_dir"
    if [ "$(readlink "$bin_dir/self-improve" 2>/dev/null || true)" != "$venv/bin/self-improve" ]; then
        if [ -e "$bin_dir/self-improve" ] && [ ! -L "$bin_dir/self-improve" ]; then
            die "$bin_dir/self-improve exists and is not our link; move it aside and run again"
        fi
        ln -sfn "$venv/bin/self-improve" "$bin_dir/self-improve"
        echo "linked $bin_dir/self-improve -> $venv/bin/self-improve"
    fi
    case ":$PATH:" in
        *":$bin_dir:"*) ;;
        *) echo "note: $bin_dir is not on your PATH; add it to use 'self-improve' directly" ;;
    esac
    # Harness registration (hooks into Claude Code / Codex / OpenClaw).
    if [ "${harness:-claude}" != none ]; then
        if "$venv/bin/self-improve" install --help >/dev/null 2>&1; then
            "$venv/bin/self-improve" install --harness "${harness:-claude}" --scope "${scope:-user}" ${project:+--project "$project"}
        fi
    fi
    # Only a project named with --project is opted in: the working directory never is (run from
    # ~, that would make every non-git folder under it record failures).
    if [ -n "$project" ]; then
        "$venv/bin/self-improve" --root "$project" init
    fi
    ;;
uninstall)
    if [ -x "$venv/bin/self-improve" ] && [ "${harness:-claude}" != none ]; then
        "$venv/bin/self-improve" uninstall --harness "${harness:-claude}" --scope "${scope:-user}" ${project:+--project "$project"} || true
    fi
    if [ "$(readlink "$bin_dir/self-improve" 2>/dev/null || true)" = "$venv/bin/self-improve" ]; then
        rm -f "$bin_dir/self-improve"
        echo "removed $bin_dir/self-improve"
    fi
    echo "left $venv and every .learnings/ folder in place (delete them by hand if you want)"
    ;;
esac
