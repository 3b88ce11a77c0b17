"""Random parameters on every page and endpoint: a bad one is a 4xx with a message, never a 500."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from daikifu.web import create_app

from archive_support import sample_archive

KEYS = ["ply", "node", "flip", "page", "per_page", "variant", "position", "game", "sort", "order", "q",
        "player", "sente", "gote", "since", "until", "result", "status", "bucket", "confirm",
        "include_invalid", "ruleset", "square", "moves", "download", "edit"]
VALUES = st.one_of(
    st.integers(-2**70, 2**70).map(str),
    st.sampled_from(["", "0", "1", "-1", "all", "desc", "asc", "date", "shogi", "dai-kagamigi", "*", "%",
                     "2024", "2024-13-45", "nan", "1e9", "9" * 30, "\x00", "<script>", "' OR 1=1 --",
                     "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", "\"unclosed",
                     "e5", "a1", "z99", "c3c4", "c3c4 g7g6", "P*e5", "c3c4+", "4k4/4K4/9/9/9/9/9/9/9 b - 1"]),
    st.text(max_size=40),
)
PATHS = ["/", "/games/1", "/games/2", "/games/1/record.lsn", "/games/1/record.kif", "/positions", "/stats", "/variants", "/variants/shogi",
         "/api/games", "/api/games/1", "/api/positions", "/api/explore", "/api/stats", "/api/variants",
         "/api/variants/shogi", "/import", "/api/moves", "/analysis/record.lsn", "/api/position-check",
         "/api/variants/shogi/pieces/P"]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = sample_archive(tmp_path_factory.mktemp("web_fuzz"), ("shogi.lsn", "annotated.lsn"))
    app = create_app(db)
    errors = []
    app.logger.error = lambda *a, **k: errors.append(a)  # unexpected errors are logged: collect them
    app.logger.exception = lambda *a, **k: errors.append(a)
    client = app.test_client()
    client.logged = errors
    return client


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), params=st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4))
def test_random_parameters_never_give_a_server_error(client, path, params):
    client.logged.clear()
    r = client.get(path, query_string=params)
    assert r.status_code < 500, (path, params, r.get_data(as_text=True)[:300])
    assert b"Traceback" not in r.data
    assert not client.logged, client.logged


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.integers(-2**70, 2**70).map(str),
                      st.text(max_size=30).filter(lambda t: "/" not in t and t not in ("", ".", ".."))))
def test_random_ids_and_slugs(client, text):
    for path in (f"/games/{text}", f"/variants/{text}", f"/api/games/{text}", f"/api/variants/{text}",
                 f"/api/variants/shogi/pieces/{text}"):
        r = client.get(path)
        assert r.status_code in (200, 301, 308, 404), (path, r.status_code)
