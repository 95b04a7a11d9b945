"""Learn to play recon chess by reinforcement: PPO against the random bot, from one seeded command.

Question: can a small network learn, from the observation tensors alone, to beat the random bot?

The learner plays :class:`~blindchess.env.single.BotOpponentEnv` (a random colour each game) and
is trained by PPO (clipped policy-gradient with a learned value baseline, Schulman et al. 2017)
with masked logits, so it only ever picks legal senses and move requests. Every update collects
``--steps`` environment steps from ``--envs`` games at once (one batched forward pass per step),
then runs ``--epochs`` passes of minibatch updates. The curve (share of games won per update)
goes to a plot, the weights to a policy file that :class:`~blindchess.env.policy_bot.PolicyBot`
loads. The evaluation then plays ``--eval-games`` games of that *saved* bot against the random
bot with the arbiter's `play_local_game` (colours alternating) and prints the score with its 95%
Wilson interval.

The worked example (4x4 teaching board; about 130 CPU seconds, one torch thread)::

    python3 experiments/train_policy.py --variant teaching-4x4 --updates 60 --seed 1 \
        --out env/models/teaching-4x4.pt --plot docs/images/policy_teaching_4x4.png

On 8x8 with the batched environment (``--batched``: the games in one
:class:`~blindchess.env.batch.BatchedGames`, the bot's turns inside its compiled step; the shipped
``env/models/rbc.pt``, about 260 CPU seconds, docs/env.md)::

    python3 experiments/train_policy.py --variant rbc --batched --updates 12 --steps 4096 --envs 64 --seed 1 \
        --turn-limit 60 --out env/models/rbc.pt --plot docs/images/policy_rbc.png --eval-games 200

The GPU is used when torch sees one (``--device``), else the CPU with ``--threads`` threads.
"""

from __future__ import annotations

import argparse
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np
import torch

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.bots.random_bot import RandomBot
from blindchess.env.actions import ActionCodec
from blindchess.env.batch import CODEC, BatchedGames
from blindchess.env.policy import PolicyNet, save_policy
from blindchess.env.policy_bot import PolicyBot
from blindchess.env.single import BotOpponentEnv
from blindchess.tournament.stats import wilson_interval

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """The training run's knobs (the command line's options)."""

    variant: str = "teaching-4x4"
    opponent: str = "random"
    updates: int = 60
    envs: int = 16
    steps: int = 2048
    epochs: int = 4
    minibatch: int = 512
    learning_rate: float = 3e-4
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    hidden: int = 128
    turn_limit: Optional[int] = None
    seed: int = 1
    batched: bool = False


@dataclass(frozen=True)
class UpdateRecord:
    """One point of the learning curve."""

    update: int
    env_steps: int
    games: int
    win_share: float
    loss_share: float
    mean_length: float
    cpu_seconds: float


@dataclass
class Batch:
    observations: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the masked policy: the actions outside the mask get probability 0 (exactly, in float32)."""
    return torch.log_softmax(logits.masked_fill(masks == 0, -1e9), dim=1)


def chosen(log_probs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Each row's log-probability of its action."""
    return log_probs.gather(1, actions[:, None]).squeeze(1)


