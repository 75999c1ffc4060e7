"""``WorkflowSession``: a notebook cursor over frozen snapshots, whose illegal moves raise and are
also recorded in ``history`` as refused, with the runner's message and an unchanged snapshot."""

from __future__ import annotations

import re

import pytest

from alp_nb.agents import builtin_registry
from alp_nb.workflow import (
    WorkflowDefinition,
    WorkflowError,
    WorkflowSession,
    WorkflowState,
    define_linear_workflow,
    define_output_contract,
)

WORKER_TOOLS = {
    "ASSESS": ("Read", "Glob", "Grep"),
    "IMPLEMENT": ("Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill"),
    "VERIFY": ("Read", "Glob", "Grep", "Bash"),
    "REPORT": (),
}


@pytest.fixture
def worker():
    return WorkflowSession(builtin_registry().get("worker"))


def refused(message: str):
    return pytest.raises(WorkflowError, match=re.escape(message))


def walk_to_report(session: WorkflowSession) -> None:
    while session.state.status == "running":
        session.transition()


def test_session_starts_at_the_initial_state_with_its_tools(worker):
    assert (worker.state.workflow_id, worker.state.current_state, worker.state.status) == (
        "execute-delegated-task", "ASSESS", "running")
    assert worker.allowed_tools == WORKER_TOOLS["ASSESS"]
    assert [(step.action, step.accepted) for step in worker.history] == [("initialize", True)]


def test_stepping_worker_opens_and_closes_tools_state_by_state(worker):
    seen = {worker.state.current_state: worker.allowed_tools}
    while worker.state.status == "running":
        worker.transition()
        seen[worker.state.current_state] = worker.allowed_tools
    assert seen == WORKER_TOOLS
    assert worker.state.status == "awaiting-output"
    assert not worker.is_tool_allowed("Write") and not worker.is_tool_allowed("Read")


def test_transition_without_a_target_takes_the_single_next_state(worker):
    after = worker.transition()
    assert after is worker.state
    assert (after.current_state, after.status) == ("IMPLEMENT", "running")
    assert worker.is_tool_allowed("Write")
    assert worker.history[-1].action == "transition → IMPLEMENT"


def test_an_illegal_transition_raises_and_is_recorded_as_refused(worker):
    worker.transition()
    before = worker.state
    with refused("transition `IMPLEMENT` -> `REPORT` is not declared"):
        worker.transition("REPORT")
    assert worker.state is before
    step = worker.history[-1]
    assert not step.accepted
    assert step.refused == "transition `IMPLEMENT` -> `REPORT` is not declared"
    assert step.state == before
    assert len(worker.history) == 3


def test_a_transition_from_the_terminal_state_is_refused_and_recorded(worker):
    walk_to_report(worker)
    with refused("cannot transition workflow in `awaiting-output` status"):
        worker.transition()
    assert worker.history[-1].refused == "cannot transition workflow in `awaiting-output` status"
    assert worker.state.status == "awaiting-output"


def test_submit_invalid_twice_repairs_once_then_fails(worker):
    walk_to_report(worker)
    first = worker.submit("   ")
    assert first.issues == ("output must be non-empty text",)
    assert (worker.state.status, worker.state.repair_attempts) == ("repairing", 1)
    second = worker.submit("")
    assert not second.ok
    assert (worker.state.status, worker.state.repair_attempts) == ("failed", 1)
    with refused("cannot submit output in `failed` status"):
        worker.submit("too late")
    assert [step.action for step in worker.history[-3:]] == ["submit", "submit", "submit"]
    assert [step.accepted for step in worker.history[-3:]] == [True, True, False]
    assert worker.history[-2].validation == second


def test_submit_valid_output_completes(worker):
    walk_to_report(worker)
    validation = worker.submit("Changed two files; tests pass.")
    assert validation.ok
    assert worker.state.status == "completed"


