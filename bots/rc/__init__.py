"""Our baseline bots as `reconchess.Player`\\ s, one per module, for reconchess's own scripts.

reconchess's `load_player` accepts a module name, so::

    rc-bot-match blindchess.bots.rc.trout_bot reconchess.bots.random_bot
    rc-connect blindchess.bots.rc.random_bot ...

Importing these modules imports reconchess (a test dependency). For your own bot, write a file
with ``MyBot = to_reconchess_class(MyBot)`` (from `blindchess.arbiter.game.reconchess_adapter`).
"""
