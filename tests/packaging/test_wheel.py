"""The sdist and the wheel, built from the checkout and used as a stranger would use them.

One test builds once and runs every check on that build: ``python -m build`` with no target builds the sdist, then the wheel
*from the sdist*, so a wheel here shows that the sdist builds one too. ``--no-isolation``: the
backend comes from this environment (the ``test`` extra brings it), nothing is downloaded.

The wheel goes into a fresh virtual environment in a temporary folder, outside the checkout. It
sees the running interpreter's site folders (a ``.pth`` file; like ``--system-site-packages``, but
a virtual environment's own packages count too), so torch and the other dependencies are reused
rather than fetched; those folders may hold an editable blindchess of some checkout, so the test
asserts that the module it ran is the environment's own. The commands run from another temporary
folder, so the checkout is never on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import site
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from blindchess.tournament.config import tomllib

CHECKOUT = Path(__file__).resolve().parents[2]  # the checkout (a link-tree install resolves to it too)
PYPROJECT = CHECKOUT / "pyproject.toml"

if not PYPROJECT.is_file():  # an installed copy of the tests has no checkout to build from
    pytest.skip("no checkout (pyproject.toml) beside these tests to build from", allow_module_level=True)

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Installed:
    """The built artifacts and a virtual environment outside the checkout with the wheel installed."""

    wheel: Path
    sdist: Path
    venv: Path
    elsewhere: Path  # an empty working folder outside the checkout

    def run(self, *words: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run the environment's ``blindchess`` (or its ``python`` if `words` start with "python") from `elsewhere`."""
        program = self.venv / "bin" / words[0]
        return subprocess.run(
            [str(program), *words[1:]], cwd=self.elsewhere, env=_clean_env(), capture_output=True, text=True, timeout=timeout
        )


def _clean_env() -> dict[str, str]:
    """This process's environment without anything that would put the checkout on the path."""
    return {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _checked(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, f"{result.args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result


def build_and_install(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Build the sdist and the wheel from the checkout, and install the wheel into a fresh environment outside it."""
    dist = tmp_path_factory.mktemp("dist")
    _checked(subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(CHECKOUT)],
        cwd=dist, env=_clean_env(), capture_output=True, text=True, timeout=600,
    ))
    (wheel,) = dist.glob("blindchess-*.whl")
    (sdist,) = dist.glob("blindchess-*.tar.gz")
    venv = tmp_path_factory.mktemp("venv")
    _checked(subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True, timeout=300))
    # The dependencies are this interpreter's (so torch is not fetched), whether they live in a system site or in
    # a virtual environment: a .pth file puts its site folders on the new environment's path, after its own.
    # Only the folders join the path, not the .pth files inside them, so an editable blindchess there stays out.
    sites = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    own_site = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    (own_site / "running-interpreter.pth").write_text("".join(f"{folder}\n" for folder in sites if Path(folder).is_dir()))
    # This interpreter's pip installs into the new environment (--python). --force-reinstall: the reused sites
    # may hold a blindchess of the same version (an editable checkout), which pip would take as this one;
    # --no-deps --no-index: the dependencies are already there, and nothing is fetched.
    _checked(subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet",
         "--no-index", "--no-deps", "--force-reinstall", str(wheel)],
        capture_output=True, text=True, timeout=300,
    ))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    return Installed(wheel, sdist, venv, elsewhere)


def _package_files() -> set[str]:
    """What the wheel should hold, from pyproject.toml: each listed package's modules and its package-data files."""
    setuptools = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders: dict[str, str] = setuptools["package-dir"]
    patterns: dict[str, list[str]] = setuptools["package-data"]
    expected: set[str] = set()
    for package in setuptools["packages"]:
        root = next(name for name in sorted(folders, key=len, reverse=True) if package == name or package.startswith(name + "."))
        folder = CHECKOUT / folders[root] / package.removeprefix(root).lstrip(".").replace(".", "/")
        files = set(folder.glob("*.py"))
        for pattern in [*patterns.get("*", []), *patterns.get(package, [])]:
            files |= {path for path in folder.glob(pattern) if path.is_file()}
        expected |= {f"{package.replace('.', '/')}/{path.relative_to(folder).as_posix()}" for path in files}
    return expected


def check_the_wheel_holds_every_module_and_data_file_that_pyproject_lists(installed: Installed) -> None:
    """The viewer's pages, the shipped models, fixtures and every module: nothing missing, nothing stray."""
    names = {name for name in zipfile.ZipFile(installed.wheel).namelist() if ".dist-info/" not in name}
    expected = _package_files()
    assert {
        "blindchess/viewer/static/replay.js", "blindchess/viewer/static/vendor/cm-chessboard/src/Chessboard.js",
        "blindchess/beliefs/models/default/weights.pt", "blindchess/env/models/rbc.pt", "blindchess/cli.py",
    } <= expected
    assert names == expected, f"missing: {sorted(expected - names)}; stray: {sorted(names - expected)}"


def check_twine_accepts_both_artifacts(installed: Installed) -> None:
    result = _checked(subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(installed.sdist), str(installed.wheel)],
        capture_output=True, text=True, timeout=300,
    ))
    assert result.stdout.count("PASSED") == 2, result.stdout


def check_the_installed_package_is_the_environments_own(installed: Installed) -> None:
    script = "import blindchess, blindchess.viewer as v; print(blindchess.__file__, v.__file__, blindchess.__version__)"
    root, viewer, version = _checked(installed.run("python", "-c", script)).stdout.split()
    site = installed.venv.resolve()
    assert Path(root).resolve().is_relative_to(site) and Path(viewer).resolve().is_relative_to(site), (root, viewer)
    assert not Path(root).resolve().is_relative_to(CHECKOUT)
    assert version == tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert installed.wheel.name.startswith(f"blindchess-{version}-")
    assert _checked(installed.run("blindchess", "--version")).stdout.strip() == f"blindchess {version}"
    # The wheel went in without its dependencies (--no-deps); pip check says whether the ones it declares are met.
    check = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(installed.venv / "bin" / "python"), "check"],
        capture_output=True, text=True, timeout=300,
    )
    assert not [line for line in check.stdout.splitlines() if line.lower().startswith("blindchess ")], check.stdout


