"""A bot is checked against the variant before any game: `match`, `sprt` and `tournament` refuse one that cannot play it.

Was: ``blindchess match trout random --variant teaching-4x4`` started, printed "Stockfish proposed
c1c8, which is not a move action" five times and played on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from blindchess.bots.registry import BOTS
from blindchess.cli import main
from blindchess.tournament.task import VARIANTS, plays, resolve_player_class

from .tournament_helpers import DETERMINISTIC_PLAYERS, write_config


def _refusal(capsys: pytest.CaptureFixture[str], argv: list[str], command: str) -> str:
    """The one error line of `argv`, which must exit 2."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"blindchess {command}: error: "), captured.err
    assert captured.out == ""
    return lines[0]


def test_match_refuses_a_bot_that_cannot_play_the_variant_and_names_those_that_can(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "games"
    line = _refusal(capsys, ["match", "trout", "random", "--variant", "teaching-4x4", "--out", str(out)], "match")
    assert "bot 'trout' cannot play teaching-4x4 (it plays rbc)" in line
    can = line.split("bots that can: ")[1].split(";")[0].split(", ")
    assert {"random", "recon", "policy"} <= set(can) and "trout" not in can and "flagship" not in can
    assert not out.exists()  # no game was played, nothing saved

    line = _refusal(capsys, ["match", "random", "recon", "--out", str(out)], "match")  # recon plays the small boards only
    assert "bot 'recon' cannot play rbc" in line and "trout" in line.split("bots that can: ")[1]


def test_sprt_and_tournament_refuse_it_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = _refusal(capsys, ["sprt", "random", "trout", "--variant", "teaching-4x5", "--workers", "1"], "sprt")
    assert "bot 'trout' cannot play teaching-4x5" in line
    config = write_config(tmp_path, DETERMINISTIC_PLAYERS, extra='variant = "recon-minichess"')
    db = tmp_path / "t.sqlite"
    line = _refusal(capsys, ["tournament", str(config), "--db", str(db), "--workers", "1"], "tournament")
    assert "bot 'trout' cannot play recon-minichess" in line
    assert not db.exists()


def test_every_bot_declares_variants_of_the_catalog() -> None:
    """A misspelt variant in a bot's declaration would refuse it everywhere: each name is one of `VARIANTS`."""
    for name in BOTS:
        player_class = resolve_player_class(name)
        assert player_class.variants is None or player_class.variants <= set(VARIANTS), name
        assert plays(player_class, "rbc") or name == "recon", name
