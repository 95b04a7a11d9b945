"""A benchmark's ``--baseline REV``: the same measurement by an older commit, in child processes beside the current one.

The commit REV is exported into a temporary folder as a ``blindchess`` package tree
(`blindchess.tournament.commit_bot.export_commit`, as ``BOT@REV`` bots are); a child process
imports that tree because PYTHONPATH comes before the installed package. The benchmark script
itself is the current one in both children, so it must only use what both commits offer. Baseline and current alternate round by round, so
machine load hits both alike, after one untimed run each (the first use of the numba kernels
compiles them, seconds that belong to no measurement).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Any, Optional


def run_child(script: str, argv: list[str], site: Optional[str]) -> Any:
    """Run `script` with ``--child`` and `argv` in a fresh process importing `blindchess` from `site` (None: as installed).

    The child prints its result as JSON on its last line of output; returns it.
    """
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = site + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, os.path.abspath(script), "--child", *argv]
    done = subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def alternate(script: str, argv: list[str], variants: dict[str, Optional[str]], rounds: int) -> dict[str, list[Any]]:
    """One untimed child per variant, then `rounds` rounds of one child each, the order reversed every other round."""
    for site in variants.values():
        run_child(script, argv, site)
    runs: dict[str, list[Any]] = {name: [] for name in variants}
    for index in range(rounds):
        for name in list(variants) if index % 2 == 0 else list(reversed(variants)):
            runs[name].append(run_child(script, argv, variants[name]))
    return runs


def print_rates(runs: dict[str, list[dict[str, float]]], unit: str) -> None:
    """A table of each measured rate's median over the rounds per variant, and current over baseline (above 1: faster)."""
    names = list(runs["current"][0])
    print(f"| {'measure':<40} | baseline {unit} | current {unit} | current/baseline |")
    print("|---|---:|---:|---:|")
    for name in names:
        baseline = statistics.median(run[name] for run in runs["baseline"])
        current = statistics.median(run[name] for run in runs["current"])
        print(f"| {name:<40} | {baseline:,.0f} | {current:,.0f} | {current / baseline:.3f} |")
