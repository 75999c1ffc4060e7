"""The per-role workflow runner (reference §5 "Workflow runner", §10 "Workflow runner + output
contracts" and the seed's six statuses): definitions refused at ``initialize``, the three hard rules,
tools opening per state, one repair then failure, and ``advance_to_output``."""

from __future__ import annotations

import json
import re

import pytest
from agent_factory import build_agent
from pydantic import BaseModel, ValidationError

from alp_nb.agents import BUILTIN_AGENTS, TOOL_CATALOG
from alp_nb.workflow import (
    MAX_OUTPUT_REPAIR_ATTEMPTS,
    WorkflowDefinition,
    WorkflowError,
    WorkflowExecutionState,
    WorkflowRunner,
    WorkflowState,
    advance_to_output,
    define_linear_workflow,
    define_output_contract,
    effective_tools,
    text_output,
)

BUILTINS = {agent.id: agent for agent in BUILTIN_AGENTS}


class Answer(BaseModel):
    answer: str


@pytest.fixture
def runner() -> WorkflowRunner:
    return WorkflowRunner()


@pytest.fixture
def retrieve() -> WorkflowDefinition:
    """The reference's test workflow."""
    return define_linear_workflow("retrieve", [
        {"id": "RECEIVE", "allowed_tools": []},
        {"id": "RETRIEVE", "allowed_tools": ["Read", "Grep"]},
        {"id": "REPORT", "allowed_tools": []},
    ])


@pytest.fixture
def contract():
    return define_output_contract("answer", Answer)


def refused(message: str):
    return pytest.raises(WorkflowError, match=re.escape(message))


def at_report(runner, definition):
    state = runner.initialize(definition)
    state = runner.transition(definition, state, "RETRIEVE")
    return runner.transition(definition, state, "REPORT")


def snapshot(workflow_id="retrieve", current_state="RECEIVE", status="running", repair_attempts=0):
    return WorkflowExecutionState(workflow_id=workflow_id, current_state=current_state, status=status,
                                  repair_attempts=repair_attempts)


# --- initialize and the definition refusals -------------------------------------------------------


def test_initialize_returns_a_serialisable_running_snapshot_at_the_initial_state(runner, retrieve):
    state = runner.initialize(retrieve)
    expected = {"workflowId": "retrieve", "currentState": "RECEIVE", "status": "running", "repairAttempts": 0}
    assert state.model_dump(by_alias=True) == expected
    assert json.loads(state.model_dump_json(by_alias=True)) == expected
    assert json.loads(json.dumps(state.model_dump(mode="json", by_alias=True))) == expected


def test_snapshot_json_has_exactly_the_four_alp_fields(runner, retrieve, contract):
    state = runner.submit_output(at_report(runner, retrieve), contract, {}).state
    assert list(state.model_dump(by_alias=True)) == ["workflowId", "currentState", "status", "repairAttempts"]
    assert WorkflowExecutionState.model_validate(state.model_dump(by_alias=True)) == state


def test_initialize_refuses_an_unknown_initial_state(runner):
    definition = WorkflowDefinition(id="retrieve", initial="MISSING",
                                    states={"RECEIVE": WorkflowState(terminal=True)})
    with refused("workflow `retrieve` has unknown initial state `MISSING`"):
        runner.initialize(definition)


def test_initialize_refuses_a_transition_to_an_unknown_state(runner):
    definition = WorkflowDefinition(id="retrieve", initial="RECEIVE", states={
        "RECEIVE": WorkflowState(transitions=("MISSING",)),
        "REPORT": WorkflowState(terminal=True),
    })
    with refused("workflow state `RECEIVE` has unknown transition target `MISSING`"):
        runner.initialize(definition)


def test_initialize_refuses_a_terminal_state_declaring_transitions(runner):
    definition = WorkflowDefinition(id="retrieve", initial="RECEIVE", states={
        "RECEIVE": WorkflowState(transitions=("REPORT",)),
        "REPORT": WorkflowState(transitions=("RECEIVE",), terminal=True),
    })
    with refused("terminal workflow state `REPORT` cannot declare transitions"):
        runner.initialize(definition)


