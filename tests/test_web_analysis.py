"""The analysis board's endpoints: ``/api/moves``, ``/analysis/record.lsn`` and
``/api/position-check`` (the browser side is in test_browser.py).

Expected answers come from the rules core directly (``Board.legal_moves``, playing each move and
writing the position, reading the move text back with the notation parser), not from the
endpoint's own helpers.
"""

from __future__ import annotations

import json
import random
from urllib.parse import urlencode

import pytest
from lxml import html

from daikifu.formats.lsn import read_game
from daikifu.replay.notation import parse_move
from daikifu.replay import Board, compile_rules, load_variant, parse_square, square_name
from daikifu.replay.legality import position_problems
from daikifu.replay.randomplay import pick_move
from daikifu.replay.usi import usi_to_move
from daikifu.web import create_app

from archive_support import sample_archive
from position_support import position_text


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = sample_archive(tmp_path_factory.mktemp("analysis"), ("shogi.lsn",))
    return create_app(db).test_client()


def moves(client, **params) -> dict:
    r = client.get("/api/moves?" + urlencode(params))
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def check_against_the_rules(variant: str, position: str, answer: dict, square: str | None = None) -> None:
    """Every legal move (of the piece on ``square``) once, with the right squares, captures,
    text and position after it."""
    board = Board(variant, position)
    legal = [m for m in board.legal_moves() if square is None or m.from_square == parse_square(square)]
    assert sorted(m["uci"] for m in answer["moves"]) == sorted(m.uci() for m in legal)
    by_uci = {m.uci(): m for m in legal}
    for entry in answer["moves"]:
        move = by_uci[entry["uci"]]
        assert entry["from"] == (None if move.from_square is None else square_name(move.from_square))
        assert entry["steps"] == [square_name(k) for k in move.kills]
        assert entry["to"] == square_name(move.to_square)
        assert entry["promotion"] == move.promotion and entry["drop"] == move.drop
        captured = set(move.kills)
        if move.drop is None and move.to_square != move.from_square and board.piece_at(move.to_square):
            captured.add(move.to_square)
        assert set(entry["captures"]) == {square_name(sq) for sq in captured}
        assert parse_move(board, entry["lsn"]) == move  # the text names exactly this move
        assert usi_to_move(board, entry["usi"]) == move
        after = board.copy(stack=False)
        after.play(move)
        assert entry["position"] == after.position()


def test_the_start_position_of_shogi(client):
    answer = moves(client, variant="shogi")
    assert answer["turn"] == "sente" and not answer["check"] and answer["outcome"] is None
    assert len(answer["moves"]) == 30
    check_against_the_rules("shogi", Board("shogi").position(), answer)


def test_a_middle_game_position_with_drops_and_promotions(client):
    position = "lnsgk2nl/1r4gb1/p1pppp1pp/6p2/1p5P1/2P6/PPBPPPP1P/7R1/LNSGKGSNL b Gp 13"
    answer = moves(client, variant="shogi", position=position)
    check_against_the_rules("shogi", position, answer)
    drops = [m for m in answer["moves"] if m["drop"]]
    assert drops and all(m["from"] is None and m["piece"] == "G" for m in drops)
    assert all(m["hands"][0] == [] for m in drops)  # the one gold in hand is gone
    # B takes the h8 bishop: it may promote or not (both offered)
    choices = {m["promotion"] for m in answer["moves"] if m["from"] == "c3" and m["to"] == "h8"}
    assert choices == {True, False}


def test_the_lion_dog_double_moves_of_dai_kagamigi(client):
    pieces = {"h1": "K", "h15": "k", "e5": "!LD", "e6": "p", "e7": "p", "f6": "g", "d5": "P"}
    position = position_text(pieces, 15, 15)
    answer = moves(client, variant="dai-kagamigi", position=position, square="e5")
    check_against_the_rules("dai-kagamigi", position, answer, "e5")
    double = [m for m in answer["moves"] if m["steps"] == ["e6"] and m["to"] == "e7"]
    assert double and double[0]["captures"] == ["e6", "e7"]
    assert any(m["igui"] and m["to"] == "e5" for m in answer["moves"])  # capture without moving
    # what changes: the Lion Dog leaves e5, both pawns go, it stands on e7
    assert sorted(double[0]["changes"]) == [["e5", "!LD", None], ["e6", "p", None], ["e7", "p", "!LD"]]


