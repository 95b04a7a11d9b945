"""Settings' ranges declared in their types (`Bound`) and checked as a table is built (`Settings`).

Over the real flagship tree: every bounded setting of every table takes its default, and refuses the
value just past each edge and NaN with the table's own error, naming the setting and the bound.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from blindchess.bots.flagship_config import FlagshipConfig
from blindchess.config_tree import Bound, ConfigError, Settings, build


def tables(cls: type) -> Iterator[type]:
    """`cls` and every table under it."""
    yield cls
    for kind in typing.get_type_hints(cls).values():
        if dataclasses.is_dataclass(kind):
            yield from tables(kind)  # type: ignore[arg-type]


def bounded() -> list[tuple[type, str, Any, Bound]]:
    """``(table, setting, its type, its bound)`` for every bounded setting of the flagship's tree."""
    found = []
    for table in dict.fromkeys(tables(FlagshipConfig)):
        for name, hint in typing.get_type_hints(table, include_extras=True).items():
            for bound in getattr(hint, "__metadata__", ()):
                found.append((table, name, typing.get_args(hint)[0], bound))
    return found


def outside(bound: Bound, kind: type) -> list[float]:
    """Values just past each edge of `bound` that `kind` can hold, and NaN for a float."""
    step = 1 if kind is int else 1e-9
    values = [edge for edge in (bound.gt, bound.lt) if edge is not None and (kind is float or math.isfinite(edge))]
    values += [bound.ge - step] if bound.ge is not None else []
    values += [bound.le + step] if bound.le is not None else []
    return values + ([math.nan] if kind is float else [])


def test_the_tree_has_bounded_settings_in_every_kind_of_table() -> None:
    owners = {table.__name__ for table, _, _, _ in bounded()}
    assert {"SelectorConfig", "SearchSettings", "TimeManager", "PlannerConfig", "FlagshipConfig"} <= owners
    assert all(issubclass(table, Settings) for table in dict.fromkeys(tables(FlagshipConfig)))


@pytest.mark.parametrize(("table", "name", "kind", "bound"), bounded(), ids=lambda item: getattr(item, "__name__", str(item)))
def test_a_setting_out_of_its_bound_is_refused_by_name(table: type, name: str, kind: type, bound: Bound) -> None:
    default = getattr(table(), name)
    assert bound.holds(default)
    for value in outside(bound, kind):
        assert not bound.holds(value)
        with pytest.raises(table.bound_error, match=f"^{name} must be {re.escape(str(bound))}, got {value!r}$"):  # type: ignore[attr-defined]
            table(**{name: value})


@pytest.mark.parametrize(
    ("bound", "text"),
    [
        (Bound(ge=1), ">= 1"),
        (Bound(gt=0.0), "> 0"),
        (Bound(le=1.0), "<= 1"),
        (Bound(ge=0.0, le=1.0), "in [0, 1]"),
        (Bound(gt=0.0, le=1.0), "in (0, 1]"),
        (Bound(gt=0.0, lt=math.inf), "a finite number > 0"),
        (Bound(ge=0, note="0 keeps none"), ">= 0 (0 keeps none)"),
    ],
)
def test_a_bound_reads_as_its_range(bound: Bound, text: str) -> None:
    assert str(bound) == text


def test_a_bound_error_from_a_file_names_the_table_too() -> None:
    with pytest.raises(ConfigError, match=r"^settings selector\.hunt\.share: share must be in \[0, 1\], got 1\.5$"):
        build(FlagshipConfig, {"selector": {"hunt": {"share": 1.5}}})
