"""A player's clock: seconds at the start and seconds added after each of its turns.

Both players usually get the same clock (reconchess's `LocalGame(seconds_per_player,
seconds_increment)`); `LocalGame(time_controls=(white, black))` gives each its own, as
cutechess's per-engine ``tc=`` does, for time-odds matches (a bot against itself with half the
time measures what time is worth to it).

The text form is cutechess's ``SECONDS+INCREMENT`` without its ``MOVES/`` prefix (RBC has no
move-count controls): ``60+2`` is a minute plus two seconds a turn, ``60`` a minute and no increment.

>>> TimeControl.parse("60+2")
TimeControl(seconds=60.0, increment=2.0)
>>> str(TimeControl(900.0, 5.0)), str(TimeControl(30.5))
('900+5', '30.5+0')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blindchess.errors import BlindchessError


class TimeControlError(BlindchessError, ValueError):
    """A time control that is not ``SECONDS[+INCREMENT]`` with seconds above 0 and an increment of 0 or more."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """`seconds` on the clock at the start (``math.inf``: no clock) and `increment` added at the end of each own turn.

    The constructor takes any numbers, as reconchess's `LocalGame` does (a clock of 0 loses on
    time at once, which tests use); `parse`, where people type them, checks them.
    """

    seconds: float = math.inf
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``SECONDS[+INCREMENT]``, e.g. ``60+2`` or ``30``.

        Raises:
            TimeControlError: anything else, seconds not above 0 or not finite, or a negative increment.
        """
        start, plus, increment = text.strip().partition("+")
        try:
            seconds, added = float(start), float(increment) if plus else 0.0
        except ValueError:
            raise TimeControlError(f"a time control is SECONDS[+INCREMENT] such as 60+2, got {text!r}") from None
        if not (0 < seconds < math.inf and 0 <= added < math.inf):
            raise TimeControlError(f"a time control has finite seconds above 0 and an increment of 0 or more, got {text!r}")
        return cls(seconds, added)

    def __str__(self) -> str:
        return f"{self.seconds:g}+{self.increment:g}"
