"""Compiled per-row queries for the planners and selectors: threats, proxy move values, exposure.

Why: the value-of-information planner scores every move action on hundreds of sampled
boards and the selector checks our king's exposure on hundreds more; building a
`chess.Board` per board and asking python-chess for attacks per (board, move) took most of
the flagship's turn. These kernels answer the same questions on the board set's compact rows
(:mod:`blindchess.beliefs.board_layout`: our six bitboards, shared, and per row the opponent's six,
castling bits and raw en-passant square), with the rules (attacks, the revision of our request,
castling's rook) from :mod:`blindchess.arbiter.rules.compiled_rules`, as the board set's kernels use them.

Semantics are those of the python-chess references, which stay the definition and are held
equal to these in ``tests/unit/beliefs/test_sample_queries.py``:

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

from blindchess.arbiter.rules import compiled_rules as core
from blindchess.arbiter.rules.compiled_rules import attacked
from blindchess.arbiter.rules.lookup_tables import BIT
from blindchess.evaluation.values import KING_VALUE, PIECE_VALUES

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
def threat_levels(own: np.ndarray, opp: np.ndarray, white: int) -> np.ndarray:
    """Per row: 2 where our king is attacked, 1 where a square next to it is, else 0 (0 without our king)."""
    levels = np.zeros(opp.shape[0], dtype=np.int64)
    if not own[5]:
        return levels
    king = 0
    while not own[5] & BIT[king]:
        king += 1
    own_occ = _occupancy(own)
    ring = core.targets(core.KING, king, _ZERO, _ZERO)
    for i in range(opp.shape[0]):
        occ = own_occ | _occupancy(opp[i])
        if attacked(opp[i], 1 - white, king, occ):
            levels[i] = 2
            continue
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
    if core.is_castling(piece, src, moved):  # castling moves the rook too
        rook_src, rook_dst = core.castling_rook(src, moved)
        own_after[core.ROOK] = (own_after[core.ROOK] & ~BIT[rook_src]) | BIT[rook_dst]


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
                moved, captured = core.revise(
                    pieces[j], srcs[j], dsts[j], opp_occ, opp_occ | own_occ, castling[i], ep[i], white
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
                moved, captured = core.revise(
                    pieces[j], srcs[j], dsts[j], opp_occ, opp_occ | own_occ, castling[i], ep[i], white
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
    own_occ = _occupancy(own)
    king = _king_square(own)
    after = np.empty(6, dtype=np.uint64)
    opp_after = np.empty(6, dtype=np.uint64)
    for i in range(opp.shape[0]):
        target = int(ep[i])
        if target < 0:
            continue
        victim = core.en_passant_victim(target, white)
        opp_occ = _occupancy(opp[i])
        if not opp[i, 0] & BIT[victim] or (opp_occ | own_occ) & BIT[target]:
            continue
        capturers = core.pawn_attacks(1 - white, target) & own[core.PAWN]
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
