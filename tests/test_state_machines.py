"""A role's state machine: its states in order with the tools the role really holds in each, the current state
highlighted and its status named, the output contract and the three outcomes after the final state, and
``cancelled`` from every live status; and the six run statuses on their own. In SVG, Mermaid, text and
matplotlib, small enough to inline, with no arrow through a box."""

from __future__ import annotations

from xml.etree import ElementTree

import matplotlib
import pytest
from agent_factory import build_agent
from picture_checks import crossings

from alp_nb.agents import BUILTIN_AGENTS, builtin_registry
from alp_nb.viz import VizError
from alp_nb.viz.pictures.state_machines import INITIAL_MARK, OUTPUT_NODE, state_machine, state_node, status_lifecycle
from alp_nb.workflow import (
    LIVE_STATUSES,
    MAX_OUTPUT_REPAIR_ATTEMPTS,
    RUN_STATUSES,
    WorkflowError,
    WorkflowExecutionState,
    WorkflowSession,
    define_linear_workflow,
)

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"
WORKER = builtin_registry().get("worker")
WORKER_STATES = ("ASSESS", "IMPLEMENT", "VERIFY", "REPORT")


def current(pic):
    return [node.id for node in pic.nodes if "current" in node.marks]


def tools_of(pic, state_id):
    return ", ".join(line for line in pic.node(state_node(state_id)).detail if line != INITIAL_MARK)


def test_the_initial_state_and_only_it_says_that_executions_start_there():
    for subject in (WORKER, define_linear_workflow("wide", [("EDIT", ["Read"]), ("DONE", [])])):
        pic = state_machine(subject).diagram
        marked = [node.label for node in pic.nodes if INITIAL_MARK in node.detail]
        workflow = subject.workflow if hasattr(subject, "workflow") else subject
        assert marked == [workflow.initial] and pic.node(state_node(workflow.initial)).detail[0] == INITIAL_MARK


def test_the_states_come_in_order_each_with_the_tools_it_opens_and_the_last_is_terminal():
    pic = state_machine(WORKER).diagram
    states = [node for node in pic.nodes if node.id.startswith("state:")]
    assert [node.label for node in states] == list(WORKER_STATES)
    assert [node.style for node in states] == ["state", "state", "state", "terminal"]
    assert [pic.slots[node.id][0] for node in states] == [0, 1, 2, 3]
    assert tools_of(pic, "IMPLEMENT") == ", ".join(WORKER.capabilities.tools)
    assert tools_of(pic, "REPORT") == "no tools"
    assert pic.title == "worker: workflow execute-delegated-task"


def test_worker_in_verify_shows_exactly_the_tools_it_holds_there():
    assert tools_of(state_machine(WORKER).diagram, "VERIFY") == "Read, Glob, Grep, Bash"


def test_a_state_shows_only_the_tools_the_role_is_granted_and_a_bare_workflow_its_own():
    workflow = define_linear_workflow("wide", [("EDIT", ["Read", "Write", "Bash"]), ("DONE", [])])
    reader = build_agent("reader").model_copy(update={"workflow": workflow})
    assert tools_of(state_machine(reader).diagram, "EDIT") == "Read"
    assert tools_of(state_machine(workflow).diagram, "EDIT") == "Read, Write, Bash"


def test_after_the_final_state_come_the_output_contract_and_the_three_outcomes():
    pic = state_machine(WORKER).diagram
    output = pic.node(OUTPUT_NODE)
    assert (output.label, output.detail, output.style) == (
        "output: task-result", ("text contract, checked on submit",), "note")
    edges = {(edge.source, edge.target): edge.label for edge in pic.edges if edge.style == "solid"}
    assert edges[(state_node("REPORT"), OUTPUT_NODE)] == "submit"
    assert edges[(OUTPUT_NODE, "completed")] == "valid"
    assert edges[(OUTPUT_NODE, "repairing")] == "invalid"
    assert edges[("repairing", "completed")] == "valid"
    assert edges[("repairing", "failed")] == "invalid"
    assert f"{MAX_OUTPUT_REPAIR_ATTEMPTS} repair allowed" in pic.node("repairing").detail
    assert [pic.node(status).style for status in ("completed", "failed", "cancelled")] == [
        "success", "failure", "outcome"]


def test_a_bare_workflow_names_no_contract_it_does_not_have():
    pic = state_machine(WORKER.workflow).diagram
    assert pic.node(OUTPUT_NODE).label == "output contract"
    assert pic.title == "workflow execute-delegated-task"


