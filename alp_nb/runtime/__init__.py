"""The workflow runtime: saved workflow scripts run as resumable, journaled orchestrations of agent calls.

See README "Workflow runtime" and DESIGN.md "Files on disk" for the run store layout.
"""

from .anthropic_runner import AnthropicAgentRunner
from .context import Budget, ExecutionContext
from .errors import WorkflowInputError
from .events import Event, EventStream
from .journal import JournalEntry, read_journal
from .keys import call_key, validate_run_id
from .meta import WorkflowMeta, validate_meta
from .registry import DEFAULT_REGISTRY, SavedWorkflow, WorkflowRegistry, list_workflows, saved_workflow
from .run import LaunchEnvelope, WorkflowRun, resume_workflow, run_workflow, run_workflow_sync
from .runners import AgentRunner, MockAgentRunner, RunnerOutput
from .snapshot import Attempt, PhaseProgress, RunSnapshot, Usage, UsageReport
from .store import RunStore, StoredRun
from .tool import WORKFLOW_TOOL, call_workflow_tool

__all__ = [
    "DEFAULT_REGISTRY", "WORKFLOW_TOOL", "AgentRunner", "AnthropicAgentRunner", "Attempt", "Budget", "Event",
    "EventStream", "ExecutionContext", "JournalEntry", "LaunchEnvelope", "MockAgentRunner", "PhaseProgress",
    "RunSnapshot", "RunStore", "RunnerOutput", "SavedWorkflow", "StoredRun", "Usage", "UsageReport",
    "WorkflowInputError", "WorkflowMeta", "WorkflowRegistry", "WorkflowRun", "call_key", "call_workflow_tool",
    "list_workflows", "read_journal", "resume_workflow", "run_workflow", "run_workflow_sync", "saved_workflow",
    "validate_meta", "validate_run_id",
]
