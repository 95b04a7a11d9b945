"""The blunder suite's positions played by any flagship preset, over several seeds: which constraints it meets.

The suite (``tests/unit/bots/test_blunder_suite.py``) asks the ``fast`` preset for one move per
position with one seed (the turn). This asks the selector of any preset (``--settings``, as
``blindchess match`` takes them; the default preset when empty) with each seed of ``--seeds``,
at ``--clock`` seconds left (the selector's own plan, no time manager), and prints per position the
moves chosen and whether each meets the constraint, then the count. It needs no game, only
Stockfish, so it is the quick look at whether a preset breaks a rule the records show::

    python3 experiments/blunder_suite_check.py --only strangefish2-fair
    python3 experiments/blunder_suite_check.py --only fair/game-003 --seeds 0 1 2 3 4 5 --settings 'preset = "fast"'

A seed of -1 stands for the suite's own seed (the position's turn).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Optional

import numpy as np

from blindchess.arbiter.rules import reference as rules
from blindchess.bots.flagship_config import FlagshipConfig, configure
from blindchess.experiments.blunder_positions import beliefs_before, label, meets
from blindchess.moving import MoveContext
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.tournament.config import parse_settings

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "blunder_positions.json"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", type=Path, default=FIXTURE, help="the suite's positions (default the tests' fixture)")
    parser.add_argument("--only", default="", help="positions whose record's path holds this text")
    parser.add_argument("--settings", default="", help="the flagship's settings (default: its default preset)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[-1], help="seeds per position; -1 is the suite's (default)")
    parser.add_argument("--clock", type=float, default=300.0, help="seconds left on the clock (default 300, as the suite)")
    args = parser.parse_args(argv)
    suite = json.loads(args.fixture.read_text())
    positions = [p for p in suite["positions"] if args.only in p["source"]]
    if not positions:
        raise SystemExit(f"blunder_suite_check: no position's record matches {args.only!r}")
    games = {game["source"]: game for game in suite["games"]}
    config = configure(FlagshipConfig(), parse_settings(args.settings, "--settings"))
    met = tried = 0
    with contextlib.closing(StockfishMoveSelector(config.selector)) as selector:
        for source in dict.fromkeys(p["source"] for p in positions):
            beliefs = beliefs_before(games[source], {p["own_turn"] for p in positions if p["source"] == source})
            color = games[source]["color"] == "white"
            for position in (p for p in positions if p["source"] == source):
                belief = beliefs[position["own_turn"]]
                actions = rules.move_actions(next(iter(belief.sample(1, np.random.default_rng(0)))))
                chosen = []
                for seed in args.seeds:
                    start = time.process_time()
                    rng = np.random.default_rng(position["turn"] if seed < 0 else seed)
                    move = selector.choose_move(belief, actions, args.clock, rng, MoveContext(color))
                    ok = move is not None and meets(position, move)
                    met, tried = met + ok, tried + 1
                    chosen.append(f"{'-' if move is None else move.uci()}{'' if ok else ' FAILS'} ({time.process_time() - start:.1f} s)")
                print(f"{label(position)} (played {position['played']}): {', '.join(chosen)}", flush=True)
    print(f"{met} of {tried} choices meet their constraint ({len(positions)} positions, seeds {args.seeds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
