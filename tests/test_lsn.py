"""LSN game records (docs/notation.md section 5): reading, errors, lenient mode, streaming, round
trips through the writer, robustness against damaged input, and the worked examples of the doc."""

from __future__ import annotations

import random
import re
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daikifu import replay
from daikifu.replay import Board, Move, load_variant
from daikifu.replay.squares import square, square_file, square_rank
from daikifu.replay.variant import UnknownVariantError

from daikifu.formats import lsn
from daikifu.formats.game import RESULTS, SEVEN_TAG_ROSTER, Game
from daikifu.formats.lsn import normalize_comment, read_game, read_games, write_game, write_games
from daikifu.formats.visitor import GameBuilder, HeadersOnly, Visitor
from record_builders import random_record

PLAYABLE = [v for v in replay.list_variants() if v.playable]
DOC = Path(__file__).resolve().parent.parent / "docs" / "notation.md"


def read_all(text, **kwargs):
    return list(read_games(text, **kwargs))


def tags(game):
    return game.headers.items()


def mainline(game):
    return [n.notation for n in game.mainline()]


# --- tags -----------------------------------------------------------------------------------------

TAGGED = """\ufeff[Variant "shogi"]
[Event "Club \\"open\\" match"] [Site "Kyoto"]

[Date "2026.11.22"]
[White "Alice"]
[Black "Bob"]
[WhiteElo "1800"]
[Zeta "last \\\\ one"]
[Alpha "first"]
[Result "1-0"]

1. P-c4 P-g6 1-0
"""


def test_tags_unknown_kept_in_order_colours_escapes_bom_and_blank_line():
    game = read_game(TAGGED)
    assert game.valid and not game.errors, game.errors
    assert tags(game) == [("Variant", "Shogi"), ("Event", 'Club "open" match'), ("Site", "Kyoto"),
                          ("Date", "2026.11.22"), ("Sente", "Alice"), ("Gote", "Bob"),
                          ("SenteElo", "1800"), ("Zeta", "last \\ one"), ("Alpha", "first")]
    assert game.result == "1-0"
    assert mainline(game) == ["P-c4", "P-g6"]
    written = write_game(game)
    assert written.splitlines()[:11] == [
        '[Variant "shogi"]', '[Event "Club \\"open\\" match"]', '[Site "Kyoto"]', '[Date "2026.11.22"]',
        '[Round "?"]', '[Sente "Alice"]', '[Gote "Bob"]', '[Result "1-0"]', '[SenteElo "1800"]',
        '[Zeta "last \\\\ one"]', '[Alpha "first"]']
    assert "White" not in written and "Black" not in written


def test_crlf_and_lf_read_the_same():
    lf = read_game(TAGGED)
    crlf = read_game(TAGGED.replace("\n", "\r\n"))
    assert crlf == lf and crlf.valid


