"""The RBC rules in compiled (numba) code, written once: attacks, move targets, castling, en passant, revision, the push.

Why: three compiled users step or imagine RBC moves: the arbiter's game step
(:mod:`blindchess.arbiter.rules.compiled_game`, the learning environment's), the board set's expansion and
own-move filter (:mod:`blindchess.beliefs.board_set_updates`) and the planners' per-row queries
(:mod:`blindchess.beliefs.sample_queries`). Each used to spell the rules out in its own loops with its
own piece numbering, so a rules fix had to be made three times. They now ask these functions, which
hold every rule and nothing else (no layout: each caller keeps its own arrays and its own order of
iteration, the order its results are compared in). `tests/checks/test_static_checks.py` fails if
another compiled function reads the attack tables; `tests/unit/arbiter/test_compiled_rules.py` holds
these equal to the reference (:mod:`blindchess.arbiter.rules`) and to the fast Python path on seeded
and hypothesis-drawn games.

One numbering: a piece type is an index, ``PAWN`` 0 .. ``KING`` 5 (python-chess's `PieceType` less
one); a colour is 1 White, 0 Black; squares and bitboards are python-chess's. Castling rights are
corner bits (:data:`~blindchess.arbiter.rules.lookup_tables.CORNER_BITS`), the en-passant square the raw
one python-chess keeps after every double step (-1: none).

The rules, as :mod:`blindchess.arbiter.rules` states them:

- a move action is a pseudo-legal move on the board with the opponent's pieces taken off, plus every
  pawn diagonal and castling whenever the rights, the king and the rook allow it and no own piece
  stands between king and rook (RBC castles into, out of and through check);
- a requested move is revised on the true board: a slider stops on the first opponent piece in its
  path and takes it; a pawn push into a piece is refused, a double push whose far square is taken
  becomes a single push; a pawn diagonal without an opponent piece (or the en-passant square) to
  take is refused; castling with any piece between king and rook is refused;
- a pawn that reaches the last rank without a promotion piece becomes a queen;
- the push follows python-chess: castling moves the rook, a king move clears its side's rights, a
  move from or to a corner clears that corner's right, a king taken on its back rank clears its
  side's rights, a double step leaves the en-passant square behind it.

Unchecked: callers pass squares and pieces that belong to the position (a move action's squares, a
piece of the side to move); nothing here validates.

After editing this module, delete numba's caches (``find . -name '*.nb[ic]' -delete`` in the
checkout and its editable build): numba keys a cached kernel on its own module's source only, so
the callers' caches would keep the old rules compiled in.
"""

from __future__ import annotations

import chess
import numba as nb
import numpy as np

from .lookup_tables import (
    BIT,
    COLOR_CASTLING_BITS,
    CORNER_BITS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    PAWN_ATTACKS,
    RAY_LENGTHS,
    RAY_SQUARES,
    lsb,
    msb,
)

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
"""Piece type indices (``chess.PieceType - 1``)."""

LAST_RANKS = np.uint64(chess.BB_RANK_1 | chess.BB_RANK_8)
"""Where a pawn promotes (either colour: a pawn never reaches its own back rank)."""

BETWEEN = np.array([[chess.between(a, b) for b in chess.SQUARES] for a in chess.SQUARES], dtype=np.uint64)
"""``BETWEEN[a, b]``: the squares strictly between ``a`` and ``b`` on a line (0 off lines)."""

_ZERO = np.uint64(0)
_EIGHT = np.uint64(8)
_DOUBLE_STEP_TARGETS = np.array([chess.BB_RANK_6 | chess.BB_RANK_5, chess.BB_RANK_3 | chess.BB_RANK_4], dtype=np.uint64)
"""Per colour, python-chess's mask of where a second step may land (`Board.generate_pseudo_legal_moves`)."""
_FIRST_DIRECTION = np.array([0, 0, 4, 0, 0, 0], dtype=np.int64)
_STOP_DIRECTION = np.array([0, 0, 8, 4, 8, 0], dtype=np.int64)
"""Per piece type, the ray directions of `lookup_tables.RAY_SQUARES` it slides along (rooks' 0-3, bishops' 4-7)."""
_HOME = np.array([chess.E8, chess.E1], dtype=np.int64)
"""Per colour, the king's square from which it may castle."""


