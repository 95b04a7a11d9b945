"""Experiments at scale: games as pure tasks, executors (process pool, Ray), tournaments, ratings and the SPRT."""
