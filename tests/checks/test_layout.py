"""The house's layout rules, read from the source with `ast`: layers import only downwards, and module names are unique.

Layers, lowest first (pyproject's ``[tool.setuptools]`` comment and the style guide)::

    arbiter -> evaluation -> beliefs -> sensing -> moving -> bots -> subsystems -> experiments -> tests

A module imports its own folder and lower layers only. *Subsystems* are every other top-level
folder (server/, variants/, env/ and whatever is added beside them); they sit on one level and may use
each other, but not experiments or tests. (env/, the learning environments, uses the bots and the
variants; the tournament may use it, by its registered bot name ``policy``.) The root package (``toolkit/``: ``blindchess``, its
CLI) is the exception both ways: its CLI finds the subcommands by name at run time
(``importlib``), so its module-level imports stay inside ``toolkit/``; and only tests may import
the CLI (`CLI_MODULES`). The root's other modules are helpers below every layer (``blindchess``
itself with its version, ``blindchess.errors`` with the root exception, ``blindchess.dependencies``):
anyone may import them, and they import only each other.
Every import counts, ``if TYPE_CHECKING:`` and function-local ones included: they are
dependencies all the same.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from .modules import ROOT_FOLDER, SourceModule, all_modules, folder_of

LAYERS = ("arbiter", "evaluation", "beliefs", "sensing", "moving", "bots")
SUBSYSTEMS_RANK = len(LAYERS)
EXPERIMENTS_RANK = SUBSYSTEMS_RANK + 1
TESTS_RANK = SUBSYSTEMS_RANK + 2

MODULES = all_modules()


def rank(folder: str) -> int:
    """The layer of a top-level folder; every folder not named below is a subsystem.

    >>> rank("arbiter") < rank("beliefs") < rank("bots") < rank("server") == rank("tournament") < rank("tests")
    True
    >>> rank("bots") < rank("env") == rank("variants") < rank("experiments")
    True
    """
    if folder in LAYERS:
        return LAYERS.index(folder)
    return {"experiments": EXPERIMENTS_RANK, "tests": TESTS_RANK}.get(folder, SUBSYSTEMS_RANK)


def imported_modules(module: SourceModule, top_level_only: bool = False) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every ``blindchess`` import in `module`, relative ones resolved.

    ``from blindchess.x import y`` yields ``blindchess.x.y`` when `y` may be a module, so that
    ``from blindchess import bots`` counts as an import of ``bots``.
    """
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{source}.{alias.name}" if source == "blindchess" else source


def _ours(name: str) -> bool:
    return name == "blindchess" or name.startswith("blindchess.")


CLI_MODULES = {"blindchess.cli", "blindchess.__main__"}
"""The command line: it reaches every subcommand, so only tests import it."""

CLI_USERS = {"blindchess.server.testing": "test tooling: the fault-injecting server reuses the serve command's parser"}
"""Modules outside tests that may import the CLI, each with its reason."""


def _root_module(name: str) -> str:
    """The root package's module that `name` (in ``toolkit/``) names: ``blindchess.errors.X`` -> ``blindchess.errors``."""
    return ".".join(name.split(".")[:2])


def layering_violations(modules: list[SourceModule]) -> list[str]:
    problems = []
    for module in modules:
        here = module.folder
        top_level_only = module.name in CLI_MODULES
        for line, name in imported_modules(module, top_level_only):
            if not _ours(name) or name == "blindchess" or name == "blindchess.__version__":
                continue
            there = folder_of(name)
            where = f"{module.path.resolve().name}:{line} ({module.name}) imports {name}"
            if here == ROOT_FOLDER and module.name not in CLI_MODULES and (
                there != ROOT_FOLDER or _root_module(name) in CLI_MODULES
            ):
                problems.append(f"{where}: a root helper imports only the other root helpers")
            elif there == here:
                continue
            elif there == ROOT_FOLDER:
                if _root_module(name) in CLI_MODULES and here != "tests" and module.name not in CLI_USERS:
                    problems.append(f"{where}: only tests may import the CLI")
            elif here == ROOT_FOLDER:
                problems.append(f"{where}: the CLI root imports subcommands by name at run time, not at module level")
            elif rank(there) > rank(here):
                problems.append(f"{where}: layer {here!r} may not import the higher layer {there!r}")
    return problems


def test_every_layer_imports_only_itself_and_lower_layers() -> None:
    assert {module.name for module in MODULES} >= CLI_MODULES
    problems = layering_violations(MODULES)
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_the_arbiter_imports_nothing_above_it() -> None:
    """The issue's own words, checked on their own: no module under arbiter/ imports a higher layer."""
    above = {"beliefs", "bots", "sensing", "moving", "server", "variants", "evaluation"}
    found = [
        f"{module.name}:{line} imports {name}"
        for module in MODULES
        if module.folder == "arbiter"
        for line, name in imported_modules(module)
        if _ours(name) and folder_of(name) in above
    ]
    assert not found, found


