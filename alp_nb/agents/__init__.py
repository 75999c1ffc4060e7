"""The agents layer: role definitions, catalogs, built-ins, registry, hashing, modes,
policy, custom agents and trust. Pure except for the named loaders and stores.

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .agent_checks import (
        TIER1_CHECK_IDS as TIER1_CHECK_IDS,
        AgentReport as AgentReport,
        CheckResult as CheckResult,
        tier1_report as tier1_report,
    )
    from .agent_file import (
        AGENT_FILE_MAX_BYTES as AGENT_FILE_MAX_BYTES,
        AgentFile as AgentFile,
        parse_agent_file as parse_agent_file,
    )
    from .builtins import (
        BUILTIN_AGENTS as BUILTIN_AGENTS,
        BUILTIN_IDS as BUILTIN_IDS,
        CODE_CRAFT_RULES as CODE_CRAFT_RULES,
        CODE_NATIVE_HOUSE_RULES as CODE_NATIVE_HOUSE_RULES,
        builtin_registry as builtin_registry,
    )
    from .catalog import (
        DEFAULT_CATALOG as DEFAULT_CATALOG,
        MCP_SERVER_CATALOG as MCP_SERVER_CATALOG,
        REASONING_EFFORTS as REASONING_EFFORTS,
        RUNTIME_IDS as RUNTIME_IDS,
        SKILL_CATALOG as SKILL_CATALOG,
        SUBAGENT_CATALOG as SUBAGENT_CATALOG,
        TOOL_CATALOG as TOOL_CATALOG,
        CapabilityCatalog as CapabilityCatalog,
        McpServerCatalogEntry as McpServerCatalogEntry,
        SubagentCatalogEntry as SubagentCatalogEntry,
    )
    from .definition import (
        AgentDefinition as AgentDefinition,
        AutoCompactTokens as AutoCompactTokens,
        Capabilities as Capabilities,
        InstructionSpec as InstructionSpec,
        MemoryGrants as MemoryGrants,
        ReasoningEffortMap as ReasoningEffortMap,
        RuntimeModelMap as RuntimeModelMap,
        SkillBinding as SkillBinding,
        WorkspaceGrants as WorkspaceGrants,
        define_agent as define_agent,
    )
    from .errors import (
        AGENT_ERROR_CODES as AGENT_ERROR_CODES,
        REGISTRY_ERROR_CODES as REGISTRY_ERROR_CODES,
        AgentError as AgentError,
        AgentRegistryError as AgentRegistryError,
    )
    from .hashing import canonical_json as canonical_json, definition_hash as definition_hash, short_hash as short_hash
    from .identity import render_instructions as render_instructions
    from .memory import memory_grant_covers as memory_grant_covers
    from .modes import (
        DEFAULT_MODE as DEFAULT_MODE,
        FIXED_ROLES as FIXED_ROLES,
        MODE_IDS as MODE_IDS,
        MODE_PROFILES as MODE_PROFILES,
        Seat as Seat,
        home_runtime_for_mode as home_runtime_for_mode,
        model_for_mode as model_for_mode,
        parse_mode as parse_mode,
        runtime_for_mode as runtime_for_mode,
        seat_for_mode as seat_for_mode,
    )
    from .output_contract import (
        OutputContract as OutputContract,
        OutputValidation as OutputValidation,
        TextOutputContract as TextOutputContract,
        text_output as text_output,
    )
    from .policy import (
        POLICY_ERROR_CODES as POLICY_ERROR_CODES,
        PolicyEngine as PolicyEngine,
        is_indirect_command as is_indirect_command,
        raw_runtime_binary as raw_runtime_binary,
    )
    from .policy_requests import (
        AgentDefinitionTarget as AgentDefinitionTarget,
        Allow as Allow,
        Authorization as Authorization,
        ConfigurationRequest as ConfigurationRequest,
        DelegationRequest as DelegationRequest,
        Deny as Deny,
        ExecutionScope as ExecutionScope,
        LaunchScope as LaunchScope,
        McpRequest as McpRequest,
        MemoryRequest as MemoryRequest,
        PolicyDecision as PolicyDecision,
        PolicySourceTarget as PolicySourceTarget,
        RequireApproval as RequireApproval,
        SkillRequest as SkillRequest,
        SubagentRequest as SubagentRequest,
        ToolRequest as ToolRequest,
        WorkspaceRequest as WorkspaceRequest,
    )
    from .project_agents import (
        AgentFileFailure as AgentFileFailure,
        ProjectAgents as ProjectAgents,
        SkillOverlay as SkillOverlay,
        load_project_agents as load_project_agents,
    )
    from .registry import (
        AgentRegistry as AgentRegistry,
        create_agent_registry as create_agent_registry,
        delegation_cycle as delegation_cycle,
    )
    from .runtimes import (
        AUTO_COMPACT_DEFAULT_PERCENT as AUTO_COMPACT_DEFAULT_PERCENT,
        MODEL_CONTEXT_WINDOWS as MODEL_CONTEXT_WINDOWS,
        MODEL_RUNTIMES as MODEL_RUNTIMES,
        default_auto_compact_tokens as default_auto_compact_tokens,
        runtime_for_model as runtime_for_model,
    )
    from .trust import (
        Authority as Authority,
        TrustRecord as TrustRecord,
        TrustStore as TrustStore,
        diff_authority as diff_authority,
    )
    from .trusted_registry import ProjectRegistry as ProjectRegistry, project_registry as project_registry
    from .workflow_definition import WorkflowDefinition as WorkflowDefinition, WorkflowState as WorkflowState

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
