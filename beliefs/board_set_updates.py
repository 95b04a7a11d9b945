"""Compiled (numba) kernels of the board set: opponent-move expansion, own-move revision, deduplication, marginals.

Unchecked fast paths: the callers in :mod:`blindchess.beliefs.board_set` validate
observations first. A board is a row of the compact layout (see
:mod:`blindchess.beliefs.board_layout`): ``opp[i, 0:6]`` the opponent's pawn..king
bitboards, ``castling[i]`` the 4 corner bits, ``ep[i]`` the raw en-passant square
(-1 for none). The player's own pieces are one shared bitboard, ``own_occ``.

Why numba: expansion is move generation per board, with data-dependent loops
(slides stop on the first blocker) that numpy cannot vectorise without
materialising every (board, square, direction) triple; the compiled loop runs at
tens of millions of child boards per second on one core (see
``experiments/bench_boardset.py``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from blindchess.arbiter.rules import compiled_rules as core
from blindchess.arbiter.rules.lookup_tables import BIT, lsb

MAX_CHILDREN = 512
"""An upper bound on the outcomes of one opponent turn on one board (pseudo-legal moves + pass)."""

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@nb.njit(cache=True)
def _emit(
    opp: np.ndarray, castling: np.ndarray, i: int,
    out_opp: np.ndarray, out_castling: np.ndarray, out_ep: np.ndarray, out_w: np.ndarray, k: int,
    piece: int, src: int, dst: int, placed: int, rook_src: int, rook_dst: int, white: int, weight: float,
) -> None:  # fmt: skip
    """Write the child of parent ``i`` where the opponent moved ``piece`` from ``src`` to ``dst`` (unchecked)."""
    for t in range(6):
        out_opp[k, t] = opp[i, t]
    out_opp[k, piece] &= ~BIT[src]
    out_opp[k, placed] |= BIT[dst]
    if rook_src >= 0:
        out_opp[k, core.ROOK] = (out_opp[k, core.ROOK] & ~BIT[rook_src]) | BIT[rook_dst]
    out_castling[k] = core.rights_after(castling[i], white, piece, src, dst, False)  # our king taken ends the game
    out_ep[k] = core.ep_after(piece, src, dst)
    out_w[k] = weight


@nb.njit(cache=True)
def _children_of(
    opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, i: int, own_occ: np.uint64, white: int, capture_sq: int,
    scores: np.ndarray, emit: bool, wscale: float,
    out_opp: np.ndarray, out_castling: np.ndarray, out_ep: np.ndarray, out_w: np.ndarray, k: int,
) -> tuple[int, float]:  # fmt: skip
    """Enumerate every outcome of the opponent's turn on parent ``i``.

    Outcomes are the pass (no change, en passant cleared) and every pseudo-legal
    move of the true board (:mod:`blindchess.arbiter.rules.compiled_rules`: RBC castling
    through check, en passant, the four promotions). Every revised request is one of these
    and each of these is some request's revision. When ``emit`` is set, the
    outcomes whose capture square equals ``capture_sq`` (-1: no capture) are written
    from row ``k`` on, weighted ``wscale * scores[piece + 1, is_capture]``.

    Returns:
        (next free row, sum of scores over all outcomes), the latter normalises
        the opponent-move model.
    """
    opp_occ = _ZERO
    for t in range(6):
        opp_occ |= opp[i, t]
    occ = opp_occ | own_occ
    total = scores[0, 0]
    if emit and capture_sq < 0:  # the pass
        for t in range(6):
            out_opp[k, t] = opp[i, t]
        out_castling[k] = castling[i]
        out_ep[k] = -1
        out_w[k] = wscale * scores[0, 0]
        k += 1
    for piece in range(6):
        bb = opp[i, piece]
        while bb:
            src = lsb(bb)
            bb &= bb - _ONE
            if piece == core.PAWN:
                single, double = core.pawn_pushes(BIT[src], white, occ)
                if single:
                    dst = lsb(single)
                    n_placed = 4 if BIT[dst] & core.LAST_RANKS else 1
                    total += n_placed * scores[1, 0]
                    if emit and capture_sq < 0:
                        for p in range(n_placed):
                            placed = 0 if n_placed == 1 else p + 1
                            _emit(opp, castling, i, out_opp, out_castling, out_ep, out_w, k, 0, src, dst, placed,
                                  -1, -1, white, wscale * scores[1, 0])  # fmt: skip
                            k += 1
                if double:
                    total += scores[1, 0]
                    if emit and capture_sq < 0:
                        _emit(opp, castling, i, out_opp, out_castling, out_ep, out_w, k, 0, src, lsb(double), 0,
                              -1, -1, white, wscale * scores[1, 0])  # fmt: skip
                        k += 1
                targets = core.pawn_captures(src, white, own_occ, ep[i], occ)
                while targets:
                    dst = lsb(targets)
                    targets &= targets - _ONE
                    captured = dst if own_occ & BIT[dst] else core.en_passant_victim(dst, white)
                    n_placed = 4 if BIT[dst] & core.LAST_RANKS else 1
                    total += n_placed * scores[1, 1]
                    if emit and captured == capture_sq:
                        for p in range(n_placed):
                            placed = 0 if n_placed == 1 else p + 1
                            _emit(opp, castling, i, out_opp, out_castling, out_ep, out_w, k, 0, src, dst, placed,
                                  -1, -1, white, wscale * scores[1, 1])  # fmt: skip
                            k += 1
                continue
            targets = core.targets(piece, src, opp_occ, own_occ)
            while targets:
                dst = lsb(targets)
                targets &= targets - _ONE
                is_capture = 1 if own_occ & BIT[dst] else 0
                total += scores[piece + 1, is_capture]
                if emit and (dst if is_capture else -1) == capture_sq:
                    _emit(opp, castling, i, out_opp, out_castling, out_ep, out_w, k, piece, src, dst, piece,
                          -1, -1, white, wscale * scores[piece + 1, is_capture])  # fmt: skip
                    k += 1
            if piece == core.KING:
                for side in range(2):  # 0 kingside, 1 queenside
                    if core.may_castle(castling[i], white, side, BIT[src], opp[i, core.ROOK], occ):
                        total += scores[6, 0]
                        if emit and capture_sq < 0:
                            _, dst, rook_src, rook_dst = core.castling_squares(white, side)
                            _emit(opp, castling, i, out_opp, out_castling, out_ep, out_w, k, piece, src, dst, piece,
                                  rook_src, rook_dst, white, wscale * scores[6, 0])  # fmt: skip
                            k += 1
    return k, total


@nb.njit(cache=True)
def expand_chunk(
    opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, weights: np.ndarray, own_occ: np.uint64, white: int,
    capture_sq: int, scores: np.ndarray, weighted: bool, start: int,
    out_opp: np.ndarray, out_castling: np.ndarray, out_ep: np.ndarray, out_w: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Expand parents ``start, start+1, ...`` into the output rows until they are all done or the output is full.

    Child weight (``weighted``): ``w(s) * scores(m) / sum_{m' in M(s)} scores(m')``;
    otherwise every child has weight 1.

    Returns:
        (index of the first parent not expanded, number of child rows written).
    """
    n = opp.shape[0]
    capacity = out_opp.shape[0]
    k = 0
    i = start
    while i < n and k + MAX_CHILDREN <= capacity:
        wscale = 1.0
        if weighted:
            _, total = _children_of(opp, castling, ep, i, own_occ, white, capture_sq, scores, False, 1.0,
                                    out_opp, out_castling, out_ep, out_w, k)  # fmt: skip
            wscale = weights[i] / total
        k, _ = _children_of(opp, castling, ep, i, own_occ, white, capture_sq, scores, True, wscale,
                            out_opp, out_castling, out_ep, out_w, k)  # fmt: skip
        i += 1
    return i, k