def test_the_checker_flags_upward_imports_of_every_kind(tmp_path: Path) -> None:
    """A made-up arbiter module with each kind of upward import, and a CLI root importing a subcommand at module level."""
    source = tmp_path / "upward.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from blindchess.bots import registry\n"
        "from ..beliefs.base import Belief\n"
        "from blindchess import sensing\n"
        "if TYPE_CHECKING:\n"
        "    import blindchess.server.app\n"
        "def later() -> None:\n"
        "    from blindchess.cli import main\n"
        "from .rules import revise_move\n",
        encoding="utf-8",
    )
    cli = tmp_path / "cli.py"
    cli.write_text("import blindchess.bots.cli_match\ndef main() -> None:\n    import blindchess.server\n", encoding="utf-8")
    helper = tmp_path / "errors.py"
    helper.write_text("def later() -> None:\n    from blindchess.arbiter import rules\nfrom blindchess import dependencies\n")
    problems = layering_violations([
        SourceModule("blindchess.arbiter.upward", "arbiter", source, False),
        SourceModule("blindchess.cli", ROOT_FOLDER, cli, False),
        SourceModule("blindchess.errors", ROOT_FOLDER, helper, False),
    ])
    assert [problem.split(" imports ")[1].split(":")[0] for problem in problems] == [
        "blindchess.bots", "blindchess.beliefs.base", "blindchess.sensing", "blindchess.server.app", "blindchess.cli",
        "blindchess.bots.cli_match", "blindchess.arbiter",
    ]


def test_the_checker_sees_imports_of_every_kind() -> None:
    """The import reader resolves relative imports and ``from blindchess import x``, so the checks above can fail."""
    by_name = {module.name: module for module in MODULES}
    sensing_imports = {name for _, name in imported_modules(by_name["blindchess.sensing.eig"])}
    assert "blindchess.sensing.support" in sensing_imports  # `from .support import ...`
    assert "blindchess.beliefs.base" in sensing_imports
    assert rank("sensing") > rank("beliefs")
    assert folder_of("blindchess.cli") == ROOT_FOLDER
    assert source_folder(by_name["blindchess.bots.rc.random_bot"]) == "bots/rc"


# Names that several modules may share because each copy has the same job in its own folder.
SHARED_NAMES = {
    "__init__.py": "a package",
    "__main__.py": "``python -m`` entry point",
    "conftest.py": "pytest fixtures of a test folder",
    "base.py": "the one protocol of a seam (beliefs/, sensing/, moving/)",
    "rules.py": "a game's rules as pure functions, one per game (RBC in arbiter/, simulchess in variants/simulchess/)",
    "game.py": "a game's flow over its rules, one per game (RBC in arbiter/, simulchess in variants/simulchess/)",
    "app.py": "a subsystem's web application, its HTTP routes over its state (server/, viewer/)",
    "errors.py": "a package's exception classes (the root's BlindchessError in toolkit/; server/'s, derived from it)",
}
MIRRORS = {"bots/rc": "bots"}
"""Folders whose modules wrap the same-named module of another folder (bots/rc/x_bot.py is bots/x_bot.py for reconchess)."""


def source_folder(module: SourceModule) -> str:
    """The module's folder in the checkout: ``blindchess.bots.rc.random_bot`` -> ``bots/rc``, ``blindchess.cli`` -> ``toolkit``."""
    inner = [] if module.folder == ROOT_FOLDER else module.name.split(".")[2:]
    return "/".join([module.folder, *(inner if module.is_package else inner[:-1])])


def name_clashes(modules: list[SourceModule]) -> list[str]:
    folders_by_name: dict[str, list[str]] = defaultdict(list)
    for module in modules:
        folders_by_name[module.path.name].append(source_folder(module))
    clashes = []
    for file_name, folders in sorted(folders_by_name.items()):
        if len(folders) < 2 or file_name in SHARED_NAMES:
            continue
        if len({MIRRORS.get(folder, folder) for folder in folders}) == 1:
            continue  # one module and its mirrors
        clashes.append(f"{file_name}: in {', '.join(sorted(folders))}")
    return clashes


def test_no_two_modules_share_a_name_with_different_jobs() -> None:
    clashes = name_clashes(MODULES)
    assert not clashes, (
        "modules of the same name in different folders (rename one, or list the name in SHARED_NAMES "
        "with the one job every copy has):\n" + "\n".join(clashes)
    )


def test_the_name_check_flags_a_clash_but_not_a_mirror_or_a_shared_name() -> None:
    def module(name: str) -> SourceModule:
        return SourceModule(name, folder_of(name), Path(name.rpartition(".")[2] + ".py"), False)

    modules = [module(name) for name in (
        "blindchess.beliefs.store", "blindchess.server.store",  # a clash
        "blindchess.bots.random_bot", "blindchess.bots.rc.random_bot",  # a mirror
        "blindchess.sensing.base", "blindchess.moving.base",  # a shared name
    )]
    assert name_clashes(modules) == ["store.py: in beliefs, server"]