def test_initialize_starts_a_single_terminal_state_workflow_in_awaiting_output(runner):
    state = runner.initialize(define_linear_workflow("title-thread", [("TITLE", [])]))
    assert (state.current_state, state.status, state.repair_attempts) == ("TITLE", "awaiting-output", 0)


def test_titling_starts_in_awaiting_output_and_never_runs(runner):
    titling = BUILTINS["titling"]
    state = runner.initialize(titling.workflow)
    assert (state.workflow_id, state.current_state, state.status) == ("title-thread", "TITLE", "awaiting-output")
    with refused("cannot transition workflow in `awaiting-output` status"):
        runner.transition(titling.workflow, state, "TITLE")
    assert runner.submit_output(state, titling.output, "Tên thread ngắn").state.status == "completed"
    assert runner.submit_output(state, titling.output, "   ").state.status == "repairing"


# --- define_linear_workflow -----------------------------------------------------------------------


def test_linear_workflow_points_each_state_at_the_next_and_ends_terminal(retrieve):
    assert retrieve.initial == "RECEIVE"
    assert retrieve.chain() == ("RECEIVE", "RETRIEVE", "REPORT")
    assert retrieve.states["RECEIVE"] == WorkflowState(allowed_tools=(), transitions=("RETRIEVE",), terminal=False)
    assert retrieve.states["RETRIEVE"] == WorkflowState(allowed_tools=("Read", "Grep"), transitions=("REPORT",))
    assert retrieve.states["REPORT"] == WorkflowState(allowed_tools=(), transitions=(), terminal=True)
    assert retrieve.terminal_states() == ("REPORT",)


def test_linear_workflow_accepts_id_tools_pairs_and_camel_case_keys(retrieve):
    pairs = define_linear_workflow("retrieve", [("RECEIVE", []), ("RETRIEVE", ["Read", "Grep"]), ("REPORT", ())])
    camel = define_linear_workflow("retrieve", [
        {"id": "RECEIVE", "allowedTools": []},
        {"id": "RETRIEVE", "allowedTools": ["Read", "Grep"]},
        {"id": "REPORT"},
    ])
    assert pairs == retrieve
    assert camel == retrieve


def test_linear_workflow_copies_the_tools_it_is_given():
    tools = ["Read"]
    definition = define_linear_workflow("copy", [("ONLY", tools)])
    tools.append("Write")
    assert definition.states["ONLY"].allowed_tools == ("Read",)


def test_linear_workflow_refuses_an_empty_state_list():
    with refused("workflow `empty` must declare at least one state"):
        define_linear_workflow("empty", [])


def test_linear_workflow_refuses_a_repeated_state_id():
    with refused("workflow `twice` declares state `A` twice"):
        define_linear_workflow("twice", [("A", []), ("A", [])])


@pytest.mark.parametrize("entry", [{"allowed_tools": []}, {"id": "A", "tools": []}, "A", ("A", [], "extra"),
                                   ("A", "Read")])
def test_linear_workflow_refuses_a_malformed_state_entry(entry):
    with pytest.raises(WorkflowError, match=re.escape("workflow `bad`")):
        define_linear_workflow("bad", [entry])


# --- transition -----------------------------------------------------------------------------------


def test_transition_along_the_chain_runs_until_the_terminal_state_awaits_output(runner, retrieve):
    state = runner.initialize(retrieve)
    state = runner.transition(retrieve, state, "RETRIEVE")
    assert (state.current_state, state.status) == ("RETRIEVE", "running")
    state = runner.transition(retrieve, state, "REPORT")
    assert (state.current_state, state.status, state.repair_attempts) == ("REPORT", "awaiting-output", 0)


def test_transition_that_skips_a_state_is_not_declared(runner, retrieve):
    with refused("transition `RECEIVE` -> `REPORT` is not declared"):
        runner.transition(retrieve, runner.initialize(retrieve), "REPORT")


def test_transition_to_an_unknown_state_is_not_declared(runner, retrieve):
    with refused("transition `RECEIVE` -> `MISSING` is not declared"):
        runner.transition(retrieve, runner.initialize(retrieve), "MISSING")


