"""A reader without a kernel (nbconvert HTML, GitHub, nbviewer) sees each widget's last view: the committed
notebooks carry ipywidgets' saved state, every widget output's model and all the models under it are in it, a
widget that draws a picture saved it drawn, and each widget output's plain text says what it showed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
VIEW = "application/vnd.jupyter.widget-view+json"
STATE = "application/vnd.jupyter.widget-state+json"
PICTURE_WIDGETS = {"alp-registry-explorer", "alp-workflow-stepper", "alp-run-viewer"}
"""The widgets that draw a picture (an SVG) in their view; the contract editor is a form, with findings as text."""
MODEL_REFERENCE = re.compile(r"^IPY_MODEL_([0-9a-f]+)$")


def _views(notebook: Any) -> list[tuple[int, dict[str, Any], str]]:
    """(cell index, the widget-view output's data, its plain text) of every widget output."""
    return [(index, output["data"][VIEW], output["data"].get("text/plain", ""))
            for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for output in cell.outputs if VIEW in output.get("data", {})]


def _tree(state: dict[str, Any], model_id: str) -> list[dict[str, Any]]:
    """The model ``model_id`` and every model it refers to (children, layouts, styles), each once."""
    seen, todo, found = set(), [model_id], []
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        assert current in state, f"model {current} is not in the saved widget state"
        found.append(state[current])
        todo += [match.group(1) for value in _values(state[current]["state"]) if isinstance(value, str)
                 for match in [MODEL_REFERENCE.match(value)] if match]
    return found


def _values(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _values(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _values(item)]
    return [value]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_every_widget_of_a_committed_notebook_is_saved_with_what_it_last_showed(path):
    notebook = nbformat.read(path, as_version=4)
    views = _views(notebook)
    if not views:
        pytest.skip(f"{path.name} shows no widget")
    state = notebook.metadata.get("widgets", {}).get(STATE, {}).get("state")
    assert state, f"{path.name} shows widgets but saves no widget state (record it with store_widget_state)"
    for index, view, text in views:
        models = _tree(state, view["model_id"])
        shown = [value for model in models for key, value in model["state"].items()
                 if key == "value" and isinstance(value, str) and value.strip()]
        assert shown, f"{path.name} cell {index}: the saved widget shows nothing"
        classes = set(models[0]["state"].get("_dom_classes", ()))
        if classes & PICTURE_WIDGETS:
            assert any("<svg" in value for value in shown), f"{path.name} cell {index}: its picture was not saved"
        assert text.strip() and not text.startswith(("VBox(", "HBox(")), (
            f"{path.name} cell {index}: its plain text does not say what it showed: {text[:80]!r}")
