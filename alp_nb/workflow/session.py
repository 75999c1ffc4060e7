"""``WorkflowSession``: a notebook cursor for stepping one workflow by hand.

It keeps every frozen snapshot it passed through, so a learner can step
back, and records refused moves beside accepted ones, so a teaching notebook
can show what the runner said no to, and why. Illegal moves still raise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.output_contract import OutputContract, OutputValidation, text_output
from alp_nb.agents.workflow_definition import WorkflowDefinition

from .errors import WorkflowError
from .execution_state import WorkflowExecutionState
from .runner import WorkflowRunner, effective_tools


@dataclass(frozen=True)
class SessionStep:
    """One entry of a session's history: the action, the snapshot after it, and, for a refused
    action, the runner's message (the snapshot is then unchanged)."""

    action: str
    state: WorkflowExecutionState
    refused: str | None = None
    validation: OutputValidation | None = None

    @property
    def accepted(self) -> bool:
        return self.refused is None


class WorkflowSession:
    """Step a role's workflow (or a bare workflow) state by state.

    Given an agent, the contract defaults to the agent's own output contract and
    ``allowed_tools`` is the agent's grant ∩ the state's tools; given a bare
    workflow, the contract defaults to non-empty text named after the workflow.
    """

    def __init__(self, agent_or_definition: AgentDefinition | WorkflowDefinition,
                 contract: OutputContract | None = None) -> None:
        if isinstance(agent_or_definition, AgentDefinition):
            self.agent: AgentDefinition | None = agent_or_definition
            self.definition = agent_or_definition.workflow
            default_contract = agent_or_definition.output
        elif isinstance(agent_or_definition, WorkflowDefinition):
            self.agent = None
            self.definition = agent_or_definition
            default_contract = text_output(agent_or_definition.id)
        else:
            raise TypeError("WorkflowSession needs an AgentDefinition or a WorkflowDefinition")
        self.contract = contract if contract is not None else default_contract
        self.runner = WorkflowRunner()
        start = self.runner.initialize(self.definition)
        self._trail: list[WorkflowExecutionState] = [start]
        self._history: list[SessionStep] = [SessionStep("initialize", start)]

    @property
    def state(self) -> WorkflowExecutionState:
        return self._trail[-1]

    @property
    def history(self) -> tuple[SessionStep, ...]:
        return tuple(self._history)

    @property
    def allowed_tools(self) -> tuple[str, ...]:
        """The tools usable right now (none unless ``running``)."""
        if self.agent is not None:
            return effective_tools(self.agent, self.state)
        if self.state.status != "running":
            return ()
        return self.definition.states[self.state.current_state].allowed_tools

    def is_tool_allowed(self, tool: str) -> bool:
        return tool in self.allowed_tools

    def transition(self, next_state: str | None = None) -> WorkflowExecutionState:
        """Move to ``next_state``, by default the current state's single next state."""
        if next_state is None:
            following = self.definition.states[self.state.current_state].transitions
            if len(following) == 1:
                next_state = following[0]
            elif self.state.status == "running":
                error = WorkflowError("TRANSITION_REFUSED",
                                      f"workflow state `{self.state.current_state}` has no single next state; "
                                      f"name one of: {', '.join(following) or 'none'}")
                self._refuse("transition", error)
                raise error
        action = f"transition → {next_state}" if next_state else "transition"
        return self._apply(action, lambda: self.runner.transition(self.definition, self.state, next_state or ""))

    def submit(self, value: Any) -> OutputValidation:
        """Submit the final output; returns the contract's verdict (the new status is ``state.status``)."""
        try:
            result = self.runner.submit_output(self.state, self.contract, value)
        except WorkflowError as error:
            self._refuse("submit", error)
            raise
        self._accept(SessionStep("submit", result.state, validation=result.validation))
        return result.validation

    def cancel(self) -> WorkflowExecutionState:
        return self._apply("cancel", lambda: self.runner.cancel(self.state))

    def back(self) -> WorkflowExecutionState:
        """Return to the snapshot before the last accepted move."""
        if len(self._trail) == 1:
            error = WorkflowError("NOTHING_TO_UNDO", "nothing to step back from: the session is at its first snapshot")
            self._refuse("back", error)
            raise error
        self._trail.pop()
        self._history.append(SessionStep("back", self.state))
        return self.state

    def _apply(self, action: str, move: Callable[[], WorkflowExecutionState]) -> WorkflowExecutionState:
        try:
            after = move()
        except WorkflowError as error:
            self._refuse(action, error)
            raise
        self._accept(SessionStep(action, after))
        return after

    def _accept(self, step: SessionStep) -> None:
        self._trail.append(step.state)
        self._history.append(step)

    def _refuse(self, action: str, error: WorkflowError) -> None:
        self._history.append(SessionStep(action, self.state, refused=str(error)))

    def __repr__(self) -> str:
        return f"<WorkflowSession {self.definition.id} at {self.state.current_state} ({self.state.status})>"
