# Used by scripts/test and scripts/demo: make sure the analysis engines exist for the engine tests
# and `daikifu serve --engine`: HaChu (Debian package hachu, an XBoard engine for Chu Shogi) and
# CrazyWa (package crazywa, an XBoard engine for shogi with drops, which HaChu cannot play).
#   source scripts/_engine.sh; daikifu_engine && echo found
# Debian installs it as /usr/games/hachu (often not on PATH; daikifu looks there too).
# $DAIKIFU_ENGINE names another engine; DAIKIFU_SKIP_ENGINE=1 skips the engine tests.

daikifu_has_engine() {
    [ -n "${DAIKIFU_ENGINE:-}" ] && return 0
    local e
    for e in hachu crazywa; do
        command -v "$e" >/dev/null 2>&1 || [ -x "/usr/games/$e" ] || [ -x "/usr/local/games/$e" ] || return 1
    done
}

daikifu_engine() {
    [ "${DAIKIFU_SKIP_ENGINE:-}" = 1 ] && return 1
    daikifu_has_engine && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "daikifu: engine analysis needs HaChu and CrazyWa; installing Debian's hachu and crazywa with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        if apt-get install -y -qq hachu crazywa >&2 || { apt-get update -qq >&2 || true; apt-get install -y -qq hachu crazywa >&2; }; then
            return 0
        fi
        echo "daikifu: could not install hachu and crazywa with apt-get" >&2
    else
        echo "daikifu: no engine found: install hachu (sudo apt-get install hachu crazywa)" >&2
    fi
    echo "daikifu: (or set DAIKIFU_ENGINE=/path/to/engine, or DAIKIFU_SKIP_ENGINE=1 to skip the engine tests)" >&2
    return 1  # the engine tests then fail and say why; the viewer runs without the engine
}
