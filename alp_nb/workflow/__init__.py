"""The workflow layer: each role's linear state machine, its output contract, and executions
finalised by the Stop hook.

A workflow's shape and its output contract are part of an agent definition,
so they are defined beside it in ``alp_nb.agents`` (the bottom layer) and
re-exported here, where the builder from user input and the runner live.
Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from alp_nb.agents.output_contract import (
        OutputContract as OutputContract,
        OutputValidation as OutputValidation,
        TextOutputContract as TextOutputContract,
        text_output as text_output,
    )
    from alp_nb.agents.workflow_definition import (
        WorkflowDefinition as WorkflowDefinition,
        WorkflowState as WorkflowState,
    )

    from .errors import WORKFLOW_ERROR_CODES as WORKFLOW_ERROR_CODES, WorkflowError as WorkflowError
    from .execution_state import (
        LIVE_STATUSES as LIVE_STATUSES,
        MAX_OUTPUT_REPAIR_ATTEMPTS as MAX_OUTPUT_REPAIR_ATTEMPTS,
        RUN_STATUSES as RUN_STATUSES,
        SubmitResult as SubmitResult,
        WorkflowExecutionState as WorkflowExecutionState,
        WorkflowRunStatus as WorkflowRunStatus,
        can_repair_output as can_repair_output,
    )
    from .executions import (
        EXECUTION_ID as EXECUTION_ID,
        ExecutionStatus as ExecutionStatus,
        ExecutionStore as ExecutionStore,
        FinalizeResult as FinalizeResult,
        StoredExecutionState as StoredExecutionState,
    )
    from .linear import define_linear_workflow as define_linear_workflow
    from .output_contracts import (
        PydanticOutputContract as PydanticOutputContract,
        define_output_contract as define_output_contract,
    )
    from .policy_snapshot import execution_policy as execution_policy, policy_hash as policy_hash
    from .runner import (
        WorkflowRunner as WorkflowRunner,
        advance_to_output as advance_to_output,
        effective_tools as effective_tools,
        validate_workflow as validate_workflow,
    )
    from .session import SessionStep as SessionStep, WorkflowSession as WorkflowSession

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
