"""The agents layer: role definitions, catalogs, built-ins, registry, hashing, modes,
policy, custom agents and trust. Pure except for the named loaders and stores."""

from .agent_checks import TIER1_CHECK_IDS, AgentReport, CheckResult, tier1_report
from .agent_file import AGENT_FILE_MAX_BYTES, AgentFile, parse_agent_file
from .builtins import BUILTIN_AGENTS, BUILTIN_IDS, CODE_CRAFT_RULES, CODE_NATIVE_HOUSE_RULES, builtin_registry
from .catalog import (
    DEFAULT_CATALOG, MCP_SERVER_CATALOG, REASONING_EFFORTS, RUNTIME_IDS, SKILL_CATALOG, SUBAGENT_CATALOG,
    TOOL_CATALOG, CapabilityCatalog, McpServerCatalogEntry, SubagentCatalogEntry,
)
from .definition import (
    AgentDefinition, AutoCompactTokens, Capabilities, InstructionSpec, MemoryGrants, ReasoningEffortMap,
    RuntimeModelMap, SkillBinding, WorkspaceGrants, define_agent,
)
from .errors import AgentError, AgentRegistryError
from .hashing import canonical_json, definition_hash, short_hash
from .identity import render_instructions
from .memory import memory_grant_covers
from .modes import (
    DEFAULT_MODE, FIXED_ROLES, MODE_IDS, MODE_PROFILES, Seat, home_runtime_for_mode, model_for_mode, parse_mode,
    runtime_for_mode, seat_for_mode,
)
from .output_contract import OutputContract, OutputValidation, TextOutputContract, text_output
from .policy import POLICY_ERROR_CODES, PolicyEngine, is_indirect_command, raw_runtime_binary
from .policy_requests import (
    AgentDefinitionTarget, Allow, Authorization, ConfigurationRequest, DelegationRequest, Deny, ExecutionScope,
    LaunchScope, McpRequest, MemoryRequest, PolicyDecision, PolicySourceTarget, RequireApproval, SkillRequest,
    SubagentRequest, ToolRequest, WorkspaceRequest,
)
from .project_agents import AgentFileFailure, ProjectAgents, SkillOverlay, load_project_agents
from .project_registry import ProjectRegistry, project_registry
from .registry import AgentRegistry, create_agent_registry
from .runtimes import (
    AUTO_COMPACT_DEFAULT_PERCENT, MODEL_CONTEXT_WINDOWS, MODEL_RUNTIMES, default_auto_compact_tokens,
    runtime_for_model,
)
from .trust import Authority, TrustRecord, TrustStore, diff_authority
from .workflow_definition import WorkflowDefinition, WorkflowError, WorkflowState, define_linear_workflow
