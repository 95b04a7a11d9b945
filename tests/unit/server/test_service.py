"""The remote-play service without HTTP: turn phases, server-side clocks, retries, ranked Elo."""

from __future__ import annotations

import logging
from pathlib import Path

import chess
import pytest

from blindchess.arbiter.types import WinReason
from blindchess.elo import expected_score, updated_ratings
from blindchess.server import (
    InvalidRequest,
    NotAPlayer,
    NotAuthenticated,
    NotFound,
    ServerConfig,
    Service,
    Store,
    UsernameTaken,
)
from blindchess.server.database import UserRow
from blindchess.server.passwords import hash_password, verify_password


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_service(tmp_path: Path, **config: object) -> tuple[Service, FakeClock]:
    clock = FakeClock()
    return Service(Store(tmp_path / "server.sqlite3"), ServerConfig(**config), clock=clock), clock  # type: ignore[arg-type]


def login(service: Service, username: str, password: str) -> UserRow:
    """The registered user `username`, who must log in with `password`."""
    user = service.authenticate(username, password)
    assert user is not None, f"{username} could not log in"
    return user


def started_game(service: Service) -> tuple[int, UserRow, UserRow]:
    service.register("white", "pw-white")
    service.register("black", "pw-black")
    white = login(service, "white", "pw-white")
    black = login(service, "black", "pw-black")
    game_id = service.invite(white, "black", chess.WHITE)
    service.ready(white, game_id)
    service.ready(black, game_id)
    return game_id, white, black


def test_passwords_are_salted_slow_hashes() -> None:
    first, second = hash_password("hunter2"), hash_password("hunter2")
    assert first != second and "hunter2" not in first
    assert first.startswith("scrypt$16384$")
    assert verify_password("hunter2", first) and not verify_password("hunter3", first)


def test_elo_is_zero_sum_and_favours_the_upset() -> None:
    white, black = updated_ratings(1500, 1700, 1.0)
    assert white + black == pytest.approx(3200)
    assert white - 1500 == pytest.approx(32 * (1 - expected_score(1500, 1700)))
    assert white - 1500 > 16  # beating a stronger player gains more than half of K
    with pytest.raises(ValueError, match=r"0\.7"):
        updated_ratings(1500, 1500, 0.7)


