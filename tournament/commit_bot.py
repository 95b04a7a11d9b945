"""A bot as another commit plays it: ``flagship@HEAD~20`` in ``match``, ``sprt`` and ``tournament``.

A change to a bot is judged against the bot before the change. When the change sits behind a
setting, ``--a-settings`` does that; when it does not (or many changes are judged at once), the
baseline is the commit before them, named as ``BOT@REV``: the bot ``BOT`` (a registered name)
built and played by commit ``REV`` of this checkout, with its own code throughout.

How: the commit is exported once (``git archive``) into ``$XDG_CACHE_HOME/blindchess/commits/<sha>/``
as a ``blindchess`` package tree (`export_commit`), and each game starts a Python that imports
that tree first (PYTHONPATH) and runs `blindchess.tournament.commit_driver` by path. `CommitBot`
stands in for the bot here and forwards each callback over the child's pipes, one JSON line
each way. Under ``--clock cpu`` the stand-in plays isolated like any bot (`task.isolated`), so
the child is in the stand-in's cgroup and its CPU (and its Stockfish's) is charged to its clock.
The first use of a commit also plays a short game against `RandomBot` there (`warm`): the
commit's numba kernels compile then, into its own tree's caches, and not on a clock.

What it cannot do: ponder (the protocol has no thinking on the opponent's turn), play a variant
(8x8 RBC only), or hand the old bot the game's history at the end (it gets None). The commit must
offer ``tournament.task.build_player`` and ``variant_rules`` and ``tournament.spec.BotSpec`` (all
commits since the tournament runner have them); its settings are checked by the commit itself,
when the stand-in is built, and a bad one is a `BotConstructionError` naming it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any, ClassVar, Optional

import chess
import numpy as np

from blindchess.arbiter import LocalGame, Player, play_local_game
from blindchess.arbiter.types import Color, Square, WinReason
from blindchess.bots.random_bot import RandomBot, SeedLike
from blindchess.bots.registry import BotConstructionError
from blindchess.errors import BlindchessError

DRIVER = Path(__file__).with_name("commit_driver.py")
"""The script the child runs by path (`blindchess.tournament.commit_driver`), so that it imports the commit's package."""

WARM_FULL_TURNS = 6
"""The warm-up game's length: enough turns for a belief bot to expand, sense and search."""

MAX_REPLY_BYTES = 1 << 20
"""The longest line the child may answer with (a move or a square is a few bytes)."""


CANNOT_BUILD = "the commit cannot build the bot"
"""How a refusal by the commit begins; its own error's last line (the exception and its message) follows."""


def _last_line(traceback: object) -> str:
    """The last line of the child's traceback: the exception and its message, without the commit's stack."""
    lines = str(traceback).strip().splitlines()
    return lines[-1] if lines else "no message"


class CommitBotError(BlindchessError, RuntimeError):
    """The bot at a commit cannot be exported, started or heard from; the message says which and why."""


def split_commit(bot: str) -> Optional[tuple[str, str]]:
    """``(bot, rev)`` of ``"bot@rev"``; None for any other bot (a file that exists is a file, ``@`` or not).

    >>> split_commit("flagship@HEAD~20"), split_commit("flagship"), split_commit("@v1")
    (('flagship', 'HEAD~20'), None, None)
    """
    name, at, rev = bot.rpartition("@")
    if not at or not name or not rev or os.path.exists(bot):
        return None
    return name, rev


def checkout() -> Path:
    """The git checkout this package runs from (an editable install links back into it).

    Raises:
        CommitBotError: the package is installed from a wheel, with no history to export from.
    """
    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists():
        raise CommitBotError(f"a bot at a commit needs a git checkout of blindchess; this one runs from {root}, which is none")
    return root


def full_sha(rev: str) -> str:
    """The commit `rev` names in this checkout, in full.

    Raises:
        CommitBotError: `rev` names no commit here.
    """
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=checkout(), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise CommitBotError(f"{rev!r} names no commit of the checkout at {checkout()}")
    return done.stdout.strip()


def export_commit(rev: str, folder: Path) -> Path:
    """Export commit `rev` into `folder` and return a folder holding its ``blindchess`` package as a link tree.

    The tree maps the top-level folders as pyproject's ``package-dir`` does (``toolkit`` is the
    root package), so a Python with the returned folder first on its path imports that commit.
    """
    source, package = folder / "src", folder / "site" / "blindchess"
    source.mkdir(parents=True)
    package.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=checkout(), capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    for entry in (source / "toolkit").iterdir():
        (package / entry.name).symlink_to(entry)
    for entry in source.iterdir():
        if entry.name != "toolkit" and (entry / "__init__.py").is_file():
            (package / entry.name).symlink_to(entry)
    return package.parent


