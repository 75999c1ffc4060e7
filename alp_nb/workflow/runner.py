"""The per-role workflow runner: the seed's three hard rules, enforced on frozen snapshots.

- ``transition`` only while ``running``;
- ``submit_output`` only while ``awaiting-output`` or ``repairing``;
- ``cancel`` only from the three live statuses.

Every refusal is a ``WorkflowError`` carrying ALP's message; nothing is a no-op.
"""

from __future__ import annotations

from typing import Any

from alp_nb.agents.builtins import BUILTIN_AGENTS
from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.output_contract import OutputContract
from alp_nb.agents.workflow_definition import WorkflowDefinition, WorkflowState

from .errors import WorkflowError
from .execution_state import LIVE_STATUSES, SubmitResult, WorkflowExecutionState, can_repair_output

_INITIALIZED: dict[str, WorkflowDefinition] = {}
"""The last definition ``initialize`` started under each workflow id in this process: a snapshot
carries only the id, and this is how its repr draws the chain it belongs to."""


def workflow_for(state: WorkflowExecutionState) -> WorkflowDefinition | None:
    """The definition a snapshot came from, if this process started it or it is a built-in's."""
    candidates = [_INITIALIZED.get(state.workflow_id)]
    candidates += [agent.workflow for agent in BUILTIN_AGENTS if agent.workflow.id == state.workflow_id]
    return next((each for each in candidates if each is not None and state.current_state in each.states), None)


class WorkflowRunner:
    """Stateless: each method takes a snapshot and returns a new one."""

    def initialize(self, definition: WorkflowDefinition) -> WorkflowExecutionState:
        """Validate the definition (a broken one is refused here, not at its first move) and start
        it: ``running``, or ``awaiting-output`` straight away when the initial state is terminal."""
        validate_workflow(definition)
        _INITIALIZED[definition.id] = definition
        initial = definition.states[definition.initial]
        return WorkflowExecutionState(
            workflow_id=definition.id,
            current_state=definition.initial,
            status="awaiting-output" if initial.terminal else "running",
        )

    def transition(
        self, definition: WorkflowDefinition, state: WorkflowExecutionState, next_state: str
    ) -> WorkflowExecutionState:
        current = _current(definition, state)
        if state.status != "running":
            raise WorkflowError("TRANSITION_REFUSED", f"cannot transition workflow in `{state.status}` status")
        if next_state not in current.transitions:
            raise WorkflowError("TRANSITION_REFUSED",
                                f"transition `{state.current_state}` -> `{next_state}` is not declared")
        target = definition.states[next_state]
        return state.model_copy(update={
            "current_state": next_state,
            "status": "awaiting-output" if target.terminal else "running",
        })

    def is_tool_allowed(self, definition: WorkflowDefinition, state: WorkflowExecutionState, tool: str) -> bool:
        current = _current(definition, state)
        return state.status == "running" and tool in current.allowed_tools

    def submit_output(self, state: WorkflowExecutionState, contract: OutputContract, value: Any) -> SubmitResult:
        if state.status not in ("awaiting-output", "repairing"):
            raise WorkflowError("SUBMIT_REFUSED", f"cannot submit output in `{state.status}` status")
        validation = contract.validate(value)
        if validation.ok:
            after = state.model_copy(update={"status": "completed"})
        elif can_repair_output(state.repair_attempts):
            after = state.model_copy(update={"status": "repairing", "repair_attempts": state.repair_attempts + 1})
        else:
            after = state.model_copy(update={"status": "failed"})
        return SubmitResult(state=after, validation=validation)

    def cancel(self, state: WorkflowExecutionState) -> WorkflowExecutionState:
        if state.status not in LIVE_STATUSES:
            raise WorkflowError("CANCEL_REFUSED", f"cannot cancel workflow in `{state.status}` status")
        return state.model_copy(update={"status": "cancelled"})


def validate_workflow(definition: WorkflowDefinition) -> None:
    """The three structural refusals of ``initialize``, with ALP's messages, in ALP's order."""
    if definition.initial not in definition.states:
        raise WorkflowError("INVALID_WORKFLOW",
                            f"workflow `{definition.id}` has unknown initial state `{definition.initial}`")
    for state_id, state in definition.states.items():
        if state.terminal and state.transitions:
            raise WorkflowError("INVALID_WORKFLOW", f"terminal workflow state `{state_id}` cannot declare transitions")
        for target in state.transitions:
            if target not in definition.states:
                raise WorkflowError("INVALID_WORKFLOW",
                                    f"workflow state `{state_id}` has unknown transition target `{target}`")


def advance_to_output(
    runner: WorkflowRunner, definition: WorkflowDefinition, state: WorkflowExecutionState
) -> WorkflowExecutionState:
    """What the Stop hook does before submitting: walk a ``running`` execution to its terminal state,
    refusing to guess where a state has no single way forward."""
    while state.status == "running":
        transitions = _current(definition, state).transitions
        if len(transitions) != 1:
            raise WorkflowError("NO_OUTPUT_PATH",
                                f"workflow state `{state.current_state}` has no unambiguous output path")
        state = runner.transition(definition, state, transitions[0])
    return state


def effective_tools(agent: AgentDefinition, state: WorkflowExecutionState) -> tuple[str, ...]:
    """The tools an execution may use now: the role's grant ∩ the current state's tools, in state
    order; none unless the execution is ``running`` (the same answer as ``is_tool_allowed``)."""
    current = _current(agent.workflow, state)
    if state.status != "running":
        return ()
    granted = set(agent.capabilities.tools)
    return tuple(tool for tool in current.allowed_tools if tool in granted)


def _current(definition: WorkflowDefinition, state: WorkflowExecutionState) -> WorkflowState:
    """The snapshot's state in ``definition``; a snapshot of another workflow is refused."""
    if state.workflow_id != definition.id:
        raise WorkflowError("WRONG_WORKFLOW", f"workflow state belongs to `{state.workflow_id}`, not `{definition.id}`")
    current = definition.states.get(state.current_state)
    if current is None:
        raise WorkflowError("WRONG_WORKFLOW", f"workflow `{definition.id}` has no state `{state.current_state}`")
    return current
