"""The posterior network: from a player's encoded observation stream to the opponent's pieces on every square.

One GRU step per observation event (O(1) per update however long the game), reading the
frames of :mod:`blindchess.beliefs.encoding`::

    e_t = relu(W_e x_t)                  x_t: the event's frame, scaled to [0, 1]
    h_t = GRU(e_t, h_{t-1})
    logits_t = W_2 relu(W_1 [h_t; e_t])  shape (64, 7): per relative square, no opponent
                                         piece or opponent pawn .. king

The head also reads ``e_t`` so what the latest event showed reaches it directly.

A saved model is a folder of two files: ``config.json`` (the `ModelConfig`, the
encoding version, the weights' SHA-256) and ``weights.pt``, a plain tensor dictionary
read with ``torch.load(weights_only=True)``, which refuses anything but tensors and so
cannot run code (safetensors would do the same at the cost of one more dependency).
`load_model` checks every step and raises `ModelFileError` naming the file and the
problem: missing, unreadable, truncated or corrupt (checksum), another encoding version,
a config field of the wrong type or out of bounds (``hidden`` an int from 1 to `MAX_HIDDEN`),
or tensors of the wrong names or shapes. It reads regular files only, and at most
`MAX_CONFIG_BYTES` and `MAX_WEIGHTS_BYTES` of them, before parsing anything: a FIFO, a device
or a link to ``/dev/zero`` is refused at once, and no config makes it allocate more than a
model of `MAX_HIDDEN` needs.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Union

import torch
from torch import nn

from blindchess.files import read_regular_file

from .base import BeliefError
from .encoding import ENCODING_VERSION, FRAME_SCALE, FRAME_SIZE

CLASSES = 7
"""Per square: no opponent piece, or opponent pawn, knight, bishop, rook, queen, king."""
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.pt"
FORMAT = "blindchess-posterior-model"
MAX_HIDDEN = 2048
"""The widest model `load_model` builds: about 36 million parameters, 142 MiB of weights (the shipped one is 192 wide)."""
MAX_WEIGHTS_BYTES = 256 * 2**20
"""The most of a weights file read: a model of `MAX_HIDDEN` with room to spare."""
MAX_CONFIG_BYTES = 2**20
"""The most of a config file read (the shipped one is 2 kB, training notes included)."""


class ModelFileError(BeliefError):
    """A saved posterior model cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class ModelConfig:
    """The network's shape and the encoding it reads."""

    hidden: int = 192
    encoding_version: int = ENCODING_VERSION
    frame_size: int = FRAME_SIZE

    def __post_init__(self) -> None:
        for name in ("hidden", "encoding_version", "frame_size"):
            value = getattr(self, name)
            if type(value) is not int:  # a bool is an int to isinstance, and True would pass for version 1
                raise ValueError(f"{name} must be an integer, got {value!r}")
        if not 1 <= self.hidden <= MAX_HIDDEN:
            raise ValueError(f"hidden must be from 1 to {MAX_HIDDEN}, got {self.hidden!r}")


class PosteriorNet(nn.Module):
    """The network of the module docstring."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        hidden = config.hidden
        self.register_buffer("scale", torch.from_numpy(FRAME_SCALE[: config.frame_size].copy()), persistent=False)
        self.embed = nn.Linear(config.frame_size, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 64 * CLASSES))

    def forward(self, frames: torch.Tensor, state: Optional[torch.Tensor] = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits ``(B, T, 64, 7)`` and the final state ``(1, B, hidden)`` for frames ``(B, T, F)`` (uint8 or float)."""
        scale: torch.Tensor = self.scale  # type: ignore[assignment]  # a registered buffer
        embedded = torch.relu(self.embed(frames.float() * scale))
        outputs, state = self.gru(embedded, state)
        logits = self.head(torch.cat([outputs, embedded], dim=-1))
        return logits.view(*logits.shape[:2], 64, CLASSES), state

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def save_model(model: PosteriorNet, folder: Union[str, Path], extra: Optional[dict[str, Any]] = None) -> Path:
    """Write `model` to `folder` (created): ``weights.pt`` and ``config.json`` (with `extra`, e.g. how it was trained)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    torch.save({name: tensor.detach().cpu().contiguous() for name, tensor in model.state_dict().items()}, buffer)
    data = buffer.getvalue()
    (folder / WEIGHTS_FILE).write_bytes(data)
    document = {"format": FORMAT, **asdict(model.config), "weights_sha256": _sha256(data), "training": extra or {}}
    (folder / CONFIG_FILE).write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    return folder


def _read_config(path: Path) -> tuple[ModelConfig, str]:
    try:
        document = json.loads(read_regular_file(path, MAX_CONFIG_BYTES))
    except FileNotFoundError as error:
        raise ModelFileError(f"{path}: no such model config file") from error
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{path}: not a readable JSON model config ({error})") from error
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelFileError(f"{path}: not a {FORMAT} config (format {document.get('format') if isinstance(document, dict) else None!r})")
    version = document.get("encoding_version")
    if type(version) is not int or version != ENCODING_VERSION:
        raise ModelFileError(f"{path}: the model reads encoding version {version!r}, this code writes version {ENCODING_VERSION}")
    try:
        config = ModelConfig(**{f.name: document[f.name] for f in fields(ModelConfig)})
        checksum = str(document["weights_sha256"])
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: malformed model config ({type(error).__name__}: {error})") from error
    if config.frame_size != FRAME_SIZE:
        raise ModelFileError(f"{path}: frame_size {config.frame_size} differs from the encoding's {FRAME_SIZE}")
    return config, checksum


def load_model(folder: Union[str, Path]) -> PosteriorNet:
    """The model saved in `folder` by `save_model`, in evaluation mode.

    Raises:
        ModelFileError: see the module docstring.
    """
    folder = Path(folder)
    config, checksum = _read_config(folder / CONFIG_FILE)
    weights_path = folder / WEIGHTS_FILE
    try:
        data = read_regular_file(weights_path, MAX_WEIGHTS_BYTES)
    except OSError as error:
        raise ModelFileError(f"{weights_path}: cannot read the weights ({error})") from error
    if _sha256(data) != checksum:
        raise ModelFileError(f"{weights_path}: checksum mismatch (file truncated, corrupt or replaced; {len(data)} bytes)")
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types on a bad archive; all mean the same here
        raise ModelFileError(f"{weights_path}: not a loadable tensor file ({type(error).__name__}: {error})") from error
    model = PosteriorNet(config)
    expected = model.state_dict()
    if not isinstance(state, dict) or set(state) != set(expected):
        names = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise ModelFileError(f"{weights_path}: tensors {names} do not match the model's {sorted(expected)}")
    for name, tensor in expected.items():
        if not isinstance(state[name], torch.Tensor) or state[name].shape != tensor.shape:
            got = tuple(state[name].shape) if isinstance(state[name], torch.Tensor) else type(state[name]).__name__
            raise ModelFileError(f"{weights_path}: tensor {name!r} has shape {got}, the config needs {tuple(tensor.shape)}")
    model.load_state_dict(state)
    model.eval()
    return model


def default_model_path() -> Path:
    """The folder of the model shipped inside the package (trained by ``blindchess posterior train``; see docs/neural.md)."""
    return Path(str(resources.files("blindchess.beliefs") / "models" / "default"))


_DEFAULT: dict[str, PosteriorNet] = {}


def default_model() -> PosteriorNet:
    """The shipped model, loaded once per process (read-only: beliefs never train it)."""
    if "model" not in _DEFAULT:
        _DEFAULT["model"] = load_model(default_model_path())
    return _DEFAULT["model"]