@nb.njit(cache=True)
def piece_on(bbs: np.ndarray, square: int) -> int:
    """The type index whose bitboard in ``bbs[0:6]`` holds `square`, -1 for none."""
    bit = BIT[square]
    for piece in range(6):
        if bbs[piece] & bit:
            return piece
    return -1


@nb.njit(cache=True, inline="always")  # numba's own inlining: LLVM leaves the loops out of line in the expansion
def targets(piece: int, origin: int, own: np.uint64, other: np.uint64) -> np.uint64:
    """The squares a knight, bishop, rook, queen or king on `origin` reaches: never onto `own`, a slide stops on `other`.

    With ``other = 0`` these are the move actions (the opponent's pieces are not seen); with the
    opponent's pieces, the pseudo-legal moves; with ``own = 0, other = occupied``, the attacks.
    """
    if piece == KNIGHT:
        found: np.uint64 = KNIGHT_ATTACKS[origin] & ~own
        return found
    if piece == KING:
        found = KING_ATTACKS[origin] & ~own
        return found
    found = _ZERO
    for direction in range(_FIRST_DIRECTION[piece], _STOP_DIRECTION[piece]):
        for step in range(RAY_LENGTHS[direction, origin]):
            bit = BIT[RAY_SQUARES[direction, origin, step]]
            if own & bit:
                break
            found |= bit
            if other & bit:
                break
    return found


@nb.njit(cache=True)
def pawn_attacks(white: int, square: int) -> np.uint64:
    """The two (or one) diagonal squares a pawn of colour `white` on `square` attacks (and may request)."""
    found: np.uint64 = PAWN_ATTACKS[white, square]
    return found


@nb.njit(cache=True)
def pawn_pushes(pawns: np.uint64, white: int, blockers: np.uint64) -> tuple[np.uint64, np.uint64]:
    """(single, double): where the `pawns` step forward one and two squares, `blockers` in the way of each step."""
    if white:
        single = (pawns << _EIGHT) & ~blockers
        double = (single << _EIGHT) & ~blockers & _DOUBLE_STEP_TARGETS[1]
    else:
        single = (pawns >> _EIGHT) & ~blockers
        double = (single >> _EIGHT) & ~blockers & _DOUBLE_STEP_TARGETS[0]
    return single, double


@nb.njit(cache=True)
def en_passant_victim(target: int, white: int) -> int:
    """The square of the pawn an en-passant capture onto `target` takes (behind it, seen from the capturer)."""
    return target - 8 if white else target + 8


@nb.njit(cache=True)
def pawn_captures(origin: int, white: int, other: np.uint64, ep: int, occupied: np.uint64) -> np.uint64:
    """The pseudo-legal diagonals of a pawn on `origin`: onto `other`'s pieces, or onto an empty en-passant square."""
    prey = other
    if ep >= 0 and not occupied & BIT[ep]:
        prey |= BIT[ep]
    found: np.uint64 = PAWN_ATTACKS[white, origin] & prey
    return found


@nb.njit(cache=True)
def castling_squares(white: int, side: int) -> tuple[int, int, int, int]:
    """(king from, king to, rook from, rook to) of `white`'s castling on `side` (0 kingside, 1 queenside)."""
    home = _HOME[white]
    rook_from, rook_to = castling_rook(home, home + 2 if side == 0 else home - 2)
    return home, home + 2 if side == 0 else home - 2, rook_from, rook_to


@nb.njit(cache=True)
def castling_rook(king_from: int, king_to: int) -> tuple[int, int]:
    """(rook from, rook to) of the castling whose king goes from `king_from` to `king_to` (it jumps over the king)."""
    if king_to > king_from:
        return king_from + 3, king_from + 1
    return king_from - 4, king_from - 1


@nb.njit(cache=True)
def may_castle(rights: int, white: int, side: int, kings: np.uint64, rooks: np.uint64, blockers: np.uint64) -> bool:
    """Whether `white` may castle on `side`: the right, its king (in `kings`) and rook (in `rooks`) home, no blocker between.

    Check plays no part (RBC). The move action asks for no own piece between (``blockers`` = own),
    its revision and the pseudo-legal moves for none at all (``blockers`` = occupied).
    """
    home, _, rook, _ = castling_squares(white, side)
    allowed: bool = (
        (rights & CORNER_BITS[rook]) != 0 and (kings & BIT[home]) != 0 and (rooks & BIT[rook]) != 0
        and not blockers & BETWEEN[home, rook]
    )  # fmt: skip
    return allowed


