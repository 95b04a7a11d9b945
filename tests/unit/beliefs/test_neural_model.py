"""Saved posterior models: a round trip keeps the outputs; every broken file gets a clear `ModelFileError`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import torch

from blindchess.beliefs.encoding import ENCODING_VERSION, FRAME_SIZE
from blindchess.beliefs.neural_model import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    ModelConfig,
    ModelFileError,
    PosteriorNet,
    _sha256,
    default_model_path,
    load_model,
    save_model,
)  # fmt: skip


@pytest.fixture()
def saved(tmp_path: Path) -> tuple[PosteriorNet, Path]:
    torch.manual_seed(3)
    model = PosteriorNet(ModelConfig(hidden=8))
    return model, save_model(model, tmp_path / "model", {"note": "test"})


def _frames() -> torch.Tensor:
    return torch.randint(0, 2, (2, 5, FRAME_SIZE), dtype=torch.uint8, generator=torch.Generator().manual_seed(1))


def test_round_trip_keeps_the_outputs(saved: tuple[PosteriorNet, Path]) -> None:
    model, folder = saved
    loaded = load_model(folder)
    with torch.no_grad():
        assert torch.equal(model(_frames())[0], loaded(_frames())[0])
    assert json.loads((folder / CONFIG_FILE).read_text())["training"] == {"note": "test"}


def test_the_shipped_model_loads() -> None:
    model = load_model(default_model_path())
    assert model.config.encoding_version == ENCODING_VERSION
    assert (default_model_path() / WEIGHTS_FILE).stat().st_size < 8 * 2**20  # a few MB at most


def _rewrite_config(folder: Path, **changes: object) -> None:
    document = json.loads((folder / CONFIG_FILE).read_text())
    document.update(changes)
    (folder / CONFIG_FILE).write_text(json.dumps(document))


def _replace_weights(folder: Path, data: bytes) -> None:
    (folder / WEIGHTS_FILE).write_bytes(data)
    _rewrite_config(folder, weights_sha256=_sha256(data))


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match=f"{tmp_path / 'nothing' / CONFIG_FILE}: no such model config file"):
        load_model(tmp_path / "nothing")


def test_corrupt_config(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    (folder / CONFIG_FILE).write_text("{not json")
    with pytest.raises(ModelFileError, match=f"{folder / CONFIG_FILE}: not a readable JSON model config"):
        load_model(folder)


def test_wrong_encoding_version(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    _rewrite_config(folder, encoding_version=ENCODING_VERSION + 1)
    with pytest.raises(ModelFileError, match=f"encoding version {ENCODING_VERSION + 1}, this code writes version {ENCODING_VERSION}"):
        load_model(folder)


def test_truncated_weights(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    data = (folder / WEIGHTS_FILE).read_bytes()
    (folder / WEIGHTS_FILE).write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match=f"{folder / WEIGHTS_FILE}: checksum mismatch"):
        load_model(folder)


def test_truncated_weights_with_a_matching_checksum_are_unloadable(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    _replace_weights(folder, (folder / WEIGHTS_FILE).read_bytes()[:100])
    with pytest.raises(ModelFileError, match=f"{folder / WEIGHTS_FILE}: not a loadable tensor file"):
        load_model(folder)


def test_a_corrupt_byte_is_caught(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    data = bytearray((folder / WEIGHTS_FILE).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (folder / WEIGHTS_FILE).write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="checksum mismatch"):
        load_model(folder)


class _Payload:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("code ran",))


def test_pickled_code_is_refused(saved: tuple[PosteriorNet, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, folder = saved
    buffer = io.BytesIO()
    torch.save({"embed.weight": _Payload()}, buffer)
    _replace_weights(folder, buffer.getvalue())
    with pytest.raises(ModelFileError, match="not a loadable tensor file"):
        load_model(folder)
    assert "code ran" not in capsys.readouterr().out


def test_wrong_shapes(saved: tuple[PosteriorNet, Path], tmp_path: Path) -> None:
    _, folder = saved
    other = save_model(PosteriorNet(ModelConfig(hidden=9)), tmp_path / "other")
    _replace_weights(folder, (other / WEIGHTS_FILE).read_bytes())
    with pytest.raises(ModelFileError, match=r"tensor 'embed.weight' has shape \(9, 1353\), the config needs \(8, 1353\)"):
        load_model(folder)


def test_wrong_tensor_names(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    buffer = io.BytesIO()
    torch.save({"something": torch.zeros(3)}, buffer)
    _replace_weights(folder, buffer.getvalue())
    with pytest.raises(ModelFileError, match=r"tensors \['something'\] do not match"):
        load_model(folder)
