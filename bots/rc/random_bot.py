"""Our RandomBot as a `reconchess.Player`: `rc-bot-match blindchess.bots.rc.random_bot ...`."""

from blindchess.arbiter.game.reconchess_adapter import to_reconchess_class
from blindchess.bots.random_bot import RandomBot as _RandomBot

RandomBot = to_reconchess_class(_RandomBot)