def check_a_match_plays_and_saves_its_game(installed: Installed) -> Path:
    """One game between two random bots, played by the installed command from outside the checkout."""
    result = _checked(installed.run("blindchess", "match", "random", "random", "--games", "1", "--seed", "1"))
    assert re.search(r"^Score of random \(1\) vs random \(2\): \d - \d - \d ", result.stdout, re.MULTILINE), result.stdout
    (saved,) = (installed.elsewhere / "games").glob("*.json")
    record = json.loads(saved.read_text(encoding="utf-8"))
    assert record["white_name"] == record["black_name"] == "RandomBot"
    assert record["winner_color"] in (True, False, None)
    return saved


@contextlib.contextmanager
def viewer(installed: Installed, played: Path) -> Iterator[str]:
    """``blindchess view FILE`` on a free loopback port; yields the replay URL it printed, then stops it."""
    command = [str(installed.venv / "bin" / "blindchess"), "view", str(played), "--port", "0", "--games-dir", "played"]
    process = subprocess.Popen(
        command, cwd=installed.elsewhere, env=_clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the URL, once the socket is bound (or the error and EOF)
        found = re.search(r"viewer on (http://127\.0\.0\.1:\d+/game/\S+) ", line)
        assert found, line + process.stdout.read()
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(timeout=60)


def _get(url: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.status, response.headers.get_content_type(), response.read()


def check_the_viewer_serves_the_games_replay_with_its_assets(viewer: str) -> None:
    status, kind, body = _get(viewer)
    page = body.decode()
    assert (status, kind) == (200, "text/html") and "RandomBot" in page
    origin = viewer.split("/game/")[0]
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert "/static/replay.js" in assets
    for asset in assets:  # the page's stylesheets, its script and the vendored board component, from the wheel
        status, _, content = _get(origin + asset)
        assert status == 200 and content, asset
    game_id = viewer.rsplit("/", 1)[1]
    status, kind, data = _get(f"{origin}/data/games/{game_id}")
    assert (status, kind) == (200, "application/json") and json.loads(data)["plies"], data[:200]


def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every check on one build, in one test, so that pytest-xdist never builds and installs twice."""
    installed = build_and_install(tmp_path_factory)
    check_the_wheel_holds_every_module_and_data_file_that_pyproject_lists(installed)
    check_twine_accepts_both_artifacts(installed)
    check_the_installed_package_is_the_environments_own(installed)
    played = check_a_match_plays_and_saves_its_game(installed)
    with viewer(installed, played) as url:
        check_the_viewer_serves_the_games_replay_with_its_assets(url)
