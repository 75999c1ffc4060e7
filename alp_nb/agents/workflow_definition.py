"""The shape of a role's workflow: states, the tools each allows, and where each leads.

An agent definition embeds its workflow, so the shape lives beside the
definition; the workflow layer (``alp_nb.workflow``) re-exports it, builds it
from user input (``define_linear_workflow``) and runs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from alp_nb.base.frozen_model import FrozenMapping, FrozenModel

from .errors import AgentError


class WorkflowState(FrozenModel):
    """One state: the tools usable while in it, the states it may move to, and whether it ends."""

    allowed_tools: tuple[str, ...] = ()
    transitions: tuple[str, ...] = ()
    terminal: bool = False


class WorkflowDefinition(FrozenModel):
    """A role's state machine; ``states`` keeps declaration order."""

    id: str
    initial: str
    states: FrozenMapping[WorkflowState]

    def chain(self) -> tuple[str, ...]:
        """State ids in declaration order (for a linear workflow, the path it walks)."""
        return tuple(self.states)

    def terminal_states(self) -> tuple[str, ...]:
        return tuple(state_id for state_id, state in self.states.items() if state.terminal)

    @classmethod
    def linear(cls, workflow_id: str, states: Iterable[tuple[str, Sequence[str]]]) -> WorkflowDefinition:
        """A workflow whose ``(state id, tools)`` pairs run in the given order; the last state is terminal.

        ``AgentError(INVALID_WORKFLOW)`` for no state or a repeated one.
        """
        entries = list(states)
        if not entries:
            raise AgentError("INVALID_WORKFLOW", f"workflow `{workflow_id}` must declare at least one state")
        built: dict[str, WorkflowState] = {}
        for index, (state_id, tools) in enumerate(entries):
            if state_id in built:
                raise AgentError("INVALID_WORKFLOW", f"workflow `{workflow_id}` declares state `{state_id}` twice")
            is_last = index == len(entries) - 1
            built[state_id] = WorkflowState(
                allowed_tools=tuple(tools),
                transitions=() if is_last else (entries[index + 1][0],),
                terminal=is_last,
            )
        return cls(id=workflow_id, initial=entries[0][0], states=built)

    def problems(self, granted_tools: Iterable[str] | None = None) -> list[str]:
        """Static findings: broken references, unreachable states, dead ends, and (given the
        agent's tools) states allowing a tool the agent lacks. Empty when the workflow is sound."""
        import networkx as nx  # only static checks walk the graph; building and running a workflow never do

        findings = []
        if self.initial not in self.states:
            findings.append(f"unknown initial state `{self.initial}`")
        graph: nx.DiGraph[str] = nx.DiGraph()
        graph.add_nodes_from(self.states)
        for state_id, state in self.states.items():
            if state.terminal and state.transitions:
                findings.append(f"terminal state `{state_id}` cannot declare transitions")
            for target in state.transitions:
                if target in self.states:
                    graph.add_edge(state_id, target)
                else:
                    findings.append(f"state `{state_id}` has unknown transition target `{target}`")
            if not state.terminal and not state.transitions:
                findings.append(f"state `{state_id}` is a dead end: it is not terminal and leads nowhere")
            if granted_tools is not None:
                granted = set(granted_tools)
                findings += [
                    f"state `{state_id}` allows `{tool}`, which the agent does not hold"
                    for tool in state.allowed_tools if tool not in granted
                ]
        if self.initial in self.states:
            reachable = nx.descendants(graph, self.initial) | {self.initial}
            findings += [
                f"state `{state_id}` is unreachable from `{self.initial}`"
                for state_id in self.states if state_id not in reachable
            ]
            if not any(self.states[state_id].terminal for state_id in reachable):
                findings.append(f"no terminal state is reachable from `{self.initial}`")
        return findings
