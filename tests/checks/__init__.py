"""Checks of the code itself: mypy, ruff, the doctests, the layering and the module names."""
