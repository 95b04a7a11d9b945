"""Plain-text tables and counts for every command's output (`blindchess.text_tables`): one format, one helper.

Columns are as wide as their widest cell, two spaces apart, with a rule under the header; text
is left-aligned and numbers right-aligned, so a column of figures lines up on its last digit.
Why not a library (tabulate, rich): this is all the commands need, the output stays plain ASCII
that scripts split on whitespace, and it imports nothing (``blindchess --help`` stays fast).

>>> print(table(["bot", "games", "score"], [["trout", 10, "0.750"], ["random", 10, "0.250"]]))
bot     games  score
--------------------
trout      10  0.750
random     10  0.250
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NUMBER = re.compile(r"[-+]?(\d[\d,]*(\.\d*)?|\.\d+|inf)(e[-+]?\d+)?%?")
"""A cell that reads as a number (``12``, ``-0.5``, ``+inf``, ``1,024``, ``96.5%``): right-aligned."""


def _is_number(cell: object) -> bool:
    return isinstance(cell, (int, float)) or (isinstance(cell, str) and _NUMBER.fullmatch(cell) is not None)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """`rows` under `header`, padded to columns: numbers (and cells that read as numbers) right, the rest left.

    Cells are shown with ``str``; format floats before passing them (``f"{score:.3f}"``). A
    column is right-aligned when every cell in it, the header aside, is a number.

    Raises:
        ValueError: a row with another number of cells than the header.
    """
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells for a header of {len(header)}: {list(row)!r}")
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max([len(name)] + [len(row[column]) for row in cells]) for column, name in enumerate(header)]
    right = [bool(rows) and all(_is_number(row[column]) for row in rows) for column in range(len(header))]

    def line(row: Sequence[str]) -> str:
        padded = (cell.rjust(width) if flush else cell.ljust(width) for cell, width, flush in zip(row, widths, right, strict=True))
        return "  ".join(padded).rstrip()

    head = line(list(header))
    return "\n".join([head, "-" * max(len(head), sum(widths) + 2 * (len(widths) - 1)), *(line(row) for row in cells)])


def counted(number: int, noun: str) -> str:
    """`number` and `noun`, plural unless the number is one (the commands count games, boards, turns).

    >>> counted(1, "game"), counted(3, "game"), counted(0, "game")
    ('1 game', '3 games', '0 games')
    """
    return f"{number} {noun}{'' if number == 1 else 's'}"
