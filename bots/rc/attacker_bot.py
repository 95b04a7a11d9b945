"""Our AttackerBot as a `reconchess.Player`: `rc-bot-match blindchess.bots.rc.attacker_bot ...`."""

from blindchess.arbiter.game.reconchess_adapter import to_reconchess_class
from blindchess.bots.attacker_bot import AttackerBot as _AttackerBot

AttackerBot = to_reconchess_class(_AttackerBot)
