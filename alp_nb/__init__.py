"""alp_nb: an executable model of the ALP agent system, for notebooks.

The public API is re-exported here; see README.md for the list.
"""

from alp_nb.agents import (
    AUTO_COMPACT_DEFAULT_PERCENT, BUILTIN_AGENTS, DEFAULT_CATALOG, DEFAULT_MODE, MCP_SERVER_CATALOG, MODE_IDS,
    MODE_PROFILES, MODEL_CONTEXT_WINDOWS, MODEL_RUNTIMES, POLICY_ERROR_CODES, RUNTIME_IDS, SKILL_CATALOG,
    SUBAGENT_CATALOG, TOOL_CATALOG, AgentDefinition, AgentError, AgentRegistry, AgentRegistryError, Authorization,
    CapabilityCatalog, McpServerCatalogEntry, PolicyEngine, SubagentCatalogEntry, TrustStore, builtin_registry,
    create_agent_registry, default_auto_compact_tokens, define_agent, definition_hash, diff_authority,
    load_project_agents, memory_grant_covers, model_for_mode, project_registry, runtime_for_model,
)
from alp_nb.workflow import (
    MAX_OUTPUT_REPAIR_ATTEMPTS, ExecutionStatus, ExecutionStore, FinalizeResult, OutputContract, OutputValidation,
    WorkflowDefinition, WorkflowError, WorkflowExecutionState, WorkflowRunner, WorkflowSession, advance_to_output,
    define_linear_workflow, define_output_contract, effective_tools, text_output,
)
from alp_nb.runtime import (
    WORKFLOW_TOOL, AgentRunner, AnthropicAgentRunner, EventStream, ExecutionContext, MockAgentRunner, RunnerOutput,
    RunSnapshot, RunStore, WorkflowInputError, WorkflowMeta, WorkflowRegistry, WorkflowRun, call_workflow_tool,
    list_workflows, resume_workflow, run_workflow, run_workflow_sync, saved_workflow, validate_meta,
)
from alp_nb.loops import (
    FAILURE_INJECTIONS, LINT_RULES, OUTCOMES, RECEIPT_FIELDS, BudgetState, Evidence, Finding, Findings, LintRule,
    LoopContract, LoopContractError, LoopState, Scenario, ScriptedAttempt, Simulation, decide, failure_signature,
    lint_contract, make_receipt, simulate,
)
from alp_nb.viz.review_packet import review_packet, review_packet_markdown

__version__ = "0.1.0"

__all__ = [
    "AUTO_COMPACT_DEFAULT_PERCENT", "BUILTIN_AGENTS", "DEFAULT_CATALOG", "DEFAULT_MODE", "FAILURE_INJECTIONS",
    "LINT_RULES", "MAX_OUTPUT_REPAIR_ATTEMPTS", "MCP_SERVER_CATALOG", "MODEL_CONTEXT_WINDOWS", "MODEL_RUNTIMES",
    "MODE_IDS", "MODE_PROFILES", "OUTCOMES", "POLICY_ERROR_CODES", "RECEIPT_FIELDS", "RUNTIME_IDS", "SKILL_CATALOG",
    "SUBAGENT_CATALOG", "TOOL_CATALOG", "WORKFLOW_TOOL", "AgentDefinition", "AgentError", "AgentRegistry",
    "AgentRegistryError", "AgentRunner", "AnthropicAgentRunner", "Authorization", "BudgetState", "CapabilityCatalog",
    "EventStream", "Evidence", "ExecutionContext", "ExecutionStatus", "ExecutionStore", "FinalizeResult", "Finding",
    "Findings", "LintRule", "LoopContract", "LoopContractError", "LoopState", "McpServerCatalogEntry",
    "MockAgentRunner", "OutputContract", "OutputValidation", "PolicyEngine", "RunSnapshot", "RunStore",
    "RunnerOutput", "Scenario", "ScriptedAttempt", "Simulation", "SubagentCatalogEntry", "TrustStore",
    "WorkflowDefinition", "WorkflowError", "WorkflowExecutionState", "WorkflowInputError", "WorkflowMeta",
    "WorkflowRegistry", "WorkflowRun", "WorkflowRunner", "WorkflowSession", "advance_to_output", "builtin_registry",
    "call_workflow_tool", "create_agent_registry", "decide", "default_auto_compact_tokens", "define_agent",
    "define_linear_workflow", "define_output_contract", "definition_hash", "diff_authority", "effective_tools",
    "failure_signature", "lint_contract", "list_workflows", "load_project_agents", "make_receipt",
    "memory_grant_covers", "model_for_mode", "project_registry", "resume_workflow", "review_packet",
    "review_packet_markdown", "run_workflow", "run_workflow_sync", "runtime_for_model", "saved_workflow", "simulate",
    "text_output", "validate_meta",
]
