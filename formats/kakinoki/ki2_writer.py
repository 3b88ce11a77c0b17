"""The KI2 writer (:func:`write_ki2`): the KIF writer with KI2's move lines.
"""

from __future__ import annotations



from ..evals import with_eval
from ..game import Game, GameNode
from .common import KifError
from .ki2_moves import ki2_move_text
from .common import time_of
from .writer import KifWriter, comment_lines, write_with


class _Ki2Writer(KifWriter):
    PER_LINE = 6

    def ending_tells_termination(self) -> bool:
        return not self.game.headers.get("Termination")  # KI2 writes no special move

    def write(self, encoding_name: str) -> str:
        if not self.style.numeric:
            raise KifError(f"KI2 is written for 9x9 boards, not for {self.game.variant.name}")
        self.write_preamble(f"#KI2 version=2.0 encoding={encoding_name}")
        self.out.extend(comment_lines(with_eval(self.game)))
        self.write_tree()
        return "\n".join(self.out) + "\n"

    def write_line(self, first: GameNode, is_main: bool) -> list:
        out = self.out
        board, _totals, _ply = self.line_start(first, is_main)
        nodes, tokens = [], []
        node = first
        while node is not None:
            move = node.move
            reason = board.illegal_reason(move)
            if reason is not None:
                raise KifError(f"cannot write an illegal move at ply {board.ply + 1}: {reason}")
            prev_to = node.parent.move.to_square if node.parent.move is not None else None
            text = ("▲" if board.turn == 0 else "△") + ki2_move_text(self.style, board, move, prev_to)
            tokens.append(text)
            board.push(move)
            time = time_of(node.comment)
            comment = with_eval(node, time[2] if time is not None else node.comment)
            if comment.strip() or len(tokens) == self.PER_LINE:
                out.append("".join(t.ljust(6, "\u3000") for t in tokens).rstrip("\u3000"))
                tokens = []
            out.extend(comment_lines(comment.strip()))
            nodes.append(node)
            node = node.next()
        if tokens:
            out.append("".join(t.ljust(6, "\u3000") for t in tokens).rstrip("\u3000"))
        word, result, _stored = self.ending(nodes[-1], board, is_main)
        made = self.made_line(word, result, board.ply, board.turn)
        if made:
            out.append(made)
        return nodes

    def write_end(self, last, board, is_main, totals=None) -> None:  # a game without moves
        word, result, _stored = self.ending(last, board, is_main)
        made = self.made_line(word, result, board.ply, board.turn)
        if made:
            self.out.append(made)


def write_ki2(game: Game, encoding: str = "utf-8", *, newline: str | None = None, errors: str = "strict") -> bytes:
    """The game as KI2 bytes (``encoding`` utf-8 or cp932, as :func:`formats.kif.write_kif`)."""
    return write_with(_Ki2Writer, game, encoding, newline, errors)
