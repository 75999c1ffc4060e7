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

__version__ = "0.1.0"

__all__ = [
    "AUTO_COMPACT_DEFAULT_PERCENT", "BUILTIN_AGENTS", "DEFAULT_CATALOG", "DEFAULT_MODE", "MAX_OUTPUT_REPAIR_ATTEMPTS",
    "MCP_SERVER_CATALOG", "MODEL_CONTEXT_WINDOWS", "MODEL_RUNTIMES", "MODE_IDS", "MODE_PROFILES",
    "POLICY_ERROR_CODES", "RUNTIME_IDS", "SKILL_CATALOG", "SUBAGENT_CATALOG", "TOOL_CATALOG", "AgentDefinition",
    "AgentError", "AgentRegistry", "AgentRegistryError", "Authorization", "CapabilityCatalog", "ExecutionStatus",
    "ExecutionStore", "FinalizeResult", "McpServerCatalogEntry", "OutputContract", "OutputValidation", "PolicyEngine",
    "SubagentCatalogEntry", "TrustStore", "WorkflowDefinition", "WorkflowError", "WorkflowExecutionState",
    "WorkflowRunner", "WorkflowSession", "advance_to_output", "builtin_registry", "create_agent_registry",
    "default_auto_compact_tokens", "define_agent", "define_linear_workflow", "define_output_contract",
    "definition_hash", "diff_authority", "effective_tools", "load_project_agents", "memory_grant_covers",
    "model_for_mode", "project_registry", "runtime_for_model", "text_output",
]