def test_cancelled_is_reached_by_a_dashed_arrow_from_every_live_status_and_only_from_them():
    pic = state_machine(WORKER).diagram
    into_cancelled = {edge.source for edge in pic.edges if edge.target == "cancelled"}
    running, awaiting = [state_node(each) for each in WORKER_STATES[:-1]], state_node("REPORT")
    assert into_cancelled == {*running, awaiting, "repairing"}
    assert {edge.style for edge in pic.edges if edge.target == "cancelled"} == {"dashed"}


def test_a_session_after_a_transition_marks_the_new_state_current_and_names_its_status():
    session = WorkflowSession(WORKER)
    session.transition()
    pic = state_machine(session).diagram
    assert current(pic) == [state_node("IMPLEMENT")]
    assert pic.caption == f"running at IMPLEMENT · repair attempts 0 of {MAX_OUTPUT_REPAIR_ATTEMPTS}"
    assert ("current", "where the execution is") in pic.legend


def test_a_snapshot_that_left_its_state_highlights_only_the_status_it_is_in_and_names_the_state():
    snapshot = WorkflowExecutionState(workflow_id=WORKER.workflow.id, current_state="REPORT", status="repairing",
                                      repair_attempts=1)
    pic = state_machine(snapshot).diagram
    assert current(pic) == ["repairing"]  # one highlight: "where the execution is", as the legend says
    assert pic.caption.startswith("repairing at REPORT")
    assert current(state_machine(WORKER, snapshot.model_copy(update={"status": "completed"})).diagram) == [
        "completed"]


def test_a_state_of_another_workflow_or_an_unknown_one_is_refused():
    stranger = WorkflowExecutionState(workflow_id="never-started", current_state="X", status="running")
    with pytest.raises(WorkflowError) as wrong:
        state_machine(WORKER, stranger)
    assert wrong.value.code == "WRONG_WORKFLOW"
    with pytest.raises(VizError) as unknown:
        state_machine(stranger)
    assert unknown.value.code == "NO_VIEW"


def test_the_lifecycle_draws_the_six_statuses_and_their_moves():
    pic = status_lifecycle().diagram
    assert {node.id for node in pic.nodes} == set(RUN_STATUSES)
    solid = {(edge.source, edge.target) for edge in pic.edges if edge.style == "solid"}
    assert solid == {("running", "awaiting-output"), ("awaiting-output", "completed"),
                     ("awaiting-output", "repairing"), ("repairing", "completed"), ("repairing", "failed")}
    assert {edge.source for edge in pic.edges if edge.target == "cancelled"} == set(LIVE_STATUSES)
    assert current(pic) == []


@pytest.mark.parametrize("status", RUN_STATUSES)
def test_the_lifecycle_highlights_the_status_it_is_given(status):
    assert current(status_lifecycle(status).diagram) == [status]


def test_the_lifecycle_refuses_a_status_that_does_not_exist():
    with pytest.raises(VizError):
        status_lifecycle("paused")


@pytest.mark.parametrize("picture", [lambda: state_machine(WORKER), status_lifecycle],
                         ids=["worker", "lifecycle"])
def test_every_format_holds_the_labels(picture):
    pic = picture()
    texts = {element.text for element in ElementTree.fromstring(pic.to_svg()).iter(f"{SVG}text")}
    labels = {node.label for node in pic.diagram.nodes}
    assert labels <= texts
    mermaid = pic.to_mermaid().splitlines()
    assert len([line for line in mermaid if line.startswith("    n") and '["' in line]) == len(pic.diagram.nodes)
    assert all(f"  {label}" in pic.to_text() for label in labels)
    assert labels <= {text.get_text() for text in pic.draw().texts}


@pytest.mark.parametrize("role", BUILTIN_AGENTS, ids=lambda role: role.id)
def test_every_built_in_state_machine_is_small_and_no_arrow_crosses_a_box(role):
    session = WorkflowSession(role)
    for picture in (state_machine(role), state_machine(session)):
        assert len(picture.to_svg().encode()) < 30_000
        assert crossings(picture.diagram) == []
    assert crossings(status_lifecycle().diagram) == []


def test_a_transition_to_a_state_the_workflow_does_not_declare_is_drawn_in_red():
    from alp_nb.agents import WorkflowState

    broken = WORKER.workflow.model_copy(update={"states": {
        **WORKER.workflow.states, "VERIFY": WorkflowState(allowed_tools=("Read",), transitions=("REPROT",))}})
    pic = state_machine(broken).diagram
    assert pic.node(state_node("REPROT")).marks == frozenset({"alarm"})
    assert pic.node(state_node("REPROT")).detail == ("no such state",)
