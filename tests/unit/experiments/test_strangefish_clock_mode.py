"""experiments/strangefish_clock_mode.py: StrangeFish2's clock and modes per turn, read from its game log.

The log lines are StrangeFish2's own messages in its file format (`player_logging.verbose_format`),
copied from a log of the 300 + 5 match and edited only in their figures; no test runs StrangeFish2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from blindchess.experiments.spar_strangefish import keep_logs
from blindchess.experiments.strangefish_clock_mode import GameClock, main, turns_of


def line(message: str) -> str:
    return f'game-spar-3.agent DEBUG: "{message}" from strangefish_strategy.x line 1 at 2026-11-27 19:25:05,411'


def turn_lines(
    turn: int, boards: int, clock: float, sense: str, move_clock: float, *, converged: bool = False, last_ditch: bool = False
) -> list[str]:
    lines = [line(f"Choosing a sensing square for turn {turn} with {boards} boards and {clock:.0f} seconds remaining.")]
    if last_ditch:  # it says so once, the first time its clock is under 60 s
        lines.append(line("Time is running out! Switching to aggressive backup plan.").replace("DEBUG", "INFO"))
    if sense == "max-outcome":
        lines += [
            line(f"In sense phase with {clock:.2f} seconds left. Allowing up to 13.12 seconds for this sense step."),
            line("Spent 13.1 seconds computing new move scores"),
        ]
    else:
        lines.append(line(f"In sense phase with {clock:.2f} seconds left. Set size is {boards}."))
    lines += [
        line("Finished choosing sense location in 6.667 seconds."),
        line(f"Choosing move for turn {turn} from 30 moves over {boards} boards with {move_clock:.2f} seconds remaining."),
        line(f"In move phase with {move_clock:.2f} seconds left. Allowing up to 5.59 seconds for this move step."),
        *([line("Move choice seems to be converged; breaking loop")] if converged else []),
        line(f"Spent {1.0 if converged else 5.5} seconds computing new move scores"),
        line("Finished choosing move in 3.2e-05 seconds."),
    ]
    return lines


LOG = [
    'game-spar-3 DEBUG: "A new StrangeFish player was initialized." from strangefish_mht_core.__init__ line 99 at x',
    *turn_lines(1, 21, 300, "max-outcome", 296.67, converged=True),
    *turn_lines(2, 12000, 85, "min-states", 80.0),
    *turn_lines(3, 400, 55, "max-outcome", 50.0, last_ditch=True),
    *turn_lines(4, 300, 40, "max-outcome", 35.0, converged=True),
]


def test_turns_read_clock_mode_and_loops() -> None:
    turns = turns_of(LOG)
    assert [turn.turn for turn in turns] == [1, 2, 3, 4]
    assert [turn.clock for turn in turns] == [300, 85, 55, 40]
    assert [turn.sense for turn in turns] == ["max-outcome", "min-states", "max-outcome", "max-outcome"]
    assert [turn.move_clock for turn in turns] == [296.67, 80.0, 50.0, 35.0]
    assert [turn.converged for turn in turns] == [True, False, False, True]
    assert [turn.last_ditch for turn in turns] == [False, False, True, False]
    assert turns[0].sense_seconds == 6.667 and turns[0].move_seconds == pytest.approx(3.2e-05)
    # its Timer writes ``{:,.4g}``: thousands with a comma
    assert turns_of([LOG[1], line("Finished choosing sense location in 1,234 seconds.")])[0].sense_seconds == 1234
    # sense at 13.1 of 13.12 s is its allowance used up; a converged move loop (1.0 of 5.59 s) is not; 5.5 of 5.59 is
    assert [turn.loops_used_up() for turn in turns] == [(1, 2), (1, 1), (2, 2), (1, 2)]
    game = GameClock("g", turns)
    assert (game.below(90), game.below(60), game.last_ditch_turn()) == (3, 2, 3)
    # charged 3.33 + 5 + 5 + 5 s of clock for 4 senses of 6.667 s of its own wall time
    assert game.sense_cpu_share() == pytest.approx(18.33 / 26.668)
    # the three senses that ran to their 13.12 s allowance were charged 3.33 + 5 + 5 s
    assert game.charged_per_allowed() == pytest.approx(13.33 / (3 * 13.12))


def test_kept_log_reported_per_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs = tmp_path / "game_logs"
    logs.mkdir()
    (logs / "game_spar-9.log").write_text("\n".join(LOG) + "\n")
    (logs / "engine_logs").mkdir()  # its Stockfish's logs: not kept
    out = tmp_path / "match"
    out.mkdir()
    kept = keep_logs(logs, out / "game-001-flagship-vs-StrangeFish2.json")
    assert [path.name for path in kept] == ["game-001-flagship-vs-StrangeFish2.strangefish2.log.gz"]
    assert [path.name for path in logs.iterdir()] == ["engine_logs"]  # the game's log moved
    assert main([str(out)]) == 0
    summary, clocks = capsys.readouterr().out.strip().split("\n\n")
    assert summary.splitlines()[2].split() == ["game-001-flagship-vs-StrangeFish2", "4", "40", "3", "2", "3", "1", "5/7", "0.69", "0.34"]
    assert clocks.endswith("its clock at each own turn (s): 300 85 55 40")


def test_no_log_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no StrangeFish2 log"):
        main([str(tmp_path)])
