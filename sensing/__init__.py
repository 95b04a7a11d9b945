"""Sense planners: where to point the 3x3 sensor, given a belief."""
