"""The RBC rules appear in compiled code in exactly one module, :mod:`blindchess.arbiter.rules.compiled_rules` (issue 38).

What counts as writing rules, read from each module's source (`ast`, nothing imported or compiled):

- a compiled function (any decorator naming ``jit``: ``nb.njit``, ``numba.njit(...)``, ``jit``)
  that reads an attack or ray table: ``KNIGHT_ATTACKS``, ``KING_ATTACKS``, ``PAWN_ATTACKS``,
  ``RAY_SQUARES``, ``RAY_LENGTHS``, ``BETWEEN``, ``DIRECTION_TO`` (by name or attribute, leading
  underscores ignored), which is how move generation and attacks are written over bitboards;
- a compiled function whose name says it attacks, revises, castles or generates moves
  (``attack``, ``revis``, ``castl``, ``pseudo``, ``move_gen``);
- in a module holding compiled functions, a table built from python-chess's attacks or rays
  (``chess.BB_*_ATTACKS``, ``chess.BB_RAYS``, ``chess.between``, ``chess.ray``), except in
  :mod:`blindchess.arbiter.rules.lookup_tables`, which builds the shared tables.

Other compiled code asks the core (its functions are plain cached numba functions, which LLVM
inlines across modules). The self-test plants each kind of offender and a clean function.
"""

from __future__ import annotations

import ast
import re

from .modules import all_modules

CORE = "blindchess.arbiter.rules.compiled_rules"
TABLES_MODULE = "blindchess.arbiter.rules.lookup_tables"
"""The lookup tables every compiled module shares; its own compiled functions are bit helpers, checked like any."""
TABLES = {"KNIGHT_ATTACKS", "KING_ATTACKS", "PAWN_ATTACKS", "RAY_SQUARES", "RAY_LENGTHS", "BETWEEN", "DIRECTION_TO"}
RULE_NAMES = re.compile(r"attack|revis|castl|pseudo|move_gen")
CHESS_TABLES = re.compile(r"BB_\w*ATTACKS|BB_RAYS|between|ray")


def _is_compiled(function: ast.FunctionDef) -> bool:
    return any("jit" in ast.unparse(decorator) for decorator in function.decorator_list)


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute read under `node`, leading underscores stripped."""
    found = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id.lstrip("_"))
        elif isinstance(child, ast.Attribute):
            found.add(child.attr.lstrip("_"))
    return found


def rule_writers(source: str, builds_tables: bool = False) -> list[str]:
    """What in `source` writes rules in compiled code (see the module docstring), one line each.

    `builds_tables`: the module is `TABLES_MODULE`, whose tables are python-chess's attacks by design.
    """
    tree = ast.parse(source)
    compiled = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and _is_compiled(node)]
    found = []
    for function in compiled:
        tables = sorted(_names(function) & TABLES)
        if tables:
            found.append(f"compiled {function.name} reads {', '.join(tables)}")
        if RULE_NAMES.search(function.name):
            found.append(f"compiled {function.name} is named for a rule")
    if compiled and not builds_tables:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                continue
            if node.value.id == "chess" and CHESS_TABLES.fullmatch(node.attr):
                found.append(f"line {node.lineno}: a compiled module builds a table from chess.{node.attr}")
    return found


def test_rules_are_compiled_in_exactly_one_module() -> None:
    writers = {
        module.name: rule_writers(module.path.read_text(encoding="utf-8"), module.name == TABLES_MODULE)
        for module in all_modules()
    }
    offenders = {name: lines for name, lines in writers.items() if lines and name != CORE}
    assert not offenders, f"compiled rules outside {CORE} (ask the core instead): {offenders}"
    assert writers[CORE], "the check no longer sees the core's own rules: it would miss a copy elsewhere"


def test_the_check_catches_each_kind_of_offender() -> None:
    planted = '''
import chess
import numba as nb
import numpy as np
from blindchess.arbiter.rules import lookup_tables as tables
from blindchess.arbiter.rules.lookup_tables import BIT, KNIGHT_ATTACKS

_RAYS = np.array(chess.BB_RAYS, dtype=np.uint64)

@nb.njit(cache=True)
def knights(square):
    return KNIGHT_ATTACKS[square]

@nb.njit(cache=True)
def slides(square, direction):
    return tables.RAY_SQUARES[direction, square, 0]

@nb.njit
def is_attacked_by(bbs, square):
    return bbs[0] & BIT[square]

@nb.njit(cache=True)
def popcount(x):
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n
'''
    found = rule_writers(planted)
    assert any("knights reads KNIGHT_ATTACKS" in line for line in found), found
    assert any("slides reads RAY_SQUARES" in line for line in found), found
    assert any("is_attacked_by is named for a rule" in line for line in found), found
    assert any("chess.BB_RAYS" in line for line in found), found
    assert not any("popcount" in line for line in found), found
    assert rule_writers(planted.replace("@nb.njit(cache=True)", "").replace("@nb.njit", "")) == []
