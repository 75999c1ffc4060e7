"""Re-record notebooks in place: run each top to bottom in a fresh kernel and keep its outputs and its widgets'
saved state, so a reader without a kernel sees each widget's last view (run it after a notebook changes):

    .venv/bin/python docs/record_notebooks.py notebooks/*.ipynb

A saved widget keeps only what differs from a fresh widget of its kind: a widget manager fills in the rest from
the same defaults when it loads the state, and a form of many fields would otherwise save every default of every
layout and style (notebook 03's editor: 141 layouts, 160 KB of defaults).
"""

from __future__ import annotations

import sys
import time
from functools import cache
from typing import Any

import nbformat
from nbclient import NotebookClient

WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
KEPT = ("_model_module", "_model_module_version", "_model_name", "_view_module", "_view_module_version",
        "_view_name")
"""Kept whatever their value: they say which model the state is for."""


def record(path: str) -> float:
    """Run ``path`` in place and save it; the seconds it took."""
    started = time.monotonic()
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": "notebooks"}},
                   record_timing=False, store_widget_state=True).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
    for model in notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}).values():
        model["state"] = _without_defaults(model["state"])
    nbformat.write(notebook, path)
    return time.monotonic() - started


def _without_defaults(state: dict[str, Any]) -> dict[str, Any]:
    defaults = _defaults(*(state.get(key) for key in KEPT))
    return {key: value for key, value in state.items()
            if key in KEPT or key not in defaults or defaults[key] != value}


@cache
def _defaults(*kind: str | None) -> dict[str, Any]:
    """The state a fresh widget of this kind (``KEPT``'s six values) sends; empty for one ipywidgets lacks."""
    from ipywidgets.widgets.widget import _registry

    try:
        widget = _registry.get(*kind)()
    except (KeyError, TypeError):
        return {}
    try:
        return dict(widget.get_state())
    finally:
        widget.close()


if __name__ == "__main__":
    for notebook_path in sys.argv[1:]:
        print(f"{notebook_path}: {record(notebook_path):.1f} s")