def test_headers_only_returns_tags_without_replaying(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("HeadersOnly must not replay moves")
    monkeypatch.setattr(lsn, "parse_move", fail)
    text = TAGGED + "\n" + TAGGED.replace("\ufeff", "").replace("Kyoto", "Osaka").replace("P-g6", "Kxe9")
    found = read_all(text, visitor=HeadersOnly)
    assert len(found) == 2
    assert found[0][0] == ("Variant", "shogi") and ("Sente", "Alice") in found[0]
    assert ("Site", "Osaka") in found[1] and ("Result", "1-0") in found[1]


class MoveLister(Visitor):
    """A visitor that builds no game: it lists the moves and errors it is shown."""

    def begin_game(self, number, line):
        self.seen = []

    def visit_move(self, board, move, notation, line, column):
        self.seen.append(notation)

    def begin_variation(self):
        self.seen.append("(")

    def end_variation(self):
        self.seen.append(")")

    def visit_error(self, error):
        self.seen.append(f"error at {error.line}:{error.column}")

    def end_game(self, source, offset):
        return self.seen


def test_a_visitor_that_builds_no_game_still_gets_checked_moves():
    [seen] = read_all(MOVETEXT, visitor=MoveLister)
    assert seen == ["P-d5", "P-d8", "BG-e5", "N-h8", "(", "P-a8", "(", "P-b8", "P-b5", ")", "P-a5",
                    "(", "P-b5", ")", ")", "BGxh8", "Pxh8"]
    [seen] = read_all('[Variant "shogi"]\n\n1. P-c4 Kxe1 *\n', visitor=MoveLister)
    assert seen == ["P-c4", "error at 3:9"]


def test_game_builder_with_a_default_variant():
    builder = GameBuilder(default_variant="chu-kagamigi")
    [game] = read_all('[Event "x"]\n\n1. P-d5 *\n', visitor=builder)
    assert game.valid and game.variant.slug == "chu-kagamigi"


def test_game_without_movetext_is_told_apart_from_the_next():
    text = '[Variant "shogi"]\n[Event "a"]\n\n[Variant "shogi"]\n[Event "b"]\n\n1. P-c4 *\n'
    games = read_all(text)
    assert [g.headers["Event"] for g in games] == ["a", "b"]
    assert games[0].valid and not games[0].variations and mainline(games[1]) == ["P-c4"]


def test_variant_by_name_or_alias_and_unknown_variant():
    for name in ("shogi", "Shogi", "hon shogi", "HON-SHOGI"):
        game = read_game(f'[Variant "{name}"]\n\n1. P-c4 *\n')
        assert game.valid and game.variant.slug == "shogi"
    game = read_game('[Variant "no such game"]\n\n1. P-c4 *\n')
    assert not game.valid and "unknown variant" in game.errors[0].message
    assert game.headers["Variant"] == "no such game"
    missing = read_game('[Event "x"]\n\n1. P-c4 *\n')
    assert not missing.valid and "Variant tag is missing" in missing.errors[0].message
    assert read_game('[Event "x"]\n\n1. P-c4 *\n', default_variant="shogi").valid


def test_ruleset_and_sfen_tags():
    sfen = "7k7/15/15/15/15/4PP9/15/15/15/15/15/15/15/15/7K7 b - 1"
    text = (f'[Variant "dai-kagamigi"]\n[RuleSet "soaring-eagle=literal, pass=forbidden"]\n'
            f'[SetUp "1"]\n[SFEN "{sfen}"]\n\n1. P-e11+ K-g15 2. P-f11= *\n')
    game = read_game(text)
    assert game.valid, game.errors
    assert game.options["soaring-eagle"] == "literal" and game.options["pass"] == "forbidden"
    assert game.options["lion-dog"] == "text"
    assert game.start == sfen
    assert [m.promotion for m in game.mainline_moves()] == [True, None, False]
    assert "RuleSet" not in game.headers and "SFEN" not in game.headers  # held by the model
    written = write_game(game)
    assert '[RuleSet "pass=forbidden, soaring-eagle=literal"]' in written
    assert f'[SFEN "{sfen}"]' in written and '[SetUp "1"]' in written
    assert read_game(written) == game
    # FEN is read as SFEN; a bad rule set or position makes the game invalid
    assert read_game(text.replace("[SFEN", "[FEN")).start == sfen
    bad = read_game(text.replace("pass=forbidden", "pass=sometimes"))
    assert not bad.valid and "RuleSet" in bad.errors[0].message and bad.headers["RuleSet"]
    bad = read_game(text.replace(sfen, "7k7/15 b - 1"))
    assert not bad.valid and "SFEN" in bad.errors[0].message


# --- movetext -------------------------------------------------------------------------------------

MOVETEXT = """[Variant "chu-kagamigi"]
[Result "*"]

{before the game} 1.P-d5 P-d8 ; a line comment { not a comment
2. BG-e5 {the Bishop General [%clk 0:01:00] comes out} $1 2... N-h8!? (2... P-a8 {alt}
({nested start} 2... P-b8 3. P-b5) 3. P-a5 $14 (3. P-b5?!)) 3. BGxh8 ?? Pxh8 *
"""


def test_comments_nags_glyphs_variations_and_move_numbers():
    game = read_game(MOVETEXT)
    assert game.valid and not game.errors, game.errors
    assert game.comment == "before the game"
    assert mainline(game) == ["P-d5", "P-d8", "BG-e5", "N-h8", "BGxh8", "Pxh8"]
    nodes = list(game.mainline())
    assert nodes[2].comment == "the Bishop General [%clk 0:01:00] comes out"
    assert nodes[1].comment == ""  # the ';' comment is not kept
    assert nodes[2].nags == [1]
    assert nodes[3].nags == [5]  # N-h8!? -> $5
    assert nodes[4].nags == [4]  # a separate ?? -> $4
    alternatives = nodes[2].variations  # alternatives to N-h8 hang from BG-e5
    assert [n.notation for n in alternatives] == ["N-h8", "P-a8", "P-b8"]
    a8, b8 = alternatives[1], alternatives[2]
    assert a8.comment == "alt" and a8.starting_comment == ""
    assert b8.starting_comment == "nested start"
    assert [n.notation for n in a8.mainline()] == ["P-a5"]
    assert a8.next().nags == [14]
    assert [n.notation for n in a8.variations] == ["P-a5", "P-b5"] and a8.variations[1].nags == [6]
    assert [n.notation for n in b8.mainline()] == ["P-b5"]
    assert nodes[2].source_line == 5 and nodes[2].source_column == 4
    assert nodes[0].source_column == 21  # after the glued move number "1."
    # written back canonically, read again: the same game
    assert read_game(write_game(game)) == game


def test_comment_before_the_first_move_of_a_variation_at_the_first_ply():
    game = read_game('[Variant "shogi"]\n\n{game} 1. P-c4 ({first alt} 1. P-g4 {after}) 1... P-g6 *\n')
    assert game.valid
    assert game.comment == "game"
    alt = game.variations[1]
    assert alt.starting_comment == "first alt" and alt.comment == "after"
    assert read_game(write_game(game)) == game


def test_many_games_per_file_and_the_result_token():
    one = '[Variant "shogi"]\n[Event "g{}"]\n[Result "{}"]\n\n1. P-c4 {} \n'
    text = "".join(one.format(i, r, r) + "\n" for i, r in enumerate(RESULTS * 3))
    games = read_all(text)
    assert len(games) == 12
    assert [g.result for g in games] == list(RESULTS * 3)
    assert [g.number for g in games] == list(range(1, 13))
    assert all(g.valid and not g.errors for g in games)


def test_result_tag_mismatch_is_a_warning():
    game = read_game('[Variant "shogi"]\n[Result "1-0"]\n\n1. P-c4 0-1\n')
    assert game.valid
    assert game.result == "0-1"
    [warning] = game.errors
    assert warning.kind == "warning" and "Result tag says 1-0" in warning.message
    assert warning.line == 4
    # a missing result token takes the tag's result, without a warning
    game = read_game('[Variant "shogi"]\n[Result "1-0"]\n\n1. P-c4\n')
    assert game.result == "1-0" and not game.errors


MATE = """[Variant "shogi"]
[SetUp "1"]
[SFEN "4k4/9/4P4/9/9/9/9/9/4K4 b G 1"]
[Result "1-0"]
[Termination "checkmate"]

1. {move} 1-0
"""


def test_termination_claim_checked_against_the_final_position():
    right = read_game(MATE.format(move="G*e8"))
    assert right.valid and not right.errors
    wrong = read_game(MATE.format(move="G*d8"))
    assert wrong.valid  # a claim is never a reason to reject the game
    [warning] = wrong.errors
    assert warning.kind == "warning" and "Termination says checkmate" in warning.message
    assert "no end of game" in warning.message


def test_text_after_the_result_and_stray_brackets():
    game = read_game('[Variant "shogi"]\n\n1. P-c4 1-0 P-g6\n')
    assert not game.valid and "text after the result" in game.errors[0].message
    game = read_game('[Variant "shogi"]\n\n1. P-c4 } P-g6 *\n')
    assert not game.valid and game.errors[0].column == 9
    game = read_game('[Variant "shogi"]\n\n1. P-c4 ) P-g6 *\n')
    assert not game.valid and "without a variation" in game.errors[0].message
    game = read_game('[Variant "shogi"]\n\n1. P-c4 (1. P-g4 *\n')
    assert not game.valid and "variation not closed" in game.errors[0].message
    game = read_game('[Variant "shogi"]\n\n1. P-c4 {open comment *\n')
    assert not game.valid and "comment not closed" in game.errors[0].message
    game = read_game('[Variant "shogi"]\n[Event "broken]\n\n1. P-c4 *\n')
    assert not game.valid and "malformed tag" in game.errors[0].message


# --- errors with their location -------------------------------------------------------------------

BAD_RECORD = (
    '[Variant "shogi"]\r\n'             # line 10 (the file starts with another game)
    '[Event "errors"]\r\n'              # 11
    '\r\n'                              # 12
    '1. P-c4 P-g6 2. P-d4 {a comment\r\n'  # 13
    'over two lines} 2... P-f6\r\n'     # 14
    '3. S-c2 Kxe9 4. P-h4 *\r\n'        # 15: Kxe9 (ply 6) is illegal
)
FIRST = '[Variant "shogi"]\r\n[Event "fine"]\r\n\r\n1. P-c4 P-g6 *\r\n\r\n\r\n\r\n\r\n\r\n'  # lines 1-9


def _check_location(error, file):
    assert error.file == file
    assert error.game == 2
    assert error.line == 15
    assert error.column == 9
    assert error.ply == 6
    assert error.move == "Kxe9"
    assert error.suggestions and all(s.startswith("K") for s in error.suggestions)
    assert "K-" in " ".join(error.suggestions)


def test_illegal_move_error_is_located_exactly(tmp_path):
    text = FIRST + BAD_RECORD
    games = read_all(text, file="games.lsn")
    assert [g.valid for g in games] == [True, False]
    [error] = games[1].errors
    _check_location(error, "games.lsn")
    assert error.kind == "error" and error.expected == "a legal move"
    assert "cannot make that move" in error.message
    assert "games.lsn:15:9" in str(error) and "ply 6" in str(error)
    assert mainline(games[1]) == ["P-c4", "P-g6", "P-d4", "P-f6", "S-c2"]
    # the same from a file, with its name taken from the open file, CRLF kept or translated
    path = tmp_path / "games.lsn"
    path.write_bytes(text.encode("utf-8"))
    for newline in (None, ""):
        with open(path, encoding="utf-8", newline=newline) as fh:
            games = read_all(fh)
        _check_location(games[1].errors[0], str(path))


def test_lenient_mode_keeps_the_valid_prefix_and_flags_the_game():
    games = read_all(FIRST + BAD_RECORD, lenient=True)
    game = games[1]
    assert game.valid and game.status == "valid"
    [warning] = game.errors
    assert warning.kind == "warning"
    _check_location(warning, None)
    assert game.headers["ImportStatus"] == "truncated"
    assert mainline(game) == ["P-c4", "P-g6", "P-d4", "P-f6", "S-c2"]
    assert game.result == "*"  # the result token after the bad move is still read
    # the flag survives writing and reading back
    again = read_game(write_game(game))
    assert again == game and again.headers["ImportStatus"] == "truncated" and not again.errors


def test_lenient_mode_drops_a_bad_variation_and_keeps_the_main_line():
    text = ('[Variant "shogi"]\n\n1. P-c4 P-g6 (1... P-c6 2. Kxe9 (2. P-h4) 2... P-f6) '
            '(1... P-a6) 2. P-d4 {main} *\n')
    strict = read_game(text)
    assert not strict.valid and strict.errors[0].move == "Kxe9" and strict.errors[0].ply == 3
    game = read_game(text, lenient=True)
    assert game.valid
    [warning] = game.errors
    assert warning.kind == "warning" and warning.move == "Kxe9" and warning.column == 28
    assert mainline(game) == ["P-c4", "P-g6", "P-d4"]
    assert [n.notation for n in game.next().variations] == ["P-g6", "P-a6"]  # P-c6 line dropped
    assert game.end().comment == "main"
    assert game.headers["ImportStatus"] == "variations-dropped"


def test_error_suggestions_for_a_promoted_piece():
    text = ('[Variant "shogi"]\n[SetUp "1"]\n[SFEN "4k4/9/9/9/9/9/9/1+B7/4K4 b - 1"]\n\n'
            '1. Bxh8 *\n')
    game = read_game(text.replace("Bxh8", "+B-h8"))
    assert game.valid
    game = read_game(text.replace("Bxh8", "B-h8+"))
    assert not game.valid
    assert game.errors[0].suggestions[0] == "+B-h8"


def test_ambiguous_move_in_a_record():
    game = read_game('[Variant "shogi"]\n\n1. G-e2 *\n')
    [error] = game.errors
    assert "ambiguous" in error.message and set(error.suggestions) == {"Gd1-e2", "Gf1-e2"}
    assert error.line == 3 and error.column == 4 and error.ply == 1


# --- streaming ------------------------------------------------------------------------------------

SMALL = '[Variant "shogi"]\n[Event "game {n}"]\n\n1. P-c4 {{a comment}} P-g6 2. P-d4 *\n\n'


class CountingLines:
    """An iterable of lines that records how many have been read."""

    def __init__(self, n_games):
        self.n_games = n_games
        self.read = 0

    def __iter__(self):
        for n in range(self.n_games):
            for line in SMALL.format(n=n).splitlines(keepends=True):
                self.read += 1
                yield line


def test_streaming_yields_each_game_before_reading_the_rest():
    source = CountingLines(2000)
    games = read_games(source)
    first = next(games)
    assert first.headers["Event"] == "game 0" and first.valid
    assert source.read <= 2 * 5  # the first game and the first line of the second
    second = next(games)
    assert second.headers["Event"] == "game 1" and source.read <= 3 * 5
    rest = sum(1 for _ in games)
    assert rest == 1998 and source.read == 2000 * 5


def _peak_reading(path: Path) -> tuple[int, int]:
    """Games read with ``read_games(open(path))`` (each dropped at once), and the peak memory."""
    tracemalloc.start()
    count = 0
    with open(path, encoding="utf-8") as fh:
        for game in read_games(fh):
            assert game.valid
            count += 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return count, peak


def test_reading_a_big_file_does_not_hold_all_games(tmp_path):
    big, small = tmp_path / "big.lsn", tmp_path / "small.lsn"
    big.write_text("".join(SMALL.format(n=n) for n in range(2000)), encoding="utf-8")
    small.write_text("".join(SMALL.format(n=n) for n in range(200)), encoding="utf-8")
    read_game(SMALL.format(n=0))  # warm the caches (compiled rules) outside the measurement
    count_small, peak_small = _peak_reading(small)
    count_big, peak_big = _peak_reading(big)
    assert (count_small, count_big) == (200, 2000)
    assert big.stat().st_size > 9 * small.stat().st_size
    assert peak_big < 2 * peak_small + 100_000, (peak_small, peak_big)


# --- round trips ----------------------------------------------------------------------------------

RESERVED_TAGS = set(SEVEN_TAG_ROSTER) | {"RuleSet", "SetUp", "SFEN", "FEN", "White", "Black",
                                         "WhiteElo", "BlackElo"}
COMMENT_TEXT = st.text(
    alphabet=st.one_of(st.sampled_from(list('{}\\"()[];%$!?*+-=x \n\r\t\u00e9\u738b\u2028')),
                       st.characters(blacklist_categories=("Cs",))),
    max_size=24).map(normalize_comment)
TAG_VALUE = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"),
                    max_size=16)
