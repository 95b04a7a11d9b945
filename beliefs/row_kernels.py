"""Compiled per-row queries for the planners and selectors: threats, proxy move values, exposure.

Why: the value-of-information planner scores every move action on hundreds of sampled
boards and the selector checks our king's exposure on hundreds more; building a
`chess.Board` per board and asking python-chess for attacks per (board, move) took most of
the flagship's turn. These kernels answer the same questions on the board set's compact rows
(:mod:`blindchess.beliefs.compact`: our six bitboards, shared, and per row the opponent's six,
castling bits and raw en-passant square), with the revision of our request from
`kernels.revise_request` (the board set's own-move update uses the same one).

Semantics are those of the python-chess references, which stay the definition and are held
equal to these in ``tests/unit/beliefs/test_row_kernels.py``:

- `threat_levels`: `blindchess.evaluation.values.threat_levels`;
- `move_values`: `blindchess.evaluation.values.proxy_move_value` (captured material read on the
  target square, a king there worth `KING_VALUE`, half the mover's value lost on an attacked,
  undefended landing square, `KING_VALUE` lost when our king stands attacked afterwards);
- `exposure`: `StockfishMoveSelector.exposure`'s per-board test (our king attacked after the
  move, and the move does not capture the opponent's king), summed by weight in board order;
- `legal_ep`: python-chess's ``has_legal_en_passant`` (what a FEN shows as the en-passant square).

Moves come as arrays: ``pieces[j]`` our moving piece type index (-1 for the pass), ``srcs``,
``dsts`` and ``placed[j]`` the type index that lands (the promotion piece, else the mover).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from blindchess.evaluation.values import KING_VALUE, PIECE_VALUES

from .kernels import revise_request
from .tables import BIT, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, RAY_LENGTHS, RAY_SQUARES

_ZERO = np.uint64(0)
_VALUES = np.array([PIECE_VALUES[t] for t in range(1, 7)], dtype=np.float64)
"""`PIECE_VALUES` by type index 0..5 (pawn..king)."""


@nb.njit(cache=True)
def _occupancy(bbs: np.ndarray) -> np.uint64:
    occ: np.uint64 = _ZERO
    for t in range(6):
        occ |= bbs[t]
    return occ


@nb.njit(cache=True)
def attacked(bbs: np.ndarray, white: int, square: int, occ: np.uint64) -> bool:
    """Whether a piece of the side whose six bitboards are `bbs` (white when `white`) attacks `square`, `occ` blocking slides."""
    if KNIGHT_ATTACKS[square] & bbs[1] or KING_ATTACKS[square] & bbs[5] or PAWN_ATTACKS[1 - white, square] & bbs[0]:
        return True
    straight = bbs[3] | bbs[4]
    diagonal = bbs[2] | bbs[4]
    for d in range(8):
        sliders = straight if d < 4 else diagonal
        if not sliders:
            continue
        for n in range(RAY_LENGTHS[d, square]):
            bit = BIT[RAY_SQUARES[d, square, n]]
            if occ & bit:
                if sliders & bit:
                    return True
                break
    return False


@nb.njit(cache=True)
def threat_levels(own: np.ndarray, opp: np.ndarray, white: int) -> np.ndarray:
    """Per row: 2 where our king is attacked, 1 where a square next to it is, else 0 (0 without our king)."""
    levels = np.zeros(opp.shape[0], dtype=np.int64)
    if not own[5]:
        return levels
    king = 0
    while not own[5] & BIT[king]:
        king += 1
    own_occ = _occupancy(own)
    for i in range(opp.shape[0]):
        occ = own_occ | _occupancy(opp[i])
        if attacked(opp[i], 1 - white, king, occ):
            levels[i] = 2
            continue
        ring = KING_ATTACKS[king]
        for square in range(64):
            if ring & BIT[square] and attacked(opp[i], 1 - white, square, occ):
                levels[i] = 1
                break
    return levels


@nb.njit(cache=True)
def _after(
    own: np.ndarray, opp_row: np.ndarray, piece: int, src: int, moved: int, captured: int, placed: int,
    own_after: np.ndarray, opp_after: np.ndarray,
) -> None:  # fmt: skip
    """Write both sides' bitboards after our revised move (``moved`` -1: nothing moves) into the scratch arrays."""
    for t in range(6):
        own_after[t] = own[t]
        opp_after[t] = opp_row[t]
    if moved < 0:
        return
    if captured >= 0:
        for t in range(6):
            opp_after[t] &= ~BIT[captured]
    own_after[piece] &= ~BIT[src]
    own_after[placed] |= BIT[moved]
    if piece == 5 and abs(moved - src) == 2:  # castling moves the rook too
        rook_src = src + 3 if moved > src else src - 4
        own_after[3] = (own_after[3] & ~BIT[rook_src]) | BIT[(src + moved) // 2]


@nb.njit(cache=True)
def _king_square(bbs: np.ndarray) -> int:
    if not bbs[5]:
        return -1
    square = 0
    while not bbs[5] & BIT[square]:
        square += 1
    return square


@nb.njit(cache=True)
def move_values(
    own: np.ndarray, opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, white: int,
    pieces: np.ndarray, srcs: np.ndarray, dsts: np.ndarray, placed: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Shape (rows, moves): the proxy value of requesting each move on each row (module docstring)."""
    n, m = opp.shape[0], pieces.shape[0]
    out = np.zeros((n, m))
    own_occ = _occupancy(own)
    own_after = np.empty(6, dtype=np.uint64)
    opp_after = np.empty(6, dtype=np.uint64)
    for i in range(n):
        opp_occ = _occupancy(opp[i])
        for j in range(m):
            moved, captured = -1, -1
            if pieces[j] >= 0:
                moved, captured = revise_request(
                    opp_occ, opp_occ | own_occ, castling[i], ep[i], white, pieces[j], srcs[j], dsts[j]
                )
            _after(own, opp[i], pieces[j], srcs[j], moved, captured, placed[j], own_after, opp_after)
            occ = _occupancy(own_after) | _occupancy(opp_after)
            value = 0.0
            if moved >= 0:
                if opp[i, 5] & BIT[moved]:
                    out[i, j] = KING_VALUE
                    continue
                for t in range(5):
                    if opp[i, t] & BIT[moved]:
                        value += _VALUES[t]
                if attacked(opp_after, 1 - white, moved, occ) and not attacked(own_after, white, moved, occ):
                    value -= 0.5 * _VALUES[pieces[j]]
            king = _king_square(own_after)
            if king >= 0 and attacked(opp_after, 1 - white, king, occ):
                value -= KING_VALUE
            out[i, j] = value
    return out


@nb.njit(cache=True)
def exposure(
    own: np.ndarray, opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, white: int,
    pieces: np.ndarray, srcs: np.ndarray, dsts: np.ndarray, placed: np.ndarray, weights: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Per move, the weight of the rows on which our king is attacked after it and the opponent's king not captured."""
    exposed = np.zeros(pieces.shape[0])
    if not own[5]:
        return exposed
    own_occ = _occupancy(own)
    own_after = np.empty(6, dtype=np.uint64)
    opp_after = np.empty(6, dtype=np.uint64)
    for i in range(opp.shape[0]):
        opp_occ = _occupancy(opp[i])
        for j in range(pieces.shape[0]):
            moved, captured = -1, -1
            if pieces[j] >= 0:
                moved, captured = revise_request(
                    opp_occ, opp_occ | own_occ, castling[i], ep[i], white, pieces[j], srcs[j], dsts[j]
                )
            if captured >= 0 and opp[i, 5] & BIT[captured]:
                continue
            _after(own, opp[i], pieces[j], srcs[j], moved, captured, placed[j], own_after, opp_after)
            occ = _occupancy(own_after) | _occupancy(opp_after)
            if attacked(opp_after, 1 - white, _king_square(own_after), occ):
                exposed[j] += weights[i]
    return exposed


@nb.njit(cache=True)
def legal_ep(own: np.ndarray, opp: np.ndarray, ep: np.ndarray, white: int) -> np.ndarray:
    """Per row, its en-passant square where one of our pawns can capture there legally, else -1."""
    out = np.full(opp.shape[0], -1, dtype=np.int64)
    forward = 8 if white else -8
    own_occ = _occupancy(own)
    king = _king_square(own)
    after = np.empty(6, dtype=np.uint64)
    opp_after = np.empty(6, dtype=np.uint64)
    for i in range(opp.shape[0]):
        target = int(ep[i])
        if target < 0:
            continue
        victim = target - forward
        opp_occ = _occupancy(opp[i])
        if not opp[i, 0] & BIT[victim] or (opp_occ | own_occ) & BIT[target]:
            continue
        capturers = PAWN_ATTACKS[1 - white, target] & own[0]
        for src in range(64):
            if not capturers & BIT[src]:
                continue
            _after(own, opp[i], 0, src, target, victim, 0, after, opp_after)
            if king < 0 or not attacked(opp_after, 1 - white, king, _occupancy(after) | _occupancy(opp_after)):
                out[i] = target
                break
    return out


@nb.njit(cache=True)
def material_balance(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """Per row, our material less the opponent's, in pawns (`PIECE_VALUES`, summed by type as the reference does)."""
    out = np.zeros(opp.shape[0])
    for i in range(opp.shape[0]):
        total = 0.0
        for t in range(6):
            mine, theirs, x, y = 0, 0, own[t], opp[i, t]
            while x:
                x &= x - np.uint64(1)
                mine += 1
            while y:
                y &= y - np.uint64(1)
                theirs += 1
            total += _VALUES[t] * (mine - theirs)
        out[i] = total
    return out
