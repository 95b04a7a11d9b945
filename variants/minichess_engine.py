"""Perfect-information Mini-Chess players: alpha-beta (the default engine), one-ply greedy, random.

The alpha-beta player is a negamax search with

- iterative deepening (depth 1, 2, ... until the depth or time limit; the move of
  the last finished iteration is played),
- a transposition table keyed by a Zobrist hash kept incrementally,
- move ordering: the table's move first, then king captures, then captures by
  most valuable victim / least valuable attacker, then quiet moves,
- a capture-only quiescence search at the horizon, and
- an evaluation from piece-square values (material plus pawn advance and
  central knights), kept incrementally along the search.

It plays the game-level rules of the rule set it is given: a king capture is a
win, the move limit a draw, no legal move a draw (seed) or a loss (IMCS). The players implement
:class:`blindchess.variants.perfect_play.MiniChessPlayer`. It is
the default engine of the Mini-Chess bots; a random and a one-ply greedy player
serve as baselines in tests and benchmarks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

import chess
import numpy as np

from blindchess.errors import BlindchessError
from blindchess.variants.geometry import BLACK_OFFSET, EMPTY, KING, PAWN, QUEEN
from blindchess.variants.minichess import PROMOTION_FLAG, MiniChessRules, Position, decode

PIECE_VALUES = (0, 100, 300, 300, 500, 900, 0)
"""Centipawn value by piece type (index 0 unused; the king is priced by the win score)."""
WIN = 1_000_000
_EXACT, _LOWER, _UPPER = 0, 1, 2


class RandomMiniChessPlayer:
    """Plays a uniformly random legal move."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose_move(self, rules: MiniChessRules, position: Position) -> chess.Move:
        moves = rules.legal_moves(position)
        return moves[int(self.rng.integers(len(moves)))]


def _code_value(code: int) -> int:
    return PIECE_VALUES[code - BLACK_OFFSET if code > BLACK_OFFSET else code] if code != EMPTY else 0