def test_drops_of_chu_kagamigi(client):
    pieces = {"f1": "K", "f12": "k", "a4": "P"}
    position = position_text(pieces, 12, 12, hands="G2Pn")
    answer = moves(client, variant="chu-kagamigi", position=position)
    check_against_the_rules("chu-kagamigi", position, answer)
    gold = [m for m in answer["moves"] if m["drop"] == "G"]
    assert len(gold) == 12 * 12 - len(pieces)  # every empty square
    assert gold[0]["hands"][0] == [["P", 2]]


def test_a_square_without_a_piece_to_move_has_no_moves(client):
    answer = moves(client, variant="shogi", square="e5")
    assert answer["moves"] == [] and answer["square"] == "e5"


def test_checkmate_is_reported(client):
    position = "4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1"
    answer = moves(client, variant="shogi", position=position)
    assert answer["moves"] == [] and answer["check"]
    assert answer["outcome"] == {"termination": "checkmate", "result": "1-0"}


@pytest.mark.parametrize("query, words", [
    ({}, "variant is required"),
    ({"variant": "no-such-variant"}, "unknown variant"),
    ({"variant": "shogi", "position": "lnsgkgsnl b - 1"}, "1 ranks given"),
    ({"variant": "shogi", "position": "4k4/4K4/9/9/9/9/9/9/9 b - 1"}, "side not to move is in check"),
    ({"variant": "shogi", "position": "x" * 5000}, "too long"),
    ({"variant": "shogi", "square": "z9"}, "square must be"),
    ({"variant": "shogi", "square": "j1"}, "square must be"),
    ({"variant": "shogi", "ruleset": "no-such-option=1"}, "shogi"),
])
def test_bad_parameters_are_400_with_a_message(client, query, words):
    r = client.get("/api/moves?" + urlencode(query))
    assert r.status_code == 400
    assert words in r.get_json()["error"]["message"]


def test_nothing_is_written(client):
    assert client.post("/api/moves?variant=shogi").status_code == 405


# --- a line as a record ------------------------------------------------------------------------


def test_a_line_as_lsn_reads_back_to_the_same_moves(client):
    start = "lnsgk2nl/1r4gb1/p1pppp1pp/6p2/1p5P1/2P6/PPBPPPP1P/7R1/LNSGKGSNL b Gp 13"
    line = ["c3h8+", "g8h8", "G*e5"]
    r = client.get("/analysis/record.lsn?" + urlencode({"variant": "shogi", "position": start,
                                                         "moves": " ".join(line)}))
    assert r.status_code == 200 and "attachment" not in r.headers.get("Content-Disposition", "")
    game = read_game(r.get_data(as_text=True))
    assert game.start == start
    assert [m.uci() for m in game.mainline_moves()] == line
    r = client.get("/analysis/record.lsn?variant=shogi&moves=c3c4&download=1")
    assert "attachment" in r.headers["Content-Disposition"]


def test_an_illegal_move_in_the_line_is_400(client):
    r = client.get("/analysis/record.lsn?variant=shogi&moves=c3c4,c4c5")
    assert r.status_code == 400
    assert "move 2 &#39;c4c5&#39; cannot be played" in r.get_data(as_text=True)


# --- impossible positions --------------------------------------------------------------------------


def kinds(variant: str, pieces: dict, turn: str = "b") -> list[str]:
    v = load_variant(variant)
    return [p.kind for p in position_problems(compile_rules(v), position_text(pieces, v.files, v.ranks, turn))]


