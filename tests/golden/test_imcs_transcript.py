"""IMCS 2.5 transcripts on loopback: exact server lines for commands, a short game, bad moves and every result code."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from blindchess.cli import main as cli_main
from blindchess.variants.imcs_client import play_imcs_game
from blindchess.variants.imcs_server import HELP_LINES, ImcsServer
from blindchess.variants.minichess_engine import AlphaBetaPlayer, GreedyMiniChessPlayer

START_BOARD = ["kqbnr", "ppppp", ".....", ".....", "PPPPP", "RNBQK"]


class FakeClock:
    """A clock the test moves by hand, so that the clock lines of a transcript are exact."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Line:
    """A raw protocol connection, as a third-party client (or telnet) would open it."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("r", encoding="ascii", newline="\n")

    def send(self, text: str) -> None:
        self.sock.sendall((text + "\r\n").encode("ascii"))

    def read(self, n: int = 1) -> list[str]:
        lines = []
        for _ in range(n):
            raw = self.reader.readline()
            assert raw.endswith("\r\n"), f"line {raw!r} is not CRLF-terminated"
            lines.append(raw[:-2])
        return lines

    def ask(self, text: str, n: int = 1) -> list[str]:
        self.send(text)
        return self.read(n)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


@pytest.fixture()
def server() -> Iterator[tuple[ImcsServer, FakeClock]]:
    clock = FakeClock()
    srv = ImcsServer(("127.0.0.1", 0), clock=clock)
    srv.start_in_thread()
    yield srv, clock
    srv.shutdown()
    srv.server_close()


def login(port: int, name: str) -> Line:
    line = Line(port)
    assert line.read() == ["100 imcs 2.5"]
    assert line.ask(f"register {name} pw") == [f"202 hello new user {name}"]
    return line


def prompt(move_number: int, side: str, board: list[str], clocks: str = "? 05:00.000 05:00.000") -> list[str]:
    return ["", f"{move_number} {side}", *board, "", clocks]


def start_game(port: int, offer: str = "offer W 300 300") -> tuple[Line, Line]:
    alice, bob = login(port, "alice"), login(port, "bob")
    assert alice.ask(offer) == ["103 1 game waiting for offer acceptance"]
    assert bob.ask("list", 3) == ["211 1 available games", " 1 alice W 5:00 5:00 1500 [offer]", "."]
    assert bob.ask("accept 1") == ["106 B 5:00 5:00 game starts"]
    assert alice.read() == ["105 W 5:00 5:00 game starts"]
    return alice, bob


def test_command_transcript_with_every_error_code(server: tuple[ImcsServer, FakeClock]) -> None:
    port = server[0].server_address[1]
    line = Line(port)
    assert line.read() == ["100 imcs 2.5"]
    assert line.ask("bogus") == ["501 unknown command"]
    assert line.ask("offer W") == ["404 must set name first using me command"]
    assert line.ask("accept 1") == ["406 must set name first using me command"]
    assert line.ask("password x") == ["403 please use the me command first"]
    assert line.ask("me carol pw") == ["400 no such username: please use register command"]
    assert line.ask("register carol pw") == ["202 hello new user carol"]
    assert line.ask("register carol other") == ["402 username already exists: please use password command to change"]
    assert line.ask("register bad/name pw") == ["410 illegal characters in username"]
    assert line.ask("me carol wrong") == ["401 wrong password"]
    assert line.ask("me carol pw") == ["201 hello carol"]
    assert line.ask("me carol") == ["409 me: usage: me <name> <password>"]
    assert line.ask("password pw2") == ["203 password change for user carol"]
    assert line.ask("offer X") == ["405 bad color X"]
    assert line.ask("accept abc") == ["407 bad game id"]
    assert line.ask("accept 99") == ["408 no such game"]
    assert line.ask("list", 2) == ["211 0 available games", "."]
    assert line.ask("ratings", 3) == ["212 ratings", " carol 1500", "."]
    assert line.ask("help", len(HELP_LINES)) == list(HELP_LINES)
    assert line.ask("clean") == ["204 0 games cleaned"]
    assert line.ask("quit") == ["200 Goodbye"]
    line.close()


def test_short_game_with_illegal_and_malformed_moves_ends_231(server: tuple[ImcsServer, FakeClock]) -> None:
    alice, bob = start_game(server[0].server_address[1])
    assert alice.read(10) == prompt(1, "W", START_BOARD)
    assert alice.ask("a2-a4", 11) == ["- illegal move a2-a4", *prompt(1, "W", START_BOARD)]
    assert alice.ask("zz", 11) == ["- invalid move zz", *prompt(1, "W", START_BOARD)]
    alice.send("b1-c3")
    board = ["kqbnr", "ppppp", ".....", "..N..", "PPPPP", "R.BQK"]
    assert bob.read(11) == ["! b1-c3", *prompt(1, "B", board)]
    bob.send("! b5-b4")  # the "! move" form is accepted too
    board = ["kqbnr", "p.ppp", ".p...", "..N..", "PPPPP", "R.BQK"]
    assert alice.read(11) == ["! b5-b4", *prompt(2, "W", board)]
    alice.send("a1-b1")
    board = ["kqbnr", "p.ppp", ".p...", "..N..", "PPPPP", ".RBQK"]
    assert bob.read(11) == ["! a1-b1", *prompt(2, "B", board)]
    bob.send("a6-b5")
    board = [".qbnr", "pkppp", ".p...", "..N..", "PPPPP", ".RBQK"]
    assert alice.read(11) == ["! a6-b5", *prompt(3, "W", board)]
    alice.send("c3-b5")
    assert alice.read(2) == ["= W wins", "231 W wins"]
    assert bob.read(3) == ["! c3-b5", "= W wins", "231 W wins"]
    assert alice.reader.readline() == "" and bob.reader.readline() == ""  # both connections are closed
    carol = login(server[0].server_address[1], "carol")
    assert carol.ask("ratings", 5) == ["212 ratings", " alice 1516", " carol 1500", " bob 1484", "."]


def test_resignation_ends_232(server: tuple[ImcsServer, FakeClock]) -> None:
    alice, bob = start_game(server[0].server_address[1])
    alice.read(10)
    assert alice.ask("resign", 2) == ["= B wins on opponent resignation", "232 B wins on opponent resignation"]
    assert bob.read(2) == ["= B wins on opponent resignation", "232 B wins on opponent resignation"]


def test_running_out_of_time_loses_and_the_first_move_is_free(server: tuple[ImcsServer, FakeClock]) -> None:
    srv, clock = server
    alice, bob = start_game(srv.server_address[1])
    alice.read(10)
    clock.now += 100  # each side's first move does not use its clock
    alice.send("a2-a3")
    bob.read(11)
    bob.send("a5-a4")
    alice.read(11)
    clock.now += 7.5
    alice.send("b2-b3")
    assert bob.read(11)[-1] == "? 05:00.000 04:52.500"  # Black's clock, then White's
    bob.send("b5-b4")
    assert alice.read(11)[-1] == "? 04:52.500 05:00.000"
    clock.now += 293  # more than White's remaining 4:52.5
    alice.send("c2-c3")
    assert alice.read(2) == ["= B wins on opponent time", "232 B wins on opponent time"]
    assert bob.read(2) == ["= B wins on opponent time", "232 B wins on opponent time"]


def test_forty_moves_each_is_a_draw_230(server: tuple[ImcsServer, FakeClock]) -> None:
    alice, bob = start_game(server[0].server_address[1])
    white_moves, black_moves = ("b1-a3", "a3-b1"), ("d6-c4", "c4-d6")
    for ply in range(80):
        mover = alice if ply % 2 == 0 else bob
        lines = mover.read(10 if ply == 0 else 11)
        assert lines[-1].startswith("? ")
        mover.send((white_moves if ply % 2 == 0 else black_moves)[(ply // 2) % 2])
    assert bob.read(2) == ["= draw", "230 draw"]
    assert alice.read(3) == ["! c4-d6", "= draw", "230 draw"]


def test_offer_with_either_colour_and_accept_asking_for_white(server: tuple[ImcsServer, FakeClock]) -> None:
    port = server[0].server_address[1]
    alice, bob = login(port, "alice"), login(port, "bob")
    assert alice.ask("offer ? 60 120") == ["103 1 game waiting for offer acceptance"]
    assert bob.ask("list", 3) == ["211 1 available games", " 1 alice ? 1:00 2:00 1500 [offer]", "."]
    assert bob.ask("accept 1 W") == ["105 W 2:00 1:00 game starts"]
    assert alice.read() == ["106 B 1:00 2:00 game starts"]


def test_an_offer_is_withdrawn_when_its_player_disconnects(server: tuple[ImcsServer, FakeClock]) -> None:
    port = server[0].server_address[1]
    alice, bob = login(port, "alice"), login(port, "bob")
    assert alice.ask("offer W") == ["103 1 game waiting for offer acceptance"]
    assert bob.ask("list", 3)[0] == "211 1 available games"
    alice.close()
    deadline = time.monotonic() + 5
    while server[0].offers and time.monotonic() < deadline:
        time.sleep(0.01)
    assert bob.ask("list", 2) == ["211 0 available games", "."]
    assert bob.ask("accept 1") == ["408 no such game"]


def test_client_against_client_plays_a_full_game_over_loopback(tmp_path: Path) -> None:
    users = tmp_path / "users.json"
    srv = ImcsServer(("127.0.0.1", 0), users_path=users)
    srv.start_in_thread()
    port = srv.server_address[1]
    results = {}

    def offerer() -> None:
        results["white"] = play_imcs_game(AlphaBetaPlayer(max_depth=3), ("127.0.0.1", port), "engine", "pw", offer="W")

    thread = threading.Thread(target=offerer)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.offers and time.monotonic() < deadline:
        time.sleep(0.01)
    results["black"] = play_imcs_game(GreedyMiniChessPlayer(np.random.default_rng(3)), ("127.0.0.1", port), "greedy", "pw", accept=1)
    thread.join(timeout=30)
    srv.shutdown()
    srv.server_close()
    white, black = results["white"], results["black"]
    assert (white.color, black.color) == (True, False)
    assert white.code == black.code and white.text == black.text
    assert white.winner is True  # the alpha-beta engine beats the greedy player
    assert white.moves_sent in (black.moves_sent, black.moves_sent + 1)
    stored = json.loads(users.read_text())  # the user file keeps passwords and updated ratings
    assert stored["engine"] == {"password": "pw", "rating": 1516.0} and stored["greedy"]["rating"] == 1484.0
    reloaded = ImcsServer(("127.0.0.1", 0), users_path=users)
    assert reloaded.ratings == {"engine": 1516.0, "greedy": 1484.0}
    reloaded.server_close()


def test_cli_imcs_command_plays_against_a_raw_client(capsys: pytest.CaptureFixture[str]) -> None:
    srv = ImcsServer(("127.0.0.1", 0))
    srv.start_in_thread()
    port = srv.server_address[1]
    codes = []
    thread = threading.Thread(
        target=lambda: codes.append(
            cli_main([
                "imcs", "alphabeta", "--server", f"127.0.0.1:{port}", "--user", "cli", "--password", "pw",
                "--offer", "B", "--depth", "2",
            ])
        )
    )
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.offers and time.monotonic() < deadline:
        time.sleep(0.01)
    human = login(port, "human")
    assert human.ask("accept 1") == ["105 W 5:00 5:00 game starts"]
    human.read(10)
    assert human.ask("resign", 2) == ["= B wins on opponent resignation", "232 B wins on opponent resignation"]
    thread.join(timeout=30)
    srv.shutdown()
    srv.server_close()
    assert codes == [0]
    assert "232 B wins on opponent resignation (we played Black" in capsys.readouterr().out


def test_accept_takes_a_game_id_in_its_canonical_digits_only(server: tuple[ImcsServer, FakeClock]) -> None:
    """Issue 41: ``accept 01`` and ``accept 001`` accepted game 1 (``isdigit`` passed them)."""
    port = server[0].server_address[1]
    alice, bob = login(port, "alice"), login(port, "bob")
    assert alice.ask("offer W 300 300") == ["103 1 game waiting for offer acceptance"]
    assert [bob.ask(f"accept {spelling}") for spelling in ("01", "001")] == [["407 bad game id"]] * 2
    assert bob.ask("accept 1") == ["106 B 5:00 5:00 game starts"]
