"""Is the particle filter calibrated under a noisy sensor? Truth's probability against its prediction, and a reliability table.

Games of moves drawn uniformly from their distinct outcomes (the filter's own opponent
model), every sense window corrupted square by square with probability ``p``; the
filter assumes the same ``p`` (and, as a contrast, a sensor ten or a hundred times more
reliable). See :mod:`blindchess.beliefs.calibration` for the two measures.

    nice -n 10 python3 experiments/particle_calibration.py            # 60 games per row
"""

from __future__ import annotations

import argparse
import time

from blindchess.beliefs.calibration import noisy_sensing_calibration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--turns", type=int, default=12, help="full turns per game")
    parser.add_argument("--particles", type=int, default=1000)
    args = parser.parse_args()
    rows = [(p, p) for p in (0.05, 0.1, 0.2)] + [(0.1, 0.01), (0.1, 0.001)]
    print(f"{args.games} games of at most {args.turns} full turns, both colours, {args.particles} particles")
    print(
        f"{'sensor p':>8} {'model p':>8} {'squares':>8} {'truth p':>8} {'predicted':>9} {'gap':>7} {'ECE':>7}  "
        "reliability (n, forecast, frequency)"
    )
    for p_sensor, p_model in rows:
        started = time.monotonic()
        c = noisy_sensing_calibration(p_sensor, p_model, range(1000, 1000 + args.games), args.particles, args.turns)
        bins = " ".join(f"({n}, {f:.2f}, {h:.2f})" for n, f, h in c.reliability())
        print(f"{p_sensor:8.3f} {p_model:8.3f} {c.squares:8d} {c.mean_truth:8.4f} {c.mean_predicted:9.4f} "
              f"{c.mean_truth - c.mean_predicted:+7.4f} {c.ece:7.4f}  {bins}  [{time.monotonic() - started:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
