"""Small teaching boards: the recon flow on boards whose exact belief fits on a page.

Each board is a :class:`~blindchess.variants.minichess.MiniChessRules` with
another geometry and start placement (so the Mini-Chess rules hold: pawns step one,
promote to a queen, no castling, king capture wins) wrapped as a recon `Rules`
object (:class:`~blindchess.variants.recon.ReconMiniChessRules`). With a
handful of pieces the set of boards consistent with a player's observations stays
small enough to enumerate and print
(:class:`~blindchess.beliefs.enumerated_belief.EnumeratedBelief`).

Boards (placements written from the top rank down, as `MINICHESS_START` is)::

    teaching-4x4   kr2/p3/3P/2RK        king, rook and pawn a side on 4x4
    teaching-4x5   kqr1/pp2/4/2PP/1RQK  a little more to hide on 4x5
    minichess      kqbnr/ppppp/5/5/PPPPP/RNBQK   the seed's 5x6 board

These start positions are ours (no seed gives one for boards below 5x6); they are
chosen so that both sides have a king, a rook and a pawn that can meet within a
few moves.
"""

from __future__ import annotations

from blindchess.variants.minichess import MINICHESS, MiniChessRules
from blindchess.variants.recon import ReconMiniChessRules

TEACHING_4X4 = ReconMiniChessRules(MiniChessRules(name="teaching-4x4", files=4, ranks=4, start_placement="kr2/p3/3P/2RK"))
"""Recon on the 4x4 teaching board."""

TEACHING_4X5 = ReconMiniChessRules(
    MiniChessRules(name="teaching-4x5", files=4, ranks=5, start_placement="kqr1/pp2/4/2PP/1RQK")
)
"""Recon on the 4x5 teaching board."""

TEACHING_5X6 = ReconMiniChessRules(MINICHESS)
"""Recon on the seed's 5x6 Mini-Chess board."""

TEACHING_BOARDS: dict[str, ReconMiniChessRules] = {
    rules.game.name: rules for rules in (TEACHING_4X4, TEACHING_4X5, TEACHING_5X6)
}
"""The teaching boards by name."""