TAG_NAME = st.from_regex(r"\A[A-Z][A-Za-z0-9_]{0,10}\Z").filter(lambda n: n not in RESERVED_TAGS)
NAGS = st.lists(st.integers(1, 255), max_size=2)


def _pick(board, moves, rng):
    captures = [m for m in moves if board.captured_squares(m)]
    if captures and rng.random() < 0.6:
        return rng.choice(captures)
    return rng.choice(moves)


def _random_line(draw, node, board, rng, plies, depth):
    """Random legal moves below ``node`` with comments, NAGs and variations (board restored)."""
    pushed = 0
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal or board.ended is not None:  # (no move after the end of the game)
            break
        move = _pick(board, legal, rng)
        child = node.add_variation(move)
        if rng.random() < 0.25:
            child.comment = draw(COMMENT_TEXT)
        if rng.random() < 0.2:
            child.nags = draw(NAGS)
        if depth < 2 and rng.random() < 0.12:
            for alt_move in rng.sample([m for m in legal if m != move], min(len(legal) - 1, rng.randint(1, 2))):
                alt = node.add_variation(alt_move)
                if rng.random() < 0.5:
                    alt.starting_comment = draw(COMMENT_TEXT)
                if rng.random() < 0.3:
                    alt.comment = draw(COMMENT_TEXT)
                board.push(alt_move)
                _random_line(draw, alt, board, rng, rng.randint(0, 6), depth + 1)
                board.pop()
        board.push(move)
        pushed += 1
        node = child
    for _ in range(pushed):
        board.pop()


