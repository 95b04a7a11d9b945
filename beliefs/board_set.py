"""`BoardSet`: the exhaustive set of boards consistent with everything the player observed.

Storage is the compact layout of :mod:`blindchess.beliefs.board_layout` (58 bytes a
board); updates are, with ``B`` the set and ``w`` the weights:

- opponent's turn with reported capture ``c`` (None: no capture)::

      B' = { T(s, m) : s in B, m in M(s), capsq(s, m) = c }

  ``M(s)``: the pass plus every pseudo-legal move of the true board with RBC
  castling (the revised outcomes of every request); duplicates merged (weights
  summed under an opponent-move model, see :mod:`blindchess.beliefs.move_model`).
- sense of window ``W``: ``B' = { s in B : s|W = W }``.
- own move (request ``r``, taken ``t``, capture ``c``)::

      B' = { T(s, t) : s in B, revise(s, r) = t, capsq(s, t) = c }

Size cap and backlog: an opponent turn expands parents in order; once the children
generated (before merging duplicates) reach ``max_boards`` the parents not yet expanded go to a backlog with the index of
the event they missed, and ``is_exact`` turns false. The true board may descend from a
parent in the backlog, so the backlog is folded back (`refill`): its oldest parents are
replayed through every event since (each replayed expansion capped at ``max_boards``
children like the set's own, its overflow going back to the backlog), and the boards that
survive are merged into the set (duplicates merged, weights summed). A fold step starts
only while the set holds fewer than ``max_boards`` boards, and one step adds at most
``max_boards + 512`` (a capped expansion's worth), so a set that folded holds at most
``2 * max_boards + 512`` boards; a set whose backlog is empty is exact again. Folding runs

- after every sense and own-move update, up to ``fold_parents`` parents (deterministic:
  the same events give the same set), where the filters have just made the set small;
- whenever a caller has time (`refill`);
- and, without a parent limit, when an update would empty the set, until a board survives;
  only when set and backlog are both exhausted is `InconsistentObservationError` raised.

A replay folds nothing itself: it stops at the event that empties it, and the parents its own
capped expansions left out join the set's backlog (`_replay`), so a fold step costs at most one
capped expansion or filter per event replayed.

Why fold and not only recover when empty: without it a capped set that keeps a few
boards never looks at its backlog again, so it can hold boards while the truth sits unexpanded
in the backlog for the rest of the game (``strangefish2-120/g1``, docs/champion.md,
"Where the regret comes from"). `exact()` replays the whole backlog without a cap.

Weights past the cap: every normalisation divides the weights by their sum ``Z`` and adds
``log Z`` to the set's log mass ``L``, so ``exp(L) * w(s)`` is the unnormalised weight of
board ``s`` on one scale for the set and for every backlog entry (which keeps its ``L``).
Merging a replayed entry rescales both parts to the larger ``L`` before summing, so a
fully folded set has the weights of an uncapped one (up to rounding).

An update that raises leaves the set exactly as it was (the `Belief` contract), without
copying it: events are checked first (:func:`~blindchess.beliefs.validation.check_event`),
and no update writes into an array it did not allocate itself (filters and expansions
build new arrays; the in-place touches of an own move work on the arrays its filter just
made). So the state before an update is a handful of references (arrays, side to move,
backlog list), kept at the start and put back if the update raises; and `copy()` shares
the arrays instead of copying them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.lookup_tables import BIT, COLOR_CASTLING_BITS, CORNER_BITS

from . import board_set_updates
from .base import N_CHANNELS, InconsistentObservationError, NotInitialisedError, UnexpectedObservationError
from .board_layout import (
    BYTES_PER_BOARD,
    BoardKey,
    board_key,
    castling_bits,
    own_grid,
    piece_bitboards,
    piece_grid,
    row_board,
    row_key,
)
from .drawn_boards import Rows
from .move_model import UNIFORM, OpponentMoveModel
from .validation import check_event, game_over

logger = logging.getLogger(__name__)

_CHUNK_ROWS = 1 << 20
"""Child rows per expansion chunk (58 MiB of output)."""


@dataclass(frozen=True)
class _BacklogEntry:
    """Parents left unexpanded at event ``event_index`` (an `OpponentMoved`), their weights on the scale ``log_mass``."""

    event_index: int
    own: np.ndarray
    turn: chess.Color
    opp: np.ndarray
    castling: np.ndarray
    ep: np.ndarray
    weights: np.ndarray
    log_mass: float

    def __len__(self) -> int:
        return int(self.opp.shape[0])

    def split(self, n: int) -> tuple[_BacklogEntry, Optional[_BacklogEntry]]:
        """The first `n` parents, and the rest (None if none is left)."""
        if n >= len(self):
            return self, None
        head, rest = (
            replace(self, opp=self.opp[a:b], castling=self.castling[a:b], ep=self.ep[a:b], weights=self.weights[a:b])
            for a, b in ((0, n), (n, len(self)))
        )
        return head, rest


class BoardSet:
    """The exhaustive belief: every board consistent with the observations, optionally weighted.

    Args:
        max_boards: the size cap (see the module docstring); ``None`` for no cap.
        move_model: the opponent-move model weighting children; by default `UNIFORM` (each
            outcome of a board equally likely), as in `ParticleFilter` and `HybridBelief`, so
            the same boards get the same entropy in all three. None: unweighted, every
            consistent board equally likely.
        fold_parents: how many backlog parents each sense and own-move update folds back
            (see the module docstring); 0 folds only when the set runs empty or `refill` is called.
    """

    def __init__(
        self, max_boards: Optional[int] = 4_000_000, move_model: Optional[OpponentMoveModel] = UNIFORM, fold_parents: int = 20_000
    ) -> None:
        if max_boards is not None and max_boards < 1:
            raise ValueError(f"max_boards must be positive or None, got {max_boards!r}")
        if fold_parents < 0:
            raise ValueError(f"fold_parents must be non-negative, got {fold_parents!r}")
        self.max_boards = max_boards
        self.fold_parents = fold_parents
        self.move_model = move_model
        self._scores = (move_model or UNIFORM).scores
        self._color: Optional[chess.Color] = None
        self._turn: chess.Color = chess.WHITE
        self._own = np.zeros(6, dtype=np.uint64)
        self._opp = np.zeros((0, 6), dtype=np.uint64)
        self._castling = np.zeros(0, dtype=np.uint8)
        self._ep = np.zeros(0, dtype=np.int8)
        self._weights = np.zeros(0, dtype=np.float64)
        self._log_mass = 0.0
        self._events: list[Observation] = []
        self._backlog: list[_BacklogEntry] = []
        self._recovers = True  # False in a replay (`_replay`): an emptied set stays empty and raises nothing

    # ------------------------------------------------------------------ state

    @property
    def is_exact(self) -> bool:
        return not self._backlog

    @property
    def color(self) -> chess.Color:
        """The player's colour."""
        self._require_started()
        assert self._color is not None
        return self._color

    @property
    def turn(self) -> chess.Color:
        """The side to move on every board of the set."""
        return self._turn

    @property
    def nbytes_per_board(self) -> int:
        return BYTES_PER_BOARD

    def __len__(self) -> int:
        return int(self._opp.shape[0])

    def _require_started(self) -> None:
        if self._color is None:
            raise NotInitialisedError("the board set has not received GameStarted")

    # ------------------------------------------------------------------ updates

    def update(self, observation: Observation) -> None:
        """Fold one event in (see the module docstring for the rules); if it raises, the set is unchanged."""
        check_event(observation, ended=game_over(self._events))
        if not isinstance(observation, GameStarted):
            self._require_started()
        before = self._state()
        try:
            self._apply(observation)
        except BaseException:
            self._restore(before)
            raise

    def _apply(self, observation: Observation) -> None:
        if isinstance(observation, GameStarted):
            self._start(observation)
            return
        self._events.append(observation)
        if isinstance(observation, OpponentMoved):
            self._opponent_moved(observation, len(self._events) - 1)
        elif isinstance(observation, SenseResult):
            self._sense(observation)
        elif isinstance(observation, MoveResult):
            self._own_move(observation)
        else:  # GameEnded
            return
        if len(self) == 0 and self._recovers:
            self._fold(None, max_size=1)
            if len(self) == 0:
                raise InconsistentObservationError(f"no board is consistent with the observations after {observation!r}")
        if not isinstance(observation, OpponentMoved):
            self._fold(self.fold_parents)

    def _state(self) -> tuple[Any, ...]:
        """What an update may replace: references only (see the module docstring), and the event count."""
        return (
            self._color, self._turn, self._own, self._opp, self._castling, self._ep, self._weights, self._log_mass,
            list(self._backlog), self._events, len(self._events),
        )  # fmt: skip

    def _restore(self, state: tuple[Any, ...]) -> None:
        (self._color, self._turn, self._own, self._opp, self._castling, self._ep, self._weights, self._log_mass,
         self._backlog, self._events, events) = state  # fmt: skip
        del self._events[events:]

    def _start(self, event: GameStarted) -> None:
        self._load(event.color, [event.starting_board()])
        self._events = [event]

    def _load(self, color: chess.Color, boards: list[chess.Board]) -> None:
        first = boards[0]
        self._color, self._turn = color, first.turn
        self._own = piece_bitboards(first, color)
        for board in boards:
            if board.turn != first.turn or not np.array_equal(piece_bitboards(board, color), self._own):
                raise ValueError(f"{board.fen()} differs from {first.fen()} in the side to move or in our pieces")
        self._opp = np.array([piece_bitboards(board, not color) for board in boards], dtype=np.uint64)
        self._castling = np.array([castling_bits(board.castling_rights) for board in boards], dtype=np.uint8)
        self._ep = np.array([board.ep_square if board.ep_square is not None else -1 for board in boards], dtype=np.int8)
        self._weights, self._log_mass = np.ones(len(boards)), 0.0
        self._opp, self._castling, self._ep, self._weights = self._dedup(self._opp, self._castling, self._ep, self._weights)
        self._backlog = []

    @classmethod
    def from_boards(
        cls, color: chess.Color, boards: list[chess.Board], max_boards: Optional[int] = 4_000_000,
        move_model: Optional[OpponentMoveModel] = UNIFORM, fold_parents: int = 20_000,
    ) -> BoardSet:
        """A set holding `boards` (equally likely) for the player of `color`, as if observed so far.

        The boards must agree on the side to move and on our pieces (`ValueError` otherwise).
        For tests, benchmarks and beliefs that re-seed a set from known boards; a set built
        this way has no event history, so its backlog (past the cap) starts here.
        """
        if not boards:
            raise ValueError("from_boards needs at least one board")
        belief = cls(max_boards=max_boards, move_model=move_model, fold_parents=fold_parents)
        belief._load(color, boards)
        return belief

    def _own_occupied(self) -> np.uint64:
        occupied: np.uint64 = np.bitwise_or.reduce(self._own)
        return occupied

    def _opponent_moved(self, event: OpponentMoved, event_index: int) -> None:
        capture = event.capture_square
        if capture is not None and not self._own_occupied() & BIT[capture]:
            raise InconsistentObservationError(f"{event!r}: no piece of ours stands on {chess.square_name(capture)}")
        if self._turn == self._color:  # White's first turn: the opponent has not moved
            if capture is not None:
                raise InconsistentObservationError(f"{event!r}: a capture before the opponent's first move")
            return
        self._expand(capture if capture is not None else -1, event_index)
        if capture is not None:
            self._own = self._own & ~BIT[capture]
        self._turn = not self._turn

    def _expand(self, capture: int, event_index: int) -> None:
        parents = len(self)
        white = 1 if self._color == chess.BLACK else 0
        own_occ = self._own_occupied()
        weighted = self.move_model is not None
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        children, start = 0, 0
        while start < parents:
            capacity = min(_CHUNK_ROWS, (parents - start) * 48 + board_set_updates.MAX_CHILDREN)
            if self.max_boards is not None:  # stop within one parent's children of the cap
                capacity = min(capacity, self.max_boards - children + board_set_updates.MAX_CHILDREN)
            out = (
                np.empty((capacity, 6), dtype=np.uint64),
                np.empty(capacity, dtype=np.uint8),
                np.empty(capacity, dtype=np.int8),
                np.empty(capacity, dtype=np.float64),
            )
            start, k = board_set_updates.expand_chunk(
                self._opp, self._castling, self._ep, self._weights, own_occ, white, capture, self._scores, weighted, start, *out
            )
            parts.append(tuple(a[:k] for a in out))  # type: ignore[arg-type]
            children += k
            if self.max_boards is not None and children >= self.max_boards and start < parents:
                self._backlog.append(
                    _BacklogEntry(
                        event_index,
                        self._own.copy(),
                        self._turn,
                        self._opp[start:].copy(),
                        self._castling[start:].copy(),
                        self._ep[start:].copy(),
                        self._weights[start:].copy(),
                        self._log_mass,
                    )
                )
                logger.info("board set capped at %d boards; %d parents to the backlog", children, parents - start)
                break
        self._opp, self._castling, self._ep, self._weights = self._dedup(*self._concat(parts))

    @staticmethod
    def _concat(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate([p[n] for p in parts]) for n in range(4))

    def _dedup(
        self, opp: np.ndarray, castling: np.ndarray, ep: np.ndarray, weights: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The distinct rows, weights summed and normalised (weighted sets: the sum goes to the log mass)."""
        keep, summed = board_set_updates.unique_rows(opp, castling, ep, weights, self.move_model is not None)
        summed = summed[keep]
        if self.move_model is not None and summed.size:
            total = summed.sum()
            summed = summed / total
            self._log_mass += float(np.log(total))
        return opp[keep], castling[keep], ep[keep], summed

    def _keep(self, mask: np.ndarray) -> None:
        self._opp, self._castling, self._ep, self._weights = (
            self._opp[mask],
            self._castling[mask],
            self._ep[mask],
            self._weights[mask],
        )

    def _sense(self, event: SenseResult) -> None:
        if self._turn != self._color:
            raise UnexpectedObservationError(f"{event!r}: a sense result while the opponent is to move")
        window_mask = np.uint64(0)
        expected = np.zeros(6, dtype=np.uint64)
        for square, piece in event.window:
            bit = BIT[square]
            own_here = next((t for t in range(6) if self._own[t] & bit), None)
            own_seen = piece.piece_type - 1 if piece is not None and piece.color == self._color else None
            if own_here != own_seen:
                raise InconsistentObservationError(f"{event!r}: our own piece on {chess.square_name(square)} disagrees")
            window_mask |= bit
            if piece is not None and piece.color != self._color:
                expected[piece.piece_type - 1] |= bit
        self._keep(board_set_updates.window_matches(self._opp, window_mask, expected))

    def _own_move(self, event: MoveResult) -> None:
        if self._turn != self._color:
            raise UnexpectedObservationError(f"{event!r}: a move result while the opponent is to move")
        requested, taken, capture = event.requested_move, event.taken_move, event.capture_square
        self._turn = not self._turn
        if requested is None:
            if taken is not None or capture is not None:
                raise InconsistentObservationError(f"{event!r}: a pass cannot move or capture")
            self._ep = np.full_like(self._ep, -1)  # a new array: the old one may be kept (see the module docstring)
            self._merge_duplicates()
            return
        piece = next((t for t in range(6) if self._own[t] & BIT[requested.from_square]), None)
        if piece is None:
            raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(requested.from_square)}")
        requested = rules.with_default_promotion(self._own_board(), requested)
        n = len(self)
        out_dst = np.empty(n, dtype=np.int64)
        out_capture = np.empty(n, dtype=np.int64)
        board_set_updates.own_move_outcomes(
            self._opp, self._ep, self._castling, self._own_occupied(), 1 if self._color == chess.WHITE else 0,
            piece, requested.from_square, requested.to_square, out_dst, out_capture,
        )  # fmt: skip
        if taken is None:
            if capture is not None:
                raise InconsistentObservationError(f"{event!r}: an illegal move cannot capture")
            self._keep(out_dst == -1)
            self._ep[:] = -1
            self._merge_duplicates()
            return
        if taken.from_square != requested.from_square or taken.promotion != requested.promotion:
            self._keep(np.zeros(n, dtype=bool))
            return
        self._keep((out_dst == taken.to_square) & (out_capture == (capture if capture is not None else -1)))
        self._apply_own_move(piece, taken, capture)

    def _apply_own_move(self, piece: int, move: chess.Move, capture: Optional[int]) -> None:
        """Our taken move on every board: remove the captured piece, update castling and en passant, move ours.

        Unchecked: writes in place into the board arrays, so call it only on arrays the
        update has just made (`_keep`'s), never on ones the state before the update holds.
        """
        src, dst = move.from_square, move.to_square
        if capture is not None:
            self._opp &= ~BIT[capture]
        cleared = CORNER_BITS[src] | CORNER_BITS[dst]
        if piece == 5:
            cleared |= COLOR_CASTLING_BITS[1 if self._color == chess.WHITE else 0]
        self._castling &= ~np.uint8(cleared)
        if capture is not None:
            # A captured king takes its castling rights with it (python-chess drops them too),
            # so the set agrees with the truth FEN at the end of a game.
            kingless = self._opp[:, 5] == 0
            self._castling[kingless] &= ~np.uint8(COLOR_CASTLING_BITS[0 if self._color == chess.WHITE else 1])
        double_push = piece == 0 and abs(dst - src) == 16
        self._ep[:] = (src + dst) // 2 if double_push else -1
        own = self._own.copy()  # six words; the state before the update keeps the old array
        own[piece] &= ~BIT[src]
        own[move.promotion - 1 if move.promotion else piece] |= BIT[dst]
        if piece == 5 and abs(dst - src) == 2:
            rook_src, rook_dst = (src + 3, src + 1) if dst > src else (src - 4, src - 1)
            own[3] = (own[3] & ~BIT[rook_src]) | BIT[rook_dst]
        self._own = own
        self._merge_duplicates()

    def _merge_duplicates(self) -> None:
        """Our move can make boards equal (a capture, or en passant and castling state overwritten): merge them."""
        self._opp, self._castling, self._ep, self._weights = self._dedup(self._opp, self._castling, self._ep, self._weights)

    def _own_board(self) -> chess.Board:
        """A board holding only our pieces (what we know for sure), our side to move."""
        board = row_board(self._own, np.zeros(6, dtype=np.uint64), self.color, self._turn, 0, -1)
        board.turn = self.color
        return board

    # ------------------------------------------------------------------ backlog

    def refill(self, max_parents: Optional[int] = None) -> int:
        """Fold backlog parents back into the set, oldest first (see the module docstring); if it raises, the set is unchanged.

        Steps run while the backlog has parents, fewer than `max_parents` (None: no limit)
        were expanded and the set holds fewer than ``max_boards`` boards; a step costs at
        most one capped expansion and filter per event replayed. For callers with time to
        spare, such as a bot while its opponent thinks; call it again to fold more.

        Returns:
            How many backlog parents were expanded (0: nothing to fold, or the set is full).
        """
        if max_parents is not None and max_parents < 0:
            raise ValueError(f"max_parents must be non-negative or None, got {max_parents!r}")
        self._require_started()
        before = self._state()
        try:
            return self._fold(max_parents)
        except BaseException:
            self._restore(before)
            raise

    @property
    def backlog_parents(self) -> int:
        """How many parents wait in the backlog (0 exactly when `is_exact`)."""
        return sum(len(entry) for entry in self._backlog)

    def _fold(self, max_parents: Optional[int], max_size: Optional[int] = None) -> int:
        """`refill`'s steps while the set holds fewer than `max_size` boards (None: ``max_boards``), without its rollback.

        An update's own rollback covers it. An emptied set folds with ``max_size=1`` (until a
        board survives). A replay never holds more than ``max_boards + 512`` boards (its expansions
        are capped and it folds nothing itself), so a fold step adds no more than that; the parents
        the replay left out join this set's backlog, oldest first.
        """
        max_size = self.max_boards if max_size is None else max_size
        folded = 0
        while self._backlog and (max_parents is None or folded < max_parents):
            if max_size is not None and len(self) >= max_size:
                break
            head, rest = self._backlog[0].split(len(self._backlog[0]) if max_parents is None else max_parents - folded)
            replayed = self._replay(head, self.max_boards)
            returned = [entry for entry in replayed._backlog if entry.event_index == head.event_index]
            folded += len(head) - sum(len(entry) for entry in returned)
            backlog = self._backlog[1:] + replayed._backlog + ([] if rest is None else [rest])
            self._backlog = sorted(backlog, key=lambda entry: entry.event_index)  # stable: oldest first
            self._merge(replayed)
            logger.debug("board set folded %d backlog parents: %d boards, %d parents left", len(head), len(self), self.backlog_parents)
        return folded

    def _replay(self, entry: _BacklogEntry, max_boards: Optional[int]) -> BoardSet:
        """A board set holding `entry`'s parents, run through every event from the one they missed (empty if none survives).

        A replay does not fold: once an event empties it, it stops there and raises nothing, and the parents
        its own capped expansions left out stay in its backlog for the caller to take over. So a fold step
        costs at most one capped expansion or filter per event replayed, never a replay inside a replay.
        """
        replay = BoardSet(max_boards=max_boards, move_model=self.move_model, fold_parents=0)
        replay._recovers = False
        replay._color = self._color
        replay._events = list(self._events[: entry.event_index])
        replay._own, replay._turn, replay._log_mass = entry.own.copy(), entry.turn, entry.log_mass
        replay._opp, replay._castling, replay._ep, replay._weights = entry.opp, entry.castling, entry.ep, entry.weights
        for event in self._events[entry.event_index :]:  # each was accepted by this set: our pieces allowed it
            replay.update(event)
            if not len(replay):
                break
        return replay

    def _merge(self, other: BoardSet) -> None:
        """Take `other`'s boards (the same events followed) into the set, on one weight scale (module docstring)."""
        if not len(other):
            return
        if not len(self):
            self._opp, self._castling, self._ep, self._weights = other._opp, other._castling, other._ep, other._weights
            self._own, self._turn, self._log_mass = other._own.copy(), other._turn, other._log_mass
            return
        scale = max(self._log_mass, other._log_mass)
        weights = np.concatenate([self._weights * np.exp(self._log_mass - scale), other._weights * np.exp(other._log_mass - scale)])
        self._log_mass = scale
        pairs = ((self._opp, other._opp), (self._castling, other._castling), (self._ep, other._ep))
        opp, castling, ep = (np.concatenate(pair) for pair in pairs)
        self._opp, self._castling, self._ep, self._weights = self._dedup(opp, castling, ep, weights)

    def exact(self) -> BoardSet:
        """The exact set: this set plus every backlog entry replayed without a cap (can be large)."""
        result = self.copy()
        result.max_boards = None
        for entry in self._backlog:
            result._merge(self._replay(entry, None))
        result._backlog = []
        return result

    # ------------------------------------------------------------------ queries

    def weights(self) -> np.ndarray:
        """Probabilities of the boards, aligned with `piece_grid`, summing to one."""
        normalised: np.ndarray = self._weights / self._weights.sum()
        return normalised

    def piece_grid(self, rows: Optional[np.ndarray] = None) -> np.ndarray:
        """Shape (N, 64) uint8: the marginal channel of every square of every board (of boards `rows` only, if given)."""
        self._require_started()
        return piece_grid(self._own, self._opp if rows is None else self._opp[rows], self.color)

    def marginals(self) -> np.ndarray:
        """Shape (64, 13): P(square holds channel), rows summing to one."""
        self._require_started()
        offset = 7 if self.color == chess.WHITE else 1
        result = np.zeros((64, N_CHANNELS))
        result[:, offset : offset + 6] = board_set_updates.opponent_marginals(self._opp, self.weights())
        own = own_grid(self._own, self.color)
        result[np.arange(64)[own > 0], own[own > 0]] = 1.0
        result[:, 0] = np.clip(1.0 - result[:, 1:].sum(axis=1), 0.0, 1.0)
        return result

    def entropy(self) -> float:
        """Shannon entropy in bits: ``-sum_s p(s) log2 p(s)``."""
        p = self.weights()
        p = p[p > 0]
        return float(-(p * np.log2(p)).sum()) + 0.0  # + 0.0 turns -0.0 into 0.0

    def board(self, index: int) -> chess.Board:
        """Board ``index`` of the set as a `chess.Board`."""
        return row_board(self._own, self._opp[index], self.color, self._turn, int(self._castling[index]), int(self._ep[index]))

    def boards(self) -> Iterator[chess.Board]:
        """Every board of the set (slow; for tests and small sets)."""
        return (self.board(i) for i in range(len(self)))

    def keys(self) -> set[BoardKey]:
        """`board_key` of every board (for comparisons with the reference)."""
        return {
            row_key(self._own, self._opp[i], self.color, self._turn, int(self._castling[i]), int(self._ep[i]))
            for i in range(len(self))
        }

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        """`n` boards drawn with replacement, in proportion to their weights."""
        return self.sample_rows(n, rng).boards()

    def sample_rows(self, n: int, rng: np.random.Generator) -> Rows:
        """The draws of `sample` as compact `Rows` (no `chess.Board` built: see :mod:`blindchess.beliefs.drawn_boards`)."""
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n!r}")
        self._require_started()
        return self.rows(rng.choice(len(self), size=n, p=self.weights()))

    def rows(self, index: np.ndarray) -> Rows:
        """Boards ``index`` of the set as `Rows`, in that order."""
        self._require_started()
        return Rows(self.color, self._turn, self._own, self._opp[index], self._castling[index], self._ep[index], index)

    def __contains__(self, board: object) -> bool:
        if not isinstance(board, chess.Board) or self._color is None or board.turn != self._turn:
            return False
        if not np.array_equal(piece_bitboards(board, self._color), self._own):
            return False
        key = board_key(board)
        opp = piece_bitboards(board, not self._color)
        castling = castling_bits(key[13])
        match = np.all(self._opp == opp, axis=1) & (self._castling == castling) & (self._ep == key[14])
        return bool(match.any())

    def subset(self, indices: np.ndarray) -> BoardSet:
        """A set of boards ``indices`` of this one, their weights kept, with no backlog.

        For lockstep checks against the reference on sets too big for it, and for
        beliefs that keep a sample of this set's boards.
        """
        self._require_started()
        other = BoardSet(max_boards=self.max_boards, move_model=self.move_model, fold_parents=self.fold_parents)
        other._color, other._turn, other._own = self._color, self._turn, self._own.copy()
        other._opp, other._castling = self._opp[indices], self._castling[indices]
        other._ep, other._weights = self._ep[indices], self._weights[indices]
        other._events = list(self._events)
        return other

    def copy(self) -> BoardSet:
        """An independent copy: updating one never changes the other.

        The board arrays are shared, not copied: no update writes into an array it did not
        allocate (see the module docstring), so each side's next update makes its own. That
        makes a copy O(1) in the number of boards (the particle filter and the hybrid keep
        copies as snapshots every turn). Backlog entries are immutable and shared too.
        """
        other = BoardSet(max_boards=self.max_boards, move_model=self.move_model, fold_parents=self.fold_parents)
        other._color, other._turn, other._own = self._color, self._turn, self._own.copy()
        other._opp, other._castling, other._ep, other._weights = self._opp, self._castling, self._ep, self._weights
        other._log_mass = self._log_mass
        other._events, other._backlog = list(self._events), list(self._backlog)
        return other
