"""`blindchess posterior data|train|eval`: make training examples, train the posterior network, score it.

    blindchess posterior data --games 2000 --seed 1 --out data/posterior        # play and encode games
    blindchess posterior data --histories games/*.json --out data/mine           # encode your own histories
    blindchess posterior train data/posterior/*.npz --seed 0 --out model/        # train, save weights + config
    blindchess posterior eval model/ data/posterior/*.npz                         # bits per board, held-out games

`data` plays on the tournament runner's executors (``--workers``, ``--executor ray --address``)
and writes shards of ``--shard-games`` games each (``shard-00000.npz``, ...; the format is in
`blindchess.learning.examples`). `train` holds out ``--holdout`` percent of the games (by a hash
of the game id) and reports the held-out cross-entropy after every epoch; `eval` scores a saved
model on the held-out games of shards (``--holdout 100`` for every game). Progress goes to
stderr, results to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from blindchess.arbiter.game.history import HistoryFormatError
from blindchess.arguments import add_command, positive_int
from blindchess.command_errors import BadInputError
from blindchess.commands.cli_tournament import add_executor_arguments
from blindchess.tournament.base import ExecutorError
from blindchess.tournament.executors import make_executor


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "posterior",
        __doc__,
        "blindchess posterior data --games 24 --seed 1 --out data/posterior",
    )  # fmt: skip
    commands = parser.add_subparsers(dest="posterior_command", required=True)

    data = commands.add_parser("data", help="play games (or read histories) and write example shards")
    data.add_argument("--games", type=positive_int, default=100, help="games to play (default 100)")
    data.add_argument("--seed", type=int, default=0, help="run seed: game i's pairing and bot seeds are set by (seed, i)")
    # The default mix is learning.generate's DEFAULT_MIX, named here without importing it: that module loads
    # numba, and a parser must build without heavy imports (`blindchess --help` stays fast).
    data.add_argument("--mix", help="bots to pair at random, comma-separated (default random,attacker,trout)")
    data.add_argument("--full-turn-limit", type=positive_int, default=50, help="draw after this many full turns (default 50)")
    data.add_argument("--histories", nargs="+", help="encode these history files (ours or reconchess's JSON) instead of playing")
    data.add_argument("--shard-games", type=positive_int, default=500, help="games per shard file (default 500)")
    data.add_argument("--out", required=True, help="folder for the shards")
    add_executor_arguments(data, None)
    data.set_defaults(run=run_data)

    train = commands.add_parser("train", help="train a network on shards and save it")
    train.add_argument("shards", nargs="+", help="shard files (.npz)")
    train.add_argument("--out", required=True, help="folder for weights.pt and config.json")
    train.add_argument(
        "--replace-shipped",
        action="store_true",
        help="allow --out to be the model shipped in the package (beliefs/models/default): retrain it on purpose",
    )
    train.add_argument("--epochs", type=positive_int, default=3)
    train.add_argument("--batch", type=positive_int, default=32)
    train.add_argument("--learning-rate", type=float, default=2e-3)
    train.add_argument("--hidden", type=positive_int, default=192)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--holdout", type=int, default=10, help="percent of games held out (default 10)")
    train.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1; results depend on it; more threads on a busy machine are slower)",
    )
    train.set_defaults(run=run_train)

    score = commands.add_parser("eval", help="score a saved network on the held-out games of shards")
    score.add_argument("model", help="model folder (weights.pt + config.json)")
    score.add_argument("shards", nargs="+")
    score.add_argument("--holdout", type=int, default=10, help="percent of games held out, as in training (100: all)")
    score.set_defaults(run=run_eval)


def _progress(label: str, total: int) -> Any:
    def show(done: int) -> None:
        print(f"\r{label}: {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    return show


def _missing_history(path: str) -> str:
    """Why `path` names no history file, in words (a shell passes a pattern that matched nothing as it is)."""
    if any(character in path for character in "*?["):
        return f"--histories {path!r}: no file matches this pattern"
    return f"--histories {path!r}: no such file"


def run_data(args: argparse.Namespace) -> int:
    from blindchess.learning.examples import Sequence, read_history_files, write_shard
    from blindchess.learning.generate import DEFAULT_MIX, GenerationError, generate

    out = Path(args.out)
    if args.histories:
        missing = [path for path in args.histories if not Path(path).is_file()]
        if missing:
            raise BadInputError(_missing_history(missing[0]))
        try:
            sequences = read_history_files(args.histories)
        except HistoryFormatError as error:
            raise BadInputError(str(error)) from error
        out.mkdir(parents=True, exist_ok=True)
        print(json.dumps({"shard": str(write_shard(out / "histories.npz", sequences)), "sequences": len(sequences)}))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    mix = DEFAULT_MIX if args.mix is None else tuple(name.strip() for name in args.mix.split(",") if name.strip())
    try:
        executor = make_executor(args.executor, args.workers, args.address)
    except ExecutorError as error:
        raise BadInputError(str(error)) from error
    pending: list[Sequence] = []
    shards: list[str] = []
    failed: list[str] = []
    show = _progress("games", args.games)
    try:
        for done, game in enumerate(generate(args.games, args.seed, mix, executor, args.full_turn_limit, show), start=1):
            if isinstance(game, GenerationError):
                failed.append(str(game))
            else:
                pending += game
            if done % args.shard_games == 0 or done == args.games:
                shards.append(str(write_shard(out / f"shard-{len(shards):05d}.npz", pending)))
                pending = []
    except GenerationError as error:
        raise BadInputError(str(error)) from error
    finally:
        executor.close()
    print(json.dumps({"shards": shards, "games": args.games, "seed": args.seed, "mix": list(mix), "failed": failed}))
    return 0


def run_train(args: argparse.Namespace) -> int:
    from blindchess.beliefs.neural_model import default_model_path, save_model
    from blindchess.learning.examples import read_shards
    from blindchess.learning.train import TrainSettings, train

    if Path(args.out).resolve() == default_model_path().resolve() and not args.replace_shipped:
        raise BadInputError(
            f"--out {args.out} is the model shipped in the package; "
            "write to another folder, or add --replace-shipped to retrain the shipped model on purpose"
        )
    settings = TrainSettings(
        args.epochs, args.batch, args.learning_rate, args.hidden, args.seed, args.holdout, args.threads
    )
    sequences = read_shards(args.shards)

    def show(epoch: int, done: int, loss: float) -> None:
        print(
            f"\repoch {epoch + 1}/{settings.epochs}: batch {done}, loss {loss:.4f} nats/square",
            end="",
            file=sys.stderr,
            flush=True,
        )

    model, report = train(sequences, settings, show)
    print(file=sys.stderr)
    report["shards"] = [Path(p).name for p in args.shards]
    save_model(model, args.out, report)
    print(json.dumps(report, indent=2))
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from blindchess.beliefs.neural_model import load_model
    from blindchess.learning.examples import read_shards
    from blindchess.learning.train import evaluate, split

    _, held = split(read_shards(args.shards), args.holdout)
    print(json.dumps({"sequences": len(held), **evaluate(load_model(args.model), held)}, indent=2))
    return 0
