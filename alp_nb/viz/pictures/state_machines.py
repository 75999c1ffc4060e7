"""A role's state machine as a ``DiagramPicture``: its states in order with the tools each really opens, then its
output contract and the run statuses an execution can end in; and the six statuses on their own.

A learner stepping a workflow needs to see, at a glance, where the execution
is, what it may use there (the role's grant ∩ the state's tools, so a state
never seems to open a tool the role lacks), and what submitting the output can
lead to: completed, one repair, or failed. Cancelling is possible from every
live status, so it is drawn from each (dashed), not as a footnote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.workflow_definition import WorkflowDefinition
from alp_nb.base.text import clip
from alp_nb.viz.errors import VizError
from alp_nb.viz.models.diagram import Edge, Node, diagram
from alp_nb.viz.pictures.diagram_picture import DiagramPicture
from alp_nb.workflow.errors import WorkflowError
from alp_nb.workflow.execution_state import (
    LIVE_STATUSES,
    MAX_OUTPUT_REPAIR_ATTEMPTS,
    RUN_STATUSES,
    WorkflowExecutionState,
)
from alp_nb.workflow.runner import workflow_for
from alp_nb.workflow.session import WorkflowSession

if TYPE_CHECKING:
    from alp_nb.agents.output_contract import OutputContract

Subject = AgentDefinition | WorkflowDefinition | WorkflowSession | WorkflowExecutionState

TOOLS_PER_LINE = 34
"""Characters of tools on one detail line: a state that opens all nine tools wraps onto two lines, so its box
stays as narrow as its neighbours."""
TITLE_ID_CHARS = 48
CURRENT = frozenset({"current"})
OUTPUT_NODE = "output"
STATUS_STYLES = {"running": "status", "awaiting-output": "status", "repairing": "status",
                 "completed": "success", "failed": "failure", "cancelled": "outcome"}
REPAIRS = f"{MAX_OUTPUT_REPAIR_ATTEMPTS} repair allowed"
INITIAL_MARK = "▶ starts here"
"""The first line of the initial state's box: where every execution begins."""

DRAWING_ORDER = ("running", "awaiting-output", "repairing", "cancelled", "failed", "completed")
"""The statuses left to right: the unlabelled arrows into ``cancelled`` go round the left, the labelled one into
``completed`` round the right, where its label has room."""

STATE_LEGEND = (("state", "a state: the tools it opens"), ("terminal", "the final state: awaiting output"),
                ("note", "the output contract"), ("current", "where the execution is"))
STATUS_LEGEND = (("status", "live"), ("success", "completed"), ("failure", "failed"), ("outcome", "cancelled"),
                 ("current", "the current status"))


def state_node(state_id: str) -> str:
    """The node id of a workflow state (``state:<id>``); run statuses have their own names as ids."""
    return f"state:{state_id}"


def state_machine(subject: Subject, state: WorkflowExecutionState | None = None) -> DiagramPicture:
    """The state machine of a role, a bare workflow, a session or an execution snapshot; ``state`` (or the
    session's or snapshot's own) is highlighted, with its status in the caption: its workflow state while the
    execution is live, else the status it reached (repairing, completed, failed, cancelled), never both. The
    initial state's box says so on its first line.

    >>> from alp_nb.agents import builtin_registry
    >>> picture = state_machine(builtin_registry().get("search"))
    >>> for line in picture.to_text().splitlines()[:4]:
    ...     print(line)
    search: workflow retrieve-code
      VALIDATE_WORKSPACE  (▶ starts here; Read, Glob)
          → RETRIEVE
          → cancelled
    >>> picture.to_mermaid().splitlines()[:2]
    ['%% search: workflow retrieve-code', 'flowchart TD']

    A snapshot's workflow is the one this process started under its id, or a built-in's; ``VizError``
    (``NO_VIEW``) when neither is known. A ``state`` of another workflow is ``WorkflowError`` (``WRONG_WORKFLOW``).
    A transition to a state the workflow does not declare is drawn to a red box saying so.
    """
    role, workflow, contract, snapshot = _parts(subject)
    snapshot = state or snapshot
    if snapshot is not None and (snapshot.workflow_id != workflow.id or snapshot.current_state not in workflow.states):
        raise WorkflowError("WRONG_WORKFLOW", f"workflow state `{snapshot.current_state}` of `{snapshot.workflow_id}` "
                                              f"is not a state of `{workflow.id}`")
    granted = set(role.capabilities.tools) if role is not None else None
    ending = None if snapshot is None or snapshot.status in ("running", "awaiting-output") else snapshot.status
    nodes, edges = [], []
    for state_id, workflow_state in workflow.states.items():
        tools = [tool for tool in workflow_state.allowed_tools if granted is None or tool in granted]
        here = snapshot is not None and ending is None and snapshot.current_state == state_id  # one highlight
        start = (INITIAL_MARK,) if state_id == workflow.initial else ()
        nodes.append(Node(state_node(state_id), state_id, (*start, *_tool_lines(tools)),
                          "terminal" if workflow_state.terminal else "state", CURRENT if here else frozenset()))
        edges += [Edge(state_node(state_id), state_node(target)) for target in workflow_state.transitions]
        edges.append(Edge(state_node(state_id), "cancelled", style="dashed"))
        if workflow_state.terminal:
            edges.append(Edge(state_node(state_id), OUTPUT_NODE, "submit"))
    missing = dict.fromkeys(target for state in workflow.states.values() for target in state.transitions
                            if target not in workflow.states)
    nodes += [Node(state_node(target), target, ("no such state",), "state", frozenset({"alarm"})) for target in missing]
    nodes.append(_contract_node(contract))
    nodes += [Node(status, status, detail, STATUS_STYLES[status], CURRENT if status == ending else frozenset())
              for status, detail in (("repairing", ("awaiting the repaired output", REPAIRS)),
                                     ("cancelled", ("from any live status",)), ("failed", ()), ("completed", ()))]
    edges += [Edge(OUTPUT_NODE, "completed", "valid"), Edge(OUTPUT_NODE, "repairing", "invalid"),
              Edge("repairing", "completed", "valid"), Edge("repairing", "failed", "invalid"),
              Edge("repairing", "cancelled", style="dashed")]
    owner = f"{clip(role.id, TITLE_ID_CHARS)}: " if role is not None else ""
    return DiagramPicture(diagram(f"{owner}workflow {clip(workflow.id, TITLE_ID_CHARS)}", nodes, edges,
                           legend=STATE_LEGEND if snapshot is not None else STATE_LEGEND[:3],
                           caption=_status_caption(snapshot)))


