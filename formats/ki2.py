"""KI2 game records: KIF's headers, diagrams, comments and 変化 blocks, with moves written as
people write them: ``▲７六歩　△同　歩　▲５八金右``, no origin square.

>>> game = read_ki2("▲７六歩　△３四歩　▲２二角成　△同　銀\\nまで4手で中断\\n")[0]
>>> [str(m) for m in game.mainline_moves()]
['c3c4', 'g7g6', 'b2h8+', 'g9h8']

Reading
    Each move is resolved through the rules core: the pieces of the side to move with the written
    name that can legally reach the destination, narrowed by the relative markers -- 上 (moves
    forward), 引 (backward), 寄 (sideways), 直 (straight forward), 右 / 左 (the piece on the
    mover's right / left among those that can move there), 打 (a drop) -- and by 成 / 不成 (生).
    同 means the destination of the move before.  A name of a promoted piece that no such piece
    can bring there is read as a promotion (``△８八馬`` for 角成, as some engines write).  A
    move that fits no piece, or more than one, is an error at its ply, line and column that says
    what to write ("two 金 can reach ５八: write 右 or 左").  Everything else (headers, board
    diagrams, ``*`` comments, ``変化：N手``, ``まで`` lines, handicaps) is read as the KIF reader
    reads it: the two readers share one implementation (:mod:`formats.kakinoki`).

Writing
    :func:`write_ki2` writes the KIF preamble with ``#KI2``, six moves a line, the markers needed to
    tell the candidates apart (上/引/寄 first, then 直, then 右/左, then 右/左 with 上/引/寄), 打 only
    where a piece on the board could also move there, comments on ``*`` lines and ``まで`` lines;
    times are not written (KI2 has none).  KI2 is written for 9x9 boards.
"""

from .kakinoki import japanese_move_text, ki2_move_text, looks_like_ki2, move_lines, read_ki2, write_ki2

__all__ = ["read_ki2", "write_ki2", "looks_like_ki2", "ki2_move_text", "japanese_move_text", "move_lines"]
