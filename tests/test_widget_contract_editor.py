"""ContractEditor: a loop contract as a form by phase, linted as it is typed, the schema's refusals beside the field,
``set`` the same as typing, failure injections, and files written only where asked and never over another."""

from __future__ import annotations

import os
import re

import ipywidgets as widgets
import pytest
from loop_contract_samples import CLEAN
from widget_support import html_values

from alp_nb.loops import FAILURE_INJECTIONS, PHASES, TRIGGER_TYPES, LoopContract, lint_contract, scenarios_for, simulate
from alp_nb.viz.rendering import render
from alp_nb.widgets import ContractEditor
from alp_nb.widgets.contract_fields import FORM_FIELDS

HOSTILE = ['<script>alert(1)</script>', '"><img onerror=x>', "</svg>", "right\u202eto-left", "zero\u200bwidth"]


@pytest.fixture
def editor():
    return ContractEditor(LoopContract.from_document(CLEAN))


def leaves(document):
    """The JSON path of every field a person edits whole: each part's keys, or the part itself."""
    return [f"{part}.{key}" if isinstance(value, dict) else part
            for part, value in document.items() for key in (value if isinstance(value, dict) else [None])]


def shown_everywhere(editor, text):
    return [place for place, note in editor.notes.items() if text in note.value]


# --- the form ---------------------------------------------------------------------------------------------------


def test_the_form_has_one_control_per_field_grouped_by_the_contracts_three_phases(editor):
    assert list(editor.controls) == [field.path for field in FORM_FIELDS] == leaves(CLEAN)
    assert isinstance(editor.controls["budget.max_retries"], widgets.IntText)
    assert editor.controls["budget.max_runtime_minutes"].value == 45
    assert editor.controls["trigger.type"].options == TRIGGER_TYPES
    assert editor.controls["trigger.type"].value == "scheduled"
    assert editor.controls["intake.sources"].value == "pip-audit report\nadvisory feed"
    assert editor.controls["agents"].value == ("Implementer: Bump the pinned version.\n"
                                               "Verifier: Rerun the test suite and read the lockfile diff.")
    headings = [value for value in html_values(editor) if value.startswith("<h3")]
    assert [heading.split(">")[1].split("<")[0] for heading in headings[:3]] == [
        "Set up", "Run", "Govern &amp; close"] == [title.replace("&", "&amp;") for title, _ in PHASES]


def test_a_name_starts_from_the_template_with_its_questions_beside_their_fields():
    editor = ContractEditor("nightly")
    assert editor.contract == LoopContract.template("nightly")
    assert editor.findings == lint_contract(editor.contract)
    assert "LC004" in editor.notes["objective"].value and "22 errors" in editor.summary.value
    # the template's roles are questions with a colon of their own: the agent line still reads back whole
    editor.controls["agents"].value = editor.controls["agents"].value + "\nReviewer: reads the diff"
    assert [agent.role for agent in editor.contract.agents] == ["TODO: who acts?", "TODO: who checks?", "Reviewer"]


# --- live lint --------------------------------------------------------------------------------------------------


def test_an_edit_through_a_control_relints_and_shows_the_finding_beside_its_field(editor):
    assert editor.findings == () and shown_everywhere(editor, "badge") == []
    editor.controls["workspace.disallowed_actions"].value = ("force push\nchange application code\n"
                                                            "open one pull request per night")
    (finding,) = editor.findings
    assert (finding.rule, finding.path) == ("LC010", "workspace.disallowed_actions[2]")
    assert shown_everywhere(editor, "LC010") == ["workspace.disallowed_actions"]
    assert "item 3:" in editor.notes["workspace.disallowed_actions"].value
    assert "1 error" in editor.summary.value
    editor.controls["workspace.allowed_actions"].value = "edit requirements files\nrun the test suite"
    assert "LC010" not in [finding.rule for finding in editor.findings]
    assert shown_everywhere(editor, "LC010") == []


def test_a_finding_inside_the_agents_list_shows_beside_the_agents_field(editor):
    editor.controls["agents"].value = "Implementer: bumps the version\nImplementer: reruns the test suite"
    assert [(finding.rule, finding.path) for finding in editor.findings] == [("LC015", "agents[1].role")]
    assert shown_everywhere(editor, "LC015") == ["agents"] and "item 2 · role:" in editor.notes["agents"].value