class GreedyMiniChessPlayer:
    """Captures the king when it can, else the most valuable piece it can take (promotion counts), else random."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose_move(self, rules: MiniChessRules, position: Position) -> chess.Move:
        moves = rules.generate(position.cells, position.turn)
        scores = []
        for move in moves:
            captured = position.cells[move >> 6 & 63]
            gain = WIN if captured in (KING, KING + BLACK_OFFSET) else _code_value(captured)
            scores.append(gain + (PIECE_VALUES[QUEEN] - PIECE_VALUES[PAWN] if move & PROMOTION_FLAG else 0))
        best = max(scores)
        choices = [move for move, score in zip(moves, scores, strict=True) if score == best]
        return decode(choices[int(self.rng.integers(len(choices)))])


@dataclass(frozen=True)
class SearchResult:
    """What one search found: the move, its score (centipawns, side to move), the depth finished, nodes and time."""

    move: chess.Move
    score: int
    depth: int
    nodes: int
    seconds: float


class _OutOfTime(BlindchessError):
    pass


class AlphaBetaPlayer:
    """Negamax alpha-beta with iterative deepening, a transposition table and move ordering.

    Args:
        max_depth: the deepest iteration.
        time_limit: seconds per move (None: depth only). The move of the last finished iteration is played.
        seed: seeds the Zobrist keys (the search itself is deterministic).
    """

    def __init__(self, max_depth: int = 6, time_limit: Optional[float] = None, seed: int = 0) -> None:
        self.max_depth = max_depth
        self.time_limit = time_limit
        rng = np.random.default_rng(seed)
        self._zobrist = [[int(x) for x in rng.integers(0, 2**63, size=64, dtype=np.int64)] for _ in range(13)]
        self._side = int(rng.integers(0, 2**63, dtype=np.int64))
        self._tt: dict[int, tuple[int, int, int, int]] = {}
        self._psq = self._piece_square_values()
        self.nodes = 0
        self._deadline = float("inf")

    @staticmethod
    def _piece_square_values() -> list[list[int]]:
        """White-positive values of each code on each square: material, pawn advance, central knights."""
        table = [[0] * 64 for _ in range(13)]
        for square in range(64):
            file, rank = chess.square_file(square), chess.square_rank(square)
            for kind in range(1, 7):
                bonus = 0
                if kind == PAWN:
                    bonus = 12 * rank
                elif kind == 2:  # knight
                    bonus = 10 - 5 * (abs(2 * file - 4) // 2) - 3 * abs(2 * rank - 5) // 2
                table[kind][square] = PIECE_VALUES[kind] + bonus
                black_bonus = 0
                if kind == PAWN:
                    black_bonus = 12 * (5 - rank)
                elif kind == 2:
                    black_bonus = bonus
                table[kind + BLACK_OFFSET][square] = -(PIECE_VALUES[kind] + black_bonus)
        return table

    def reset(self) -> None:
        """Forget the transposition table (between games)."""
        self._tt.clear()

    def choose_move(self, rules: MiniChessRules, position: Position) -> chess.Move:
        return self.search(rules, position).move

    def search(self, rules: MiniChessRules, position: Position) -> SearchResult:
        """Iterative deepening from `position` (not over) to `max_depth` or the time limit."""
        start = time.monotonic()
        self._deadline = start + self.time_limit if self.time_limit is not None else float("inf")
        self.nodes = 0
        self._rules = rules
        cells = list(position.cells)
        key = self._hash(cells, position.turn)
        score0 = sum(self._psq[cells[s]][s] for s in rules.geometry.squares if cells[s] != EMPTY)
        score0 = score0 if position.turn else -score0
        moves = rules.generate(cells, position.turn)
        best_move, best_score, finished = moves[0], 0, 0
        for depth in range(1, self.max_depth + 1):
            try:
                score = self._negamax(cells, position.turn, depth, -WIN - 1, WIN + 1, 0, position.ply, key, score0)
            except _OutOfTime:
                break
            entry = self._tt.get(key)
            if entry is not None and entry[3] >= 0:
                best_move, best_score, finished = entry[3], score, depth
            if abs(score) >= WIN - 100:
                break  # a forced result is found; deeper search cannot change it
        return SearchResult(decode(best_move), best_score, finished, self.nodes, time.monotonic() - start)

    def _hash(self, cells: list[int], turn: bool) -> int:
        key = 0 if turn else self._side
        for square in self._rules.geometry.squares:
            if cells[square] != EMPTY:
                key ^= self._zobrist[cells[square]][square]
        return key

    def _ordered(self, cells: list[int], moves: list[int], tt_move: int) -> list[int]:
        def priority(move: int) -> int:
            if move == tt_move:
                return -10_000
            victim = cells[move >> 6 & 63]
            if victim == EMPTY:
                return 1_000 if move & PROMOTION_FLAG else 5_000
            return -10 * _code_value(victim) + _code_value(cells[move & 63]) // 100

        return sorted(moves, key=priority)

    def _negamax(
        self, cells: list[int], turn: bool, depth: int, alpha: int, beta: int, ply: int, game_ply: int, key: int, score: int
    ) -> int:
        """Negamax value for `turn`; `score` is the incremental evaluation from `turn`'s side."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and time.monotonic() > self._deadline:
            raise _OutOfTime
        rules = self._rules
        if game_ply >= 2 * rules.moves_per_side:
            return 0
        if depth <= 0:
            return self._quiesce(cells, turn, alpha, beta, ply, score)
        moves = rules.generate(cells, turn)
        if not moves:
            return -(WIN - ply) if rules.imcs else 0
        enemy_king = KING if not turn else KING + BLACK_OFFSET
        for move in moves:
            if cells[move >> 6 & 63] == enemy_king:
                self._tt[key] = (depth, WIN - ply, _EXACT, move)
                return WIN - ply
        alpha0 = alpha
        tt_move = -1
        entry = self._tt.get(key)
        if entry is not None:
            tt_depth, tt_score, tt_flag, tt_move = entry
            if tt_depth >= depth and ply > 0:
                if tt_flag == _EXACT:
                    return tt_score
                if tt_flag == _LOWER and tt_score >= beta:
                    return tt_score
                if tt_flag == _UPPER and tt_score <= alpha:
                    return tt_score
        best, best_move = -WIN - 1, -1
        psq, zobrist, side = self._psq, self._zobrist, self._side
        sign = 1 if turn else -1
        for move in self._ordered(cells, moves, tt_move):
            origin, target = move & 63, move >> 6 & 63
            moved = cells[origin]
            captured = rules.make(cells, move)
            placed = cells[target]
            delta = psq[placed][target] - psq[moved][origin] - (psq[captured][target] if captured else 0)
            child_key = key ^ side ^ zobrist[moved][origin] ^ zobrist[placed][target] ^ (zobrist[captured][target] if captured else 0)
            value = -self._negamax(cells, not turn, depth - 1, -beta, -alpha, ply + 1, game_ply + 1, child_key, -(score + sign * delta))
            rules.unmake(cells, move, captured)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= alpha0 else _LOWER if best >= beta else _EXACT
        self._tt[key] = (depth, best, flag, best_move)
        return best

    def _quiesce(self, cells: list[int], turn: bool, alpha: int, beta: int, ply: int, score: int) -> int:
        self.nodes += 1
        if score >= beta:
            return score
        alpha = max(alpha, score)
        rules = self._rules
        enemy_king = KING if not turn else KING + BLACK_OFFSET
        captures = [m for m in rules.generate(cells, turn) if cells[m >> 6 & 63] != EMPTY]
        for move in captures:
            if cells[move >> 6 & 63] == enemy_king:
                return WIN - ply
        psq, sign = self._psq, 1 if turn else -1
        for move in sorted(captures, key=lambda m: -_code_value(cells[m >> 6 & 63])):
            origin, target = move & 63, move >> 6 & 63
            moved = cells[origin]
            captured = rules.make(cells, move)
            delta = psq[cells[target]][target] - psq[moved][origin] - psq[captured][target]
            value = -self._quiesce(cells, not turn, -beta, -alpha, ply + 1, -(score + sign * delta))
            rules.unmake(cells, move, captured)
            if value >= beta:
                return value
            alpha = max(alpha, value)
        return alpha