@st.composite
def games(draw, variant, max_plies=80):
    """A game built through the API: random legal moves with a capture bias, comments, NAGs,
    variations, tags, rule options and sometimes a start position from another random game."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    options = {name: draw(st.sampled_from(sorted(opt.choices))) for name, opt in variant.options.items()
               if draw(st.booleans())}
    game = Game(variant, options)
    if draw(st.integers(0, 3)) == 0:
        board = game.start_board()
        for _ in range(rng.randint(1, 40)):
            legal = board.legal_moves()
            if not legal or board.ended is not None:  # (no move after the end of the game)
                break
            board.push(_pick(board, legal, rng))
        game.start = board.position()
    for name in SEVEN_TAG_ROSTER[1:-1]:  # canonical order: the roster first, then the others
        if draw(st.booleans()):
            game.headers[name] = draw(TAG_VALUE.filter(lambda v: v != "?"))
    for name in draw(st.lists(TAG_NAME, max_size=3, unique=True)):
        game.headers[name] = draw(TAG_VALUE)
    game.result = draw(st.sampled_from(RESULTS))
    game.comment = draw(COMMENT_TEXT) if draw(st.booleans()) else ""
    _random_line(draw, game, game.start_board(), rng, draw(st.integers(0, max_plies)), 0)
    return game


def check_round_trip(game):
    text = write_game(game)
    again = read_game(text)
    assert again.valid and not again.errors, again.errors
    assert again == game
    assert write_game(again) == text
    # the same through CRLF line ends
    assert read_game(text.replace("\n", "\r\n")) == game


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.data_too_large])
@given(data=st.data())
def test_round_trip_of_generated_games(variant, data):
    check_round_trip(data.draw(games(variant)))


@pytest.mark.slow
@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_round_trip_of_generated_games_heavy(variant, data):
    check_round_trip(data.draw(games(variant, max_plies=160)))


def test_round_trip_of_several_games_in_one_file():
    rng = random.Random(5)
    made = []
    for variant in PLAYABLE:
        game = Game(variant)
        board = game.start_board()
        node = game
        for _ in range(rng.randint(0, 12)):
            move = _pick(board, board.legal_moves(), rng)
            node = node.add_variation(move)
            board.push(move)
        made.append(game)
    text = "".join(write_games(made))
    assert read_all(text) == made


def test_comment_normalisation():
    game = Game("shogi")
    game.comment = "  \t "  # only whitespace: no comment
    node = game.add_variation(game.start_board().parse_uci("c3c4"))
    node.comment = "\r\n  keep {this} \\ and\r\nthat  \n"
    text = write_game(game)
    assert "{  " not in text and "{keep {this\\} \\\\ and\nthat}" in text
    again = read_game(text)
    assert again.comment == ""
    assert again.next().comment == "keep {this} \\ and\nthat" == normalize_comment(node.comment)
    assert write_game(again) == text


def test_starting_comment_where_lsn_has_no_place_for_it():
    # a starting comment is written before the first move of a variation; elsewhere it is joined
    # to the comment before it, which is where the reader then puts it
    game = Game("shogi")
    board = game.start_board()
    first = game.add_variation(board.parse_uci("c3c4"))
    first.starting_comment = "opening"
    board.push(first.move)
    second = first.add_variation(board.parse_uci("g7g6"))
    first.comment, second.starting_comment = "after", "before"
    game.comment = "game"
    text = write_game(game)
    assert "{game opening} 1. P-c4 {after before} 1... P-g6" in text
    again = read_game(text)
    assert again.comment == "game opening" and again.next().comment == "after before"
    assert write_game(again) == text


def test_write_options():
    game = read_game(MOVETEXT)
    bare = write_game(game, comments=False, variations=False)
    assert "{" not in bare and "(" not in bare
    assert mainline(read_game(bare)) == mainline(game)
    narrow = write_game(game, width=20)
    movetext = narrow.split("\n\n", 1)[1].splitlines()
    assert all(len(line) <= 20 or "{" in line for line in movetext)  # a comment is not broken
    assert read_game(narrow) == game


# --- robustness -----------------------------------------------------------------------------------


def _fixed_draw(strategy):
    """Stands in for hypothesis' ``draw`` outside a hypothesis test."""
    return "c{o}m}\\m [%clk 0:01:00]" if strategy is COMMENT_TEXT else [7]