def test_accounts_and_credentials(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    service.register("ann", "secret")
    with pytest.raises(UsernameTaken, match="ann"):
        service.register("ann", "other")
    with pytest.raises(InvalidRequest, match="username"):
        service.register("a:b", "pw")
    with pytest.raises(NotAuthenticated):
        service.authenticate("ann", "wrong")
    with pytest.raises(NotAuthenticated):
        service.authenticate("nobody", "secret")
    assert login(service, "ann", "secret").username == "ann"
    assert service.active_usernames() == ["ann"]


def test_turn_phases_are_enforced_and_retries_are_answered_again(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    game_id, white, black = started_game(service)
    with pytest.raises(InvalidRequest, match="not your turn"):
        service.sense(black, game_id, 12)
    with pytest.raises(InvalidRequest, match="expects sense"):
        service.move(white, game_id, chess.Move.from_uci("e2e4"))
    first = service.sense(white, game_id, 12)
    assert service.sense(white, game_id, 12) == first  # a retried request: same answer, nothing re-applied
    with pytest.raises(InvalidRequest, match="expects move"):
        service.sense(white, game_id, 13)
    with pytest.raises(InvalidRequest, match="e2e5 was not in move_actions"):
        service.move(white, game_id, chess.Move.from_uci("e2e5"))
    result = service.move(white, game_id, chess.Move.from_uci("e2e4"))
    assert result == (chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    assert service.move(white, game_id, chess.Move.from_uci("e2e4")) == result
    service.end_turn(white, game_id)
    service.end_turn(white, game_id)  # retried: the turn has passed already, nothing happens
    game, color = service.game_for(black, game_id)
    assert color == chess.BLACK and game.is_my_turn(chess.BLACK) and len(game.actions) == 3
    with pytest.raises(InvalidRequest, match="not your turn"):
        game.move_actions(chess.WHITE)  # White may not peek at Black's options


def test_strangers_are_refused(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    game_id, white, _ = started_game(service)
    service.register("eve", "pw-eve")
    eve = login(service, "eve", "pw-eve")
    with pytest.raises(NotAPlayer):
        service.game_for(eve, game_id)
    with pytest.raises(NotAPlayer):
        service.sense(eve, game_id, 0)
    with pytest.raises(NotFound):
        service.game_for(white, game_id + 100)
    with pytest.raises(NotAPlayer):
        service.accept_invitation(eve, service.store.pending_invitation_ids(white.id + 1)[0])


def test_clock_runs_only_in_own_turn_and_move_result_handling_is_free(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, seconds_per_player=10.0, seconds_increment=2.0)
    game_id, white, black = started_game(service)
    clock.now += 3.0
    service.sense(white, game_id, None)
    service.move(white, game_id, None)
    assert service.seconds_left(white, game_id) == pytest.approx(7.0)
    service.end_turn(white, game_id)
    clock.now += 100.0  # White's handle_move_result and Black's thinking: not on White's clock
    assert service.seconds_left(white, game_id) == pytest.approx(9.0)
    assert service.seconds_left(black, game_id) == pytest.approx(-90.0)  # and so Black lost on time
    game, _ = service.game_for(white, game_id)
    assert game.result is not None and (game.result.winner_color, game.result.win_reason) == (chess.WHITE, WinReason.TIMEOUT)


def test_overrunning_clock_plus_increment_loses_on_time(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, seconds_per_player=10.0, seconds_increment=2.0)
    game_id, white, black = started_game(service)
    clock.now += 11.5  # past the clock, within the increment: still alive
    game, _ = service.game_for(black, game_id)
    assert not game.over
    clock.now += 1.0
    assert service.tick() == []
    game, _ = service.game_for(black, game_id)
    assert game.over and game.result is not None
    assert (game.result.winner_color, game.result.win_reason) == (chess.BLACK, WinReason.TIMEOUT)
    # after the end, turn actions are harmless no-ops, as in a local game
    assert service.sense(white, game_id, 3) == []


def test_error_resign_out_of_turn_and_resign_in_turn(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    game_id, white, black = started_game(service)
    with pytest.raises(InvalidRequest, match="not your turn"):
        service.resign(black, game_id)
    service.error_resign(black, game_id)
    game, _ = service.game_for(white, game_id)
    assert game.result is not None and (game.result.winner_color, game.result.win_reason) == (chess.WHITE, WinReason.TIMEOUT)
    assert game.result.history["win_reason"] == {"type": "WinReason", "value": "TIMEOUT"}


def test_restart_rebuilds_the_game_from_stored_actions(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path)
    game_id, white, black = started_game(service)
    for user, sense, move in ((white, 20, "e2e4"), (black, 28, "d7d5"), (white, 35, "e4d5")):
        service.sense(user, game_id, sense)
        service.move(user, game_id, chess.Move.from_uci(move))
        service.end_turn(user, game_id)
    service.sense(black, game_id, 9)
    service.store.close()
    restarted, _ = make_service(tmp_path)
    black = login(restarted, "black", "pw-black")
    game, _ = restarted.game_for(black, game_id)
    assert game.is_my_turn(chess.BLACK) and game.phase.value == "move"
    assert game.arbiter.board.fen() == "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
    assert restarted.move(black, game_id, chess.Move.from_uci("d8d5"))[2] == chess.D5


def test_ranked_scheduler_respects_max_games_versions_and_rates(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, seed=3)
    users: dict[str, UserRow] = {}
    for name in ("a", "b", "c"):
        service.register(name, "pw")
        users[name] = user = login(service, name, "pw")
        service.set_ranked(user, True)
    assert service.tick() == []  # nobody has a version yet
    for user in users.values():
        service.new_version(user)
        service.set_max_games(user, 1)
    created = service.tick()
    assert len(created) == 1  # three bots, one game slot each: one pair
    assert service.tick() == []
    game_id = created[0]
    players = {name: user for name, user in users.items() if _plays(service, user, game_id)}
    assert len(players) == 2
    for user in players.values():
        assert service.invitations(user) != []  # both players are invited to a ranked game
        service.ready(user, game_id)
    game = service.game_for(next(iter(players.values())), game_id)[0]
    loser = next(u for u in players.values() if service.game_for(u, game_id)[1] == game.turn)
    service.resign(loser, game_id)
    table = {row["username"]: row for row in service.ratings()}
    assert sorted(table) == sorted(players)
    assert table[loser.username]["elo"] == pytest.approx(1484.0) and table[loser.username]["losses"] == 1
    assert sum(row["elo"] for row in table.values()) == pytest.approx(3000.0)


def _invited_game(service: Service, invitation_id: int) -> int:
    """The game an existing invitation is for."""
    row = service.store.invitation(invitation_id)
    assert row is not None, f"no invitation {invitation_id}"
    return int(row["game_id"])


def _plays(service: Service, user: UserRow, game_id: int) -> bool:
    try:
        service.game_for(user, game_id)
    except NotAPlayer:
        return False
    return True


def test_finished_games_leave_memory_and_are_answered_from_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from blindchess.server import service as service_module

    monkeypatch.setattr(service_module, "FINISHED_GAMES_IN_MEMORY", 0)
    service, _ = make_service(tmp_path)
    game_id, white, black = started_game(service)
    service.sense(white, game_id, 10)
    service.move(white, game_id, chess.Move.from_uci("g1f3"))
    service.end_turn(white, game_id)
    service.resign(black, game_id)
    before = service.game_for(white, game_id)[0].result
    service.tick()
    assert game_id not in service._games
    after = service.game_for(white, game_id)[0].result
    assert after == before and after is not None and after.win_reason == WinReason.RESIGN
    assert after.history["requested_moves"]["true"] == [{"type": "Move", "value": "g1f3"}]


def test_leaving_ranked_play_withdraws_only_games_nobody_accepted(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, seed=5)
    users: dict[str, UserRow] = {}
    for name in ("a", "b"):
        service.register(name, "pw")
        users[name] = user = login(service, name, "pw")
        service.new_version(user)
        service.set_max_games(user, 2)
        service.set_ranked(user, True)
    first, second = service.tick()
    accepted = next(i for i in service.invitations(users["b"]) if _invited_game(service, i) == first)
    service.accept_invitation(users["b"], accepted)
    service.set_ranked(users["a"], False)
    statuses = {game_id: [row["status"] for row in service.store.invitations_of_game(game_id)] for game_id in (first, second)}
    assert statuses[first].count("cancelled") == 0  # b accepted it: it will be played
    assert statuses[second] == ["cancelled", "cancelled"]
    [still_offered] = service.store.pending_invitation_ids(users["a"].id)
    assert _invited_game(service, still_offered) == first
    cancelled_id = next(row["id"] for row in service.store.invitations_of_game(second) if row["recipient_id"] == users["b"].id)
    with pytest.raises(InvalidRequest, match="withdrawn"):
        service.accept_invitation(users["b"], cancelled_id)
    game, _ = service.game_for(users["a"], second)
    assert game.over and game.result is not None and game.result.history["type"] == "GameHistory"
    assert game.result.winner_color is None and game.result.win_reason is None


def test_a_game_not_started_in_time_is_withdrawn(tmp_path: Path) -> None:
    service, clock = make_service(tmp_path, start_timeout=30.0)
    service.register("host", "pw")
    service.register("absent", "pw")
    host = login(service, "host", "pw")
    game_id = service.invite(host, "absent", chess.WHITE)
    service.ready(host, game_id)
    clock.now += 29.0
    service.tick()
    assert not service.game_for(host, game_id)[0].over
    clock.now += 2.0
    service.tick()
    game, _ = service.game_for(host, game_id)
    assert game.over and game.result is not None
    assert (game.result.winner_color, game.result.win_reason) == (None, None)
    assert game.result.history["type"] == "GameHistory" and game.result.history["requested_moves"] == {"true": [], "false": []}
    assert [row["status"] for row in service.store.invitations_of_game(game_id)] == ["cancelled"]
    assert service.ratings() == []


def test_the_log_says_who_won_and_why_in_words(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 41: the log said ``winner True by WinReason.KING_CAPTURE``; now a colour, a name and the reason in words."""
    service, _ = make_service(tmp_path)
    game_id, white, _ = started_game(service)
    with caplog.at_level(logging.INFO, logger="blindchess.server.service"):
        service.resign(white, game_id)
    assert f"game {game_id} over: black (black) won by resignation" in caplog.messages, caplog.messages
