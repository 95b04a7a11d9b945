"""A small actor-critic network over the environment's observations and actions, and its weight files.

The network reads the two frames of an observation (:mod:`blindchess.env.view`), keeping only the
squares the board can show from either side (a 4x4 board's squares and their mirror images:
the encoder mirrors Black's squares), and outputs a logit for every action of the board
(:mod:`blindchess.env.actions`) and a value. Its heads are per *relative* square, like the
encoder's planes, so one set of weights serves both colours:

- sense: one logit per square, plus NONE (skip the sense, or pass);
- move: ``from[i(f)] + to[i(t)] + kind[k]``, a factored score over the square pairs (a full
  ``n*n`` head would need 16 times the weights on 8x8 for little gain in a first policy).

A saved policy is a ``torch.save`` dict: the variant name, the encoding version, the hidden width
and the state dict (in float16, to keep shipped files small). `load_policy` refuses a file of
another encoding version or board.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

import numpy as np
import torch
from torch import nn

from blindchess.beliefs.encoding import ENCODING_VERSION, FRAME_SCALE, FRAME_SIZE, N_PLANES, N_SCALARS
from blindchess.errors import BlindchessError

from .actions import ActionCodec
from .view import N_FRAMES

_WHITE_SCALAR = N_PLANES * 64 + 4
"""Where a frame says "we play White" (the encoder's scalar 4)."""


class PolicyFileError(BlindchessError, ValueError):
    """A policy file that cannot be used here (another board, another encoding version, not a policy)."""


class PolicyNet(nn.Module):
    """The actor-critic (see the module docstring).

    Args:
        codec: the board's action numbering.
        hidden: the width of the two hidden layers.
    """

    inputs: torch.Tensor
    scale: torch.Tensor
    gather: torch.Tensor

    def __init__(self, codec: ActionCodec, hidden: int = 128) -> None:
        super().__init__()
        self.codec, self.hidden = codec, hidden
        squares = codec.squares
        relative = sorted(set(squares) | {square ^ 56 for square in squares})  # what either colour's frames can show
        position = {square: index for index, square in enumerate(relative)}
        columns = [plane * 64 + square for plane in range(N_PLANES) for square in relative]
        columns += [N_PLANES * 64 + scalar for scalar in range(N_SCALARS)]
        index = np.array([frame * FRAME_SIZE + column for frame in range(N_FRAMES) for column in columns])
        self.register_buffer("inputs", torch.as_tensor(index, dtype=torch.long), persistent=False)
        self.register_buffer("scale", torch.as_tensor(np.tile(FRAME_SCALE, N_FRAMES)[index]), persistent=False)
        # for each colour, the head position of each board square seen from that colour (White 0, Black 1)
        gather = [[position[square] for square in squares], [position[square ^ 56] for square in squares]]
        self.register_buffer("gather", torch.as_tensor(gather, dtype=torch.long), persistent=False)
        n_relative, kinds = len(relative), (4 if codec.under_promotions else 1)
        self.body = nn.Sequential(nn.Linear(len(index), hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.sense_head = nn.Linear(hidden, n_relative)
        self.none_head = nn.Linear(hidden, 1)
        self.from_head = nn.Linear(hidden, n_relative)
        self.to_head = nn.Linear(hidden, n_relative)
        self.kind_head = nn.Linear(hidden, kinds)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits of shape ``(B, codec.size)``, values of shape ``(B,)``) for uint8 observations ``(B, 2, FRAME_SIZE)``."""
        flat = observations.reshape(observations.shape[0], -1)
        black = (flat[:, FRAME_SIZE + _WHITE_SCALAR] == 0).long()  # the latest frame's colour
        hidden = self.body(flat[:, self.inputs].float() * self.scale)
        columns = self.gather[black]  # (B, n): each board square's head position for this colour
        sense = self.sense_head(hidden).gather(1, columns)
        source = self.from_head(hidden).gather(1, columns)
        target = self.to_head(hidden).gather(1, columns)
        kind = self.kind_head(hidden)
        moves = kind[:, :, None, None] + source[:, None, :, None] + target[:, None, None, :]
        logits = torch.cat([sense, self.none_head(hidden), moves.flatten(1)], dim=1)
        return logits, self.value_head(hidden).squeeze(1)

    def act(self, observation: np.ndarray, mask: np.ndarray, generator: torch.Generator | None = None) -> int:
        """One action for one observation: sampled from the masked policy with `generator`, its mode without."""
        with torch.no_grad():
            logits, _ = self(torch.as_tensor(observation[None]))
            logits = logits[0].masked_fill(torch.as_tensor(mask == 0), -torch.inf)
            if generator is None:
                return int(logits.argmax())
            return int(torch.multinomial(torch.softmax(logits, 0), 1, generator=generator))


def save_policy(net: PolicyNet, variant: str, path: Union[str, Path]) -> None:
    """Write `net` (weights in float16) for `variant` to `path`."""
    state = {name: tensor.half() if tensor.is_floating_point() else tensor for name, tensor in net.state_dict().items()}
    torch.save(
        {"variant": variant, "encoding_version": ENCODING_VERSION, "hidden": net.hidden, "state_dict": state}, str(path)
    )


def _not_a_policy(path: Union[str, Path], error: Exception) -> PolicyFileError:
    """The one message for a file that does not hold a policy of this board, whichever read found it out."""
    return PolicyFileError(f"{path}: not a policy file of this board ({type(error).__name__}: {error})")


def _read(path: Union[str, Path]) -> dict[str, Any]:
    try:
        saved: dict[str, Any] = torch.load(str(path), map_location="cpu", weights_only=True)
        str(saved["variant"])
    except (OSError, KeyError, TypeError, RuntimeError) as error:
        raise _not_a_policy(path, error) from error
    return saved


def saved_variant(path: Union[str, Path]) -> str:
    """The variant the policy saved at `path` plays (a bot made from the file declares it).

    Raises:
        PolicyFileError: not a policy file.
    """
    return str(_read(path)["variant"])


def load_policy(path: Union[str, Path], variant: str, codec: ActionCodec) -> PolicyNet:
    """The policy saved at `path`, for `variant` with action numbering `codec` (float32, evaluation mode).

    Raises:
        PolicyFileError: not a policy file, or one for another variant or encoding version.
    """
    saved = _read(path)
    if saved["variant"] != variant:
        raise PolicyFileError(f"{path}: a policy for {saved['variant']!r}, not {variant!r}")
    if saved["encoding_version"] != ENCODING_VERSION:
        raise PolicyFileError(f"{path}: encoding version {saved['encoding_version']}, this encoder writes {ENCODING_VERSION}")
    try:
        net = PolicyNet(codec, int(saved["hidden"]))
        state = saved["state_dict"]
        net.load_state_dict({name: tensor.float() if tensor.is_floating_point() else tensor for name, tensor in state.items()})
    except (KeyError, TypeError, RuntimeError) as error:
        raise _not_a_policy(path, error) from error
    return net.eval()
