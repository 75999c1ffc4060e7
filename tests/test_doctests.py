"""The examples in the public picture functions' docstrings run as written (doctest), as python-statemachine's
docs do: a newcomer who copies one gets what it shows."""

from __future__ import annotations

import doctest
import importlib

import pytest

PICTURE_MODULES = tuple(f"alp_nb.viz.pictures.{name}" for name in (
    "delegation", "state_machines", "capabilities", "contract_picture", "timeline_picture"))


@pytest.mark.parametrize("name", PICTURE_MODULES)
def test_the_docstring_examples_of_a_picture_module_run_as_written(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (see above)"
