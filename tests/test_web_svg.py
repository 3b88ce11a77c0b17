"""Boards as SVG (``web/svg.py``): well-formed for every playable variant, the pieces on the
squares the rules core says, geometry as documented, the last move's squares marked.

Expected pieces come from :class:`replay.Board` directly; expected coordinates from the layout
the module documents (Sente at the bottom, files from the left, the reverse when flipped).
"""

from __future__ import annotations

import random

import pytest
from lxml import etree

from daikifu.replay.randomplay import random_moves
from daikifu.replay.notation import parse_move
from daikifu.replay import FIRST, SECOND, Board, list_variants, parse_square, square_file, square_name, square_rank
from daikifu.web.svg import board_svg, hands, highlight_squares, move_highlight, piece_symbol_defs, promoted_types

NS = {"s": "http://www.w3.org/2000/svg"}
PLAYABLE = [v.slug for v in list_variants() if v.playable]
# a Dai Kagamigi study position (data/sample/annotated.lsn): Sente's Lion Dog on e7, Gote's pawn
# on e8 and silver on e9 in front of it
LION_STUDY = "7k7/6g1s6/15/15/15/2n2p9/4s4r5/4p10/4(!LD)10/15/15/15/15/6G1G6/7K7 b - 1"


def parse(svg: str):
    return etree.fromstring(svg.encode())


def pieces_of(root) -> dict[str, tuple[str, str]]:
    """square -> (piece ID, 'sente'|'gote') as drawn in the pieces layer."""
    out = {}
    for use in root.iterfind(".//s:g[@class='pieces']/s:use", NS):
        side = "gote" if "gote" in use.get("class").split() else "sente"
        assert use.get("data-sq") not in out
        out[use.get("data-sq")] = (use.get("data-piece"), side)
    return out


def expected_pieces(board: Board) -> dict[str, tuple[str, str]]:
    return {square_name(sq): (p.id, "sente" if p.colour == FIRST else "gote") for sq, p in board.pieces().items()}


def played(variant: str, plies: int, seed: int = 7) -> Board:
    board = Board(variant)
    random_moves(board, plies, random.Random(seed))
    return board


def test_there_are_playable_variants_to_check():
    assert {"shogi", "dai-kagamigi", "dai-ryu-shogi", "dai-mitregi"} <= set(PLAYABLE)


@pytest.mark.parametrize("variant", PLAYABLE)
def test_every_playable_variant_gives_well_formed_svg_with_the_board_s_pieces(variant):
    board = played(variant, 30)
    root = parse(board_svg(board, last=board.peek()))
    rules = board.rules
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (int(root.get("data-files")), int(root.get("data-ranks"))) == (rules.files, rules.ranks)
    squares = {r.get("data-sq") for r in root.iterfind(".//s:g[@class='squares']/s:rect[@data-sq]", NS)}
    assert squares == {square_name(sq) for sq in rules.squares}
    assert pieces_of(root) == expected_pieces(board)
    # every piece refers to a symbol of its own type
    symbols = {s.get("id"): s.get("data-piece") for s in root.iterfind(".//s:defs/s:symbol", NS)}
    for use in root.iterfind(".//s:g[@class='pieces']/s:use", NS):
        assert symbols[use.get("href")[1:]] == use.get("data-piece")


def test_labels_are_kanji_where_given_else_ids_and_long_ids_get_smaller_type():
    shogi = parse(board_svg(Board("shogi")))
    labels = {s.get("data-piece"): s.find("s:text", NS).text for s in shogi.iterfind(".//s:symbol", NS)}
    rules = Board("shogi").rules
    assert labels == {t.id: t.kanji for t in rules.types}
    mitregi = parse(board_svg(Board("dai-mitregi")))
    sizes = {}
    for s in mitregi.iterfind(".//s:symbol", NS):
        text = s.find("s:text", NS)
        assert text.text == s.get("data-piece")
        sizes.setdefault(len(text.text), set()).add(float(text.get("font-size")))
    lengths = sorted(sizes)
    assert len(lengths) > 1
    for short, long in zip(lengths, lengths[1:]):
        assert min(sizes[short]) > max(sizes[long])


def test_promoted_types_are_promotion_targets_not_in_the_start_position():
    for variant in ("shogi", "dai-kagamigi", "chu-kagamigi"):
        rules = Board(variant).rules
        targets = {rules.type_by_id[t.promotes].index for t in rules.types if t.promotes}
        in_start = {t for t, _ in rules.parsed_start().pieces.values()}
        assert promoted_types(rules) == targets - in_start
        root = parse(board_svg(Board(rules)))
        marked = {s.get("data-piece") for s in root.iterfind(".//s:symbol[@class='promoted']", NS)}
        assert marked == {rules.types[i - 1].id for i in targets - in_start}


def test_the_second_player_s_pieces_are_turned_and_flipping_swaps_the_sides():
    board = Board("shogi")
    for flip in (False, True):
        root = parse(board_svg(board, flip=flip))
        for use in root.iterfind(".//s:g[@class='pieces']/s:use", NS):
            gote = board.piece_at(parse_square(use.get("data-sq"))).colour == SECOND
            assert (use.get("transform") is not None) == (gote != flip)