@nb.njit(cache=True)
def is_castling(piece: int, origin: int, target: int) -> bool:
    """Whether a move is castling (a king moving two files)."""
    return piece == KING and abs((origin & 7) - (target & 7)) > 1


@nb.njit(cache=True)
def with_default_promotion(piece: int, target: int, promotion: int) -> int:
    """The promotion type index a move carries (-1: none): a pawn reaching the last rank without one becomes a queen."""
    if promotion < 0 and piece == PAWN and BIT[target] & LAST_RANKS:
        return QUEEN
    return promotion


@nb.njit(cache=True)
def revise(
    piece: int, origin: int, target: int, opponent: np.uint64, occupied: np.uint64, rights: int, ep: int, white: int
) -> tuple[int, int]:
    """The revision of a requested move on the true board: (square it ends on, -1 if refused; captured square, -1 if none).

    `opponent` and `occupied` are the opponent's and all pieces; the promotion never changes.

    >>> on_a5 = np.uint64(chess.BB_A5)  # a rook's a1a8 stops on the opponent's piece on a5 and takes it
    >>> revise(ROOK, chess.A1, chess.A8, on_a5, on_a5 | np.uint64(chess.BB_A1), 0, -1, 1) == (chess.A5, chess.A5)
    True
    """
    if is_castling(piece, origin, target):
        rook, _ = castling_rook(origin, target)
        if rights & CORNER_BITS[rook] and not occupied & BETWEEN[origin, rook]:
            return target, -1
        return -1, -1
    if piece == PAWN:
        if (target - origin) % 8 == 0:  # a push; a double push into a piece becomes a single push
            middle = origin + 8 if white else origin - 8
            if occupied & BIT[middle]:
                return -1, -1
            if target == middle or not occupied & BIT[target]:
                return target, -1
            return middle, -1
        if opponent & BIT[target]:
            return target, target
        if target == ep and not occupied & BIT[target]:
            return target, en_passant_victim(target, white)
        return -1, -1
    if BISHOP <= piece <= QUEEN:  # a slide stops on the first opponent piece and takes it
        path = BETWEEN[origin, target] & opponent
        if path:
            stop = lsb(path) if target > origin else msb(path)
            return stop, stop
    return target, target if opponent & BIT[target] else -1


@nb.njit(cache=True)
def rights_after(rights: int, white: int, piece: int, origin: int, target: int, took_king: bool) -> int:
    """The castling rights after `white` moves `piece` from `origin` to `target` (python-chess's push).

    `took_king`: the move took the opponent's king (python-chess then clears the opponent's rights
    when it stood on its back rank).
    """
    rights &= ~(CORNER_BITS[origin] | CORNER_BITS[target])
    if piece == KING:
        rights &= ~COLOR_CASTLING_BITS[white]
    elif took_king and (target >> 3) == (7 if white else 0):
        rights &= ~COLOR_CASTLING_BITS[1 - white]
    return int(rights)


@nb.njit(cache=True)
def ep_after(piece: int, origin: int, target: int) -> int:
    """The en-passant square a move leaves (python-chess: after every double step, the square passed over), -1 for none."""
    if piece == PAWN and abs(target - origin) == 16:
        return (origin + target) // 2
    return -1


@nb.njit(cache=True)
def attacked(bbs: np.ndarray, white: int, square: int, occupied: np.uint64) -> bool:
    """Whether a piece of the side whose six bitboards are `bbs` (colour `white`) attacks `square`, `occupied` blocking slides."""
    if KNIGHT_ATTACKS[square] & bbs[KNIGHT] or KING_ATTACKS[square] & bbs[KING] or PAWN_ATTACKS[1 - white, square] & bbs[PAWN]:
        return True
    straight = bbs[ROOK] | bbs[QUEEN]
    diagonal = bbs[BISHOP] | bbs[QUEEN]
    for direction in range(8):
        sliders = straight if direction < 4 else diagonal
        if not sliders:
            continue
        for step in range(RAY_LENGTHS[direction, square]):
            bit = BIT[RAY_SQUARES[direction, square, step]]
            if occupied & bit:
                if sliders & bit:
                    return True
                break
    return False
