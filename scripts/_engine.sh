# Used by scripts/test and scripts/demo: make sure the analysis engines exist for the engine tests
# and `daikifu serve --engine`: HaChu (Debian package hachu, an XBoard engine for Chu Shogi) and
# CrazyWa (package crazywa, an XBoard engine for shogi with drops, which HaChu cannot play).
#   source scripts/_engine.sh; daikifu_engine && echo found
# Debian installs it as /usr/games/hachu (often not on PATH; daikifu looks there too).
# $DAIKIFU_ENGINE names another engine; DAIKIFU_SKIP_ENGINE=1 skips the engine tests.
#
# Debian's build of HaChu 0.21 crashes (segmentation fault) when it selects Tenjiku Shogi after
# `memory`, which daikifu sends before anything that searches. A build of the same source with
# ordinary compiler flags plays it, so daikifu_engine_tenjiku builds one from Debian's source
# tarball (checked by its sha256) into daikifu's engine cache, where daikifu looks for it
# (docs/engine.md), and exports $DAIKIFU_ENGINE_TENJIKU. Offline, it says so and the Tenjiku
# engine test skips.

DAIKIFU_HACHU_VERSION="0.21-29-gdf26f4a"
DAIKIFU_HACHU_URL="http://deb.debian.org/debian/pool/main/h/hachu/hachu_${DAIKIFU_HACHU_VERSION}.orig.tar.gz"
DAIKIFU_HACHU_SHA256="bc0759c587de27fdb87fba7b3cc3e430f3be9654c95d9c183f181f73217dd177"

daikifu_has_engine() {
    [ -n "${DAIKIFU_ENGINE:-}" ] && return 0
    local e
    for e in hachu crazywa; do
        command -v "$e" >/dev/null 2>&1 || [ -x "/usr/games/$e" ] || [ -x "/usr/local/games/$e" ] || return 1
    done
}

daikifu_engine() {
    [ "${DAIKIFU_SKIP_ENGINE:-}" = 1 ] && return 1
    if ! daikifu_has_engine; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "daikifu: engine analysis needs HaChu and CrazyWa; installing Debian's hachu and crazywa with apt-get" >&2
            export DEBIAN_FRONTEND=noninteractive
            if ! { apt-get install -y -qq hachu crazywa >&2 \
                   || { apt-get update -qq >&2 || true; apt-get install -y -qq hachu crazywa >&2; }; }; then
                echo "daikifu: could not install hachu and crazywa with apt-get" >&2
                _daikifu_engine_hint
                return 1
            fi
        else
            echo "daikifu: no engine found: install hachu (sudo apt-get install hachu crazywa)" >&2
            _daikifu_engine_hint
            return 1  # the engine tests then fail and say why; the viewer runs without the engine
        fi
    fi
    daikifu_engine_tenjiku || true  # without it only the Tenjiku engine test skips
    return 0
}

_daikifu_engine_hint() {
    echo "daikifu: (or set DAIKIFU_ENGINE=/path/to/engine, or DAIKIFU_SKIP_ENGINE=1 to skip the engine tests)" >&2
}

_daikifu_hachu() {
    # the HaChu daikifu runs by default, as replay/engine.py's find_engine looks for it
    if [ -n "${DAIKIFU_ENGINE:-}" ]; then echo "$DAIKIFU_ENGINE"; return; fi
    command -v hachu 2>/dev/null && return
    local d
    for d in /usr/games /usr/local/games; do
        [ -x "$d/hachu" ] && { echo "$d/hachu"; return; }
    done
}

# daikifu_plays_tenjiku ENGINE: does ENGINE answer a ping after `memory` and `variant tenjiku`?
daikifu_plays_tenjiku() {
    [ -x "$1" ] || return 1
    printf 'xboard\nprotover 2\nmemory 16\nnew\nvariant tenjiku\nping 1\nquit\n' \
        | timeout 10 "$1" 2>/dev/null | grep -qx 'pong 1'
}

