"""The house's layout rules, read from the source with `ast`: layers import only downwards, no import cycles, unique module names.

`LAYERS` below is the one statement of the layering; the README's "Map of the code", the
``[tool.setuptools]`` comment in pyproject.toml and docs/static_checks.md restate it as
`layer_chain()` prints it, and `test_the_docs_restate_the_one_statement_of_layers` holds them to it.

A module imports its own folder and the folders of lower layers only; folders that share a
layer are independent and import none of each other. The root package (``toolkit/``: ``blindchess``,
its CLI) is the exception both ways: its CLI finds the subcommands by name at run time
(``importlib``), so its module-level imports stay inside ``toolkit/``; and only tests may import
the CLI (`CLI_MODULES`). The root's other modules are helpers below every layer (``blindchess``
itself with its version, ``blindchess.errors`` with the root exception, ``blindchess.dependencies``,
``blindchess.elo``): anyone may import them, and they import only each other.
Every import counts, ``if TYPE_CHECKING:`` and function-local ones included: they are
dependencies all the same.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from .modules import ROOT_FOLDER, SourceModule, all_modules, folder_of

LAYERS: tuple[tuple[str, ...], ...] = (
    ("arbiter",),
    ("evaluation",),
    ("beliefs",),
    ("sensing",),
    ("moving",),
    ("bots",),
    ("server", "variants"),
    ("env",),  # the learning environments: drive the arbiter, play the bots and the variants
    ("tournament", "viewer"),  # tournament plays the variants; the viewer serves through server/
    ("learning",),  # plays bots through tournament/'s executors to make training data
    ("commands",),  # one module a subcommand: parse the arguments, call the library
    ("fixtures",),  # games, beliefs and servers for tests, benchmarks and screenshots; never imported at run time
    ("experiments",),
    ("tests",),
)
"""The layers, lowest first: the one statement of the layering (see the module docstring)."""

MODULES = all_modules()
CHECKOUT = Path(__file__).resolve().parents[2]  # the checkout (a link-tree install resolves to it too)


def layer_chain() -> str:
    """`LAYERS` in words, as the README and pyproject.toml restate it.

    >>> layer_chain().startswith("arbiter -> evaluation -> beliefs")
    True
    """
    return " -> ".join(", ".join(folders) for folders in LAYERS)


def rank(folder: str) -> int:
    """The layer of a top-level folder (its index in `LAYERS`).

    >>> rank("arbiter") < rank("beliefs") < rank("bots") < rank("server") == rank("variants") < rank("tests")
    True

    Raises:
        KeyError: `folder` is in no layer (a new folder must be given one in `LAYERS`).
    """
    for index, folders in enumerate(LAYERS):
        if folder in folders:
            return index
    raise KeyError(f"top-level folder {folder!r} is in no layer: add it to LAYERS in tests/checks/test_layout.py")


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

CLI_USERS = {"blindchess.fixtures.servers": "test tooling: the fault-injecting server reuses the serve command's parser"}
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
            elif rank(there) == rank(here):
                problems.append(f"{where}: {here!r} and {there!r} share a layer, so neither imports the other")
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


def test_every_top_level_folder_has_a_layer() -> None:
    folders = {module.folder for module in MODULES} - {ROOT_FOLDER}
    listed = {folder for layer in LAYERS for folder in layer}
    assert folders <= listed, f"folders in no layer (add them to LAYERS): {sorted(folders - listed)}"
    assert len(listed) == sum(len(layer) for layer in LAYERS), "a folder is listed in two layers"


def test_the_docs_restate_the_one_statement_of_layers() -> None:
    """README.md, pyproject.toml's comment and docs/static_checks.md say `layer_chain()` word for word."""
    if not (CHECKOUT / "pyproject.toml").is_file():
        return  # an installed copy without its checkout has no docs to compare
    chain = layer_chain()
    for name in ("README.md", "pyproject.toml", "docs/static_checks.md"):
        text = re.sub(r"\s+", " ", re.sub(r"^\s*# ?", " ", (CHECKOUT / name).read_text(encoding="utf-8"), flags=re.MULTILINE))
        assert chain in text, f"{name} does not restate the layers as {chain!r}"


def import_graph(modules: list[SourceModule]) -> dict[str, set[str]]:
    """Every module's imports of the other modules in `modules`, each import resolved to the most specific module.

    ``from . import rules`` is an edge to ``rules``; ``from .history import GameHistory`` an edge to
    ``history``; ``from blindchess.arbiter import GameHistory`` an edge to the package ``arbiter``
    (its ``__init__``). Every import counts, as in the layering check.
    """
    names = {module.name for module in modules}
    graph: dict[str, set[str]] = {}
    for module in modules:
        tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
        package = module.name if module.is_package else module.name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    parts = package.split(".")
                    source = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
                candidates = [f"{source}.{alias.name}" for alias in node.names]
            else:
                continue
            for candidate in candidates:
                while candidate and candidate not in names:
                    candidate = candidate.rpartition(".")[0]
                if candidate and candidate != module.name:
                    targets.add(candidate)
        graph[module.name] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, inside a folder or across folders (the layering rules out the latter)."""
    cycles = import_cycles(import_graph(MODULES))
    assert not cycles, "import cycles (move the shared part into a module both can import):\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles
    )


def test_the_cycle_check_sees_imports_of_every_kind(tmp_path: Path) -> None:
    """A cycle closed only by a ``TYPE_CHECKING`` import, another only by a function-local one, and a clean chain."""
    files = {
        "a": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "b": "from . import a\n",
        "c": "def later() -> None:\n    from blindchess.fake.d import D\n",
        "d": "from .c import later\n",
        "e": "from .a import A\n",
    }
    modules = []
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
        modules.append(SourceModule(f"blindchess.fake.{name}", "fake", tmp_path / f"{name}.py", False))
    assert sorted(import_cycles(import_graph(modules))) == [
        ["blindchess.fake.a", "blindchess.fake.b"], ["blindchess.fake.c", "blindchess.fake.d"],
    ]


UNIT_TESTS_OF_TESTS = {"blindchess.tests.unit.test_progress_plugin": "tests/progress.py, the test suite's own plugin"}
"""Unit tests that sit in tests/unit/ itself, each with what it tests: the test tree's own code."""


