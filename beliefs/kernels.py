"""Compiled (numba) kernels of the board set: opponent-move expansion, own-move revision, deduplication, marginals.

Unchecked fast paths: the callers in :mod:`blindchess.beliefs.board_set` validate
observations first. A board is a row of the compact layout (see
:mod:`blindchess.beliefs.compact`): ``opp[i, 0:6]`` the opponent's pawn..king
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

from blindchess.arbiter.bitboard_tables import lsb

from .tables import (
    BIT,
    COLOR_CASTLING_BITS,
    CORNER_BITS,
    DIRECTION_TO,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    PAWN_ATTACKS,
    RAY_LENGTHS,
    RAY_SQUARES,
    SLIDER_DIRECTIONS,
)

MAX_CHILDREN = 512
"""An upper bound on the outcomes of one opponent turn on one board (pseudo-legal moves + pass)."""

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
@nb.njit(cache=True)
def _emit(
    opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, i: int,
    out_opp: np.ndarray, out_castling: np.ndarray, out_ep: np.ndarray, out_w: np.ndarray, k: int,
    piece: int, src: int, dst: int, placed: int, rook_src: int, rook_dst: int, new_ep: int, white: int, weight: float,
) -> None:  # fmt: skip
    """Write the child of parent ``i`` where the opponent moved ``piece`` from ``src`` to ``dst`` (unchecked)."""
    for t in range(6):
        out_opp[k, t] = opp[i, t]
    out_opp[k, piece] &= ~BIT[src]
    out_opp[k, placed] |= BIT[dst]
    if rook_src >= 0:
        out_opp[k, 3] = (out_opp[k, 3] & ~BIT[rook_src]) | BIT[rook_dst]
    rights = castling[i] & ~(CORNER_BITS[src] | CORNER_BITS[dst])
    if piece == 5:
        rights &= ~COLOR_CASTLING_BITS[white]
    out_castling[k] = rights
    out_ep[k] = new_ep
    out_w[k] = weight


@nb.njit(cache=True)
def _children_of(
    opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, i: int, own_occ: np.uint64, white: int, capture_sq: int,
    scores: np.ndarray, emit: bool, wscale: float,
    out_opp: np.ndarray, out_castling: np.ndarray, out_ep: np.ndarray, out_w: np.ndarray, k: int,
) -> tuple[int, float]:  # fmt: skip
    """Enumerate every outcome of the opponent's turn on parent ``i``.

    Outcomes are the pass (no change, en passant cleared) and every pseudo-legal
    move of the true board, with RBC castling (rights and empty squares between
    king and rook; through check allowed). Every revised request is one of these
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
    forward = 8 if white else -8
    start_rank = 1 if white else 6
    last_rank = 7 if white else 0
    parent_ep = ep[i]
    for piece in range(6):
        bb = opp[i, piece]
        while bb:
            src = lsb(bb)
            bb &= bb - _ONE
            if piece == 0:
                # pushes
                dst = src + forward
                if not occ & BIT[dst]:
                    n_placed = 4 if dst // 8 == last_rank else 1
                    total += n_placed * scores[1, 0]
                    if emit and capture_sq < 0:
                        for p in range(n_placed):
                            placed = 0 if n_placed == 1 else p + 1
                            _emit(opp, castling, ep, i, out_opp, out_castling, out_ep, out_w, k, 0, src, dst, placed,
                                  -1, -1, -1, white, wscale * scores[1, 0])  # fmt: skip
                            k += 1
                    dst2 = dst + forward
                    if src // 8 == start_rank and not occ & BIT[dst2]:
                        total += scores[1, 0]
                        if emit and capture_sq < 0:
                            _emit(opp, castling, ep, i, out_opp, out_castling, out_ep, out_w, k, 0, src, dst2, 0,
                                  -1, -1, dst, white, wscale * scores[1, 0])  # fmt: skip
                            k += 1
                # captures, en passant included
                targets = PAWN_ATTACKS[white, src]
                while targets:
                    dst = lsb(targets)
                    targets &= targets - _ONE
                    if own_occ & BIT[dst]:
                        captured = dst
                    elif dst == parent_ep and not occ & BIT[dst]:
                        captured = dst - forward
                    else:
                        continue
                    n_placed = 4 if dst // 8 == last_rank else 1
                    total += n_placed * scores[1, 1]
                    if emit and captured == capture_sq:
                        for p in range(n_placed):
                            placed = 0 if n_placed == 1 else p + 1
                            _emit(opp, castling, ep, i, out_opp, out_castling, out_ep, out_w, k, 0, src, dst, placed,
                                  -1, -1, -1, white, wscale * scores[1, 1])  # fmt: skip
                            k += 1
                continue
            if piece == 1 or piece == 5:
                targets = (KNIGHT_ATTACKS[src] if piece == 1 else KING_ATTACKS[src]) & ~opp_occ
            else:
                targets = _ZERO
                kind = piece - 1 if piece < 4 else 3
                for d in range(SLIDER_DIRECTIONS[kind, 0], SLIDER_DIRECTIONS[kind, 1]):
                    for n in range(RAY_LENGTHS[d, src]):
                        sq = RAY_SQUARES[d, src, n]
                        if opp_occ & BIT[sq]:
                            break
                        targets |= BIT[sq]
                        if own_occ & BIT[sq]:
                            break
            while targets:
                dst = lsb(targets)
                targets &= targets - _ONE
                is_capture = 1 if own_occ & BIT[dst] else 0
                total += scores[piece + 1, is_capture]
                if emit and (dst if is_capture else -1) == capture_sq:
                    _emit(opp, castling, ep, i, out_opp, out_castling, out_ep, out_w, k, piece, src, dst, piece,
                          -1, -1, -1, white, wscale * scores[piece + 1, is_capture])  # fmt: skip
                    k += 1
            if piece == 5:
                home = 4 if white else 60
                if src == home:
                    for side in range(2):  # 0 kingside, 1 queenside
                        rook_src = home + 3 if side == 0 else home - 4
                        if not castling[i] & CORNER_BITS[rook_src] or not opp[i, 3] & BIT[rook_src]:
                            continue
                        between = _ZERO
                        step = 1 if side == 0 else -1
                        sq = home + step
                        while sq != rook_src:
                            between |= BIT[sq]
                            sq += step
                        if occ & between:
                            continue
                        total += scores[6, 0]
                        if emit and capture_sq < 0:
                            dst = home + 2 * step
                            _emit(opp, castling, ep, i, out_opp, out_castling, out_ep, out_w, k, 5, src, dst, 5,
                                  rook_src, home + step, -1, white, wscale * scores[6, 0])  # fmt: skip
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
def revise_request(
    opp_occ: np.uint64, occ: np.uint64, castling: int, ep: int, white: int, piece: int, src: int, dst: int
) -> tuple[int, int]:
    """The revision of our requested move on one board (RBC rules 5c i-iv): (square it ends on, captured square).

    ``opp_occ`` and ``occ`` are the board's opponent and total occupancy, ``castling`` and ``ep``
    its row's castling bits and raw en-passant square; ``piece`` is our moving piece type index
    (0 pawn .. 5 king) and ``dst`` has the default queen promotion applied by the caller. The
    first is -1 when the request is illegal on the board, the second -1 for no capture. The
    promotion piece never changes under revision. Unchecked: the request is a move action.
    """
    forward = 8 if white else -8
    moved = -1
    captured = -1
    if piece == 5 and abs(dst - src) == 2:  # castling: rights and every square between king and rook empty
        rook_src = src + 3 if dst > src else src - 4
        step = 1 if dst > src else -1
        clear = (castling & CORNER_BITS[rook_src]) != 0
        sq = src + step
        while sq != rook_src:
            if occ & BIT[sq]:
                clear = False
            sq += step
        if clear:
            moved = dst
    elif piece == 1 or piece == 5:
        moved = dst
        if opp_occ & BIT[dst]:
            captured = dst
    elif piece == 0:
        if (dst - src) % 8 == 0:  # pushes; a blocked double push becomes a single push
            mid = src + forward
            if not occ & BIT[mid]:
                if dst == mid or not occ & BIT[dst]:
                    moved = dst
                else:
                    moved = mid
        elif opp_occ & BIT[dst]:
            moved = dst
            captured = dst
        elif dst == ep and not occ & BIT[dst]:
            moved = dst
            captured = dst - forward
    else:  # sliders stop on the first opponent piece, capturing it
        d = DIRECTION_TO[src, dst]
        for n in range(RAY_LENGTHS[d, src]):
            sq = RAY_SQUARES[d, src, n]
            if opp_occ & BIT[sq]:
                moved = sq
                captured = sq
                break
            if sq == dst:
                moved = dst
                break
    return moved, captured


@nb.njit(cache=True)
def own_move_outcomes(
    opp: np.ndarray, ep: np.ndarray, castling: np.ndarray, own_occ: np.uint64, white: int,
    piece: int, src: int, dst: int, out_dst: np.ndarray, out_capture: np.ndarray,
) -> None:
    """`revise_request` of our requested move on every board.

    Writes per board ``out_dst`` (the square the move actually ends on, -1 if the
    request is illegal on that board) and ``out_capture`` (the captured square, -1
    for none).
    """
    for i in range(opp.shape[0]):
        opp_occ = _ZERO
        for t in range(6):
            opp_occ |= opp[i, t]
        out_dst[i], out_capture[i] = revise_request(opp_occ, opp_occ | own_occ, castling[i], ep[i], white, piece, src, dst)


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
