"""The test-suite progress plugin (`blindchess.tests.progress`), run on a small generated suite.

It replaces pytest's dots with one line per test file as the file completes, and names a
failing test at once; pytest's own summary still follows. Checked with and without xdist,
since ``bash run.sh test`` uses ``-n 2``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = {
    "test_alpha.py": "def test_one():\n    pass\n\ndef test_two():\n    pass\n\ndef test_three():\n    pass\n",
    "test_beta.py": (
        "import pytest\n\ndef test_fails():\n    assert 1 == 2\n\n@pytest.mark.skip(reason='x')\ndef test_skipped():\n    pass\n"
    ),
}


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_one_line_per_file_and_failures_at_once(tmp_path: Path, workers: list[str]) -> None:
    for name, text in SUITE.items():
        (tmp_path / name).write_text(text)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *workers, "-p", "blindchess.tests.progress", "--durations=2", "-p", "no:cacheprovider", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # only the plugins named here: a quick start
    )
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "running 5 tests from 2 files" in out
    assert re.search(r"\[\s*\d/2 files\s+\d/5 tests \d+:\d\d\] test_alpha\.py: 3 passed$", out, re.M), out
    assert re.search(r"test_beta\.py: 1 failed, 1 skipped$", out, re.M), out
    assert "FAILED test_beta.py::test_fails" in out
    assert not re.search(r"^[.sF]+\s*(\[\s*\d+%\])?$", out, re.M), out  # no rows of dots
    assert "slowest 2 durations" in out and "1 failed, 3 passed, 1 skipped" in out
