"""The game: the local game and its flow, turns, clocks, the play loop, observations, the history and its codec.
"""
