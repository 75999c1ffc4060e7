"""The capability matrix: roles across the nine tools, with their memory and workspace grants beside them; or,
state by state, the tools really open then.

A role's grant says what it may ever use; its workflow narrows that state by
state (grant ∩ the state's tools, none once the role awaits its output). A
designer checking least privilege reads both, so the matrix comes in the two
forms, drawn as a table (``MatrixPicture``), since a grid is what is compared.
"""

from __future__ import annotations

from collections.abc import Iterable

from alp_nb.agents.catalog import TOOL_CATALOG
from alp_nb.agents.definition import AgentDefinition
from alp_nb.viz.models.matrix import LEGEND_SYMBOLS, Cell, Matrix, Row
from alp_nb.viz.pictures.matrix_picture import MatrixPicture
from alp_nb.workflow.execution_state import WorkflowExecutionState
from alp_nb.workflow.runner import effective_tools

GRANT_COLUMNS = ("memory read", "memory write", "workspace read", "workspace write")
OPEN = Cell((LEGEND_SYMBOLS["open"],), "open")
CLOSED = Cell((LEGEND_SYMBOLS["closed"],), "closed")
ABSENT = Cell((), "absent")


def capability_matrix(registry: Iterable[AgentDefinition], by_state: bool = False) -> MatrixPicture:
    """Roles × the nine tools of ``TOOL_CATALOG`` with memory and workspace grants; with ``by_state``, a row per
    role and workflow state with the tools open in it (``effective_tools``).

    >>> from alp_nb.agents import builtin_registry
    >>> rows = capability_matrix(builtin_registry()).to_text().splitlines()
    >>> rows[1].split()[:10]
    ['role', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'WebSearch', 'WebFetch', 'Skill']
    >>> rows[3].split()[:10]
    ['worker', '✓', '✓', '✓', '✓', '✓', '✓', '✓', '✓', '✓']
    """
    roles = tuple(registry)
    if by_state:
        return MatrixPicture(Matrix(
            "Tools open in each state", ("role", "state", *TOOL_CATALOG),
            tuple(row for definition in roles for row in _state_rows(definition)),
            legend=(("open", "open in this state"), ("closed", "granted, closed in this state")),
            caption="grant ∩ the state's tools; none in the final state, which awaits the output",
        ))
    return MatrixPicture(Matrix(
        "Capabilities", ("role", *TOOL_CATALOG, *GRANT_COLUMNS),
        tuple(Row((Cell((definition.id,)), *_tools(definition.capabilities.tools), *_grants(definition)))
              for definition in roles),
        legend=(("open", "granted"), ("grant", "memory scopes and workspace roots granted")),
    ))


def _tools(opened: Iterable[str], granted: Iterable[str] = ()) -> tuple[Cell, ...]:
    """A cell per catalog tool: open, granted but closed, or not granted."""
    opened, granted = set(opened), set(granted)
    return tuple(OPEN if tool in opened else CLOSED if tool in granted else ABSENT for tool in TOOL_CATALOG)


def _grants(definition: AgentDefinition) -> tuple[Cell, ...]:
    capabilities = definition.capabilities
    grants = (capabilities.memory.read, capabilities.memory.write, capabilities.workspace.read_roots,
              capabilities.workspace.write_roots)
    return tuple(Cell(tuple(grant), "grant") if grant else Cell(("—",), "none") for grant in grants)


def _state_rows(definition: AgentDefinition) -> list[Row]:
    """One row per state of the role's workflow, as an execution there would stand: running, or awaiting the
    output in a terminal state."""
    rows = []
    for index, (state_id, state) in enumerate(definition.workflow.states.items()):
        snapshot = WorkflowExecutionState(workflow_id=definition.workflow.id, current_state=state_id,
                                          status="awaiting-output" if state.terminal else "running")
        rows.append(Row((Cell((definition.id,) if index == 0 else ()), Cell((state_id,)),
                         *_tools(effective_tools(definition, snapshot), definition.capabilities.tools)),
                        opens_group=index == 0))
    return rows
