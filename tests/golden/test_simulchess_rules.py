"""simulchess golden tests: one per rule of the seed text and per settled open point (FEN + submissions -> outcome)."""

from __future__ import annotations

from typing import Optional

import chess
import pytest

from blindchess.variants.simulchess import IllegalSubmission, SimulGame, Submission, TurnReport
from blindchess.variants.simulchess.rules import NULL, needs_backup, submittable_moves

M = chess.Move.from_uci


def sub(primary: str, backup: Optional[str] = None) -> Submission:
    return Submission(M(primary) if primary != "pass" else NULL, None if backup is None else (M(backup) if backup != "pass" else NULL))


def play(game: SimulGame, white: Submission, black: Submission) -> TurnReport:
    return game.play_turn(white, black)


def fen_after(game: SimulGame) -> str:
    return game.state.board.board_fen()


# -- established threats -----------------------------------------------------------


def test_established_threat_i_a_piece_stepping_into_a_watched_line_can_be_taken() -> None:
    game = SimulGame("4k3/8/2n5/8/8/8/8/R3K3 w - - 0 1")
    play(game, sub("e1f1"), sub("c6a5"))  # the rook on a1 already watched a5
    assert M("a1a5") in submittable_moves(game.state, chess.WHITE)


def test_a_threat_made_by_moving_is_not_established_until_the_next_turn() -> None:
    game = SimulGame("4k3/8/8/4n3/8/8/8/R3K3 w - - 0 1")
    play(game, sub("a1a5"), sub("e8d8"))  # the rook now attacks e5, but did not from a1
    assert M("a5e5") not in submittable_moves(game.state, chess.WHITE)
    with pytest.raises(IllegalSubmission, match="a5e5"):
        play(game, sub("a5e5"), sub("d8e8"))
    play(game, sub("e1f1"), sub("d8e8"))
    assert M("a5e5") in submittable_moves(game.state, chess.WHITE)


def test_established_threat_ii_revealed_by_a_blocker_of_the_victims_colour() -> None:
    game = SimulGame("4k3/8/8/8/r7/8/8/R3K3 w - - 0 1")
    play(game, sub("e1f1"), sub("a4a7", "e8d8"))  # the black rook was its own blocker and ran up the file
    assert M("a1a7") in submittable_moves(game.state, chess.WHITE)
    game = SimulGame("7k/r7/8/8/B7/8/8/R3K3 w - - 0 1")
    play(game, sub("a4b5", "e1f1"), sub("h8g8"))  # a white blocker moved away: not established
    assert M("a1a7") not in submittable_moves(game.state, chess.WHITE)


# -- backups --------------------------------------------------------------------------


def test_fleeing_an_established_threat_needs_a_backup_used_when_the_capture_comes() -> None:
    game = SimulGame("4k3/8/8/n7/8/8/8/R3K3 w - - 0 1")
    assert needs_backup(game.state, chess.BLACK, M("a5c4"))
    with pytest.raises(IllegalSubmission, match="needs a backup"):
        play(game, sub("a1a5"), sub("a5c4"))
    with pytest.raises(IllegalSubmission, match="not a valid backup"):
        play(game, sub("a1a5"), sub("a5c4", "a5b3"))  # the backup may not move the threatened knight
    report = play(game, sub("a1a5"), sub("a5c4", "e8d8"))
    assert report.used_backup == (False, True) and report.played == (M("a1a5"), M("e8d8"))
    assert report.taken == ((chess.A5, chess.Piece(chess.KNIGHT, chess.BLACK)),)
    assert fen_after(game) == "3k4/8/8/R7/8/8/8/4K3"


def test_fleeing_succeeds_when_the_opponent_does_not_take() -> None:
    game = SimulGame("4k3/8/8/n7/8/8/8/R3K3 w - - 0 1")
    report = play(game, sub("e1f1"), sub("a5c4", "e8d8"))
    assert report.used_backup == (False, False) and fen_after(game) == "4k3/8/8/8/2n5/8/8/R4K2"


def test_pawn_advance_onto_a_contested_square_uses_the_backup() -> None:
    game = SimulGame("4k3/8/5n2/8/8/4P3/8/4K3 w - - 0 1")
    assert needs_backup(game.state, chess.WHITE, M("e3e4"))
    report = play(game, sub("e3e4", "e1d1"), sub("f6e4"))
    assert report.used_backup == (True, False) and fen_after(game) == "4k3/8/8/8/4n3/4P3/8/3K4"


def test_two_pawns_advancing_onto_one_square_the_pawn_on_that_side_moves() -> None:
    game = SimulGame("4k3/8/3p4/8/3P4/8/8/4K3 w - - 0 1")
    report = play(game, sub("d4d5", "e1d1"), sub("d6d5", "e8d8"))  # d5 is on Black's half
    assert report.used_backup == (True, False) and fen_after(game) == "4k3/8/8/3p4/3P4/8/8/3K4"
    game = SimulGame("4k3/8/8/3p4/8/3P4/8/4K3 w - - 0 1")
    report = play(game, sub("d3d4", "e1d1"), sub("d5d4", "e8d8"))  # d4 is on White's half
    assert report.used_backup == (False, True) and fen_after(game) == "3k4/8/8/3p4/3P4/8/8/4K3"


# -- conflicts ------------------------------------------------------------------------


def test_simultaneous_arrival_on_an_empty_square_takes_both_pieces() -> None:
    game = SimulGame("4k3/8/8/6n1/8/8/8/4K1N1 w - - 0 1")
    report = play(game, sub("g1f3"), sub("g5f3"))
    assert fen_after(game) == "4k3/8/8/8/8/8/8/4K3"
    assert {square for square, _ in report.taken} == {chess.G1, chess.G5}