def test_transition_from_the_terminal_state_is_refused_not_a_no_op(runner, retrieve):
    with refused("cannot transition workflow in `awaiting-output` status"):
        runner.transition(retrieve, at_report(runner, retrieve), "REPORT")


def test_transition_carries_repair_attempts(runner, retrieve):
    state = runner.transition(retrieve, snapshot(status="running", repair_attempts=1), "RETRIEVE")
    assert (state.current_state, state.repair_attempts) == ("RETRIEVE", 1)


def test_a_snapshot_of_another_workflow_is_refused_by_every_definition_taking_call(runner, retrieve):
    other = define_linear_workflow("other", [("RECEIVE", []), ("REPORT", [])])
    state = runner.initialize(other)
    message = "workflow state belongs to `other`, not `retrieve`"
    with refused(message):
        runner.transition(retrieve, state, "RETRIEVE")
    with refused(message):
        runner.is_tool_allowed(retrieve, state, "Read")
    with refused(message):
        advance_to_output(runner, retrieve, state)


def test_a_snapshot_at_an_unknown_state_is_refused(runner, retrieve):
    state = snapshot(current_state="GONE")
    with refused("workflow `retrieve` has no state `GONE`"):
        runner.transition(retrieve, state, "RETRIEVE")
    with refused("workflow `retrieve` has no state `GONE`"):
        runner.is_tool_allowed(retrieve, state, "Read")


# --- snapshots are frozen and never reused --------------------------------------------------------


def test_snapshots_are_frozen(runner, retrieve):
    state = runner.initialize(retrieve)
    with pytest.raises(ValidationError, match="frozen"):
        state.status = "completed"
    with pytest.raises(ValidationError, match="frozen"):
        state.repair_attempts = 1


def test_every_call_returns_a_new_snapshot_and_leaves_its_input_unchanged(runner, retrieve, contract):
    start = runner.initialize(retrieve)
    before = start.model_dump()
    moved = runner.transition(retrieve, start, "RETRIEVE")
    assert moved is not start and start.model_dump() == before

    report = runner.transition(retrieve, moved, "REPORT")
    report_before = report.model_dump()
    repairing = runner.submit_output(report, contract, {}).state
    completed = runner.submit_output(report, contract, {"answer": "x"}).state
    cancelled = runner.cancel(report)
    assert report.model_dump() == report_before
    assert len({id(report), id(repairing), id(completed), id(cancelled)}) == 4
    assert (repairing.status, completed.status, cancelled.status) == ("repairing", "completed", "cancelled")


def test_a_snapshot_refuses_fields_outside_the_four(runner):
    with pytest.raises(ValidationError):
        WorkflowExecutionState.model_validate({"workflowId": "w", "currentState": "A", "status": "running",
                                               "repairAttempts": 0, "extra": 1})
    with pytest.raises(ValidationError):
        snapshot(status="paused")
    with pytest.raises(ValidationError):
        snapshot(repair_attempts=-1)


# --- tools per state ------------------------------------------------------------------------------


def test_tools_open_per_state_only(runner, retrieve):
    state = runner.initialize(retrieve)
    assert not runner.is_tool_allowed(retrieve, state, "Read")
    state = runner.transition(retrieve, state, "RETRIEVE")
    assert runner.is_tool_allowed(retrieve, state, "Read")
    assert runner.is_tool_allowed(retrieve, state, "Grep")
    assert not runner.is_tool_allowed(retrieve, state, "Bash")
    state = runner.transition(retrieve, state, "REPORT")
    assert not any(runner.is_tool_allowed(retrieve, state, tool) for tool in ("Read", "Grep", "Bash"))


@pytest.mark.parametrize("status", ["awaiting-output", "repairing", "completed", "failed", "cancelled"])
def test_a_tool_is_allowed_only_while_running(runner, status):
    """Even a state that lists the tool closes it once the execution is not ``running``."""
    open_state = WorkflowDefinition(id="w", initial="A", states={
        "A": WorkflowState(allowed_tools=("Read",), transitions=("B",)), "B": WorkflowState(terminal=True),
    })
    assert runner.is_tool_allowed(open_state, snapshot("w", "A", "running"), "Read")
    assert not runner.is_tool_allowed(open_state, snapshot("w", "A", status, 1 if status == "repairing" else 0),
                                      "Read")


