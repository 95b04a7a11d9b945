"""The 8x8 RBC game step compiled (numba): move actions as numbers, revision, capture, push, the end.

Why: a learning environment steps the game hundreds of thousands of times; through
`LocalGame` and python-chess each step costs tens of microseconds of Python (move
generation, revision, the push, the record). This module is the arbiter's own fast path
of the same rules over a few bitboards in numpy arrays, one compiled call per step. It
implements exactly what `LocalGame` does with :data:`~blindchess.arbiter.rules.ruleset.STANDARD`
from the standard start without clocks (the rules in :mod:`blindchess.arbiter.rules`,
python-chess's push as :mod:`blindchess.arbiter.rules.fast_push` spells it out), and nothing
else: no record, no clocks, no resignation. Whoever uses it keeps a `LocalGame` as the
authority for those and replays the actions into it (the learning environment does).
`tests/unit/arbiter/test_compiled_game.py` holds it equal to `rules.py` and `LocalGame`.

State, two arrays:

- ``board``: uint64[8], pawns, knights, bishops, rooks, queens, kings (both colours), then
  White's and Black's pieces (`BOARD_SIZE`);
- ``game``: int64[`GAME_SIZE`], indexed by the constants below: the side to move (1 White,
  0 Black), castling rights as corner bits (a1 = 1, h1 = 2, a8 = 4, h8 = 8; python-chess's clean
  rights, which a game from the start keeps), the en-passant square python-chess keeps (after
  every double step, -1 for none), the half-move clock and full-move number, the limits
  (-1: none), and once over the winner (1 White, 0 Black, -1 none) and the reason.

Actions are the learning environment's numbers on the 8x8 board (:mod:`blindchess.env.actions`
documents them; the arbiter only needs the arithmetic): ``64`` is none, ``65 + k*4096 + from*64
+ to`` a requested move with promotion kind ``k`` (0: none or queen, 1 knight, 2 bishop, 3 rook).
`move_action_numbers` lists the move actions in exactly the order of
:func:`blindchess.arbiter.rules.fast_actions.move_actions` (documented at its top), a pawn diagonal
onto the last rank both plain and as a queen promotion (the same number twice, as there). A
request numbered ``k = 0`` means the first move action of that number: a push onto the last
rank as the queen promotion, a diagonal onto it without a promotion piece (which the arbiter
then promotes to a queen), so the requested move differs from the taken one.

Unchecked: every function trusts that the state came from `load` and the actions from the
lists (the environment checks the mask first).
"""

from __future__ import annotations

import chess
import numba as nb
import numpy as np

from . import compiled_rules as core
from . import lookup_tables as tables
from .lookup_tables import lsb, msb

BOARD_SIZE = 8
WHITE_PIECES, BLACK_PIECES = 6, 7
TURN, CASTLING, EP, HALFMOVE, FULLMOVE, TURN_LIMIT, HALFMOVE_LIMIT, WINNER, REASON = range(9)
GAME_SIZE = 9
RUNNING, KING_CAPTURE, FULL_TURN_LIMIT, MOVE_LIMIT = 0, 1, 2, 3
"""The values of ``game[REASON]``; `LocalGame`'s priority among them when several hold at once."""

NONE = 64
"""The action that skips a sense or passes."""
MOVE_BASE = 65
MAX_MOVE_ACTIONS = 1024
"""A bound on one position's move actions (a buffer for `move_action_numbers` must hold this many)."""

_NOTHING = np.uint64(0)
_CORNERS = tuple((bb, int(tables.CORNER_BITS[square])) for square, bb in enumerate(chess.BB_SQUARES) if tables.CORNER_BITS[square])
"""(bitboard, castling bit) of the four corners, for `load`."""

_PUSH_KINDS = np.array([0, 3, 2, 1], dtype=np.int64)  # Q, R, B, N: bitboard_moves' order for a push onto the last rank
_DIAGONAL_KINDS = np.array([1, 2, 3, 0], dtype=np.int64)  # N, B, R, Q after the plain diagonal
_PROMOTION_OF_KIND = np.array([core.QUEEN, core.KNIGHT, core.BISHOP, core.ROOK], dtype=np.int64)

SENSE_WINDOWS = np.array(
    [sum(chess.BB_SQUARES[t] for t in chess.SQUARES if chess.square_distance(s, t) <= 1) for s in chess.SQUARES], dtype=np.uint64
)
"""``SENSE_WINDOWS[s]``: the squares of the (clipped) 3x3 window a sense on ``s`` shows."""