@nb.njit(cache=True)
def own_move_outcomes(
    opp: np.ndarray, ep: np.ndarray, castling: np.ndarray, own_occ: np.uint64, white: int,
    piece: int, src: int, dst: int, out_dst: np.ndarray, out_capture: np.ndarray,
) -> None:
    """The revision of our requested move on every board (RBC rules 5c i-iv, `compiled_rules.revise`).

    ``piece`` is our moving piece type index (0 pawn .. 5 king) and ``dst`` has the default queen
    promotion applied by the caller (the promotion piece never changes under revision). Writes per
    board ``out_dst`` (the square the move actually ends on, -1 if the request is illegal on that
    board) and ``out_capture`` (the captured square, -1 for none).
    """
    for i in range(opp.shape[0]):
        opp_occ = _ZERO
        for t in range(6):
            opp_occ |= opp[i, t]
        out_dst[i], out_capture[i] = core.revise(piece, src, dst, opp_occ, opp_occ | own_occ, castling[i], ep[i], white)


@nb.njit(cache=True)
def window_matches(opp: np.ndarray, window_mask: np.uint64, expected: np.ndarray) -> np.ndarray:
    """Per board: do the opponent's pieces inside ``window_mask`` equal ``expected`` (6 bitboards)?"""
    n = opp.shape[0]
    keep = np.empty(n, dtype=np.bool_)
    for i in range(n):
        ok = True
        for t in range(6):
            if (opp[i, t] & window_mask) != expected[t]:
                ok = False
                break
        keep[i] = ok
    return keep


@nb.njit(cache=True)
def opponent_marginals(opp: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Shape (64, 6): the weight of the boards with each opponent piece type on each square.

    One pass over the set pieces, not over every (board, type, square) bit: about 25x
    faster than unpacking the bitboards on a million boards.
    """
    out = np.zeros((64, 6))
    for i in range(opp.shape[0]):
        w = weights[i]
        for t in range(6):
            bb = opp[i, t]
            while bb:
                out[lsb(bb), t] += w
                bb &= bb - _ONE
    return out


_MIX = np.uint64(0x9E3779B97F4A7C15)
_SHIFT_MIX = np.uint64(29)


@nb.njit(cache=True)
def unique_rows(
    opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, weights: np.ndarray, sum_weights: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the first occurrence of every distinct board, in order; duplicates' weights summed into it.

    Open-addressing hash table over the 6 bitboards, castling and en passant: O(N).
    When ``sum_weights`` is false the first occurrence keeps its own weight.
    """
    n = opp.shape[0]
    size, bits = 2, 1
    while size < 2 * n + 2:
        size *= 2
        bits += 1
    mask = np.uint64(size - 1)
    shift = np.uint64(64 - bits)
    table = np.full(size, -1, dtype=np.int32)
    keep = np.empty(n, dtype=np.int64)
    out_w = weights.copy()
    m = 0
    for i in range(n):
        h = np.uint64(castling[i]) * _MIX + np.uint64(ep[i] + 1)
        for t in range(6):
            h = (h ^ opp[i, t]) * _MIX
            h ^= h >> _SHIFT_MIX
        slot = h >> shift  # the high bits of a multiplicative hash are the well-mixed ones
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = np.int32(i)
                keep[m] = i
                m += 1
                break
            same = castling[j] == castling[i] and ep[j] == ep[i]
            if same:
                for t in range(6):
                    if opp[j, t] != opp[i, t]:
                        same = False
                        break
            if same:
                if sum_weights:
                    out_w[j] += weights[i]
                break
            slot = (slot + _ONE) & mask
    return keep[:m], out_w