def test_effective_tools_are_the_grant_intersected_with_the_state_in_state_order(runner):
    agent = build_agent(
        capabilities={"tools": ["Glob", "Read"]},
        workflow={"states": {"WORK": {"allowedTools": ["Grep", "Read", "Bash", "Glob"], "transitions": ["DONE"]}}},
    )
    state = runner.initialize(agent.workflow)
    assert effective_tools(agent, state) == ("Read", "Glob")
    assert runner.is_tool_allowed(agent.workflow, state, "Grep")  # the state opens it; the grant does not
    assert effective_tools(agent, runner.transition(agent.workflow, state, "DONE")) == ()


def test_effective_tools_refuse_a_snapshot_of_another_workflow(runner, retrieve):
    with refused("workflow state belongs to `retrieve`, not `probe-flow`"):
        effective_tools(build_agent(), runner.initialize(retrieve))


@pytest.mark.parametrize("agent", BUILTIN_AGENTS, ids=lambda agent: agent.id)
def test_final_state_of_every_builtin_allows_no_tool(runner, agent):
    state = advance_to_output(runner, agent.workflow, runner.initialize(agent.workflow))
    assert state.status == "awaiting-output"
    assert agent.workflow.states[state.current_state].allowed_tools == ()
    assert effective_tools(agent, state) == ()
    assert not any(runner.is_tool_allowed(agent.workflow, state, tool) for tool in TOOL_CATALOG)


def test_builtins_are_exactly_nine():
    assert len(BUILTIN_AGENTS) == 9


def tools_by_state(runner, agent) -> dict[str, tuple[str, ...]]:
    """Walk the role's chain and record the tools open in each state."""
    state = runner.initialize(agent.workflow)
    opened = {state.current_state: effective_tools(agent, state)}
    while state.status == "running":
        state = runner.transition(agent.workflow, state, agent.workflow.states[state.current_state].transitions[0])
        opened[state.current_state] = effective_tools(agent, state)
    return opened


def test_worker_opens_write_and_edit_only_in_implement(runner):
    opened = tools_by_state(runner, BUILTINS["worker"])
    assert list(opened) == ["ASSESS", "IMPLEMENT", "VERIFY", "REPORT"]
    assert [state for state, tools in opened.items() if "Write" in tools] == ["IMPLEMENT"]
    assert [state for state, tools in opened.items() if "Edit" in tools] == ["IMPLEMENT"]


def test_main_never_opens_write_or_edit(runner):
    main = BUILTINS["main"]
    opened = tools_by_state(runner, main)
    assert list(opened) == ["ASSESS", "PLAN", "DELEGATE", "VERIFY", "REPORT"]
    assert all("Write" not in tools and "Edit" not in tools for tools in opened.values())
    assert not any(tool in state.allowed_tools for state in main.workflow.states.values() for tool in ("Write", "Edit"))
    assert "Bash" in opened["DELEGATE"]


# --- submit_output and the one repair -------------------------------------------------------------


def test_valid_output_completes(runner, retrieve, contract):
    result = runner.submit_output(at_report(runner, retrieve), contract, {"answer": "found it"})
    assert (result.state.status, result.state.repair_attempts) == ("completed", 0)
    assert result.validation.ok and result.validation.value == Answer(answer="found it")


def test_submit_twice_invalid_fails_after_one_repair(runner, retrieve, contract):
    first = runner.submit_output(at_report(runner, retrieve), contract, {})
    assert (first.state.status, first.state.repair_attempts) == ("repairing", 1)
    assert first.validation.issues == ("answer: Field required",)
    second = runner.submit_output(first.state, contract, {"answer": 3})
    assert (second.state.status, second.state.repair_attempts) == ("failed", 1)
    assert not second.validation.ok
    with refused("cannot submit output in `failed` status"):
        runner.submit_output(second.state, contract, {"answer": "late"})