def new_state() -> tuple[np.ndarray, np.ndarray]:
    """Empty (board, game) arrays, to be filled by `load`."""
    return np.zeros(BOARD_SIZE, dtype=np.uint64), np.zeros(GAME_SIZE, dtype=np.int64)


def load(board: chess.Board, turn_limit: float, halfmove_limit: float, out_board: np.ndarray, out_game: np.ndarray) -> None:
    """Write a python-chess board (standard, one king a side, clean castling rights) into the state arrays.

    Args:
        turn_limit, halfmove_limit: `LocalGame`'s ``full_turn_limit`` and ``reversible_moves_limit`` (inf: none).
    """
    out_board[:] = [
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
    ]  # fmt: skip
    rights = board.clean_castling_rights()
    out_game[:] = [
        int(board.turn), sum(bit for corner, bit in _CORNERS if rights & corner),
        -1 if board.ep_square is None else board.ep_square, board.halfmove_clock, board.fullmove_number,
        -1 if turn_limit == float("inf") else int(turn_limit), -1 if halfmove_limit == float("inf") else int(halfmove_limit),
        -1, RUNNING,
    ]  # fmt: skip


def agrees(board: chess.Board, state_board: np.ndarray, state_game: np.ndarray) -> bool:
    """True when the state arrays hold `board`'s position (pieces, turn, castling, en passant, clocks)."""
    board_now, game_now = new_state()
    load(board, 0, 0, board_now, game_now)
    return bool((board_now == state_board).all() and (game_now[:TURN_LIMIT] == state_game[:TURN_LIMIT]).all())


@nb.njit(cache=True)
def _emit_targets_down(out: np.ndarray, n: int, origin: int, targets: np.uint64) -> int:
    while targets:
        target = msb(targets)
        targets ^= tables.BIT[target]
        out[n] = MOVE_BASE + origin * 64 + target
        n += 1
    return n


@nb.njit(cache=True)
def move_action_numbers(board: np.ndarray, game: np.ndarray, out: np.ndarray) -> int:
    """Write the move actions of the side to move into `out` as numbers, in `fast_actions.move_actions`'s order.

    Returns how many (`out` must hold `MAX_MOVE_ACTIONS`).
    """
    white = game[TURN]
    own = board[WHITE_PIECES] if white else board[BLACK_PIECES]
    pawns = board[core.PAWN] & own
    n = 0
    pieces = own & ~pawns
    while pieces:
        origin = msb(pieces)
        pieces ^= tables.BIT[origin]
        n = _emit_targets_down(out, n, origin, core.targets(core.piece_on(board, origin), origin, own, _NOTHING))
    for side in range(2):
        if core.may_castle(game[CASTLING], white, side, board[core.KING] & own, board[core.ROOK] & own, own):
            home, king_target, _, _ = core.castling_squares(white, side)
            out[n] = MOVE_BASE + home * 64 + king_target
            n += 1
    single, double = core.pawn_pushes(pawns, white, own)
    step = -8 if white else 8
    while single:
        target = msb(single)
        single ^= tables.BIT[target]
        plain = MOVE_BASE + (target + step) * 64 + target
        if tables.BIT[target] & core.LAST_RANKS:
            for kind in _PUSH_KINDS:
                out[n] = plain + kind * 4096
                n += 1
        else:
            out[n] = plain
            n += 1
    while double:
        target = msb(double)
        double ^= tables.BIT[target]
        out[n] = MOVE_BASE + (target + 2 * step) * 64 + target
        n += 1
    while pawns:
        pawn = lsb(pawns)
        pawns ^= tables.BIT[pawn]
        targets = core.pawn_attacks(white, pawn) & ~own
        while targets:
            target = lsb(targets)
            targets ^= tables.BIT[target]
            plain = MOVE_BASE + pawn * 64 + target
            out[n] = plain
            n += 1
            if tables.BIT[target] & core.LAST_RANKS:
                for kind in _DIAGONAL_KINDS:
                    out[n] = plain + kind * 4096
                    n += 1
    return n


