"""Every widget built from hostile strings and then driven: whatever it shows is text. Hypothesis mixes markup,
attribute breakouts, CDATA ends, direction and zero-width characters and 10 KB labels into the roles, outputs,
contract texts and call labels a widget shows; after every move each HTML value holds no tag or attribute the
strings brought, each picture in it is safe SVG, and no invisible character is left to make one text read as
another (widgets show them as ``\\uNNNN``)."""

from __future__ import annotations

import contextlib
import re
import tempfile

import ipywidgets as widgets
import pytest
from hostile_text import (
    CHECK,
    HOSTILE,
    assert_safe_html,
    assert_safe_svg,
    hostile_agent,
    hostile_contract,
    hostile_review,
    hostile_timeline,
)
from hypothesis import given, settings
from widget_support import html_values

from alp_nb.loops import FAILURE_INJECTIONS
from alp_nb.widgets import ContractEditor, RegistryExplorer, RunViewer, WorkflowStepper
from alp_nb.widgets.gallery import WIDGETS, as_role_id, sample_registry

WIDGET_KINDS = list(WIDGETS)
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
INVISIBLE = "\u202e\u200b"


def assert_shows_only_text(widget: object) -> None:
    for value in html_values(widget):
        assert_safe_html(value)
        for svg in SVG.findall(value):
            assert_safe_svg(svg)
        assert not [char for char in INVISIBLE if char in value]


@CHECK
@given(text=HOSTILE)
def test_a_registry_explorer_of_hostile_roles_shows_only_text_as_it_is_driven(text):
    text = as_role_id(text)
    explorer = RegistryExplorer(sample_registry(text))
    explorer.role.value = text
    assert_shows_only_text(explorer)
    explorer.tool.value = text
    explorer.ask_button.click()
    assert_shows_only_text(explorer)
    explorer.ask({"type": "delegation", "actor": text, "target": text})
    assert_shows_only_text(explorer)


@CHECK
@given(text=HOSTILE)
def test_a_workflow_stepper_of_a_hostile_role_shows_only_text_as_it_is_driven(text):
    stepper = WorkflowStepper(hostile_agent(text))
    stepper.tool.value = text
    stepper.transition(text)  # refused: not a declared next state
    stepper.transition_button.click()
    assert_shows_only_text(stepper)
    stepper.output_text.value = text
    stepper.submit_button.click()
    stepper.back_button.click()
    stepper.cancel_button.click()
    assert_shows_only_text(stepper)


@CHECK
@given(text=HOSTILE)
def test_a_contract_editor_of_a_hostile_contract_shows_only_text_as_it_is_driven(text):
    text = text.encode("utf-8", "replace").decode()  # a contract is JSON or YAML text: no lone surrogates
    editor = ContractEditor(hostile_contract(text))
    assert_shows_only_text(editor)
    editor.set("objective", text + text)
    editor.set("budget.max_retries", text)  # refused by the schema, beside the field
    editor.scenario.value = next(iter(FAILURE_INJECTIONS))
    editor.simulate_button.click()
    assert_shows_only_text(editor)
    editor.expectations = hostile_review(editor.contract, text)
    editor.allow_lint_errors.value = True
    editor.grade_button.click()
    assert_shows_only_text(editor)


@CHECK
@given(text=HOSTILE)
def test_a_run_viewer_over_hostile_labels_and_phases_shows_only_text_as_it_is_driven(text):
    viewer = RunViewer(hostile_timeline(text))
    viewer.next_button.click()
    viewer.jump.value = text
    viewer.find_button.click()
    assert_shows_only_text(viewer)


MAX_OPTIONS = 6
"""The options of a selection the generic drive tries, from the first."""


def controls(widget: widgets.Widget) -> list[widgets.Widget]:
    """Every control inside ``widget`` (itself included), depth first: what a user can click, pick, type or
    toggle."""
    found = [widget] if isinstance(widget, (widgets.Button, widgets.ValueWidget)) else []
    return found + [control for child in getattr(widget, "children", ()) for control in controls(child)]


def drive(widget: widgets.Widget, text: str) -> None:
    """Use every control once, as a curious user would: click each enabled button, pick the first options of each
    selection, type ``text`` into each text box, toggle each check box, slide each slider to its end; after every
    move, what the widget shows is text. (A text box may name a file a button writes: ``text`` goes in with no
    path separator, and the caller runs this in a folder of its own.)"""
    text = text.replace("/", "\u2215")
    for control in controls(widget):
        if getattr(control, "disabled", False):
            continue
        if isinstance(control, widgets.Button):
            control.click()
        elif isinstance(control, widgets.widget_selection._Selection):
            for index in range(min(len(control.options), MAX_OPTIONS)):
                control.index = index
        elif isinstance(control, (widgets.Text, widgets.Textarea)):
            control.value = text
        elif isinstance(control, (widgets.Checkbox, widgets.ToggleButton)):
            control.value = not control.value
        elif isinstance(control, widgets.IntSlider):
            control.value = control.max
        assert_shows_only_text(widget)


@pytest.mark.parametrize("kind", WIDGET_KINDS, ids=[kind.name for kind in WIDGET_KINDS])
@settings(CHECK, max_examples=5)
@given(text=HOSTILE)
def test_every_registered_widget_of_hostile_text_shows_only_text_as_each_control_is_used(kind, text):
    widget = kind.sample(text)
    assert_shows_only_text(widget)
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        drive(widget, text)