def test_invalid_then_valid_output_completes_with_one_repair_attempt(runner, retrieve, contract):
    repairing = runner.submit_output(at_report(runner, retrieve), contract, None).state
    result = runner.submit_output(repairing, contract, {"answer": "fixed"})
    assert (result.state.status, result.state.repair_attempts) == ("completed", 1)


def test_max_output_repair_attempts_is_one():
    assert MAX_OUTPUT_REPAIR_ATTEMPTS == 1


def test_submit_is_refused_while_running(runner, retrieve, contract):
    with refused("cannot submit output in `running` status"):
        runner.submit_output(runner.initialize(retrieve), contract, {"answer": "early"})


def test_submit_is_refused_once_completed(runner, retrieve, contract):
    completed = runner.submit_output(at_report(runner, retrieve), contract, {"answer": "x"}).state
    with refused("cannot submit output in `completed` status"):
        runner.submit_output(completed, contract, {"answer": "again"})


def test_submit_result_is_frozen(runner, retrieve):
    result = runner.submit_output(at_report(runner, retrieve), text_output("report"), "done")
    with pytest.raises(AttributeError):
        result.state = None


# --- cancel ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["running", "awaiting-output", "repairing"])
def test_cancel_from_a_live_status_cancels(runner, status):
    state = snapshot(current_state="REPORT" if status != "running" else "RECEIVE", status=status,
                     repair_attempts=1 if status == "repairing" else 0)
    cancelled = runner.cancel(state)
    assert cancelled.status == "cancelled"
    assert (cancelled.current_state, cancelled.repair_attempts) == (state.current_state, state.repair_attempts)


def test_after_cancel_transition_and_cancel_are_refused(runner, retrieve, contract):
    cancelled = runner.cancel(runner.initialize(retrieve))
    assert cancelled.status == "cancelled"
    with refused("cannot transition workflow in `cancelled` status"):
        runner.transition(retrieve, cancelled, "RETRIEVE")
    with refused("cannot cancel workflow in `cancelled` status"):
        runner.cancel(cancelled)
    with refused("cannot submit output in `cancelled` status"):
        runner.submit_output(cancelled, contract, {"answer": "x"})


@pytest.mark.parametrize("status", ["completed", "failed"])
def test_cancelling_a_finished_execution_is_refused(runner, status):
    with refused(f"cannot cancel workflow in `{status}` status"):
        runner.cancel(snapshot(current_state="REPORT", status=status, repair_attempts=1))


# --- advance_to_output ----------------------------------------------------------------------------


def test_advance_to_output_walks_a_running_execution_to_its_terminal_state(runner, retrieve):
    state = advance_to_output(runner, retrieve, runner.initialize(retrieve))
    assert (state.current_state, state.status, state.repair_attempts) == ("REPORT", "awaiting-output", 0)


def test_advance_to_output_leaves_a_non_running_execution_where_it_is(runner, retrieve, contract):
    report = at_report(runner, retrieve)
    repairing = runner.submit_output(report, contract, {}).state
    assert advance_to_output(runner, retrieve, report) == report
    assert advance_to_output(runner, retrieve, repairing) == repairing


def test_advance_to_output_refuses_a_state_with_two_transitions(runner):
    forked = WorkflowDefinition(id="forked", initial="START", states={
        "START": WorkflowState(transitions=("LEFT", "RIGHT")),
        "LEFT": WorkflowState(terminal=True),
        "RIGHT": WorkflowState(terminal=True),
    })
    with refused("workflow state `START` has no unambiguous output path"):
        advance_to_output(runner, forked, runner.initialize(forked))


def test_advance_to_output_refuses_a_non_terminal_dead_end(runner):
    dead_end = WorkflowDefinition(id="dead-end", initial="START", states={
        "START": WorkflowState(transitions=("STUCK",)),
        "STUCK": WorkflowState(),
        "REPORT": WorkflowState(terminal=True),
    })
    with refused("workflow state `STUCK` has no unambiguous output path"):
        advance_to_output(runner, dead_end, runner.initialize(dead_end))
