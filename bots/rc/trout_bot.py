"""Our TroutBot as a `reconchess.Player`: `rc-bot-match blindchess.bots.rc.trout_bot ...`."""

from blindchess.arbiter.game.reconchess_adapter import to_reconchess_class
from blindchess.bots.trout_bot import TroutBot as _TroutBot

TroutBot = to_reconchess_class(_TroutBot)