def cache_folder() -> Path:
    """Where exported commits are kept: ``$XDG_CACHE_HOME/blindchess/commits`` (``~/.cache`` by default)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "blindchess" / "commits"


def prepared_site(sha: str, bot: str, rev: str) -> Path:
    """The package tree of commit `sha` (named `rev`), exported and warmed with `bot` on first use; one process at a time
    prepares it."""
    folder = cache_folder() / sha
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{sha}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        site = folder / "site"
        if not site.is_dir():
            if folder.exists():  # an export cut short: start it again
                shutil.rmtree(folder)
            export_commit(sha, folder)
        marker = folder / f"warm-{bot}"
        if not marker.exists():
            warm(bot, rev, site)
            marker.touch()
    return site


def warm(bot: str, rev: str, site: Path) -> None:
    """A short game of `bot` at the commit against `RandomBot`, no clock: its kernels compile into the commit's caches.

    Raises:
        CommitBotError: the bot cannot be built or faulted in the game.
    """
    player = commit_bot_class(bot, rev, site)(rng=0)
    try:
        history = play_local_game(
            player, RandomBot(rng=0), LocalGame(None, None, full_turn_limit=WARM_FULL_TURNS), enforce_deadlines=False
        )[2]
    finally:
        player.close()
    if history.faults:
        raise CommitBotError(f"{bot}@{rev} faulted in its warm-up game: {history.faults[0]}")


class CommitBot(Player):
    """Stands in for bot `bot` as commit `commit` plays it, in a child process (see the module docstring)."""

    bot: ClassVar[str]
    commit: ClassVar[str]
    site: ClassVar[Path]

    def __init__(self, rng: SeedLike = None, settings: Optional[dict[str, Any]] = None) -> None:
        """Start the child and wait until the commit has built the bot; an integer `rng` is the commit's seed as it is,
        so ``random@REV`` plays as ``random`` with the same seed.

        Raises:
            BotConstructionError: the commit cannot build the bot (its message), or its process ended.
        """
        seed = rng if isinstance(rng, int) else int(np.random.default_rng(rng).integers(2**62))
        self._process = self._start(str(seed), settings)
        try:
            self._answer("build")
        except CommitBotError as error:
            self.close()
            raise BotConstructionError(str(error)) from error

    @classmethod
    def _start(cls, seed: str, settings: Optional[dict[str, Any]], *flags: str) -> subprocess.Popen[str]:
        """The child that builds the bot at the commit (`commit_driver`), its pipes open."""
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(cls.site), os.environ.get("PYTHONPATH")])))
        command = [sys.executable, "-P", str(DRIVER), *flags, cls.bot, seed, json.dumps(settings or {})]
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment, text=True)

    @classmethod
    def configured(cls, settings: dict[str, Any]) -> None:
        """Check `settings` as the commit does, by building the bot there once (seconds: a Python, its imports, its engine).

        Raises:
            ValueError: the commit cannot build the bot with them; the message is the commit's own error.
        """
        child = cls._start("0", settings, "--check")
        output, _ = child.communicate()
        status, value = json.loads(output.splitlines()[0]) if output else ("error", f"its process ended (exit code {child.returncode})")
        if status == "error":
            raise ValueError(f"{CANNOT_BUILD}: {_last_line(value)}")

    def _answer(self, call: str, *arguments: Any) -> Any:
        """Send one callback and return the child's answer; the child's error or end is a `CommitBotError`."""
        requests, replies = self._pipes()
        if call != "build":
            try:
                requests.write(json.dumps([call, list(arguments)]) + "\n")
                requests.flush()
            except (BrokenPipeError, OSError):
                pass  # its end is read below
        line = replies.readline(MAX_REPLY_BYTES)
        where = f"{type(self).__name__} ({call})"
        if not line:
            raise CommitBotError(f"{where}: its process ended (exit code {self._process.wait()})")
        try:
            status, value = json.loads(line)
        except ValueError as error:
            raise CommitBotError(f"{where}: not a reply: {line[:200]!r}") from error
        if status == "error":
            if call == "build":  # the commit's own error is the message; its traceback is in the commit's code, not the game
                raise CommitBotError(f"{type(self).__name__}: {CANNOT_BUILD}: {_last_line(value)}")
            raise CommitBotError(f"{where} raised:\n{value}")
        return value

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        if self._process.stdin is None or self._process.stdout is None:
            raise CommitBotError(f"{type(self).__name__}: its process has no pipes")
        return self._process.stdin, self._process.stdout

    def close(self) -> None:
        """End the child: it exits after the game's end; otherwise it is stopped (then killed after 10 s)."""
        if self._process.poll() is None:
            with contextlib.suppress(OSError):
                self._pipes()[0].close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self._answer("handle_game_start", color, board.fen(), opponent_name)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self._answer("handle_opponent_move_result", captured_my_piece, capture_square)

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        square: Optional[Square] = self._answer("choose_sense", sense_actions, [move.uci() for move in move_actions], seconds_left)
        return square

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        self._answer("handle_sense_result", [(square, None if piece is None else piece.symbol()) for square, piece in sense_result])

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        uci = self._answer("choose_move", [move.uci() for move in move_actions], seconds_left)
        return None if uci is None else chess.Move.from_uci(uci)

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        self._answer(
            "handle_move_result",
            None if requested_move is None else requested_move.uci(),
            None if taken_move is None else taken_move.uci(),
            captured_opponent_piece,
            capture_square,
        )

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        try:
            self._answer("handle_game_end", winner_color, None if win_reason is None else win_reason.name)
        finally:
            self.close()


def commit_bot_class(bot: str, rev: str, site: Optional[Path] = None) -> type[CommitBot]:
    """The `CommitBot` class of `bot` at `rev`, named ``bot@rev`` in histories; the commit exported and warmed first.

    Raises:
        CommitBotError: `rev` is no commit of this checkout, or the bot cannot be built or played there.
    """
    sha = full_sha(rev)
    tree = site if site is not None else prepared_site(sha, bot, rev)
    return type(f"{bot}@{rev}", (CommitBot,), {"bot": bot, "commit": sha, "site": tree, "__module__": __name__})
