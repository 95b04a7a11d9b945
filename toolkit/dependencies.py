"""Optional dependencies, checked before any work starts.

Some parts need packages that a plain ``pip install blindchess`` does not bring: the server and
its client (``blindchess[server]``: FastAPI, uvicorn, requests) and the experiments' plots
(``blindchess[experiments]``: matplotlib). A command that needs one calls :func:`require` first,
so a missing package is reported at once, with the command that installs it, instead of after
minutes of computing.

>>> require("json", extra="server")  # present: nothing happens
>>> try:
...     require("no_such_module_xyz", extra="experiments")
... except MissingDependencyError as error:
...     print(error)
no_such_module_xyz is not installed; install it with: pip install 'blindchess[experiments]' (in a checkout: pip install -e '.[experiments]')
"""

from __future__ import annotations

import importlib.util

from blindchess.errors import BlindchessError


class MissingDependencyError(BlindchessError, ImportError):
    """An optional package is missing; the message says how to install it."""


def require(*modules: str, extra: str) -> None:
    """Raise `MissingDependencyError` unless every one of `modules` can be imported.

    Args:
        modules: top-level module names (``"matplotlib"``, ``"fastapi"``).
        extra: the ``pyproject.toml`` extra that installs them (``"experiments"``, ``"server"``).
    """
    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken parent
            found = False
        if not found:
            raise MissingDependencyError(
                f"{module} is not installed; install it with: pip install 'blindchess[{extra}]'"
                f" (in a checkout: pip install -e '.[{extra}]')"
            )
