"""A game as JSON, for programs and the web viewer.

::

    {
      "variant": "dai-kagamigi", "options": {...}, "start": "<position string>",
      "tags": [["Event", "..."], ...], "result": "1-0", "status": "valid",
      "errors": [{"message": ..., "ply": ..., "line": ..., "column": ..., "move": ..., ...}],
      "comment": "...",
      "moves": [ {"ply": 1, "move": "P-e6", "uci": "e5e6", "piece": "P", "from": "e5",
                  "to": "e6", "captures": [], "promote": null, "drop": null,
                  "comment": "", "starting_comment": "", "nags": [], "position": "<after>",
                  "hash": -123..., "variations": [[...moves...], ...]}, ... ]
    }

``captures`` lists every captured square in path order (the destination last); ``promote`` is
true when the piece promotes, false when it declines, null when it cannot.  ``position`` and
``hash`` describe the position after the move.  :func:`game_from_json` reads the same structure
back (the ``uci`` field is what it uses).
"""

from __future__ import annotations

import json

from daikifu.replay import VariantRegistry
from daikifu.replay.squares import square_name

from .evals import Evaluation
from .game import Game, GameError, GameNode
from daikifu.replay.notation import move_notation

__all__ = ["game_to_dict", "game_to_json", "game_from_dict", "game_from_json", "move_dict"]


def move_dict(board, move) -> dict:
    """One move in the position on ``board`` (before it is played)."""
    piece = move.drop if move.drop is not None else board.piece_at(move.from_square).id
    return {
        "move": move_notation(board, move),
        "uci": move.uci(),
        "piece": piece,
        "from": None if move.from_square is None else square_name(move.from_square),
        "to": square_name(move.to_square),
        "captures": [square_name(s) for s in board.captured_squares(move)],
        "promote": move.promotion,
        "drop": move.drop,
    }


def _line(node: GameNode, board, positions: bool, limit: int | None = None) -> list[dict]:
    out = []
    while node.variations and (limit is None or len(out) < limit):
        main = node.variations[0]
        entry = move_dict(board, main.move)
        entry["ply"] = board.ply + 1
        entry["comment"] = main.comment
        entry["starting_comment"] = main.starting_comment
        entry["nags"] = list(main.nags)
        if main.eval is not None:
            entry["eval"] = main.eval.as_dict()
        entry["variations"] = []
        for side in node.variations[1:]:
            branch = board.copy(stack=True)
            holder = GameNode()
            holder.variations = [side]
            entry["variations"].append(_line(holder, branch, positions))
        board.push(main.move)
        if positions:
            entry["position"] = board.position()
            entry["hash"] = board.zobrist
        out.append(entry)
        node = main
    return out


def game_to_dict(game: Game, positions: bool = True, *, first_ply: int = 1, max_plies: int | None = None) -> dict:
    """The game as above; ``first_ply`` and ``max_plies`` give a part of a long main line
    (``moves`` then starts at that ply, with the variations branching off the plies given)."""
    board = game.start_board()
    start = board.position()
    node = game
    while board.ply < first_ply - 1 and node.variations:
        node = node.variations[0]
        board.push(node.move)
    return {
        "variant": game.variant.slug,
        "options": dict(game.options),
        "start": start,
        "tags": [list(item) for item in game.headers.items()],
        "result": game.result,
        "status": game.status,
        "errors": [e.as_dict() for e in game.errors],
        "comment": game.comment,
        **({"eval": game.eval.as_dict()} if game.eval is not None else {}),
        "moves": _line(node, board, positions, max_plies),
    }


def game_to_json(game: Game, indent: int | None = None, positions: bool = True) -> str:
    return json.dumps(game_to_dict(game, positions), ensure_ascii=False, indent=indent)


def game_from_dict(data: dict, variants: VariantRegistry | None = None) -> Game:
    """The game of :func:`game_to_dict` (the variant looked up in ``variants``, default: the
    bundled variants and ``DAIKIFU_VARIANTS``)."""
    variant = (variants or VariantRegistry.default()).load(data["variant"])
    game = Game(variant, data.get("options") or None)
    start = data.get("start")
    if start and start != game.rules.start:
        game.start = start
    for name, value in data.get("tags", []):
        game.headers[name] = value
    game.result = data.get("result", "*")
    game.comment = data.get("comment", "")
    if data.get("eval") is not None:
        game.eval = Evaluation.from_dict(data["eval"])
    game.errors = [GameError(**e) for e in data.get("errors", [])]
    _read_line(game, game.start_board(), data.get("moves", []))
    return game


def _read_line(node: GameNode, board, moves: list[dict]) -> None:
    for entry in moves:
        move = board.parse_uci(entry["uci"])
        reason = board.illegal_reason(move)
        if reason is not None:  # the JSON is trusted for nothing: every move is checked
            raise ValueError(f"ply {board.ply + 1}: illegal move {entry['uci']}: {reason}")
        child = GameNode(node, move)
        node.variations.append(child)  # before its alternatives, which are appended next
        for side in entry.get("variations", []):
            _read_line(node, board.copy(stack=True), side)
        child.comment = entry.get("comment", "")
        child.starting_comment = entry.get("starting_comment", "")
        child.nags = list(entry.get("nags", []))
        if entry.get("eval") is not None:
            child.eval = Evaluation.from_dict(entry["eval"])
        board.push(move)
        node = child


def game_from_json(text: str, variants: VariantRegistry | None = None) -> Game:
    return game_from_dict(json.loads(text), variants)
