"""Training and scoring the posterior network on example sequences (:mod:`blindchess.learning.examples`).

The loss is the cross-entropy of the true content of every square the player does not
occupy, at every frame (7 classes: no opponent piece or its type), averaged over squares.
Reported figures are in bits per board: the sum over those squares, averaged over frames.

Reproducible on the CPU: the same sequences, settings and seed give the same weights
(torch's deterministic algorithms, a fixed thread count, numpy's seeded batch order).
The held-out split is by game (:func:`blindchess.learning.examples.held_out`), so no game
contributes to both sides.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Optional

import numpy as np
import torch
from torch import nn

from blindchess.beliefs.neural_model import CLASSES, ModelConfig, PosteriorNet

from .examples import Sequence, held_out, own_squares

logger = logging.getLogger(__name__)

IGNORE = -100
"""Target of a square the loss skips (own piece, or padding past a sequence's end)."""


@dataclass(frozen=True)
class TrainSettings:
    """Everything a training run depends on besides the data."""

    epochs: int = 3
    batch: int = 32
    learning_rate: float = 2e-3
    hidden: int = 192
    seed: int = 0
    holdout_percent: int = 10
    threads: int = 1


def split(sequences: list[Sequence], percent: int) -> tuple[list[Sequence], list[Sequence]]:
    """(training, held-out) sequences, split by game."""
    held = [held_out(s.game_id, percent) for s in sequences]
    return [s for s, h in zip(sequences, held, strict=False) if not h], [s for s, h in zip(sequences, held, strict=False) if h]


def _batch(sequences: list[Sequence]) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded frames ``(B, T, F)`` uint8 and targets ``(B, T, 64)`` int64 (`IGNORE` on own squares and padding)."""
    length = max(len(s.frames) for s in sequences)
    frames = np.zeros((len(sequences), length, sequences[0].frames.shape[1]), dtype=np.uint8)
    targets = np.full((len(sequences), length, 64), IGNORE, dtype=np.int64)
    for row, sequence in enumerate(sequences):
        n = len(sequence.frames)
        frames[row, :n] = sequence.frames
        targets[row, :n] = np.where(own_squares(sequence.frames), IGNORE, sequence.targets)
    return torch.from_numpy(frames), torch.from_numpy(targets)


def batches(sequences: list[Sequence], size: int, rng: Optional[np.random.Generator] = None) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Batches of `size` sequences (shuffled by `rng` when given, sorted by length in windows to limit padding)."""
    order = np.arange(len(sequences)) if rng is None else rng.permutation(len(sequences))
    window = size * 16
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: len(sequences[i].frames))
        groups = [chunk[i : i + size] for i in range(0, len(chunk), size)]
        if rng is not None:
            groups = [groups[int(i)] for i in rng.permutation(len(groups))]
        for group in groups:
            yield _batch([sequences[int(i)] for i in group])


def _loss(model: PosteriorNet, frames: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, int]:
    logits, _ = model(frames)
    loss = nn.functional.cross_entropy(logits.reshape(-1, CLASSES), targets.reshape(-1), ignore_index=IGNORE, reduction="sum")
    return loss, int((targets != IGNORE).sum())


def evaluate(model: PosteriorNet, sequences: list[Sequence], batch: int = 64) -> dict[str, float]:
    """Mean cross-entropy of the truth, in bits per board (all frames, and decision points only)."""
    model.eval()
    total = decision_total = 0.0
    frames_seen = decisions = 0
    with torch.no_grad():
        for start in range(0, len(sequences), batch):
            group = sequences[start : start + batch]
            frames, targets = _batch(group)
            logits, _ = model(frames)
            per_square = nn.functional.cross_entropy(logits.permute(0, 3, 1, 2), targets, ignore_index=IGNORE, reduction="none")
            per_frame = per_square.sum(dim=-1).numpy() / math.log(2)
            for row, sequence in enumerate(group):
                n = len(sequence.frames)
                total += float(per_frame[row, :n].sum())
                decision_total += float(per_frame[row, :n][sequence.decision].sum())
                frames_seen += n
                decisions += int(sequence.decision.sum())
    return {
        "bits_per_board": total / max(frames_seen, 1),
        "bits_per_board_at_decisions": decision_total / max(decisions, 1),
        "frames": float(frames_seen),
    }


def train(
    sequences: list[Sequence],
    settings: TrainSettings,
    progress: Optional[Callable[[int, int, float], None]] = None,
) -> tuple[PosteriorNet, dict[str, object]]:
    """Train a fresh network on the training split; returns it and a report (settings, sizes, losses, seconds).

    `progress(epoch, batches_done, mean_loss)` is called after every batch.
    """
    training, held = split(sequences, settings.holdout_percent)
    if not training:
        raise ValueError(f"no training sequences left after holding out {settings.holdout_percent}% of {len(sequences)}")
    torch.set_num_threads(settings.threads)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    model = PosteriorNet(ModelConfig(hidden=settings.hidden))
    optimizer = torch.optim.Adam(model.parameters(), lr=settings.learning_rate)
    steps = settings.epochs * math.ceil(len(training) / settings.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=settings.learning_rate, total_steps=max(steps, 1))
    started = time.monotonic()
    history = []
    for epoch in range(settings.epochs):
        model.train()
        loss_sum, squares = 0.0, 0
        for done, (frames, targets) in enumerate(batches(training, settings.batch, rng), start=1):
            loss, count = _loss(model, frames, targets)
            optimizer.zero_grad()
            (loss / max(count, 1)).backward()  # type: ignore[no-untyped-call]
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            loss_sum, squares = loss_sum + float(loss.detach()), squares + count
            if progress is not None:
                progress(epoch, done, loss_sum / max(squares, 1))
        scores = evaluate(model, held) if held else {}
        held_out = {f"held_out_{k}": v for k, v in scores.items()}
        history.append({"epoch": epoch, "train_nats_per_square": loss_sum / max(squares, 1), **held_out})
        logger.info("epoch %d: %s", epoch, history[-1])
    report: dict[str, object] = {
        "settings": asdict(settings),
        "training_sequences": len(training),
        "held_out_sequences": len(held),
        "training_frames": int(sum(len(s.frames) for s in training)),
        "parameters": model.parameter_count(),
        "epochs": history,
        "seconds": round(time.monotonic() - started, 1),
    }
    model.eval()
    return model, report