def test_mutual_capture_takes_both_pieces() -> None:
    game = SimulGame("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    report = play(game, sub("a1a8", "e1d1"), sub("a8a1", "e8d8"))  # each rook is threatened: backups required
    assert report.used_backup == (False, False)
    assert fen_after(game) == "4k3/8/8/8/8/8/8/4K3"


def test_capturing_the_attacker_forces_the_attackers_backup() -> None:
    game = SimulGame("4k3/8/8/n7/8/2B5/8/R3K3 w - - 0 1")  # the c3 bishop and the a5 knight watch each other
    assert M("c3a5") in submittable_moves(game.state, chess.WHITE)
    report = play(game, sub("c3a5"), sub("a5c4", "e8d8"))
    assert report.used_backup == (False, True) and fen_after(game) == "3k4/8/8/B7/8/8/8/R3K3"


# -- en passant ----------------------------------------------------------------------


def test_en_passant_is_established_when_the_capturing_pawn_stood_still() -> None:
    game = SimulGame("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1")
    play(game, sub("e1f1"), sub("d7d5"))
    assert M("e5d6") in submittable_moves(game.state, chess.WHITE)
    report = play(game, sub("e5d6"), sub("e8f8"))
    assert report.taken == ((chess.D5, chess.Piece(chess.PAWN, chess.BLACK)),) and fen_after(game) == "5k2/8/3P4/8/8/8/8/5K2"


def test_en_passant_is_not_established_when_the_capturing_pawn_just_arrived() -> None:
    game = SimulGame("4k3/3p4/8/8/4P3/8/8/4K3 w - - 0 1")
    play(game, sub("e4e5"), sub("d7d5"))
    assert M("e5d6") not in submittable_moves(game.state, chess.WHITE)


# -- settled open points ---------------------------------------------------------------


def test_castling_only_without_established_threats_on_the_pieces_or_between() -> None:
    game = SimulGame("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert M("e1g1") in submittable_moves(game.state, chess.WHITE)
    play(game, sub("e1g1"), sub("e8d8"))
    assert fen_after(game) == "3k4/8/8/8/8/8/8/5RK1"
    game = SimulGame("4kr2/8/8/8/8/8/8/4K2R w K - 0 1")  # the f8 rook watches f1, between king and rook
    assert M("e1g1") not in submittable_moves(game.state, chess.WHITE)


def test_check_is_not_enforced_and_capturing_both_kings_is_a_draw() -> None:
    game = SimulGame("3rk3/8/8/8/8/8/8/4K3 w - - 0 1")
    assert M("e1d1") in submittable_moves(game.state, chess.WHITE)  # into the d8 rook's file: allowed
    game = SimulGame("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1")
    assert M("e2e1") in submittable_moves(game.state, chess.BLACK)  # the king sits in check: it may be taken
    game = SimulGame("R3k3/8/8/8/8/8/8/4K2r w - - 0 1")
    play(game, sub("a8e8"), sub("h1e1"))
    assert game.result is not None and game.result.winner is None and game.result.reason == "both kings"


def test_king_capture_wins_and_a_pass_is_only_for_a_player_without_moves() -> None:
    game = SimulGame("R3k3/8/8/8/8/8/8/4K3 w - - 0 1")
    with pytest.raises(IllegalSubmission, match="passed"):
        play(game, sub("pass"), sub("e8d8"))
    play(game, sub("a8e8"), sub("e8d7", "pass"))
    assert game.result is not None and game.result.winner == chess.WHITE and game.result.reason == "king capture"


def test_promotion_to_any_piece_defaulting_to_a_queen() -> None:
    game = SimulGame("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    play(game, sub("b7b8n"), sub("e8e7"))
    assert fen_after(game) == "1N6/4k3/8/8/8/8/8/4K3"
    game = SimulGame("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    report = play(game, sub("b7b8"), sub("e8e7"))
    assert report.played[0] == M("b7b8q") and fen_after(game) == "1Q6/4k3/8/8/8/8/8/4K3"


def test_backups_are_validated_when_submitted_so_they_never_need_revalidation() -> None:
    # Both knights are under established threat (the a1 rook and the h1 rook watch their files).
    game = SimulGame("4k3/8/8/n6n/8/8/8/R3K2R w - - 0 1")
    with pytest.raises(IllegalSubmission, match="not a valid backup"):
        play(game, sub("e1d1"), sub("a5c4", "h5g3"))  # the backup would flee another threatened piece
    # A contested pawn advance is no valid backup either (it could itself be overridden).
    game = SimulGame("4k3/8/4p3/8/n7/5N2/8/R3K3 w - - 0 1")  # the f3 knight can reach e5
    assert needs_backup(game.state, chess.BLACK, M("e6e5"))
    with pytest.raises(IllegalSubmission, match="not a valid backup"):
        play(game, sub("a1a4"), sub("a4c3", "e6e5"))
    report = play(game, sub("a1a4"), sub("a4c3", "pass"))  # the pass is always a valid backup
    assert report.used_backup == (False, True) and report.played[1] == chess.Move.null()
    assert report.taken == ((chess.A4, chess.Piece(chess.KNIGHT, chess.BLACK)),)


def test_an_attacker_that_moved_keeps_a_threat_it_already_had() -> None:
    game = SimulGame("4k3/8/n7/8/8/8/8/R3K3 w - - 0 1")
    play(game, sub("a1a2"), sub("e8d8"))  # from a1 the rook already watched a6
    assert M("a2a6") in submittable_moves(game.state, chess.WHITE)
    game = SimulGame("4k3/8/n7/8/8/8/8/1R2K3 w - - 0 1")
    play(game, sub("b1a1"), sub("e8d8"))  # from b1 it did not
    assert M("a1a6") not in submittable_moves(game.state, chess.WHITE)