# The directory daikifu looks in for the engines it builds (replay/engine.py: engine_cache_directory)
daikifu_engine_cache() {
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/daikifu/engines"
}

daikifu_engine_tenjiku() {
    if [ -n "${DAIKIFU_ENGINE_TENJIKU:-}" ]; then
        daikifu_plays_tenjiku "$DAIKIFU_ENGINE_TENJIKU" && return 0
        echo "daikifu: DAIKIFU_ENGINE_TENJIKU=$DAIKIFU_ENGINE_TENJIKU does not play Tenjiku Shogi" >&2
        return 1
    fi
    local hachu; hachu="$(_daikifu_hachu)"
    if [ -n "$hachu" ] && daikifu_plays_tenjiku "$hachu"; then
        return 0
    fi
    local dir; dir="$(daikifu_engine_cache)/hachu-$DAIKIFU_HACHU_VERSION"
    if ! daikifu_plays_tenjiku "$dir/hachu"; then
        _daikifu_build_hachu "${hachu:-hachu}" "$dir" || return 1
    fi
    export DAIKIFU_ENGINE_TENJIKU="$dir/hachu"
}

_daikifu_build_hachu() {
    local hachu="$1" dir="$2"
    local by_hand="the Tenjiku engine test skips; to build it by hand see docs/engine.md (Tenjiku Shogi)"
    echo "daikifu: $hachu cannot play Tenjiku Shogi (Debian's build crashes on it);" \
         "building HaChu $DAIKIFU_HACHU_VERSION from Debian's source into $dir" >&2
    if ! command -v gcc >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -qq gcc make libc6-dev >&2 \
                || { apt-get update -qq >&2 || true; apt-get install -y -qq gcc make libc6-dev >&2; } || true
        fi
        if ! command -v gcc >/dev/null 2>&1; then
            echo "daikifu: no C compiler: install gcc (sudo apt-get install gcc make); $by_hand" >&2
            return 1
        fi
    fi
    mkdir -p "$(dirname "$dir")" || return 1
    local tmp; tmp="$(mktemp -d "$(dirname "$dir")/.build.XXXXXX")" || return 1
    # download, check and unpack with Python (which the scripts need anyway): no curl, no sha256sum
    if ! "${PYTHON:-python3}" - "$DAIKIFU_HACHU_URL" "$DAIKIFU_HACHU_SHA256" \
        "hachu-$DAIKIFU_HACHU_VERSION/hachu.c" "$tmp" <<'PY'
import hashlib, io, sys, tarfile, urllib.request
url, sha256, member, out = sys.argv[1:]
try:
    with urllib.request.urlopen(url, timeout=30) as r:
        data = r.read(2_000_000)
except OSError as exc:
    sys.exit(f"daikifu: could not download {url} ({exc}; offline?)")
if hashlib.sha256(data).hexdigest() != sha256:
    sys.exit(f"daikifu: {url} does not have the sha256 {sha256}: not used")
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    source = tar.extractfile(member).read()
with open(f"{out}/hachu.c", "wb") as f:
    f.write(source)
PY
    then
        rm -rf "$tmp"; echo "daikifu: $by_hand" >&2; return 1
    fi
    if ! gcc -O2 -g -fstack-protector-strong -D_FORTIFY_SOURCE=2 -o "$tmp/hachu" "$tmp/hachu.c" 2>"$tmp/gcc.log" \
        || ! daikifu_plays_tenjiku "$tmp/hachu"; then
        cat "$tmp/gcc.log" >&2
        echo "daikifu: the HaChu build failed or does not play Tenjiku Shogi; $by_hand" >&2
        rm -rf "$tmp"; return 1
    fi
    rm -f "$tmp/gcc.log"
    rm -rf "$dir" && mv "$tmp" "$dir" || { rm -rf "$tmp"; return 1; }
    echo "daikifu: built $dir/hachu (plays Tenjiku Shogi)" >&2
}
