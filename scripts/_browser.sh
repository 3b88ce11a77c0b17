# Used by scripts/test: make sure a Chromium exists for the browser tests (tests/test_browser.py),
# with a Japanese font so that kanji piece labels render in screenshots.
#   source scripts/_browser.sh; daikifu_browser
# Playwright (a test dependency from PyPI) drives Debian's chromium; it never downloads a browser.
# $DAIKIFU_CHROMIUM names another Chromium; DAIKIFU_SKIP_BROWSER=1 skips the browser tests.

daikifu_browser() {
    [ "${DAIKIFU_SKIP_BROWSER:-}" = 1 ] && return 0
    local have_font=1
    if command -v fc-list >/dev/null 2>&1 && ! fc-list :lang=ja 2>/dev/null | grep -q .; then
        have_font=0
    fi
    if { [ -n "${DAIKIFU_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1 \
        || command -v chromium-browser >/dev/null 2>&1; } && [ "$have_font" = 1 ]; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "daikifu: the browser tests need Chromium and a Japanese font; installing Debian's chromium" \
             "and fonts-ipafont-gothic with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 || true
        if apt-get install -y -qq chromium fonts-ipafont-gothic >&2; then
            return 0
        fi
        echo "daikifu: could not install chromium with apt-get" >&2
    else
        echo "daikifu: the browser tests need Chromium: sudo apt-get install chromium fonts-ipafont-gothic" >&2
    fi
    echo "daikifu: (or set DAIKIFU_CHROMIUM=/path/to/chromium, or DAIKIFU_SKIP_BROWSER=1 to skip them)" >&2
    return 0  # the browser tests then fail and say why
}

# Used by scripts/test too: the pictures (daikifu image, tests/test_images.py) rasterise SVG with
# CairoSVG, which loads the Cairo library, and draw kanji with a Japanese font.
daikifu_image_libs() {
    if command -v ldconfig >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libcairo\.so\.2'; then
        return 0
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "daikifu: PNG and GIF pictures need the Cairo library; installing libcairo2 with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 || true
        apt-get install -y -qq libcairo2 fonts-ipafont-gothic >&2 && return 0
    fi
    echo "daikifu: PNG and GIF pictures need the Cairo library: sudo apt-get install libcairo2 fonts-ipafont-gothic" >&2
    return 0  # the picture tests then fail and say why
}