def test_submit_while_running_is_refused_and_recorded(worker):
    with refused("cannot submit output in `running` status"):
        worker.submit("early")
    assert worker.history[-1].refused == "cannot submit output in `running` status"
    assert worker.state.current_state == "ASSESS"


def test_cancel_then_every_move_is_refused(worker):
    worker.cancel()
    assert worker.state.status == "cancelled"
    with refused("cannot cancel workflow in `cancelled` status"):
        worker.cancel()
    with refused("cannot transition workflow in `cancelled` status"):
        worker.transition()
    assert [step.refused is not None for step in worker.history] == [False, False, True, True]


def test_back_returns_the_previous_snapshot(worker):
    start = worker.state
    worker.transition()
    assert worker.back() is start
    assert worker.state is start
    assert worker.allowed_tools == WORKER_TOOLS["ASSESS"]
    assert worker.history[-1].action == "back"


def test_back_skips_refused_moves_and_undoes_a_submit(worker):
    walk_to_report(worker)
    awaiting = worker.state
    worker.submit("")
    with refused("cannot transition workflow in `repairing` status"):
        worker.transition()
    assert worker.back() is awaiting
    assert worker.state.repair_attempts == 0


def test_back_refuses_at_the_first_snapshot_and_records_it(worker):
    with refused("nothing to step back from: the session is at its first snapshot"):
        worker.back()
    assert worker.history[-1].action == "back" and not worker.history[-1].accepted
    worker.transition()
    worker.back()
    with refused("nothing to step back from"):
        worker.back()


def test_history_snapshots_are_the_frozen_states_passed_through(worker):
    worker.transition()
    worker.transition()
    states = [step.state.current_state for step in worker.history]
    assert states == ["ASSESS", "IMPLEMENT", "VERIFY"]
    assert isinstance(worker.history, tuple)


def test_session_works_with_a_bare_workflow_definition():
    session = WorkflowSession(define_linear_workflow("retrieve", [
        ("RECEIVE", []), ("RETRIEVE", ["Read", "Grep"]), ("REPORT", []),
    ]))
    assert session.allowed_tools == ()
    session.transition()
    assert session.allowed_tools == ("Read", "Grep")
    session.transition()
    assert session.allowed_tools == ()
    assert session.contract.name == "retrieve"
    assert not session.submit("  ").ok
    assert session.submit("found").ok and session.state.status == "completed"


def test_session_takes_a_structured_contract():
    contract = define_output_contract("answer", {"type": "object", "required": ["answer"]})
    session = WorkflowSession(define_linear_workflow("w", [("ONLY", [])]), contract)
    assert session.submit({}).issues == ("answer: 'answer' is a required property",)
    assert session.submit({"answer": 1}).ok


def test_session_at_a_fork_asks_for_a_named_target():
    forked = WorkflowDefinition(id="forked", initial="START", states={
        "START": WorkflowState(transitions=("LEFT", "RIGHT")),
        "LEFT": WorkflowState(terminal=True),
        "RIGHT": WorkflowState(terminal=True),
    })
    session = WorkflowSession(forked)
    with refused("workflow state `START` has no single next state; name one of: LEFT, RIGHT"):
        session.transition()
    assert session.history[-1].refused is not None
    assert session.transition("RIGHT").current_state == "RIGHT"


def test_titling_session_starts_in_awaiting_output():
    session = WorkflowSession(builtin_registry().get("titling"))
    assert (session.state.current_state, session.state.status) == ("TITLE", "awaiting-output")
    assert session.allowed_tools == ()
    assert session.submit("Tên thread ngắn").ok


def test_session_refuses_something_that_is_not_a_workflow():
    with pytest.raises(TypeError, match="AgentDefinition or a WorkflowDefinition"):
        WorkflowSession("worker")


def test_session_refuses_a_broken_definition_at_construction():
    broken = WorkflowDefinition(id="broken", initial="MISSING", states={"A": WorkflowState(terminal=True)})
    with refused("workflow `broken` has unknown initial state `MISSING`"):
        WorkflowSession(broken)
