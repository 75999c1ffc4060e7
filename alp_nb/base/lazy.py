"""Lazy package exports: ``import alp_nb`` costs almost nothing, and a name is imported on first use.

A package lists its public names once, as imports inside ``if TYPE_CHECKING:``
in its ``__init__.py``. Type checkers and editors read that block as ordinary
imports; at run time ``lazy_exports`` reads the same block and returns the
package's ``__getattr__`` (PEP 562), ``__dir__`` and ``__all__``, so
``from alp_nb import *``, ``dir(alp_nb)`` and completion still show every name,
while networkx, jsonschema, pandas and the rest load only when a name that
needs them is used.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def lazy_exports(package: str, init_file: str) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package`` from the ``if TYPE_CHECKING:`` imports of its
    ``__init__.py`` (``init_file``); each name is imported once, then kept on the package."""
    exports = _checking_imports(Path(init_file))
    names = sorted(exports)

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # later lookups never come back here
        return value

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, list(names)


def _checking_imports(init_file: Path) -> dict[str, str]:
    """``{name: module}`` for every ``from module import name`` under ``if TYPE_CHECKING:``."""
    exports: dict[str, str] = {}
    for node in ast.parse(init_file.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom):
                    module = "." * statement.level + (statement.module or "")
                    exports.update((alias.asname or alias.name, module) for alias in statement.names)
    return exports
