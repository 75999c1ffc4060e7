"""The workflow layer: each role's linear state machine and its output contract.

A workflow's shape and its output contract are part of an agent definition,
so they are defined beside it in ``alp_nb.agents`` (the bottom layer) and
re-exported here, where the runner that walks them lives.
"""

from alp_nb.agents.output_contract import OutputContract, OutputValidation, TextOutputContract, text_output
from alp_nb.agents.workflow_definition import WorkflowDefinition, WorkflowError, WorkflowState, define_linear_workflow

__all__ = [
    "OutputContract", "OutputValidation", "TextOutputContract", "WorkflowDefinition", "WorkflowError",
    "WorkflowState", "define_linear_workflow", "text_output",
]