def _corpus():
    rng = random.Random(11)
    texts = []
    for n, variant in enumerate(PLAYABLE * 2):
        game = Game(variant)
        _random_line(_fixed_draw, game, game.start_board(), rng, rng.randint(3, 14), 0)
        game.headers["Event"] = f'ev"{n}'
        game.result = rng.choice(RESULTS)
        texts.append(write_game(game))
    return texts


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 4)):
        if not text:
            break
        i = rng.randrange(len(text))
        kind = rng.randrange(10)
        if kind == 0:  # delete a character
            text = text[:i] + text[i + 1:]
        elif kind == 1:  # swap two characters
            j = rng.randrange(len(text))
            a, b = sorted((i, j))
            if a != b:
                text = text[:a] + text[b] + text[a + 1:b] + text[a] + text[b + 1:]
        elif kind == 2:  # duplicate a character
            text = text[:i] + text[i] + text[i:]
        elif kind == 3:  # insert a random or a meaningful character
            text = text[:i] + rng.choice('{}()[]";\\$!?*@+=x-.% \n\r\t1a\ufeff\x00\ufffd') + text[i:]
        elif kind == 4:  # truncate
            text = text[:i]
        elif kind in (5, 6, 7):  # delete, duplicate or swap tokens
            tokens = re.split(r"(\s+)", text)
            j, k = rng.randrange(len(tokens)), rng.randrange(len(tokens))
            if kind == 5:
                del tokens[j]
            elif kind == 6:
                tokens.insert(j, tokens[k])
            else:
                tokens[j], tokens[k] = tokens[k], tokens[j]
            text = "".join(tokens)
        elif kind == 8:  # wrong encodings read as UTF-8
            codec = rng.choice(["cp932", "latin-1", "utf-16"])
            text = text.encode(codec, "replace").decode("utf-8", "replace")
        else:  # UTF-8 read as Latin-1
            text = text.encode("utf-8").decode("latin-1")
    return text