@pytest.mark.parametrize("flip", [False, True])
def test_squares_are_where_the_documented_geometry_puts_them(flip):
    board = Board("dai-ryu-shogi")  # 9 files x 16 ranks: not square
    root = parse(board_svg(board, flip=flip, cell=30))
    files, ranks = 9, 16
    cell, margin = int(root.get("data-cell")), int(root.get("data-margin"))
    assert cell == 30 and root.get("data-flip") == str(int(flip))
    for rect in root.iterfind(".//s:g[@class='squares']/s:rect[@data-sq]", NS):
        sq = parse_square(rect.get("data-sq"))
        f, r = square_file(sq), square_rank(sq)
        x = files - 1 - f if flip else f
        y = r if flip else ranks - 1 - r
        assert (float(rect.get("x")), float(rect.get("y"))) == (margin + x * cell, margin + y * cell)
    letters = sorted(root.iterfind(".//s:g[@class='coords']/s:text[@data-file]", NS), key=lambda t: float(t.get("x")))
    assert "".join(t.text for t in letters) == ("ihgfedcba" if flip else "abcdefghi")
    numbers = sorted(root.iterfind(".//s:g[@class='coords']/s:text[@data-rank]", NS), key=lambda t: float(t.get("y")))
    assert [int(t.text) for t in numbers] == (list(range(1, 17)) if flip else list(range(16, 0, -1)))


def test_promotion_zones_are_shaded_and_zone_boundaries_drawn():
    board = Board("dai-ryu-shogi")  # promotion zone 4 ranks; four zones of four ranks
    root = parse(board_svg(board))
    zone = {r.get("data-sq") for r in root.iterfind(".//s:rect[@data-sq]", NS) if "zone" in r.get("class").split()}
    assert zone == {square_name(sq) for sq in board.rules.squares if square_rank(sq) < 4 or square_rank(sq) >= 12}
    lines = {int(line.get("data-after-rank")) for line in root.iterfind(".//s:g[@class='zone-lines']/s:line", NS)}
    assert lines == {3, 7, 11}
    shogi = parse(board_svg(Board("shogi")))
    assert {int(x.get("data-after-rank")) for x in shogi.iterfind(".//s:line[@data-after-rank]", NS)} == {2, 5}


def marks_of(root) -> dict[str, set]:
    out: dict[str, set] = {}
    for rect in root.iterfind(".//s:g[@class='highlights']/s:rect", NS):
        out.setdefault(rect.get("class"), set()).add(rect.get("data-sq"))
    return out


def test_a_lion_double_capture_marks_both_captured_squares_and_its_path():
    board = Board("dai-kagamigi", LION_STUDY)
    move = parse_move(board, "!LDxe8xe9")
    assert move.kills == (parse_square("e8"),)
    before = board.copy()
    board.push(move)
    marks = marks_of(parse(board_svg(board, last=move)))
    assert marks["hl-capture"] == {"e8", "e9"} == {square_name(s) for s in before.captured_squares(move)}
    assert marks["hl-from"] == {"e7"} and marks["hl-to"] == {"e9"}
    assert marks["hl-path"] == {"e8"}
    assert move_highlight(before, move) == {"from": ["e7"], "to": ["e9"], "path": ["e8"], "captured": ["e8", "e9"]}
    # the three-step version passes over both and stops on e10
    three = parse_move(before, "!LDxe8xe9-e10")
    assert move_highlight(before, three)["path"] == ["e8", "e9"]
    assert move_highlight(before, three)["captured"] == ["e8", "e9"]


def test_igui_and_pass_stay_on_their_square_and_a_slide_marks_its_path():
    board = Board("dai-kagamigi", LION_STUDY)
    board.push(parse_move(board, "!LDxe8xe9-e10"))
    board.push(parse_move(board, "R-e9"))
    igui = parse_move(board, "!LDx!e9")
    marks = highlight_squares(igui, board.captured_squares(igui))
    assert marks["from"] == marks["to"] == [parse_square("e10")] and marks["captured"] == [parse_square("e9")]
    rook_board = Board("shogi", "4k4/9/9/9/9/9/9/9/R3K4 b - 1")
    slide = rook_board.parse_uci("a1a6")
    assert [square_name(s) for s in highlight_squares(slide)["path"]] == ["a2", "a3", "a4", "a5"]
    knight = Board("shogi").parse_uci("b1c3")  # a leap: no path
    assert highlight_squares(knight)["path"] == []


def test_the_destination_capture_is_known_only_from_the_board_before_the_move():
    board = Board("shogi", "4k4/9/9/9/9/9/p8/9/R3K4 b - 1")
    capture = board.parse_uci("a1a3")
    board.push(capture)
    assert marks_of(parse(board_svg(board, last=capture)))["hl-capture"] == {"a3"}
    assert board.ply == 1 and board.peek() == capture  # the board is left as it was


def test_error_squares_are_marked():
    marks = marks_of(parse(board_svg(Board("shogi"), error_square=[parse_square("e5"), parse_square("e6")])))
    assert marks == {"hl-error": {"e5", "e6"}}


def test_hands_list_each_side_s_pieces_with_labels():
    board = Board("shogi", "4k4/9/9/9/9/9/9/9/4K4 b 2PGs 1")
    order = [t.id for t in board.rules.types]  # the variant file's order
    first = sorted([("P", "歩", 2), ("G", "金", 1)], key=lambda item: order.index(item[0]))
    assert hands(board) == [first, [("S", "銀", 1)]]
    assert hands(Board("dai-kagamigi")) == [[], []]


def test_user_text_in_the_title_is_escaped_not_markup():
    root = parse(board_svg(Board("shogi"), title="<script>alert(1)</script>", element_id='x"y'))
    assert root.find("s:title", NS).text == "<script>alert(1)</script>"
    assert root.find(".//s:script", NS) is None
    assert root.get("id") == 'x"y'


def test_the_defs_alone_hold_one_symbol_per_piece_type():
    rules = Board("dai-kagamigi").rules
    root = parse(piece_symbol_defs(rules))
    assert [s.get("data-piece") for s in root.iterfind(".//s:symbol", NS)] == [t.id for t in rules.types]


def test_a_15x15_board_is_a_readable_size():
    root = parse(board_svg(Board("dai-kagamigi")))
    assert 600 <= int(root.get("width")) <= 700
