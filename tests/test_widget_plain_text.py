"""What a page without widgets shows for each widget (GitHub, nbviewer, a notebook saved without widget state):
its plain text says in one short line what the widget shows, with control characters made visible."""

import alp_nb as alp
from alp_nb.runtime import run_workflow_sync

REGISTRY = alp.builtin_registry()
PLAIN_TEXT_LIMIT = 110
"""ipywidgets cuts a widget's plain text there."""


def plain_text(widget) -> str:
    return widget._repr_mimebundle_()["text/plain"]


def test_the_stepper_says_whose_workflow_and_where():
    stepper = alp.WorkflowStepper(REGISTRY.get("worker"))
    assert plain_text(stepper) == "WorkflowStepper: worker at ASSESS (running)"


def test_the_explorer_says_how_many_roles_and_which_one_it_shows():
    assert plain_text(alp.RegistryExplorer(REGISTRY)) == "RegistryExplorer: 9 roles, showing main"


def test_the_editor_says_the_contract_and_its_lint_tally_with_control_characters_visible():
    editor = alp.ContractEditor("nightly\x1b[31m")
    assert plain_text(editor) == "ContractEditor: nightly\\x1b[31m · lint 22 errors, 0 warnings, 1 info"


def test_the_viewer_says_the_call_under_its_cursor(tmp_path):
    run = run_workflow_sync("review-changes", {"changes": "fix"}, store=tmp_path)
    viewer = alp.RunViewer(run)
    text = plain_text(viewer)
    assert text.startswith(f"RunViewer: call 1 of {len(viewer.calls)}: {viewer.current.label} (")
    assert len(text) <= PLAIN_TEXT_LIMIT
