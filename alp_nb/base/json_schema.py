"""jsonschema, imported without paying for format checkers nothing asks for.

When ``rfc3987_syntax`` is installed (JupyterLab brings it), ``import jsonschema`` imports it for the ``iri``
format checks, and that import builds 38 lark parsers: 0.9 s, ten times the rest of jsonschema, and some
150,000 objects for the garbage collector. alp_nb's validators check no formats at all, and a loop contract's
only formats are dates. So while jsonschema imports, ``rfc3987_syntax`` is stood in for by a module whose one
function imports the real one on its first call: an ``iri`` is still checked exactly as before, the first time
one is, and nothing else changes. The stand-in leaves ``sys.modules`` as soon as jsonschema has imported, so any
other ``import rfc3987_syntax`` gets the real module.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from typing import Any

DEFERRED = "rfc3987_syntax"
DEFERRED_NAMES = ("is_valid_syntax",)
"""What jsonschema's format module takes from ``rfc3987_syntax`` (``from rfc3987_syntax import is_valid_syntax``)."""


def jsonschema_module() -> types.ModuleType:
    """``jsonschema``, imported (once) with ``rfc3987_syntax`` deferred to its first use."""
    loaded = sys.modules.get("jsonschema")
    if loaded is not None:
        return loaded
    with _deferred(DEFERRED, DEFERRED_NAMES):
        import jsonschema
    return jsonschema


@contextlib.contextmanager
def _deferred(name: str, functions: tuple[str, ...]) -> Iterator[None]:
    """While the block runs, ``import name`` gets a stand-in whose ``functions`` import the real module on call;
    nothing is stood in for when ``name`` is imported already or is not installed."""
    if name in sys.modules or importlib.util.find_spec(name) is None:
        yield
        return
    stand_in = types.ModuleType(name, f"{name}, imported on its first use (alp_nb.base.json_schema)")
    for function in functions:
        setattr(stand_in, function, _on_first_call(name, function))
    sys.modules[name] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


def _on_first_call(module: str, function: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__name__ = call.__qualname__ = function
    return call