def _read_everything(text: str) -> None:
    for kwargs in ({}, {"lenient": True}, {"visitor": HeadersOnly}):
        for game in read_games(text, **kwargs):
            if isinstance(game, Game):
                for error in game.errors:
                    assert error.kind in ("error", "warning") and str(error)


def _fuzz(cases: int, seed: int) -> None:
    """Read ``cases`` damaged records (a hang shows as a test that does not end; how long a case
    takes is for benchmarks/, not a test)."""
    rng = random.Random(seed)
    corpus = _corpus()
    for n in range(cases):
        if n % 50 == 49:
            text = bytes(rng.randrange(256) for _ in range(rng.randint(0, 600))).decode("utf-8", "replace")
        else:
            text = _mutate("\n".join(rng.sample(corpus, rng.randint(1, 3))), rng)
        _read_everything(text)


def test_truncation_at_every_few_positions_never_raises():
    text = "\n".join(_corpus()[:3])
    for end in range(0, len(text), 7):
        _read_everything(text[:end])


def test_damaged_records_never_raise_and_never_hang():
    _fuzz(cases=300, seed=1)


@pytest.mark.slow
def test_damaged_records_never_raise_and_never_hang_heavy():
    _fuzz(cases=20000, seed=2)


# --- speed: what reading does not do (the rates are measured by benchmarks/peer_speed.py) --------