@nb.njit(cache=True)
def request(board: np.ndarray, game: np.ndarray, action: int) -> tuple[int, int, int, int, int, int]:
    """What the arbiter makes of the move action `action` (a number of `move_action_numbers`, or `NONE`).

    Returns:
        (from, to, requested promotion, taken to, taken promotion, capture square): the requested
        move's squares (-1, -1 for a pass) and promotion piece type (0: none), the square the taken
        move goes to (-1: refused or a pass; it starts on `from`), its promotion (the queen added on
        the last rank), and where it captures (-1: nowhere; beside the target en passant).
    """
    if action == NONE:
        return -1, -1, 0, -1, 0, -1
    number = action - MOVE_BASE
    kind, origin, target = number // 4096, (number // 64) % 64, number % 64
    piece = core.piece_on(board, origin)
    requested = _PROMOTION_OF_KIND[kind] if kind else -1
    promotion = core.with_default_promotion(piece, target, requested)
    if promotion >= 0 and (target - origin) % 8 == 0:  # a push: its first move action of this number is the queen promotion
        requested = promotion
    white = game[TURN]
    opponent = board[BLACK_PIECES] if white else board[WHITE_PIECES]
    taken, capture = core.revise(
        piece, origin, target, opponent, board[WHITE_PIECES] | board[BLACK_PIECES], game[CASTLING], game[EP], white
    )
    return origin, target, requested + 1, taken, promotion + 1 if taken >= 0 else 0, capture


@nb.njit(cache=True)
def _remove(board: np.ndarray, square: int) -> int:
    """Take the piece off `square`; returns its type index (-1: none)."""
    piece = core.piece_on(board, square)
    if piece >= 0:
        keep = ~tables.BIT[square]
        board[piece] &= keep
        board[WHITE_PIECES] &= keep
        board[BLACK_PIECES] &= keep
    return piece


@nb.njit(cache=True)
def _place(board: np.ndarray, square: int, piece: int, white: int) -> None:
    board[piece] |= tables.BIT[square]
    board[WHITE_PIECES if white else BLACK_PIECES] |= tables.BIT[square]


@nb.njit(cache=True)
def push(board: np.ndarray, game: np.ndarray, origin: int, target: int, promotion: int) -> None:
    """Make the taken move (`origin` -1: a null move) as python-chess's `Board.push` would (see `bitboard_push`)."""
    ep = game[EP]
    game[EP] = -1
    game[HALFMOVE] += 1
    white = game[TURN]
    if not white:
        game[FULLMOVE] += 1
    game[TURN] = 1 - white
    if origin < 0:
        return
    opponent = board[BLACK_PIECES] if white else board[WHITE_PIECES]
    if (tables.BIT[origin] | tables.BIT[target]) & (board[core.PAWN] | opponent):
        game[HALFMOVE] = 0
    piece = _remove(board, origin)
    if core.is_castling(piece, origin, target):
        rook, rook_target = core.castling_rook(origin, target)
        _remove(board, rook)
        _place(board, target, core.KING, white)
        _place(board, rook_target, core.ROOK, white)
        game[CASTLING] = core.rights_after(game[CASTLING], white, piece, origin, target, False)
        return
    captured = _remove(board, target)
    game[CASTLING] = core.rights_after(game[CASTLING], white, piece, origin, target, captured == core.KING)
    game[EP] = core.ep_after(piece, origin, target)
    if piece == core.PAWN and target == ep and captured < 0 and (target - origin) % 8 != 0:
        _remove(board, core.en_passant_victim(ep, white))
    _place(board, target, promotion - 1 if promotion else piece, white)
@nb.njit(cache=True)
def end_of_turn(board: np.ndarray, game: np.ndarray) -> bool:
    """After a move: whether the game is over (`LocalGame.is_over` without clocks), its winner and reason recorded."""
    kings = board[5]
    if not kings & board[WHITE_PIECES]:
        game[WINNER], game[REASON] = 0, KING_CAPTURE
    elif not kings & board[BLACK_PIECES]:
        game[WINNER], game[REASON] = 1, KING_CAPTURE
    elif game[TURN_LIMIT] >= 0 and game[FULLMOVE] > game[TURN_LIMIT]:
        game[REASON] = FULL_TURN_LIMIT
    elif game[HALFMOVE_LIMIT] >= 0 and game[HALFMOVE] >= game[HALFMOVE_LIMIT]:
        game[REASON] = MOVE_LIMIT
    over: bool = game[REASON] != RUNNING
    return over
