"""Bots: players composed of a belief, a sense planner and a move selector, plus the classic baselines."""
