"""Typed settings as a tree of frozen dataclasses: built from mappings (TOML), checked, printed back as TOML.

A *config* is a frozen dataclass whose fields are ``bool``, ``int``, ``float``, ``str`` or
another config (a nested TOML table), each with its default and an attribute docstring; a number's
allowed range is part of its type (``Annotated[int, Bound(ge=0)]``, or the aliases `Count` and `Share`).
Python builds one directly (a `Settings` checks itself: `check_settings`); a TOML file, a
command line's ``--settings`` string or a tournament's ``settings`` table builds one with
`build` or `override`, which refuse an unknown field with its dotted name and the nearest
valid names (or the new name of a renamed one), and a value of the wrong type with the type the field takes. `to_toml` prints a
config back (every field, nested configs as tables) so that ``build(cls, tomllib.loads(to_toml(c))) == c``.

TOML has no null: a setting that can be "off" takes a value that means off (``inf`` for a
threshold never reached, 0 for a depth that is not fixed), never None.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Engine:
...     depth: int = 0
...     threads: int = 1
>>> print(to_toml(override(Engine(), {"depth": 2})), end="")
depth = 2
threads = 1
>>> build(Engine, {"deph": 2})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: unknown setting 'deph' (did you mean 'depth'?)
>>> build(Engine, {"colour": 2})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: unknown setting 'colour' (Engine's settings: depth, threads)
>>> build(Engine, {"depth": 1.5})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: setting 'depth' takes int, got 1.5 (float)
>>> @dataclass(frozen=True)
... class Pool(Settings):
...     processes: Count = 1
...     share: Annotated[float, Bound(gt=0.0, le=1.0, note="of the clock")] = 0.5
>>> Pool(share=0.0)
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: share must be in (0, 1] (of the clock), got 0.0
>>> build(Pool, {"processes": 0})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: processes must be >= 1, got 0
"""

from __future__ import annotations

import dataclasses
import json
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Optional, TypeVar

from .errors import BlindchessError, did_you_mean

C = TypeVar("C")

_NONE: Mapping[str, str] = MappingProxyType({})


class ConfigError(BlindchessError, ValueError):
    """A setting that is unknown or of the wrong type (the message names it and what is valid)."""


@dataclass(frozen=True, slots=True)
class Bound:
    """A number setting's allowed range, declared in its type: ``Annotated[float, Bound(ge=0.0, le=1.0)]``.

    `ge`/`gt` bound it from below (``>=``/``>``), `le`/`lt` from above; NaN is outside every bound.
    `note` says what the bound's edge means, in the error (``"0: search by time"``).
    """

    ge: Optional[float] = None
    gt: Optional[float] = None
    le: Optional[float] = None
    lt: Optional[float] = None
    note: str = ""

    def holds(self, value: float) -> bool:
        """Whether `value` is inside (comparisons written so that NaN never is)."""
        return all((
            self.ge is None or value >= self.ge, self.gt is None or value > self.gt,
            self.le is None or value <= self.le, self.lt is None or value < self.lt,
        ))

    def __str__(self) -> str:
        """``>= 1``, ``in [0, 1]``, ``in (0, 1]``, ``a finite number > 0`` ... and the note.

        >>> str(Bound(ge=0, note="0 keeps none")), str(Bound(gt=0.0, lt=math.inf)), str(Bound(ge=0.0, le=1.0))
        ('>= 0 (0 keeps none)', 'a finite number > 0', 'in [0, 1]')
        """
        low = ("[", ">=", self.ge) if self.gt is None else ("(", ">", self.gt)
        high = ("]", "<=", self.le) if self.lt is None else (")", "<", self.lt)
        if low[2] is None or high[2] is None:  # one side: ">= 1"
            _, sign, edge = high if low[2] is None else low
            text = f"{sign} {edge:g}"
        elif high[2] == math.inf:
            text = f"a finite number {low[1]} {low[2]:g}"
        else:
            text = f"in {low[0]}{low[2]:g}, {high[2]:g}{high[0]}"
        return f"{text} ({self.note})" if self.note else text


Count = Annotated[int, Bound(ge=1)]
"""A number of things (boards, processes, turns): at least one."""
Share = Annotated[float, Bound(ge=0.0, le=1.0)]
"""A share of something (time, a weight): from 0 to 1."""


