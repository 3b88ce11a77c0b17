# Shared by scripts/test and scripts/demo: make sure a virtual environment with daikifu exists.
#   source scripts/_venv.sh; daikifu_venv EXTRAS      (EXTRAS: "" or "[test]")
# The venv is $DAIKIFU_VENV (default: .venv in the repository); the Python is $PYTHON (default python3).

daikifu_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DAIKIFU_VENV="${DAIKIFU_VENV:-$daikifu_root/.venv}"
PYTHON="${PYTHON:-python3}"

_daikifu_make_venv() {
    local log; log="$(mktemp)"
    if "$PYTHON" -m venv "$DAIKIFU_VENV" >"$log" 2>&1; then
        rm -f "$log"; return 0
    fi
    local err; err="$(cat "$log")"; rm -f "$log"
    rm -rf "$DAIKIFU_VENV"
    if grep -qiE "ensurepip|-venv" <<<"$err"; then
        # Debian and Ubuntu leave the venv module's pip out unless python3-venv is installed
        local ver; ver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        local pkgs="python3-venv python$ver-venv"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "daikifu: '$PYTHON -m venv' needs Debian's venv package; installing it with apt-get" >&2
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -qq >&2 || true
            # python3-venv pulls in the venv package of Debian's default python3
            apt-get install -y -qq python3-venv >&2 || apt-get install -y -qq "python$ver-venv" >&2 || {
                echo "daikifu: could not install $pkgs with apt-get" >&2; return 1; }
            if "$PYTHON" -m venv "$DAIKIFU_VENV"; then return 0; fi
            rm -rf "$DAIKIFU_VENV"
        else
            echo "$err" >&2
            echo "daikifu: '$PYTHON -m venv' does not work. On Debian or Ubuntu install the venv module:" >&2
            echo "    sudo apt-get install python3-venv      (or python$ver-venv)" >&2
            return 1
        fi
    fi
    echo "$err" >&2
    echo "daikifu: could not create a virtual environment in $DAIKIFU_VENV" >&2
    return 1
}

daikifu_venv() {
    local extras="$1"
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "daikifu needs Python 3.11 or newer as '$PYTHON' (set PYTHON=/path/to/python3.11)" >&2
        return 1
    fi
    if [ ! -x "$DAIKIFU_VENV/bin/python" ] || ! "$DAIKIFU_VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        rm -rf "$DAIKIFU_VENV"
        echo "daikifu: creating a virtual environment in $DAIKIFU_VENV" >&2
        _daikifu_make_venv || return 1
    fi
    # install (again) only when pyproject.toml, the checkout or the extras changed
    local stamp="$DAIKIFU_VENV/.daikifu-installed"
    local key; key="$(cksum <"$daikifu_root/pyproject.toml" | cut -d' ' -f1)@$daikifu_root"
    if [ -f "$stamp" ] && { grep -qxF -- "$key$extras" "$stamp" || { [ -z "$extras" ] && grep -qF -- "$key" "$stamp"; }; }; then
        return 0
    fi
    echo "daikifu: installing daikifu$extras into $DAIKIFU_VENV" >&2
    (cd "$daikifu_root" && "$DAIKIFU_VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".$extras") || {
        echo "daikifu: pip install -e \".$extras\" failed" >&2; return 1; }
    { [ -f "$stamp" ] && grep -F -- "$key" "$stamp" || true; echo "$key$extras"; } >"$stamp.new"
    mv "$stamp.new" "$stamp"
}
