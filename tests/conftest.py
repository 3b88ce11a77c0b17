"""Suite-wide settings, and the fixtures of the browser tests (tests/test_browser.py): the viewer on
a local port and headless Chromium driving it.

Property tests are deterministic: the hypothesis profile derandomises them (the same examples on
every run and machine) and keeps no example database, so a run never depends on an earlier one.
``HYPOTHESIS_PROFILE=explore`` draws fresh random examples for a search by hand.

Long checks are marked ``slow`` and left out by default (``-m slow`` runs them).
``--slow-sample N`` (or ``DAIKIFU_SLOW_SAMPLE=N``) adds N cases of each parametrised slow test to
the run, picked by a fixed seed (``--slow-seed``, ``DAIKIFU_SLOW_SEED``; 0 by default) so that the
same cases run every time: CI runs one of each (``.ci/run``).  A slow test that is not
parametrised is one long check and runs only with ``-m slow``.

Playwright drives Debian's ``chromium`` (``scripts/test`` installs it when missing); it never
downloads a browser of its own.  ``DAIKIFU_CHROMIUM`` names another Chromium binary, and
``DAIKIFU_SKIP_BROWSER=1`` skips these tests (otherwise a missing browser is a failure, so that a
machine without one cannot pass the suite by accident).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("daikifu", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "daikifu"))

# Chromium's own network traffic (updates, sync, safe browsing) is refused on closed machines and
# only slows the start down; --no-sandbox because the tests may run as root.
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def pytest_addoption(parser):
    group = parser.getgroup("daikifu")
    group.addoption("--slow-sample", type=int, default=int(os.environ.get("DAIKIFU_SLOW_SAMPLE", "0")),
                    metavar="N", help="also run N cases of each parametrised slow test (default: "
                    "$DAIKIFU_SLOW_SAMPLE or 0)")
    group.addoption("--slow-seed", default=os.environ.get("DAIKIFU_SLOW_SEED", "0"), metavar="SEED",
                    help="the seed that picks the sampled slow cases (default: $DAIKIFU_SLOW_SEED or 0)")


_CACHE_DIR_BEFORE = pytest.StashKey[tuple[str | None, str]]()


def pytest_configure(config):
    """Compiled rule sets go to a directory of this test session, not the user's cache.

    Set here, before collection, because test modules load variants when they are imported
    (tests/test_notation.py); a fixture would start only after them.  Each xdist worker is a
    process of its own and makes its own directory.
    """
    config.addinivalue_line("markers", "slow_sample: a slow case picked by --slow-sample (set by conftest)")
    if config.getoption("slow_sample") > 0 and config.option.markexpr == "not slow":
        config.option.markexpr = "not slow or slow_sample"
    directory = tempfile.mkdtemp(prefix="daikifu-rule-sets-")
    config.stash[_CACHE_DIR_BEFORE] = (os.environ.get("DAIKIFU_CACHE_DIR"), directory)
    os.environ["DAIKIFU_CACHE_DIR"] = directory


def pytest_unconfigure(config):
    if _CACHE_DIR_BEFORE not in config.stash:
        return
    old, directory = config.stash[_CACHE_DIR_BEFORE]
    shutil.rmtree(directory, ignore_errors=True)
    if old is None:
        os.environ.pop("DAIKIFU_CACHE_DIR", None)
    else:
        os.environ["DAIKIFU_CACHE_DIR"] = old


@pytest.hookimpl(tryfirst=True)  # before the -m expression deselects the slow ones
def pytest_collection_modifyitems(config, items):
    """Mark the sampled slow cases: N of each parametrised slow test (one family per function),
    chosen by the seed and the test's name only, so every run and every xdist worker picks the same."""
    n = config.getoption("slow_sample")
    if n <= 0:
        return
    families: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("slow") and getattr(item, "callspec", None) is not None:
            families.setdefault(item.nodeid.split("[", 1)[0], []).append(item)
    seed = config.getoption("slow_seed")
    for family, cases in families.items():
        for item in random.Random(f"{seed}:{family}").sample(cases, min(n, len(cases))):
            item.add_marker(pytest.mark.slow_sample)


def chromium_path() -> str | None:
    explicit = os.environ.get("DAIKIFU_CHROMIUM")
    if explicit:
        return explicit
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser_archive(tmp_path_factory) -> Path:
    """An archive of the sample games of Dai Kagamigi, Dai-Ryu Shogi, shogi and the annotated
    samples (comments, NAGs, variations) and Chu Shogi."""
    from archive_support import sample_archive
    return sample_archive(tmp_path_factory.mktemp("browser"),
                          ("dai-kagamigi.lsn", "dai-ryu-shogi.lsn", "shogi.lsn", "annotated.lsn", "chu-shogi.lsn"))


def _serve(archive: Path, config: dict | None = None):
    """The viewer of ``archive`` served over HTTP on a free local port; yields its base URL."""
    from werkzeug.serving import make_server

    from daikifu.web import create_app
    server = make_server("127.0.0.1", 0, create_app(archive, config=config), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(5)


@pytest.fixture(scope="session")
def live_server(browser_archive):
    """The viewer served over HTTP on a free local port; yields its base URL."""
    yield from _serve(browser_archive)


@pytest.fixture(scope="session")
def windowed_server(browser_archive):
    """The same, showing games longer than 20 plies a window of 10 plies at a time (web/games.py)."""
    yield from _serve(browser_archive, {"DAIKIFU_LONG_GAME": 20, "DAIKIFU_WINDOW": 10})


@pytest.fixture(scope="session")
def chromium():
    if os.environ.get("DAIKIFU_SKIP_BROWSER") == "1":
        pytest.skip("DAIKIFU_SKIP_BROWSER=1")
    path = chromium_path()
    if not path or not Path(path).exists():
        pytest.fail("the browser tests need Chromium: 'sudo apt-get install chromium' (scripts/test does it "
                    "when run as root), or DAIKIFU_CHROMIUM=/path/to/chromium, or DAIKIFU_SKIP_BROWSER=1",
                    pytrace=False)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency: "
                                   "pip install -e '.[test]'")
    pw = sync_api.sync_playwright().start()
    browser = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    pw.stop()


def _checked_page(chromium, **context_options):
    """A fresh page; JavaScript errors, console errors (a failed request of a script) and refusals
    by the Content-Security-Policy on it fail the test."""
    context = chromium.new_context(**context_options)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    # the Content-Security-Policy refuses inline scripts and foreign resources: a refusal is a bug
    p.on("console", lambda msg: errors.append(msg.text)
         if msg.type == "error" or "Content Security Policy" in msg.text else None)
    p.set_default_timeout(10_000)
    yield p
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(chromium):
    """A fresh desktop page (1400x1000), checked as :func:`_checked_page` says."""
    yield from _checked_page(chromium, viewport={"width": 1400, "height": 1000})


@pytest.fixture
def phone(chromium):
    """A fresh page as a phone shows it: 390x844 CSS pixels, touch, no Japanese font needed."""
    yield from _checked_page(chromium, viewport={"width": 390, "height": 844}, device_scale_factor=3,
                             is_mobile=True, has_touch=True)
