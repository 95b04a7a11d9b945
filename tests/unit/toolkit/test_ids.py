"""Game ids in their canonical digits only (`blindchess.ids`), property-tested against ``str(int)``; and ``imcs --accept``."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from blindchess.cli import main
from blindchess.ids import RULE, GameIdError, is_canonical_id, parse_game_id

SECOND_SPELLINGS = ("1.0", " 1", "1 ", "+1", "01", "1_0", "\u0661", "\uff11", "1e0", "0", "-1", "", "0x1")
"""What ``int``, pydantic or ``str.isdigit`` read as a game (issue 41 found ``1.0``, `` 1`` and ``+1``)."""


@given(st.integers(min_value=-(10**20), max_value=10**20))
def test_the_digits_str_gives_are_the_only_spelling(number: int) -> None:
    assert is_canonical_id(str(number)) == (1 <= number < 10**19)
    if is_canonical_id(str(number)):
        assert parse_game_id(str(number)) == number


@given(st.text(max_size=8))
def test_any_accepted_text_is_what_str_gives_back(text: str) -> None:
    """The differential side: whatever is accepted, ``str(int(text))`` writes again unchanged."""
    if is_canonical_id(text):
        assert str(int(text)) == text
    else:
        with pytest.raises(GameIdError, match="an id is a positive whole number in digits"):
            parse_game_id(text)


@pytest.mark.parametrize("spelling", SECOND_SPELLINGS)
def test_second_spellings_are_refused(spelling: str) -> None:
    with pytest.raises(GameIdError, match=re.escape(f"got {spelling!r}")):
        parse_game_id(spelling)


@pytest.mark.parametrize("spelling", ["+1", " 1", "1_0"])
def test_imcs_accept_refuses_a_second_spelling_in_one_line(spelling: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: ``--accept`` was ``type=int``, so ``+1`` and `` 1`` accepted game 1 and ``1_0`` game 10."""
    with pytest.raises(SystemExit) as exited:
        main(["imcs", "random", "--server", "127.0.0.1:1", "--user", "u", "--password", "p", "--accept", spelling])
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert exited.value.code == 2 and len(errors) == 1, errors
    assert errors[0] == f"blindchess imcs: error: argument --accept: {RULE}, got {spelling!r}; see 'blindchess imcs --help'"
