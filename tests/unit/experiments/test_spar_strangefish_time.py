"""experiments/spar_strangefish.py: StrangeFish2's ``time()`` replaced by CPU seconds (``--strangefish-time cpu``).

No test runs StrangeFish2: a stand-in package of our own reads the clock as its modules do
(``from time import time`` at import, deadlines and a 2 s ``while_we_wait``-style loop that sleeps).
"""

from __future__ import annotations

import importlib
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from blindchess.experiments.spar_strangefish import TurnClock, arguments, replace_time
from blindchess.moving.process_clock import ProcessTreeClock

from ..arbiter.cpu_clock_bots import needs_cgroups

STAND_IN = '''
from time import sleep, time


def sleep_for(seconds):
    """The seconds of time() a sleep of `seconds` took."""
    start = time()
    sleep(seconds)
    return time() - start


def wait_loop(seconds):
    """Loop for `seconds` of time(), sleeping 1 ms an iteration, as an idle ``while_we_wait`` does."""
    start = time()
    while time() - start < seconds:
        sleep(0.001)
'''


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    package = tmp_path / "standin_fish"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "strategy.py").write_text(STAND_IN)
    (package / "quiet.py").write_text("import time\n")  # imports the module, not the function: not replaced
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("standin_fish.quiet")  # by name: the package exists only under tmp_path, unseen by mypy
    yield importlib.import_module("standin_fish.strategy")
    for name in [name for name in sys.modules if name.startswith("standin_fish")]:
        del sys.modules[name]


def test_replaced_time_reads_cpu_on_its_turn_and_wall_while_pondering(stand_in: ModuleType) -> None:
    clock = TurnClock(ProcessTreeClock(lambda: []))
    assert replace_time("standin_fish", clock) == ["standin_fish.strategy"]
    assert stand_in.time is clock and sys.modules["standin_fish.quiet"].time is time
    assert stand_in.sleep_for(0.3) < 0.1  # a sleep costs no CPU: its deadlines do not pass while it waits
    pondered: list[float] = []

    def ponder() -> None:
        with clock.pondering():
            stand_in.wait_loop(0.2)  # in CPU seconds this would last minutes
            pondered.append(stand_in.sleep_for(0.3))

    thread = threading.Thread(target=ponder)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive() and pondered[0] >= 0.3
    assert stand_in.sleep_for(0.3) < 0.1  # the turn's thread still reads CPU seconds after pondering ended


def test_nothing_to_replace_is_an_error(stand_in: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"no loaded module of 'standin_fish\.quiet' reads time\.time"):
        replace_time("standin_fish.quiet", time.monotonic)


def test_strangefish_time_is_wall_under_a_wall_clock_unless_asked() -> None:
    base = ["--strangefish", "sf"]
    assert arguments(base).strangefish_time == "wall"
    assert arguments([*base, "--clock-mode", "wall", "--strangefish-time", "cpu"]).strangefish_time == "cpu"


@needs_cgroups
def test_strangefish_time_is_cpu_under_a_cpu_clock_unless_asked() -> None:
    base = ["--strangefish", "sf", "--clock-mode", "cpu"]
    assert arguments(base).strangefish_time == "cpu"
    assert arguments([*base, "--strangefish-time", "wall"]).strangefish_time == "wall"
