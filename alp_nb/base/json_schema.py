"""jsonschema, imported without paying for format checkers nothing asks for.

``import jsonschema`` imports every optional format package that is installed (JupyterLab brings them all) for
its format checks. ``rfc3987_syntax``, for ``iri``, builds 38 lark parsers as it imports: 0.9 s, ten times the rest
of jsonschema, and some 150,000 objects for the garbage collector; ``rfc3986_validator``, ``webcolors`` and
``uri_template`` add 10 ms more to every command that lints a contract, and ``arrow`` (which ``isoduration``
imports, for ``duration``) 20 to 50 ms. alp_nb's validators check no formats at all, and a loop contract's only
formats are dates. So while jsonschema imports, each of ``DEFERRED`` is stood in for by a module that imports the
real one the first time it is used: a call of one of the functions jsonschema imports from it by name, or a read
of any other attribute. A format is still checked exactly as before, the first time one is, and nothing else
changes. The stand-ins leave ``sys.modules`` as soon as jsonschema has imported, so any other import of those
packages gets the real module. (A package whose classes jsonschema reads as it imports, ``isoduration``'s
exception say, cannot be stood in for, and is not; ``arrow`` can, as isoduration reads it only when it parses.)
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

DEFERRED: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "rfc3987_syntax": ("is_valid_syntax",),
    "rfc3986_validator": ("validate_rfc3986",),
    "webcolors": ("name_to_hex", "normalize_hex"),
    "uri_template": ("validate",),
    "arrow": (),
})
"""The packages stood in for while jsonschema imports, and the functions its format module imports of each by
name."""


def jsonschema_module() -> types.ModuleType:
    """``jsonschema``, imported (once) with each of ``DEFERRED`` deferred to its first use."""
    loaded = sys.modules.get("jsonschema")
    if loaded is not None:
        return loaded
    with contextlib.ExitStack() as deferring:
        for name, functions in DEFERRED.items():
            deferring.enter_context(_deferred(name, functions))
        import jsonschema
    return jsonschema


@contextlib.contextmanager
def _deferred(name: str, functions: tuple[str, ...]) -> Iterator[None]:
    """While the block runs, ``import name`` gets a stand-in whose ``functions``, and any other attribute, import
    the real module when used; nothing is stood in for when ``name`` is imported already or is not installed."""
    if name in sys.modules or importlib.util.find_spec(name) is None:
        yield
        return
    stand_in = types.ModuleType(name, f"{name}, imported on its first use (alp_nb.base.json_schema)")
    for function in functions:
        setattr(stand_in, function, _on_first_call(name, function))
    vars(stand_in)["__getattr__"] = _on_first_read(name)  # PEP 562: read for any attribute the module lacks
    sys.modules[name] = stand_in
    try:
        yield
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


def _on_first_read(module: str) -> Any:
    """A stand-in's ``__getattr__``: any attribute but the import system's own (``__path__``...) is the real
    module's."""
    def read(attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(importlib.import_module(module), attribute)

    return read


def _on_first_call(module: str, function: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    call.__name__ = call.__qualname__ = function
    return call
