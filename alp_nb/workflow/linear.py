"""``define_linear_workflow``: a role's chain of states, built from what a person writes.

States come as ``{"id", "allowed_tools"}`` mappings (``allowedTools`` also
accepted) or ``(id, tools)`` pairs; each problem is a ``WorkflowError``
naming the workflow and the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from alp_nb.agents.errors import AgentError
from alp_nb.agents.workflow_definition import WorkflowDefinition

from .errors import WorkflowError


def define_linear_workflow(
    workflow_id: str, states: Iterable[Mapping[str, Any] | Sequence[Any]]
) -> WorkflowDefinition:
    """A workflow whose states run in the given order; the last one is terminal."""
    entries = [_state_entry(workflow_id, entry) for entry in states]
    try:
        return WorkflowDefinition.linear(workflow_id, entries)
    except AgentError as error:
        raise WorkflowError(error.code, error.message) from None


def _state_entry(workflow_id: str, entry: Mapping[str, Any] | Sequence[Any]) -> tuple[str, tuple[str, ...]]:
    if isinstance(entry, Mapping):
        unknown = set(entry) - {"id", "allowed_tools", "allowedTools"}
        if unknown or "id" not in entry:
            raise WorkflowError("INVALID_WORKFLOW",
                                f"workflow `{workflow_id}`: a state is {{id, allowed_tools}}, got keys {sorted(entry)}")
        tools = entry.get("allowed_tools", entry.get("allowedTools", ()))
        state_id = entry["id"]
    elif isinstance(entry, Sequence) and not isinstance(entry, str) and len(entry) == 2:
        state_id, tools = entry
    else:
        raise WorkflowError("INVALID_WORKFLOW",
                            f"workflow `{workflow_id}`: a state is {{id, allowed_tools}} or (id, tools)")
    listed = tuple(tools) if isinstance(tools, Iterable) and not isinstance(tools, str) else None
    if not isinstance(state_id, str) or listed is None or not all(isinstance(tool, str) for tool in listed):
        raise WorkflowError("INVALID_WORKFLOW",
                            f"workflow `{workflow_id}`: state `{state_id}` needs a string id and a list of tools")
    return state_id, listed