def test_possible_positions_have_no_problems():
    for slug in ("shogi", "chu-kagamigi", "dai-kagamigi"):
        rules = compile_rules(load_variant(slug))
        assert position_problems(rules, rules.start) == []
    assert kinds("shogi", {"e1": "K", "e9": "k", "e5": "G"}) == []


def test_impossible_positions_are_explained():
    assert kinds("shogi", {"e1": "K", "e2": "k"}, "w") == ["kings-adjacent", "not-to-move-in-check"]
    assert kinds("shogi", {"e1": "K", "e9": "k", "e8": "R"}, "b") == ["not-to-move-in-check"]
    assert kinds("shogi", {"e1": "K", "e9": "k", "e8": "R"}, "w") == []  # Gote to move, in check: fine
    assert kinds("shogi", {"e1": "K", "e9": "k", "a9": "P"}) == ["dead-piece"]
    assert kinds("shogi", {"e1": "K", "e9": "k", "a8": "N"}) == ["dead-piece"]
    assert kinds("shogi", {"e1": "K", "e9": "k", "a8": "+N"}) == []  # promoted: it can move
    assert kinds("shogi", {"e1": "K", "e5": "K", "e9": "k"}) == ["royals"]
    assert kinds("shogi", {"e1": "K"}) == ["no-royal"]
    problems = position_problems(compile_rules(load_variant("shogi")), "bad")
    assert [p.kind for p in problems] == ["syntax"]
    dai = load_variant("dai-kagamigi")  # no drops: no pieces in hand
    problems = position_problems(compile_rules(dai), position_text({"h1": "K", "h15": "k"}, 15, 15, hands="G"))
    assert [p.kind for p in problems] == ["syntax"] and "no drops" in problems[0].message


def test_the_check_endpoint_refuses_too_many_pieces_and_nifu(client):
    start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    nifu = "lnsgkgsnl/1r5b1/ppppppppp/9/P8/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    for position, expected in ((nifu, ["piece-count", "nifu"]), (start.replace(" - ", " 9P "), ["piece-count"]),
                               (start.replace(" - ", " R "), ["piece-count"])):
        data = client.get("/api/position-check?" + urlencode({"variant": "shogi", "position": position})).get_json()
        assert data["valid"] is False and [p["kind"] for p in data["problems"]] == expected
    data = client.get("/api/position-check?" + urlencode({"variant": "shogi", "position": nifu,
                                                          "allow_impossible": "1"})).get_json()
    assert data["valid"] is True and all(p["relaxed"] for p in data["problems"]) and len(data["problems"]) == 2


def test_the_check_endpoint(client):
    r = client.get("/api/position-check?" + urlencode({"variant": "shogi", "position": "4k4/4R4/9/9/9/9/9/9/4K4 b - 1"}))
    data = r.get_json()
    assert r.status_code == 200 and data["valid"] is False
    problem, = data["problems"]
    assert problem["kind"] == "not-to-move-in-check" and problem["squares"] == ["e9", "e8"]
    assert "R on e8" in problem["message"]
    assert client.get("/api/position-check?variant=shogi").status_code == 400
    r = client.get("/api/position-check?" + urlencode({"variant": "shogi", "position": Board("shogi").position()}))
    assert r.get_json() == {"variant": "shogi", "position": Board("shogi").position(), "valid": True, "problems": []}


# --- the board editor's page -----------------------------------------------------------------------


def test_the_editor_page_offers_every_piece_of_both_sides(client):
    variant = load_variant("chu-kagamigi")
    r = client.get("/positions?edit=1&variant=chu-kagamigi")
    assert r.status_code == 200
    doc = html.fromstring(r.data)
    palette = {(b.get("data-piece"), b.get("data-colour")) for b in doc.xpath("//button[contains(@class, 'palette-piece')]")}
    assert palette == {(p.id, c) for p in variant.pieces for c in ("0", "1")}
    data = json.loads(doc.xpath("//script[@id='editor-data']")[0].text)
    assert data["position"] == data["start"] and data["drops"] is True
    start = Board("chu-kagamigi")
    assert set(data["start"]["pieces"]) == {square_name(sq) for sq in start.pieces()}
    # a position to edit is read as given, hands and side to move included
    position = position_text({"f1": "K", "f12": "k"}, 12, 12, turn="w", hands="2Pg")
    data = json.loads(html.fromstring(client.get("/positions?" + urlencode(
        {"edit": 1, "variant": "chu-kagamigi", "position": position})).data).xpath("//script[@id='editor-data']")[0].text)
    assert data["position"] == {"pieces": {"f1": "K", "f12": "k"}, "hands": [{"P": 2}, {"G": 1}], "turn": "w"}