def _fields(cls: type) -> dict[str, tuple[Any, Optional[Bound]]]:
    """Each field of `cls`: its type (``Annotated`` taken off) and its `Bound`, if its type declares one."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {}
    for field in dataclasses.fields(cls):
        hint = hints[field.name]
        extras = getattr(hint, "__metadata__", ())
        fields[field.name] = (typing.get_args(hint)[0] if extras else hint, next((e for e in extras if isinstance(e, Bound)), None))
    return fields


def _field_types(cls: type) -> dict[str, Any]:
    return {name: kind for name, (kind, _) in _fields(cls).items()}


def _is_config(kind: Any) -> bool:
    return isinstance(kind, type) and dataclasses.is_dataclass(kind)


def _checked(kind: Any, value: Any, name: str) -> Any:
    """`value` if it is of `kind` (an int is a float; a bool is no number), else a `ConfigError` naming `name`."""
    fits = (
        isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
        if kind is not float
        else isinstance(value, (int, float)) and not isinstance(value, bool)
    )
    if not fits:
        raise ConfigError(f"setting {name!r} takes {kind.__name__}, got {value!r} ({type(value).__name__})")
    return value


def check_settings(config: object, error: type[ValueError] = ConfigError) -> None:
    """Refuse the first field of `config` whose value is not of its declared type (`ConfigError`) or is
    outside its declared `Bound` (`error`: the config's own kind of error, naming the field and the bound)."""
    for name, (kind, bound) in _fields(type(config)).items():
        value = getattr(config, name)
        if _is_config(kind):
            if type(value) is not kind:
                raise ConfigError(f"setting {name!r} takes {kind.__name__}, got {value!r}")
            continue
        _checked(kind, value, name)
        if bound is not None and not bound.holds(value):
            raise error(f"{name} must be {bound}, got {value!r}")


class Settings:
    """A settings table: a dataclass deriving from this is checked as it is built (`check_settings`).

    A value outside its bound raises `bound_error`, the table's own kind of error (a subclass sets it). A table
    with a check across fields overrides ``__post_init__`` and calls ``Settings.__post_init__(self)`` first.
    """

    __slots__ = ()
    bound_error: ClassVar[type[ValueError]] = ConfigError

    def __post_init__(self) -> None:
        check_settings(self, self.bound_error)


def _leaf_names(cls: type, prefix: str) -> list[str]:
    """Every scalar setting of `cls`, dotted, nested tables included (``hunt.weight``)."""
    names = []
    for name, kind in _field_types(cls).items():
        names.extend(_leaf_names(kind, f"{prefix}{name}.") if _is_config(kind) else [prefix + name])
    return names


def _unknown(config: object, path: str, prefix: str, renamed: Mapping[str, str]) -> ConfigError:
    """The error for `path`, no setting of `config`: its new name if it was renamed, else the few nearest names."""
    if path in renamed:
        return ConfigError(f"setting {path!r} is now {renamed[path]!r}; rename it where it is set")
    names = dict.fromkeys([*_field_types(type(config)), *_leaf_names(type(config), "")])  # tables and nested settings too
    hint = did_you_mean(path[len(prefix):], names, n=3, prefix=prefix)
    if hint:
        return ConfigError(f"unknown setting {path!r}{hint}")
    owner = prefix.rstrip(".") or type(config).__name__
    return ConfigError(f"unknown setting {path!r} ({owner}'s settings: {', '.join(_field_types(type(config)))})")


def override(config: C, settings: Mapping[str, Any], prefix: str = "", renamed: Mapping[str, str] = _NONE) -> C:
    """`config` with the fields `settings` names replaced, nested mappings going into nested configs.

    `renamed` maps dotted names a config no longer has to their new names, for the error.

    Raises:
        ConfigError: a name is not a field (with its new name or the nearest ones), a value has
            the wrong type, or the config's own checks refuse the result.
    """
    types = _field_types(type(config))
    changes: dict[str, Any] = {}
    for name, value in settings.items():
        path = prefix + name
        if name not in types:
            raise _unknown(config, path, prefix, renamed)
        kind = types[name]
        if _is_config(kind):
            if not isinstance(value, Mapping):
                if path in renamed:
                    raise _unknown(config, path, prefix, renamed)
                raise ConfigError(f"setting {path!r} is a table of settings ({', '.join(_field_types(kind))}), got {value!r}")
            changes[name] = override(getattr(config, name), value, path + ".", renamed)
        else:
            changes[name] = _checked(kind, value, path)
    try:
        return dataclasses.replace(config, **changes)  # type: ignore[type-var]
    except ConfigError:
        raise
    except ValueError as error:
        raise ConfigError(f"settings {', '.join(prefix + name for name in changes)}: {error}") from error


def build(cls: type[C], settings: Mapping[str, Any]) -> C:
    """A `cls` from its defaults and `settings` (see `override`)."""
    return override(cls(), settings)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else "nan" if math.isnan(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's


def to_toml(config: object, table: str = "") -> str:
    """`config` as a TOML document: scalar fields first, then each nested config as a ``[table]``."""
    scalars, tables = [], []
    for field in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            name = f"{table}.{field.name}" if table else field.name
            tables.append(f"\n[{name}]\n" + to_toml(value, name))
        else:
            scalars.append(f"{field.name} = {_toml_value(value)}\n")
    return "".join(scalars) + "".join(tables)
