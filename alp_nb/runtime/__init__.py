"""The workflow runtime: saved workflow scripts run as resumable, journaled orchestrations of agent calls.

See README "The workflow runtime" and ``docs/design.md`` "Files on disk" for the run store layout.
Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .anthropic_runner import AnthropicAgentRunner as AnthropicAgentRunner
    from .calls import CallObserver as CallObserver, ObservedCall as ObservedCall
    from .dry_runs import (
        DryRun as DryRun,
        JournalMatch as JournalMatch,
        StandInRunner as StandInRunner,
        dry_run as dry_run,
        journal_match as journal_match,
    )
    from .errors import RUNTIME_ERROR_CODES as RUNTIME_ERROR_CODES, WorkflowInputError as WorkflowInputError
    from .events import Event as Event, EventStream as EventStream
    from .execution_context import ExecutionContext as ExecutionContext, TokenBudget as TokenBudget
    from .fork import Fork as Fork
    from .journal.entry import JournalEntry as JournalEntry
    from .journal.reader import JournalRead as JournalRead, read_journal as read_journal
    from .keys import call_key as call_key, validate_run_id as validate_run_id
    from .meta import WorkflowMeta as WorkflowMeta, validate_meta as validate_meta
    from .resume import ResumeDecision as ResumeDecision, decide_resume as decide_resume
    from .run import (
        LaunchEnvelope as LaunchEnvelope,
        WorkflowRun as WorkflowRun,
        resume_workflow as resume_workflow,
        run_workflow as run_workflow,
        run_workflow_sync as run_workflow_sync,
    )
    from .runners import AgentRunner as AgentRunner, MockAgentRunner as MockAgentRunner, RunnerOutput as RunnerOutput
    from .saved_workflows import (
        DEFAULT_REGISTRY as DEFAULT_REGISTRY,
        SavedWorkflow as SavedWorkflow,
        WorkflowRegistry as WorkflowRegistry,
        list_workflows as list_workflows,
        load_workflow_file as load_workflow_file,
        saved_workflow as saved_workflow,
    )
    from .snapshot import (
        NO_USAGE as NO_USAGE,
        Attempt as Attempt,
        ForkOrigin as ForkOrigin,
        PhaseProgress as PhaseProgress,
        RunSnapshot as RunSnapshot,
        Usage as Usage,
        UsageReport as UsageReport,
    )
    from .store import RunStore as RunStore
    from .stored_events import RunEvent as RunEvent
    from .tool import WORKFLOW_TOOL as WORKFLOW_TOOL, call_workflow_tool as call_workflow_tool

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