def test_a_finding_about_a_part_as_a_whole_shows_beside_the_part(editor):
    editor.set("context", {"required_files": [], "runtime_sources": []})
    assert [(finding.rule, finding.path) for finding in editor.findings] == [("LC017", "context")]
    assert "LC017" in editor.notes["context"].value and shown_everywhere(editor, "LC017") == ["context"]


# --- set() is typing --------------------------------------------------------------------------------------------

TYPED_AND_SET = [
    ("objective", "Merge one dependency bump a night.", "Merge one dependency bump a night."),
    ("trigger.type", "event", "event"),
    ("workspace.allowed_actions", "edit requirements files\n\nopen a pull request",
     ["edit requirements files", "open a pull request"]),
    ("agents", "Implementer: bumps it\nImplementer: checks it",
     [{"role": "Implementer", "responsibility": "bumps it"}, {"role": "Implementer", "responsibility": "checks it"}]),
    ("budget.max_retries", 9, 9),
    ("intake.sources", "", []),
    ("budget.max_retries", -1, -1),
    ("exit.success", "", ""),
]


@pytest.mark.parametrize(("path", "typed", "value"), TYPED_AND_SET)
def test_set_is_the_same_as_typing(path, typed, value):
    typist, coder = (ContractEditor(LoopContract.from_document(CLEAN)) for _ in range(2))
    typist.controls[path].value = typed
    coder.set(path, value)
    assert coder.contract == typist.contract and coder.findings == typist.findings
    for place in typist.notes:
        assert coder.notes[place].value == typist.notes[place].value
    assert coder.summary.value == typist.summary.value
    for place, control in typist.controls.items():
        assert control_shows(coder.controls[place].value) == control_shows(control.value)


def control_shows(value):
    """A control's value without the blank lines a person may leave between items."""
    return "\n".join(line for line in value.split("\n") if line.strip()) if isinstance(value, str) else value


def test_set_reaches_inside_a_field_by_json_path_and_updates_the_form(editor):
    assert editor.set("agents[0].role", "Fixer") == ()
    assert editor.contract.agents[0].role == "Fixer"
    assert editor.controls["agents"].value.splitlines()[0] == "Fixer: Bump the pinned version."
    assert editor.set("budget", {"max_retries": 1, "max_runtime_minutes": 10}) == ()
    assert (editor.controls["budget.max_retries"].value, editor.controls["budget.max_runtime_minutes"].value) == (1, 10)
    assert editor.set("workspace.allowed_actions[1]", "run the linters") == ()
    assert editor.controls["workspace.allowed_actions"].value.splitlines()[1] == "run the linters"


# --- the schema refuses -----------------------------------------------------------------------------------------

REFUSALS = [
    ("intake.sources", "", "Tuple should have at least 1 item"),
    ("budget.max_retries", -1, "Input should be greater than or equal to 0"),
    ("budget.max_runtime_minutes", 0, "Input should be greater than or equal to 1"),
    ("objective", "", "String should have at least 1 character"),
    ("agents", ": bumps it", "String should have at least 1 character"),
    ("agents", "Implementer bumps it", "line 1: write each agent as `role: responsibility`"),
]


@pytest.mark.parametrize(("path", "typed", "message"), REFUSALS)
def test_a_schema_breaking_edit_is_refused_beside_the_field_and_the_contract_is_unchanged(editor, path, typed,
                                                                                          message):
    before = editor.contract
    editor.controls[path].value = typed
    assert editor.contract is before and editor.findings == ()
    assert shown_everywhere(editor, "refused") == [path]
    assert message in editor.notes[path].value and "the contract keeps:" in editor.notes[path].value
    assert editor.controls[path].value == typed  # what was typed stays, beside the refusal
    assert "1 edit refused" in editor.summary.value


def test_a_refusal_is_forgotten_once_its_field_holds_a_valid_value_again(editor):
    editor.controls["budget.max_retries"].value = -3
    editor.controls["objective"].value = "Open one pull request a night."  # another field: still refused
    assert editor.contract.objective == "Open one pull request a night."
    assert shown_everywhere(editor, "refused") == ["budget.max_retries"]
    editor.controls["budget.max_retries"].value = 3
    assert editor.contract.budget.max_retries == 3 and shown_everywhere(editor, "refused") == []
    assert "refused" not in editor.summary.value


