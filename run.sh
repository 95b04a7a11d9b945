#!/usr/bin/env bash
# One entry point for a fresh machine: installs what the job needs and is missing, then runs it.
# Playing needs Stockfish and the package; the suite adds Chromium (the viewer's browser test) and
# the test extra (pytest, reconchess, the server, build and twine, ...).
#
#   bash run.sh          set up, then play trout vs random and print the result
#   bash run.sh test     set up, then run the whole test suite (about 11.5 minutes on 2 cores beside another job; docs/benchmarks.md)
set -euo pipefail
cd "$(dirname "$0")"

ensure_stockfish() {
    if [ -n "${STOCKFISH_EXECUTABLE:-}" ] && [ -x "${STOCKFISH_EXECUTABLE}" ]; then return; fi
    if command -v stockfish >/dev/null 2>&1 || [ -x /usr/games/stockfish ]; then return; fi
    echo "run.sh: installing Stockfish (apt-get install -y stockfish)" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq stockfish >&2
}

ensure_chromium() {
    # The viewer's end-to-end test drives Debian's Chromium (Playwright never downloads a browser here).
    if [ -x /usr/bin/chromium ]; then return; fi
    echo "run.sh: installing Chromium (apt-get install -y chromium)" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
}

install_state() {
    # What an install depends on: the metadata and the list of modules (a strict editable
    # install links each file, so a new module needs a reinstall).
    cat pyproject.toml
    git ls-files --cached --others --exclude-standard -- '*.py' 2>/dev/null | sort
}

stamp_holds() {
    # Does the stamp say the package was installed with extras $1 ("" or "[test]") from the present state?
    [ -f .install-stamp ] && { echo "extras: $1"; install_state; } | cmp -s .install-stamp -
}

ensure_package() {
    # $1: the extras, "" to play or "[test]" for the suite; $2: modules that must import afterwards.
    # Reinstall only when the install state changed since the last install here (an install for the
    # suite serves play too). The editable install is setuptools' strict mode: a tree of links that
    # mypy, IDEs and import-graph tools can follow (the default mode's import hook is invisible to them).
    local extras="$1" modules="$2"
    if { stamp_holds "$extras" || stamp_holds "[test]"; } && python3 -c "import $modules" 2>/dev/null; then
        return
    fi
    echo "run.sh: installing blindchess (pip install -e .$extras, strict editable mode)" >&2
    local args=(-q -e ".$extras" --config-settings editable_mode=strict)
    python3 -m pip install "${args[@]}" >&2 \
        || python3 -m pip install --user --break-system-packages "${args[@]}" >&2
    { echo "extras: $extras"; install_state; } > .install-stamp
}

warm_numba_caches() {
    # Compile the numba kernels once before pytest starts its two workers, which then load them from
    # numba's cache instead of both compiling them cold (tests/warm_kernels.py; docs/benchmarks.md).
    python3 -m blindchess.tests.warm_kernels >&2
}

case "${1:-play}" in
    play)
        ensure_stockfish
        ensure_package "" "blindchess"
        exec python3 -m blindchess match trout random ;;
    test)
        ensure_stockfish
        ensure_chromium
        ensure_package "[test]" "blindchess, reconchess, hypothesis, playwright, build, twine"
        warm_numba_caches
        # One line per test file as it completes (tests/progress.py), then failures, the 15 slowest
        # tests and the totals.
        exec python3 -m pytest -q -n 2 -p blindchess.tests.progress --durations=15 ;;
    *) echo "usage: bash run.sh [play|test]" >&2; exit 2 ;;
esac
