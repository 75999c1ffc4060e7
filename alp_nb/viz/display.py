"""How core objects show themselves in IPython and Jupyter, without a line of display code in the core.

``install`` registers every class of ``views.VIEWS`` with IPython *by name*
(``for_type_by_name``), so no core module and no view is imported until an
object of that class is actually shown. ``import alp_nb`` calls it when
IPython is already loaded (a kernel, an IPython shell), so a notebook gets the
rich views with nothing to set up; plain ``repr()`` stays the model's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from alp_nb.viz.rendering import VIEWS

if TYPE_CHECKING:
    from IPython.lib.pretty import RepresentationPrinter


def install() -> None:
    """Show every core object richly: its HTML (and Markdown) in a notebook, its text view in a terminal
    shell and in ``IPython.lib.pretty.pretty``. Safe to call again."""
    from IPython import get_ipython
    from IPython.lib import pretty

    shell = get_ipython()
    for qualified in VIEWS:
        module, _, name = qualified.rpartition(".")
        pretty.for_type_by_name(module, name, _pretty)
        if shell is not None:
            shell.display_formatter.mimebundle_formatter.for_type_by_name(module, name, _bundle)


def _bundle(obj: Any) -> dict[str, str]:
    from alp_nb.viz.rendering import mimebundle

    return mimebundle(obj)


def _pretty(obj: Any, printer: RepresentationPrinter, cycle: bool) -> None:
    from alp_nb.viz.rendering import render
    from alp_nb.viz.terminal import plain

    printer.text(plain(render(obj, "text")))
