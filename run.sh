#!/usr/bin/env bash
# One entry point for a fresh machine: installs what is missing (Stockfish, the
# blindchess package and its test dependencies), then runs a job.
#
#   bash run.sh          set up, then play trout vs random and print the result
#   bash run.sh test     set up, then run the whole test suite
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

ensure_package() {
    # Reinstall only when pyproject.toml changed since the last install here.
    local stamp=".install-stamp"
    if [ -f "$stamp" ] && cmp -s "$stamp" pyproject.toml && python3 -c "import blindchess, reconchess, hypothesis" 2>/dev/null; then
        return
    fi
    echo "run.sh: installing blindchess (pip install -e .[test])" >&2
    python3 -m pip install -q -e ".[test]" >&2 \
        || python3 -m pip install -q --user --break-system-packages -e ".[test]" >&2
    cp pyproject.toml "$stamp"
}

ensure_stockfish
ensure_package

case "${1:-play}" in
    play) exec python3 -m blindchess match trout random ;;
    test) exec python3 -m pytest -q -n 2 ;;
    *) echo "usage: bash run.sh [play|test]" >&2; exit 2 ;;
esac