@pytest.mark.parametrize("query, words", [
    ({"variant": "no-such-variant"}, "unknown variant"),
    ({"variant": "shogi", "position": "9/9 b - 1"}, "2 ranks given"),
    ({"variant": "shogi", "position": "x" * 5000}, "too long"),
])
def test_the_editor_refuses_bad_parameters(client, query, words):
    r = client.get("/positions?" + urlencode({"edit": 1, **query}))
    assert r.status_code == 400 and words in r.get_data(as_text=True)


# --- the rules core's position after each move -------------------------------------------------


@pytest.mark.parametrize("variant", ["chu-shogi", "chu-kagamigi", "dai-kagamigi", "dai-shogi", "sho-shogi", "minishogi"])
def test_positions_after_agree_with_playing_each_move(variant):
    """Board.positions_after (which writes again only the ranks a move changes) against playing
    every legal move and writing the whole position, along a random game with many captures
    (hands, promotions, Chu Shogi's counter-strike square)."""
    rng = random.Random(7)
    board = Board(variant)
    for _ in range(50):
        moves = board.legal_moves()
        if not moves:
            break
        for move, after in zip(moves, board.positions_after(moves)):
            board.push(move)
            assert after == board.position(), move
            board.pop()
        board.push(pick_move(board, moves, rng, 0.9))


def test_the_moves_come_written_in_the_style_asked_for(client):
    """The analysis board's move list writes the moves as the page does (?style=)."""
    start = {m["uci"]: m for m in client.get("/api/moves?variant=shogi&style=japanese").get_json()["moves"]}
    assert start["c3c4"]["text"] == "▲７六歩" and start["c3c4"]["lsn"] == "P-c4"
    western = {m["uci"]: m["text"] for m in client.get("/api/moves?variant=shogi&style=western").get_json()["moves"]}
    assert western["c3c4"] == "P-7f" and western["g1g2"] == "S-3h"
    plain = {m["uci"]: m["text"] for m in client.get("/api/moves?variant=shogi").get_json()["moves"]}
    assert plain["c3c4"] == "P-c4"  # no style: LSN, as before
    bad = client.get("/api/moves?variant=shogi&style=hodges")
    assert bad.status_code == 400 and "hodges" in bad.get_data(as_text=True)


def test_the_editor_palette_is_grouped_with_names_and_pictures(client):
    """The pieces a side starts with first, then the promoted ones; each type a card with its name
    (what the search box looks in) and its picture for either side."""
    variant = load_variant("chu-shogi")
    doc = html.fromstring(client.get("/positions?edit=1&variant=chu-shogi").data)
    groups = {g.get("data-group"): [t.get("data-piece") for t in g.xpath(".//*[contains(@class, 'palette-type')]")]
              for g in doc.xpath("//*[contains(@class, 'palette-group')]")}
    promoted = {p.promotes for p in variant.pieces if p.promotes}
    assert groups["base"] == [p.id for p in variant.pieces if p.id not in promoted]
    assert groups["promoted"] == [p.id for p in variant.pieces if p.id in promoted]
    lion = doc.xpath("//*[contains(@class, 'palette-type')][@data-piece='LN']")[0]
    assert lion.get("data-name") == "lion" and "Lion" in lion.text_content()
    assert len(lion.xpath(".//*[local-name()='use']")) == 2 and doc.get_element_by_id("palette-search") is not None