def _generated_file(variant: str, n_games: int, plies: int) -> tuple[str, int]:
    rng = random.Random(3)
    texts, total = [], 0
    for _ in range(n_games):
        game = Game(variant)
        board = game.start_board()
        node = game
        for _ in range(plies):
            legal = board.legal_moves()
            if not legal or board.ended is not None:  # (no move after the end of the game)
                break
            move = _pick(board, legal, rng)
            node = node.add_variation(move)
            board.push(move)
            total += 1
        texts.append(write_game(game))
    return "\n".join(texts), total


def test_reading_generates_no_legal_move_lists(monkeypatch):
    text, plies = _generated_file("chu-kagamigi", 3, 80)
    calls = []
    original = Board.legal_moves
    monkeypatch.setattr(Board, "legal_moves", lambda self: calls.append(1) or original(self))
    games = read_all(text)
    assert all(g.valid for g in games) and plies > 100
    assert calls == []  # only error paths ("did you mean") may list the legal moves


# --- the worked examples of docs/notation.md ------------------------------------------------------


def doc_examples() -> list[str]:
    return re.findall(r"^```lsn\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.S | re.M)


def _doc_games():
    found = []
    for block in doc_examples():
        for game in read_games(block):
            found.append((block, game))
    return found


def _require(variant: str):
    try:
        load_variant(variant)
    except UnknownVariantError:
        pytest.skip(f"variant {variant!r} is not available yet (docs example kept, check skipped)")


def test_doc_examples_are_valid_records():
    examples = doc_examples()
    assert len(examples) >= 4
    for block in examples:
        slug = re.search(r'\[Variant "([^"]+)"\]', block).group(1)
        try:
            load_variant(slug)
        except UnknownVariantError:
            continue  # checked (or skipped) by the variant's own test below
        games = list(read_games(block))
        assert games, block
        for game in games:
            assert game.valid and not game.errors, (block, game.errors)
            assert game.variations, block


def _moves_with_boards(game):
    board = game.start_board()
    for node in game.mainline():
        yield board.copy(stack=False), node.move, node
        board.push(node.move)


def _doc_moves(variant):
    for _block, game in _doc_games():
        if game.variant.slug == variant and game.valid:
            yield from _moves_with_boards(game)


def test_doc_example_drops_in_chu_kagamigi():
    moves = list(_doc_moves("chu-kagamigi"))
    assert any(m.drop for _, m, _ in moves)
    assert any(b.captured_squares(m) for b, m, _ in moves)


def test_doc_examples_of_lion_dog_moves_and_promotions_in_dai_kagamigi():
    moves = list(_doc_moves("dai-kagamigi"))
    assert any(len(b.captured_squares(m)) == 2 and m.to_square != m.from_square for b, m, _ in moves)
    assert any(m.kills and m.to_square == m.from_square for _, m, _ in moves)  # igui
    assert any(m.is_pass for _, m, _ in moves)
    assert any(m.promotion is True for _, m, _ in moves)
    assert any(m.promotion is False for _, m, _ in moves)
    texts = {n.notation for _, _, n in moves}
    assert {"!LDxh9xh10", "!LDx!g11", "!LDh10-h10", "P-e11+", "P-f11="} <= texts


def test_doc_example_zone_dependent_move_in_dai_ryu_shogi():
    _require("dai-ryu-shogi")
    moves = list(_doc_moves("dai-ryu-shogi"))
    assert moves, "the Dai-Ryu Shogi example should be a valid game"
    # Sente's pawn steps diagonally forward from its second zone (ranks 5-8) ...
    diagonal = [(b, m) for b, m, _ in moves
                if b.turn == 0 and m.drop is None and b.piece_at(m.from_square).id == "P"
                and square_file(m.from_square) != square_file(m.to_square)]
    assert diagonal
    board, move = diagonal[0]
    assert board.is_legal(move) and 4 <= square_rank(move.from_square) <= 7
    # ... which it cannot do from its first zone (e4 in the start position)
    fresh = Board("dai-ryu-shogi")
    df = square_file(move.to_square) - square_file(move.from_square)
    assert fresh.piece_at(square(4, 3)).id == "P"
    assert not fresh.is_legal(Move(square(4, 3), square(4 + df, 4)))
    assert fresh.is_legal(Move(square(4, 3), square(4, 4)))


def test_doc_examples_round_trip_to_the_same_games():
    for _block, game in _doc_games():
        if game.valid:
            assert read_game(write_game(game)) == game


def test_headers_equal_in_any_order_but_not_with_other_values():
    from daikifu.formats.game import Headers
    a = Headers([("Event", "x"), ("Sente", "A"), ("Gote", "B")])
    assert a == Headers([("Sente", "A"), ("Gote", "B"), ("Event", "x")])
    assert a != Headers([("Sente", "A"), ("Gote", "B"), ("Event", "y")])
    assert a != Headers([("Sente", "A"), ("Gote", "B")])
    assert a.items()[0] == ("Event", "x")  # the order read is kept


def _read_back(game) -> list:
    """What a reader made of a game: its errors and every node, with where its move was read."""
    out: list = [game.valid, game.result, [str(e) for e in game.errors]]
    stack = [(game, 0)]
    while stack:
        node, depth = stack.pop()
        for k, child in enumerate(node.variations):
            out.append((depth, k, child.move, child.notation, child.source_line, child.source_column,
                        child.comment, list(child.nags), child.starting_comment))
            stack.append((child, depth + 1))
    return out


@pytest.mark.parametrize("lenient", [False, True])
def test_lines_of_plain_words_read_as_token_by_token(lenient):
    """A line of move texts and move numbers alone is split at white space rather than read
    token by token (lsn._Context.run); a reader that stops at a ply reads every token with the
    token pattern.  On damaged copies of a record (comments, variations, NAGs, escapes, line
    ends, results and stray text put in at random) both give the same games, errors and
    places of every move, and every move's place holds its text."""
    record = write_game(random_record("shogi", 28, plies=(30, 30), comments=0.2))
    head, body = record.split("\n\n", 1)
    head += "\n\n"
    assert next(read_games(record)).valid
    rng = random.Random(28)
    pieces = [" ", "\n", "x", "{", "}", "(", ")", "$1", "%", ";", "1.", ".", "!", "", "P-", "\r\n", " 1-0 ",
              "(P-a6) ", "\u00a0", "12...", "Q"]
    for _ in range(150):
        chars = list(body)
        for _ in range(rng.randint(0, 3)):
            chars[rng.randrange(len(chars))] = rng.choice(pieces)
        text = head + "".join(chars)
        split = [_read_back(g) for g in read_games(text, lenient=lenient)]
        tokens = [_read_back(g) for g in read_games(text, lenient=lenient, until_ply=10 ** 6)]
        assert split == tokens, text
        lines = text.split("\n")
        for _, _, _, notation, line, column, *_ in (x for g in split for x in g[3:]):
            assert lines[line - 1][column - 1:].startswith(notation), (text, notation, line, column)