def status_lifecycle(current: str | None = None) -> DiagramPicture:
    """The six run statuses on their own: running → awaiting-output → completed | repairing, repairing →
    completed | failed, and every live status → cancelled; ``current`` is highlighted.

    >>> [line for line in status_lifecycle("repairing").to_text().splitlines() if "[now]" in line]
    ['  repairing  [now]  (1 repair allowed)']
    """
    if current is not None and current not in RUN_STATUSES:
        raise VizError("NO_VIEW", f"`{clip(current, TITLE_ID_CHARS)}` is not a run status; one of "
                                  f"{', '.join(RUN_STATUSES)}")
    details = {"running": ("transition from state to state",), "awaiting-output": ("in the final state",),
               "repairing": (REPAIRS,)}
    nodes = [Node(status, status, details.get(status, ()), STATUS_STYLES[status],
                  CURRENT if status == current else frozenset()) for status in DRAWING_ORDER]
    edges = [Edge("running", "awaiting-output", "reach the final state"),
             Edge("awaiting-output", "completed", "valid"), Edge("awaiting-output", "repairing", "invalid"),
             Edge("repairing", "completed", "valid"), Edge("repairing", "failed", "invalid")]
    edges += [Edge(status, "cancelled", style="dashed") for status in LIVE_STATUSES]
    return DiagramPicture(diagram("Run statuses", nodes, edges,
                           legend=STATUS_LEGEND if current is not None else STATUS_LEGEND[:4]))


def _parts(subject: Subject) -> tuple[AgentDefinition | None, WorkflowDefinition, OutputContract | None,
                                      WorkflowExecutionState | None]:
    """(role, workflow, output contract, snapshot) of each kind of subject; None where it has none."""
    if isinstance(subject, AgentDefinition):
        return subject, subject.workflow, subject.output, None
    if isinstance(subject, WorkflowDefinition):
        return None, subject, None, None
    if isinstance(subject, WorkflowSession):
        return subject.agent, subject.definition, subject.contract, subject.state
    workflow = workflow_for(subject)
    if workflow is None:
        raise VizError("NO_VIEW", f"workflow `{clip(subject.workflow_id, TITLE_ID_CHARS)}` was not started in this "
                                  "process and is no built-in's: there is no state machine to draw")
    return None, workflow, None, subject


def _tool_lines(tools: list[str]) -> tuple[str, ...]:
    """The tools as a few comma-separated lines (``no tools`` when there are none)."""
    if not tools:
        return ("no tools",)
    lines = [""]
    for tool in tools:
        if lines[-1] and len(lines[-1]) + len(tool) + 2 > TOOLS_PER_LINE:
            lines.append("")
        lines[-1] += (", " if lines[-1] else "") + tool
    return tuple(lines)


def _contract_node(contract: OutputContract | None) -> Node:
    if contract is None:
        return Node(OUTPUT_NODE, "output contract", ("the role's, checked on submit",), "note")
    return Node(OUTPUT_NODE, f"output: {contract.name}", (f"{contract.kind} contract, checked on submit",), "note")


def _status_caption(snapshot: WorkflowExecutionState | None) -> str:
    if snapshot is None:
        return ""
    return (f"{snapshot.status} at {clip(snapshot.current_state, TITLE_ID_CHARS)} · repair attempts "
            f"{snapshot.repair_attempts} of {MAX_OUTPUT_REPAIR_ATTEMPTS}")
