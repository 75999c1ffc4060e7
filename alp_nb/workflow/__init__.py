"""The workflow layer: each role's linear state machine, its output contract, and executions
finalised by the Stop hook.

A workflow's shape and its output contract are part of an agent definition,
so they are defined beside it in ``alp_nb.agents`` (the bottom layer) and
re-exported here, where the runner that walks them lives.
"""

from alp_nb.agents.output_contract import OutputContract, OutputValidation, TextOutputContract, text_output
from alp_nb.agents.workflow_definition import WorkflowDefinition, WorkflowError, WorkflowState, define_linear_workflow

from .execution_policy import execution_policy, policy_hash
from .execution_state import (
    LIVE_STATUSES, MAX_OUTPUT_REPAIR_ATTEMPTS, RUN_STATUSES, SubmitResult, WorkflowExecutionState,
    WorkflowRunStatus, can_repair_output,
)
from .executions import EXECUTION_ID, ExecutionStatus, ExecutionStore, FinalizeResult, StoredExecutionState
from .output_contracts import PydanticOutputContract, define_output_contract
from .runner import WorkflowRunner, advance_to_output, effective_tools, validate_workflow
from .session import SessionStep, WorkflowSession

__all__ = [
    "EXECUTION_ID", "LIVE_STATUSES", "MAX_OUTPUT_REPAIR_ATTEMPTS", "RUN_STATUSES", "ExecutionStatus",
    "ExecutionStore", "FinalizeResult", "OutputContract", "OutputValidation", "PydanticOutputContract",
    "SessionStep", "StoredExecutionState", "SubmitResult", "TextOutputContract", "WorkflowDefinition",
    "WorkflowError", "WorkflowExecutionState", "WorkflowRunStatus", "WorkflowRunner", "WorkflowSession",
    "WorkflowState", "advance_to_output", "can_repair_output", "define_linear_workflow", "define_output_contract",
    "effective_tools", "execution_policy", "policy_hash", "text_output", "validate_workflow",
]
