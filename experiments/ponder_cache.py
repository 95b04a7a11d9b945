"""How often does pondering answer the flagship's next turn: its pondered senses and the score cache's hit rate.

The flagship plays `--games` games (colours alternating) against `--opponent`, pondering after each
of its turns for `--ponder-seconds` (a timer sets the stop), in the game's own thread: the same
work `PonderingPlayer` runs on another thread while the opponent thinks, here given a fixed time
so that the measurement does not depend on the machine's load or the opponent's speed. The games
have no clock (pondering in the arbiter's thread would be charged to the clock): each flagship
move takes `--move-seconds` (`selector.unclocked_move_seconds`), each sense its planner's default.

Per game it prints the flagship's turns, the turns that began on the pondered belief, the turns that
sensed where pondering chose, the positions pondering searched, and the cache's lookups and
hits; then the totals.

    python3 experiments/ponder_cache.py --games 4 --ponder-seconds 2 --move-seconds 0.5
"""

from __future__ import annotations

import argparse
import threading
from typing import Optional

import chess

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.types import Square
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.flagship_config import FlagshipConfig, configure
from blindchess.bots.registry import make_bot, resolve_bot
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.tournament.config import parse_settings


class TimedPonderFlagship(FlagshipBot):
    """The flagship, pondering for a fixed time right after each own turn."""

    ponder_seconds = 2.0
    searched = 0

    def handle_move_result(
        self, requested_move: Optional[chess.Move], taken_move: Optional[chess.Move], captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        super().handle_move_result(requested_move, taken_move, captured_opponent_piece, capture_square)
        stop = threading.Event()
        timer = threading.Timer(self.ponder_seconds, stop.set)
        timer.start()
        selector = self.move_selector
        before = len(selector.cache) if isinstance(selector, StockfishMoveSelector) else 0
        self.ponder(stop)
        timer.cancel()
        if isinstance(selector, StockfishMoveSelector):
            self.searched += len(selector.cache) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--opponent", default="trout")
    parser.add_argument("--ponder-seconds", type=float, default=2.0)
    parser.add_argument("--move-seconds", type=float, default=0.5)
    parser.add_argument("--turn-limit", type=int, default=60, help="full turns before a draw")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settings", default="", help="the flagship's settings on top (TOML, e.g. 'selector.coverage.move_seconds = inf')")
    args = parser.parse_args()
    TimedPonderFlagship.ponder_seconds = args.ponder_seconds
    config: FlagshipConfig = configure(FlagshipBot.config, {"selector": {"unclocked_move_seconds": args.move_seconds}})
    config = configure(config, parse_settings(args.settings, "--settings"))
    _, opponent_class = resolve_bot(args.opponent)
    totals = [0] * 6
    print("| game | flagship | result | turns | pondered beliefs | pondered senses | positions pondered | lookups | hits |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for game in range(args.games):
        bot = TimedPonderFlagship(rng=args.seed + game, config=config)
        opponent = make_bot(opponent_class, args.seed + 1000 + game)
        white = game % 2 == 0
        first, second = (bot, opponent) if white else (opponent, bot)
        unclocked = LocalGame(seconds_per_player=None, seconds_increment=None, full_turn_limit=args.turn_limit)
        winner, reason, _ = play_local_game(first, second, unclocked)
        selector = bot.move_selector
        assert isinstance(selector, StockfishMoveSelector)
        cache = selector.cache
        result = "draw" if winner is None else ("won" if winner == (chess.WHITE if white else chess.BLACK) else "lost")
        row = [bot.game.turns, bot.game.pondered_turns, bot.game.pondered_senses, bot.searched, cache.lookups, cache.hits]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        reason_name = reason.name if reason is not None else "-"
        print(f"| {game + 1} | {'white' if white else 'black'} | {result} ({reason_name}) | " + " | ".join(map(str, row)) + " |")
    turns, beliefs, senses, searched, lookups, hits = totals
    print(f"| all | | | {turns} | {beliefs} | {senses} | {searched} | {lookups} | {hits} |")
    print(f"\npondered senses {senses / max(1, turns):.0%} of turns; cache hit rate {hits / max(1, lookups):.1%}")


if __name__ == "__main__":
    main()
