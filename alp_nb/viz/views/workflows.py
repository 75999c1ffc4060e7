"""Views of workflows: the state machine, and a workflow in motion (execution snapshots, sessions,
executions on disk, output contracts and verdicts), as HTML (the state machine drawn as SVG) and as plain text."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from alp_nb.base.frozen import thaw
from alp_nb.viz.html import badge, block, esc, names, status_badge, table
from alp_nb.viz.pictures.picture import picture_html
from alp_nb.viz.pictures.state_machines import Subject, state_machine
from alp_nb.workflow.runner import workflow_for

if TYPE_CHECKING:
    from alp_nb.agents.output_contract import OutputContract, OutputValidation
    from alp_nb.agents.workflow_definition import WorkflowDefinition
    from alp_nb.workflow.execution_state import WorkflowExecutionState
    from alp_nb.workflow.executions import ExecutionStatus
    from alp_nb.workflow.session import SessionStep, WorkflowSession


def workflow_html(workflow: WorkflowDefinition) -> str:
    return block(machine_html(workflow))


def machine_html(subject: Subject, state: WorkflowExecutionState | None = None) -> str:
    """The state machine of ``subject`` as inline SVG, which scrolls sideways rather than wrapping."""
    return picture_html(state_machine(subject, state))


def workflow_text(workflow: WorkflowDefinition, current: str | None = None) -> str:
    width = max((len(state_id) for state_id in workflow.states), default=0)
    lines = [f"workflow {workflow.id}"]
    for state_id, state in workflow.states.items():
        marker = "▶" if state_id == current else " "
        tools = ", ".join(state.allowed_tools) or "—"
        lines.append(f" {marker} {state_id:<{width}}  {tools}{'  (terminal)' if state.terminal else ''}")
    return "\n".join(lines)


def _snapshot_html(state: WorkflowExecutionState, machine: Subject | None) -> str:
    """The status badge and where the execution stands, then its state machine with that state highlighted
    (``machine`` is the role, workflow or session it runs; None when no workflow of that id is known)."""
    head = (f"<div>{status_badge(state.status)} at <code>{esc(state.current_state)}</code> · "
            f"repair attempts {esc(state.repair_attempts)}</div>")
    if machine is None:
        return head + f'<div class="muted">workflow <code>{esc(state.workflow_id)}</code></div>'
    return head + machine_html(machine, state)


def _snapshot_text(state: WorkflowExecutionState, workflow: WorkflowDefinition | None) -> str:
    head = f"{state.status} at {state.current_state} · repair attempts {state.repair_attempts}"
    if workflow is None:
        return f"{head}\nworkflow {state.workflow_id}"
    return f"{head}\n{workflow_text(workflow, state.current_state)}"


def execution_state_html(state: WorkflowExecutionState) -> str:
    return block(_snapshot_html(state, workflow_for(state)))


def execution_state_text(state: WorkflowExecutionState) -> str:
    return _snapshot_text(state, workflow_for(state))


def _outcome(step: SessionStep) -> str:
    if step.refused:
        return f"refused: {step.refused}"
    if step.validation is not None and not step.validation.ok:
        return "invalid: " + "; ".join(step.validation.issues)
    return "ok"


def _history_rows(session: WorkflowSession) -> list[tuple[str, ...]]:
    return [(str(number), step.action, step.state.current_state, step.state.status, _outcome(step))
            for number, step in enumerate(session.history)]


def session_step_text(step: SessionStep) -> str:
    """One history entry on one line: the action, where it left the execution, and how it went."""
    return f"{step.action}: {step.state.current_state} {step.state.status} ({_outcome(step)})"


HISTORY_HEADERS = ("#", "action", "state", "status", "outcome")


def session_html(session: WorkflowSession) -> str:
    rows = [
        [esc(cell) for cell in row[:3]] + [status_badge(row[3]), esc(row[4])]
        for row in _history_rows(session)
    ]
    return block(
        _snapshot_html(session.state, session)
        + f"<div>tools now: {names(session.allowed_tools, empty='none')}</div>"
        + f"<details><summary>history ({len(rows)} steps)</summary>{table(HISTORY_HEADERS, rows)}</details>"
    )


def session_text(session: WorkflowSession) -> str:
    lines = [_snapshot_text(session.state, session.definition),
             f"tools now: {', '.join(session.allowed_tools) or 'none'}", "history:"]
    lines += [f"  {number:>2}  {action:<24} {state:<16} {status:<16} {outcome}"
              for number, action, state, status, outcome in _history_rows(session)]
    return "\n".join(lines)


def execution_status_lines(status: ExecutionStatus) -> list[str]:
    """The ``alp-nb context status`` layout: a label column of ten characters, then the value."""
    from alp_nb.agents.hashing import short_hash
    from alp_nb.workflow.execution_state import MAX_OUTPUT_REPAIR_ATTEMPTS

    workflow = status.workflow
    return [
        f"EXECUTION  {status.execution_id}",
        f"ROLE       {status.role}",
        f"DEFINITION {short_hash(status.definition_hash)}",
        f"MODE       {status.mode}",
        f"WORKFLOW   {workflow.workflow_id}",
        f"STATE      {workflow.current_state}",
        f"STATUS     {status.status}",
        f"REPAIRS    {workflow.repair_attempts} of {MAX_OUTPUT_REPAIR_ATTEMPTS}",
        f"TOOLS      {', '.join(status.effective_tools) or '(none)'}",
    ]


def execution_status_text(status: ExecutionStatus) -> str:
    return "\n".join(execution_status_lines(status))


def execution_status_html(status: ExecutionStatus) -> str:
    from alp_nb.agents.hashing import short_hash

    return block(
        f"<div>execution <code>{esc(status.execution_id)}</code> · role <code>{esc(status.role)}</code> · "
        f"definition <code>{esc(short_hash(status.definition_hash))}</code> · mode {esc(status.mode)} · "
        f"{status_badge(status.status)}</div>"
        + _snapshot_html(status.workflow, status.workflow_definition)
        + f"<div>tools now: {names(status.effective_tools, empty='none')}</div>"
    )


def output_contract_html(contract: OutputContract) -> str:
    schema = json.dumps(thaw(contract.schema), indent=2, ensure_ascii=False)
    return block(f"output contract <code>{esc(contract.name)}</code> "
                 f'<span class="muted">({esc(contract.kind)})</span><pre>{esc(schema)}</pre>')


def output_contract_text(contract: OutputContract) -> str:
    return f"output contract {contract.name} ({contract.kind})\n{json.dumps(thaw(contract.schema), indent=2)}"


def validation_html(validation: OutputValidation) -> str:
    if validation.ok:
        return block(f"{badge('valid', 'ok')} <code>{esc(repr(validation.value))}</code>")
    items = "".join(f"<li><code>{esc(issue)}</code></li>" for issue in validation.issues)
    return block(f"{badge('invalid', 'bad')}<ul>{items}</ul>")


def validation_text(validation: OutputValidation) -> str:
    if validation.ok:
        return f"valid: {validation.value!r}"
    return "invalid:\n" + "\n".join(f"  - {issue}" for issue in validation.issues)