def test_unit_tests_sit_in_the_folder_of_their_package() -> None:
    """tests/unit/<folder>/test_<module>.py: a newcomer finds a module's tests under its folder's name."""
    folders = {module.folder for module in MODULES} - {"tests"}
    misplaced = [
        module.name
        for module in MODULES
        if module.name.startswith("blindchess.tests.unit.") and not module.is_package
        and module.name not in UNIT_TESTS_OF_TESTS
        and module.name.split(".")[3] not in folders
    ]
    assert not misplaced, f"unit tests outside tests/unit/<package folder>/: {misplaced}"


# Names that several modules may share because each copy has the same job in its own folder.
SHARED_NAMES = {
    "__init__.py": "a package",
    "__main__.py": "``python -m`` entry point",
    "conftest.py": "pytest fixtures of a test folder",
    "base.py": "the one protocol of a seam (beliefs/, sensing/, moving/)",
    "reference.py": "the slow, obviously correct implementation a fast one is tested against (arbiter/rules/, beliefs/)",
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


ARBITER_LAYERS: tuple[tuple[str, ...], ...] = (
    ("types",),
    ("rules",),
    ("game",),
    ("sandbox",),
    ("play",),
)
"""The arbiter's own rooms, lowest first: plain aliases, the rules, the game, the sandbox a bot runs in, and the
play loop over all of them (the package's ``__init__`` re-exports from every room, so it sits on top)."""


def arbiter_room(name: str) -> int | None:
    """The rank of the arbiter room that module `name` is in (None: not in the arbiter, or the package itself).

    >>> [arbiter_room(f"blindchess.arbiter.{name}") for name in ("rules.reference", "game.history", "play")]
    [1, 2, 4]
    >>> arbiter_room("blindchess.arbiter.types"), arbiter_room("blindchess.arbiter.sandbox.wire"), arbiter_room("blindchess.arbiter")
    (0, 3, None)
    """
    parts = name.split(".")
    if parts[:2] != ["blindchess", "arbiter"] or len(parts) < 3:
        return None
    for index, rooms in enumerate(ARBITER_LAYERS):
        if parts[2] in rooms:
            return index
    raise KeyError(f"arbiter module {name!r} is in no room: add it to ARBITER_LAYERS in tests/checks/test_layout.py")


def arbiter_room_violations(modules: list[SourceModule]) -> list[str]:
    problems = []
    for module in modules:
        here = arbiter_room(module.name)
        if here is None:
            continue
        for line, name in imported_modules(module):
            there = arbiter_room(name)
            if name == "blindchess.arbiter":
                problems.append(f"{module.name}:{line} imports the arbiter package itself: import the module that holds the name")
            elif there is not None and there > here:
                problems.append(
                    f"{module.name}:{line} imports {name}: {ARBITER_LAYERS[here]} may not import the higher room {ARBITER_LAYERS[there]}"
                )
    return problems


def test_the_arbiter_rooms_import_only_downwards() -> None:
    """Inside the arbiter: the rules know nothing of the game, the game nothing of the sandbox, and only the play loop sees all."""
    problems = arbiter_room_violations(MODULES)
    assert not problems, "arbiter room violations:\n" + "\n".join(problems)


def test_the_room_check_flags_an_upward_import(tmp_path: Path) -> None:
    source = tmp_path / "reference.py"
    source.write_text("from ..game.history import GameHistory\nfrom ..types import Square\n", encoding="utf-8")
    problems = arbiter_room_violations([SourceModule("blindchess.arbiter.rules.reference", "arbiter", source, False)])
    assert len(problems) == 1 and "blindchess.arbiter.game.history" in problems[0]


MECHANISM_WORDS = ("kernels", "kernel", "rows", "compact", "store", "delegated", "tables", "utils", "helpers", "misc", "common")
"""Words that say how a module works, not what it holds: a file named by one of them alone, ``bitboard_*`` or
``*_kernel(s)`` is named by mechanism. Modules are named for their role: ``fast_revision``, not ``bitboard_revise``."""


def mechanism_named(modules: list[SourceModule]) -> list[str]:
    named = []
    for module in modules:
        stem = module.path.stem
        if module.folder == "tests" or stem.startswith("test_") or stem == "__init__":
            continue
        if stem in MECHANISM_WORDS or stem.startswith("bitboard_") or stem.endswith(("_kernel", "_kernels")):
            named.append(f"{source_folder(module)}/{module.path.name}")
    return named


def test_no_library_file_is_named_by_mechanism_alone() -> None:
    named = mechanism_named(MODULES)
    assert not named, f"modules named by mechanism, not role (rename them for what they hold): {named}"


def test_the_mechanism_check_flags_kernels_and_bitboards() -> None:
    modules = [SourceModule(f"blindchess.beliefs.{stem}", "beliefs", Path(f"{stem}.py"), False)
               for stem in ("row_kernels", "bitboard_push", "store", "board_set_updates", "fast_revision")]
    assert mechanism_named(modules) == ["beliefs/row_kernels.py", "beliefs/bitboard_push.py", "beliefs/store.py"]