class Rollouts:
    """`envs` games against the opponent, stepped together; collects PPO batches and game results."""

    def __init__(self, settings: Settings, device: torch.device) -> None:
        self.settings, self.device = settings, device
        options: dict[str, Any] = {} if settings.turn_limit is None else {"turn_limit": settings.turn_limit}
        self.envs = [BotOpponentEnv(settings.variant, settings.opponent, **options) for _ in range(settings.envs)]
        self.codec: ActionCodec = self.envs[0].aec.codec
        self.observations = [env.reset(seed=settings.seed * 100_003 + index)[0] for index, env in enumerate(self.envs)]
        self.lengths = [0] * len(self.envs)
        self.results: list[tuple[float, int]] = []  # (reward, steps) of each finished game

    def collect(self, net: PolicyNet, generator: torch.Generator) -> Batch:
        settings, n = self.settings, len(self.envs)
        horizon = max(1, settings.steps // n)
        steps = Steps([], [], [], [], [], [], [])
        for _ in range(horizon):
            obs = torch.as_tensor(np.stack([o["observation"] for o in self.observations]), device=self.device)
            mask = torch.as_tensor(np.stack([o["action_mask"] for o in self.observations]), device=self.device)
            with torch.no_grad():
                logits, value = net(obs)
                log_prob = masked_log_probs(logits, mask)
                action = torch.multinomial(log_prob.exp(), 1, generator=generator).squeeze(1)
            step_rewards, step_dones = np.zeros(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
            for index, env in enumerate(self.envs):
                observation, reward, terminated, truncated, _ = env.step(int(action[index]))
                self.lengths[index] += 1
                step_rewards[index] = reward
                if terminated or truncated:
                    step_dones[index] = 1.0
                    self.results.append((reward, self.lengths[index]))
                    self.lengths[index] = 0
                    observation, _ = env.reset()
                self.observations[index] = observation
            steps.append(obs, mask, action, chosen(log_prob, action), value, torch.as_tensor(step_rewards, device=self.device),
                         torch.as_tensor(step_dones, device=self.device))  # fmt: skip
        with torch.no_grad():
            obs = torch.as_tensor(np.stack([o["observation"] for o in self.observations]), device=self.device)
            next_value = net(obs)[1]
        return ppo_batch(settings, steps, next_value)


class BatchedRollouts:
    """The same rollouts from one `BatchedGames` (8x8 only): the opponent's turns and restarts inside one compiled call."""

    def __init__(self, settings: Settings, device: torch.device) -> None:
        if settings.variant != "rbc":
            raise ValueError(f"--batched plays 8x8 RBC only, not {settings.variant!r}")
        self.settings, self.device, self.codec = settings, device, CODEC
        self.batch = BatchedGames(settings.envs, sides="alternate", opponent=settings.opponent, turn_limit=settings.turn_limit)
        self.batch.reset(seed=settings.seed)
        self.lengths = np.zeros(settings.envs, dtype=np.int64)
        self.results: list[tuple[float, int]] = []

    def collect(self, net: PolicyNet, generator: torch.Generator) -> Batch:
        settings, batch, device = self.settings, self.batch, self.device
        steps = Steps([], [], [], [], [], [], [])
        for _ in range(max(1, settings.steps // batch.n_games)):
            obs = torch.from_numpy(batch.observation.copy()).to(device)  # copies: the batch's buffers change next step
            mask = torch.from_numpy(batch.mask.copy()).to(device)
            with torch.no_grad():
                logits, value = net(obs)
                log_prob = masked_log_probs(logits, mask)
                action = torch.multinomial(log_prob.exp(), 1, generator=generator).squeeze(1)
            batch.step(action.cpu().numpy())
            self.lengths += 1
            done = batch.terminated | batch.truncated
            for g in np.flatnonzero(done):
                self.results.append((float(batch.reward[g]), int(self.lengths[g])))
                self.lengths[g] = 0
            steps.append(obs, mask, action, chosen(log_prob, action), value, torch.from_numpy(batch.reward.copy()).to(device),
                         torch.from_numpy(done.astype(np.float32)).to(device))  # fmt: skip
        with torch.no_grad():
            next_value = net(torch.from_numpy(batch.observation.copy()).to(device))[1]
        return ppo_batch(settings, steps, next_value)


@dataclass
class Steps:
    """One rollout's per-step tensors, in step order (each of shape (games, ...))."""

    observations: list[torch.Tensor]
    masks: list[torch.Tensor]
    actions: list[torch.Tensor]
    log_probs: list[torch.Tensor]
    values: list[torch.Tensor]
    rewards: list[torch.Tensor]
    dones: list[torch.Tensor]

    def append(self, *step: torch.Tensor) -> None:
        for column, tensor in zip(
            (self.observations, self.masks, self.actions, self.log_probs, self.values, self.rewards, self.dones), step, strict=True
        ):
            column.append(tensor)


def ppo_batch(settings: Settings, steps: Steps, next_value: torch.Tensor) -> Batch:
    """The PPO batch of a rollout: its steps flattened, with advantages by generalised advantage estimation."""
    values, horizon = steps.values, len(steps.values)
    advantages = torch.zeros(horizon, values[0].shape[0], device=values[0].device)
    running = torch.zeros_like(values[0])
    for t in reversed(range(horizon)):  # generalised advantage estimation
        following = next_value if t == horizon - 1 else values[t + 1]
        alive = 1.0 - steps.dones[t]
        delta = steps.rewards[t] + settings.gamma * following * alive - values[t]
        running = delta + settings.gamma * settings.lam * alive * running
        advantages[t] = running
    value_tensor = torch.stack(values)
    return Batch(
        torch.cat(steps.observations), torch.cat(steps.masks), torch.cat(steps.actions), torch.cat(steps.log_probs),
        advantages.reshape(-1), (advantages + value_tensor).reshape(-1),
    )


def ppo_update(net: PolicyNet, optimiser: torch.optim.Optimizer, batch: Batch, settings: Settings, generator: torch.Generator) -> None:
    size = batch.actions.shape[0]
    advantages = (batch.advantages - batch.advantages.mean()) / (batch.advantages.std() + 1e-8)
    for _ in range(settings.epochs):
        order = torch.randperm(size, generator=generator).to(batch.actions.device)
        for start in range(0, size, settings.minibatch):
            rows = order[start : start + settings.minibatch]
            logits, values = net(batch.observations[rows])
            log_prob = masked_log_probs(logits, batch.masks[rows])
            ratio = torch.exp(chosen(log_prob, batch.actions[rows]) - batch.log_probs[rows])
            gain = advantages[rows]
            policy_loss = -torch.min(ratio * gain, ratio.clamp(1 - settings.clip, 1 + settings.clip) * gain).mean()
            value_loss = 0.5 * (values - batch.returns[rows]).pow(2).mean()
            entropy = -(log_prob.exp() * log_prob).sum(1).mean()
            loss = policy_loss + 0.5 * value_loss - settings.entropy * entropy
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimiser.step()


def train(settings: Settings, device: torch.device) -> tuple[PolicyNet, list[UpdateRecord]]:
    """Train a policy with PPO; returns it and the learning curve (one record per update)."""
    torch.manual_seed(settings.seed)
    generator = torch.Generator().manual_seed(settings.seed)
    rollouts: Rollouts | BatchedRollouts = BatchedRollouts(settings, device) if settings.batched else Rollouts(settings, device)
    net = PolicyNet(rollouts.codec, settings.hidden).to(device)
    optimiser = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    curve: list[UpdateRecord] = []
    env_steps, start = 0, time.process_time()
    for update in range(1, settings.updates + 1):
        before = len(rollouts.results)
        batch = rollouts.collect(net, generator)
        env_steps += batch.actions.shape[0]
        ppo_update(net, optimiser, batch, settings, generator)
        finished = rollouts.results[before:]
        rewards = np.array([reward for reward, _ in finished]) if finished else np.zeros(0)
        record = UpdateRecord(
            update, env_steps, len(finished),
            float((rewards > 0).mean()) if finished else 0.0,
            float((rewards < 0).mean()) if finished else 0.0,
            float(np.mean([length for _, length in finished])) if finished else 0.0,
            time.process_time() - start,
        )
        curve.append(record)
        logger.info(
            "update %d: %d steps, %d games, won %.2f lost %.2f, %.1f learner steps a game, %.0f CPU s",
            update, env_steps, record.games, record.win_share, record.loss_share, record.mean_length, record.cpu_seconds,
        )
    return net.cpu().eval(), curve


def evaluate(variant: str, weights: Path, games: int, seed: int, turn_limit: Optional[int]) -> tuple[int, int, int]:
    """(wins, draws, losses) of the saved policy as a `PolicyBot` against `RandomBot`, colours alternating."""
    from blindchess.variants.catalog import variant_rules

    rules = variant_rules(variant)
    limit = turn_limit if turn_limit is not None else getattr(rules, "full_turn_limit", None)
    wins = draws = losses = 0
    for game_number in range(games):
        policy, opponent = PolicyBot(rules, weights), RandomBot(np.random.default_rng([seed, game_number]))
        policy_color = chess.WHITE if game_number % 2 == 0 else chess.BLACK
        white, black = (policy, opponent) if policy_color == chess.WHITE else (opponent, policy)
        game: LocalGame[Any] = LocalGame(None, None, 100, limit, rules=rules)
        winner, _, _ = play_local_game(white, black, game, enforce_deadlines=False)
        if winner is None:
            draws += 1
        elif winner == policy_color:
            wins += 1
        else:
            losses += 1
    return wins, draws, losses


def plot_curve(curve: list[UpdateRecord], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 3.5))
    steps = [record.env_steps for record in curve]
    axis.plot(steps, [record.win_share for record in curve], label="won")
    axis.plot(steps, [record.loss_share for record in curve], label="lost")
    axis.set_xlabel("learner env steps")
    axis.set_ylabel("share of games in the update")
    axis.set_ylim(0, 1)
    axis.set_title(title)
    axis.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Settings()
    parser.add_argument("--variant", default=defaults.variant)
    parser.add_argument("--opponent", default=defaults.opponent, help="the bot to learn against (default random)")
    parser.add_argument("--updates", type=int, default=defaults.updates)
    parser.add_argument("--envs", type=int, default=defaults.envs, help="games played at once")
    parser.add_argument("--steps", type=int, default=defaults.steps, help="env steps per update")
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--minibatch", type=int, default=defaults.minibatch)
    parser.add_argument("--hidden", type=int, default=defaults.hidden)
    parser.add_argument("--turn-limit", type=int, help="full turns before a draw (default: the variant's)")
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--batched", action="store_true", help="8x8 only: the games in one BatchedGames (random or attacker)")
    parser.add_argument("--out", type=Path, required=True, help="where to save the policy")
    parser.add_argument("--plot", type=Path, help="where to draw the learning curve")
    parser.add_argument("--eval-games", type=int, default=200, help="games of the saved policy vs random (0: none)")
    parser.add_argument("--device", default="auto", help="auto (cuda if available), cpu or cuda")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for torch (1: on a shared or busy machine more spin)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.set_num_threads(args.threads)
    automatic = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(automatic if args.device == "auto" else args.device)
    settings = Settings(
        args.variant, args.opponent, args.updates, args.envs, args.steps, args.epochs, args.minibatch,
        hidden=args.hidden, turn_limit=args.turn_limit, seed=args.seed, batched=args.batched,
    )
    wall, cpu = time.monotonic(), time.process_time()
    net, curve = train(settings, device)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_policy(net, settings.variant, args.out)
    print(f"trained {settings.updates} updates, {curve[-1].env_steps} learner steps on {device}: {wall:.0f} s wall, {cpu:.0f} s CPU")
    print(f"saved {args.out} ({args.out.stat().st_size // 1024} KiB)")
    if args.plot is not None:
        plot_curve(curve, args.plot, f"PPO vs {settings.opponent} on {settings.variant} (seed {settings.seed})")
        print(f"plot {args.plot}")
    if args.eval_games:
        wins, draws, losses = evaluate(settings.variant, args.out, args.eval_games, settings.seed, settings.turn_limit)
        games = args.eval_games
        win_low, win_high = wilson_interval(wins, games)
        low, high = wilson_interval(wins + 0.5 * draws, games)
        print(f"saved policy vs random, {games} games: {wins} won, {draws} drawn, {losses} lost;"
              f" won {wins / games:.3f}, 95% Wilson interval [{win_low:.3f}, {win_high:.3f}];"
              f" score {(wins + 0.5 * draws) / games:.3f}, interval [{low:.3f}, {high:.3f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