def test_set_returns_the_refusal_and_a_place_the_contract_lacks_is_refused_not_raised(editor):
    before = editor.contract
    assert editor.set("budget.max_retries", "3") == ("budget.max_retries: Input should be a valid integer",)
    assert editor.controls["budget.max_retries"].value == 2  # a count control cannot show a string
    assert editor.set("agents[9].role", "x") == ("agents[9].role: the contract has no such place",)
    assert "item 10 · role:" in editor.notes["agents"].value
    assert editor.set("budget.max_retriez", 1) == ("budget.max_retriez: Extra inputs are not permitted",)
    assert "max_retriez" in editor.notes["budget"].value
    assert editor.set("nonsense", 1) == ("nonsense: Extra inputs are not permitted",)
    assert "nonsense" in editor.summary.value
    assert editor.contract is before


# --- failure injection ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", list(FAILURE_INJECTIONS))
def test_simulating_every_injection_shows_its_trace(editor, scenario):
    editor.scenario.value = scenario
    editor.simulate_button.click()
    assert editor.simulation == simulate(editor.contract, scenario)
    assert editor.trace.value == render(editor.simulation, "html")
    assert f"<b>{scenario}</b>" in editor.trace.value


def test_the_scenarios_offered_are_the_contracts_own_and_follow_its_edits(editor):
    assert editor.scenario.options == tuple(scenario.name for scenario in scenarios_for(editor.contract))
    assert "disallowed-action-2" in editor.scenario.options and "disallowed-action-3" not in editor.scenario.options
    editor.scenario.value = "disallowed-action-2"
    editor.simulate_button.click()
    assert editor.simulation.receipt.refused == ("change application code",)
    editor.controls["workspace.disallowed_actions"].value = "force push\nchange application code\nmerge the PR"
    assert editor.scenario.value == "disallowed-action-2" and "disallowed-action-3" in editor.scenario.options
    editor.controls["workspace.disallowed_actions"].value = "force push"
    assert editor.scenario.value == editor.scenario.options[0]
    assert editor.simulation is None and editor.trace.value == ""


def test_the_trace_follows_the_contract_after_an_edit(editor):
    editor.scenario.value = "missing-authority"
    editor.simulate_button.click()
    editor.controls["escalation.destination"].value = "Pager of the platform team"
    assert editor.simulation.owner == "Pager of the platform team"
    assert "Pager of the platform team" in editor.trace.value


# --- files ------------------------------------------------------------------------------------------------------


def test_saving_json_and_yaml_writes_files_that_load_back_equal(editor, tmp_path):
    editor.controls["objective"].value = "Bump one vulnerable dependency a night: 'quoted', ünïcode."
    editor.path.value = str(tmp_path / "nightly")
    editor.save_json_button.click()
    assert "wrote" in editor.status.value and "nightly.json" in editor.status.value
    editor.save_yaml_button.click()
    assert LoopContract.load(tmp_path / "nightly.json") == editor.contract
    assert LoopContract.load(tmp_path / "nightly.yaml") == editor.contract
    editor.path.value = str(tmp_path / "other.yml")
    editor.save_yaml_button.click()
    assert LoopContract.load(tmp_path / "other.yml") == editor.contract


def test_saving_refuses_to_overwrite_an_existing_file_without_force(editor, tmp_path):
    target = tmp_path / "nightly.json"
    target.write_text("keep me")
    os.symlink(tmp_path / "nowhere", tmp_path / "nightly.yaml")  # a dangling link is something too
    editor.path.value = str(target)
    for button in (editor.save_json_button, editor.save_yaml_button):
        button.click()
        assert "refused" in editor.status.value and "already exists" in editor.status.value
    assert target.read_text() == "keep me" and os.path.islink(tmp_path / "nightly.yaml")
    editor.force.value = True
    editor.save_json_button.click()
    assert "wrote" in editor.status.value and LoopContract.load(target) == editor.contract


