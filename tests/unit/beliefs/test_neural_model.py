"""Saved posterior models: a round trip keeps the outputs; every broken file gets a clear `ModelFileError`."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from blindchess.beliefs.encoding import ENCODING_VERSION, FRAME_SIZE
from blindchess.beliefs.neural_model import (
    CONFIG_FILE,
    MAX_HIDDEN,
    MAX_WEIGHTS_BYTES,
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


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("hidden", 8.0, "hidden must be an integer, got 8.0"),
        ("hidden", True, "hidden must be an integer, got True"),
        ("hidden", "8", "hidden must be an integer, got '8'"),
        ("hidden", 10**12, f"hidden must be from 1 to {MAX_HIDDEN}, got {10**12}"),
        ("hidden", 0, f"hidden must be from 1 to {MAX_HIDDEN}, got 0"),
        ("frame_size", float(FRAME_SIZE), f"frame_size must be an integer, got {float(FRAME_SIZE)}"),
        ("encoding_version", True, "encoding version True"),
    ],
)
def test_a_config_field_of_the_wrong_type_or_out_of_bounds_is_named(
    saved: tuple[PosteriorNet, Path], field: str, value: object, problem: str
) -> None:
    _, folder = saved
    _rewrite_config(folder, **{field: value})
    with pytest.raises(ModelFileError, match=f"^{re.escape(str(folder / CONFIG_FILE))}: .*{re.escape(problem)}"):
        load_model(folder)


def test_a_file_over_the_bound_is_refused_unread(saved: tuple[PosteriorNet, Path]) -> None:
    _, folder = saved
    os.truncate(folder / WEIGHTS_FILE, MAX_WEIGHTS_BYTES + 1)  # sparse: no disk, and nothing is read
    with pytest.raises(ModelFileError, match=f"{folder / WEIGHTS_FILE}: cannot read the weights .*more than {MAX_WEIGHTS_BYTES} bytes"):
        load_model(folder)


LOAD_IN_A_CAPPED_PROCESS = """
import json, resource, sys
from blindchess.beliefs.neural_model import ModelFileError, load_model
pages = int(open("/proc/self/statm").read().split()[0])
cap = pages * resource.getpagesize() + 512 * 2**20  # what it uses now and 512 MiB: a /dev/zero read fails fast
resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
for folder in sys.argv[1:]:
    try:
        load_model(folder)
        print(json.dumps(["loaded", ""]), flush=True)
    except BaseException as error:
        print(json.dumps([type(error).__name__, str(error)]), flush=True)
"""


def test_a_fifo_or_a_link_to_dev_zero_is_refused_at_once(saved: tuple[PosteriorNet, Path], tmp_path: Path) -> None:
    _, folder = saved
    cases = {}
    for name, kind, target in [
        ("weights to /dev/zero", "a character device", WEIGHTS_FILE),
        ("config to /dev/zero", "a character device", CONFIG_FILE),
        ("config a FIFO", "a FIFO", CONFIG_FILE),
        ("weights a FIFO", "a FIFO", WEIGHTS_FILE),
    ]:
        copy = shutil.copytree(folder, tmp_path / name.replace(" ", "_").replace("/", ""))
        (copy / target).unlink()
        if kind == "a FIFO":
            os.mkfifo(copy / target)
        else:
            (copy / target).symlink_to("/dev/zero")
        cases[name] = (copy / target, kind)
    process = subprocess.run(
        [sys.executable, "-c", LOAD_IN_A_CAPPED_PROCESS, *(str(path.parent) for path, _ in cases.values())],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    answers = [json.loads(line) for line in process.stdout.splitlines()]
    assert len(answers) == len(cases), process.stderr
    for (name, (path, kind)), (error, message) in zip(cases.items(), answers, strict=True):
        assert error == "ModelFileError", (name, error, message)
        assert str(path) in message and f"not a regular file ({kind})" in message, (name, message)