def test_the_review_packet_is_html_or_markdown_by_the_paths_suffix_and_never_overwrites(editor, tmp_path):
    editor.path.value = str(tmp_path / "nightly.yaml")
    editor.packet_button.click()
    html = (tmp_path / "nightly.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    editor.path.value = str(tmp_path / "nightly.md")
    editor.packet_button.click()
    assert (tmp_path / "nightly.md").read_text().startswith("# ")
    (tmp_path / "nightly.md").write_text("keep me")
    editor.packet_button.click()
    assert "already exists" in editor.status.value and (tmp_path / "nightly.md").read_text() == "keep me"


def test_a_path_it_cannot_write_is_refused_in_the_status(editor, tmp_path):
    editor.save_yaml_button.click()
    assert "type a file name" in editor.status.value
    editor.path.value = str(tmp_path / "missing" / "nightly.yaml")
    editor.save_yaml_button.click()
    assert "refused" in editor.status.value and "no such directory" in editor.status.value


# --- hostile text -----------------------------------------------------------------------------------------------


def test_hostile_contract_text_never_reaches_the_page_as_markup(tmp_path):
    document = {**CLEAN, "name": HOSTILE[0], "objective": "L" * 10_000,
                "agents": [{"role": text, "responsibility": text} for text in HOSTILE],
                "workspace": {**CLEAN["workspace"], "allowed_actions": HOSTILE, "disallowed_actions": HOSTILE},
                "escalation": {**CLEAN["escalation"], "destination": HOSTILE[1]}}
    editor = ContractEditor(LoopContract.from_document(document))
    editor.set("budget.max_retries", HOSTILE[0])
    editor.set(HOSTILE[1], 1)
    editor.controls["agents"].value = HOSTILE[2]
    editor.scenario.value = "missing-authority"
    editor.simulate_button.click()
    editor.path.value = str(tmp_path / HOSTILE[1])
    editor.save_yaml_button.click()
    editor.save_yaml_button.click()
    assert editor.findings and "LC010" in editor.notes["workspace.disallowed_actions"].value
    values = html_values(editor)
    for value in values:
        assert "<script" not in value and "<img" not in value and "</svg>" not in value
    own = [editor.summary.value, editor.status.value, *(note.value for note in editor.notes.values())]
    assert all("\u202e" not in value and "\u200b" not in value for value in own)
    assert any("right\\u202eto-left" in value for value in own)
    assert max(len(value) for value in own) < 20_000  # the 10 KB objective is clipped where it is quoted


# --- no green on a broken contract, and the reviewer grades ------------------------------------------------------

GREEN_SUCCESS = re.compile(r'<span class="badge ok"[^>]*>exit-success<')


def test_the_template_never_shows_a_green_success_simulated_or_not():
    editor = ContractEditor("nightly")
    editor.scenario.value = "success-on-retry"
    editor.simulate_button.click()
    assert editor.simulation is None and "refused" in editor.trace.value
    assert "22 lint errors" in editor.trace.value and "simulate despite lint errors" not in editor.trace.value
    editor.allow_lint_errors.value = True  # ticking it simulates again, provisionally
    assert editor.simulation is not None and editor.simulation.outcome == "exit-success"
    assert editor.simulation.provisional and "exit-success (provisional)" in editor.trace.value
    editor.grade_button.click()
    assert editor.graded and all(grade.provisional for grade in editor.graded)
    assert not [value for value in html_values(editor) if GREEN_SUCCESS.search(value)]
    assert "as expected" not in "".join(html_values(editor))


def test_an_answered_contract_simulates_without_the_override_and_shows_its_success(editor):
    editor.scenario.value = "success-on-retry"
    editor.simulate_button.click()
    assert not editor.simulation.provisional and GREEN_SUCCESS.search(editor.trace.value)
    assert "not stated" in editor.trace.value


def test_a_review_file_grades_the_trace_and_every_scenario_disagreements_first(editor, tmp_path):
    review = tmp_path / "nightly.review.yaml"
    review.write_text(f"contract: {CLEAN['name']}\nexpectations:\n"
                      "  retry-budget: {outcome: escalate, signed_by: Ana (operator)}\n"
                      "  timeout: {outcome: stop-with-receipt, signed_by: Ana (operator)}\n")
    editor.expect_path.value = str(review)
    editor.expect_button.click()
    assert "loaded" in editor.status.value and editor.expectations is not None
    editor.scenario.value = "retry-budget"
    editor.simulate_button.click()
    assert "disagree" in editor.trace.value
    assert "expected escalate, the run ended stop-with-receipt" in editor.trace.value
    editor.grade_button.click()
    assert [grade.verdict for grade in editor.graded[:2]] == ["disagree", "agree"]
    assert editor.grades.value.index("retry-budget") < editor.grades.value.index("timeout")
    assert "1 disagree, 1 agree" in editor.grades.value


def test_a_review_file_about_another_contract_or_missing_is_refused_never_graded(editor, tmp_path):
    review = tmp_path / "review.yaml"
    review.write_text("contract: Another loop\nexpectations: {}\n")
    editor.expect_path.value = str(review)
    editor.expect_button.click()
    editor.grade_button.click()
    assert editor.graded is None
    assert "refused" in editor.grades.value and "the review is about `Another loop`" in editor.grades.value
    editor.expect_path.value = str(tmp_path / "missing.yaml")
    editor.expect_button.click()
    assert "refused" in editor.status.value and "missing.yaml" in editor.status.value
