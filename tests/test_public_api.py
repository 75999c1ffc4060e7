"""The public names the README and docs/design.md promise are importable from ``alp_nb``."""

import pytest

import alp_nb

AGENT_NAMES = (
    "TOOL_CATALOG", "AgentDefinition", "define_agent", "BUILTIN_AGENTS", "builtin_registry",
    "create_agent_registry", "AgentRegistry", "AgentRegistryError", "definition_hash", "memory_grant_covers",
    "MODE_IDS", "DEFAULT_MODE", "MODEL_RUNTIMES", "MODEL_CONTEXT_WINDOWS", "model_for_mode", "PolicyEngine",
    "Authorization", "load_project_agents", "TrustStore", "diff_authority",
)

WORKFLOW_NAMES = (
    "define_linear_workflow", "WorkflowDefinition", "WorkflowRunner", "advance_to_output", "WorkflowExecutionState",
    "WorkflowError", "MAX_OUTPUT_REPAIR_ATTEMPTS", "text_output", "define_output_contract", "effective_tools",
    "WorkflowSession", "ExecutionStore",
)
RUNTIME_NAMES = (
    "WorkflowMeta", "validate_meta", "WorkflowInputError", "saved_workflow", "WorkflowRegistry", "list_workflows",
    "run_workflow", "run_workflow_sync", "ExecutionContext", "AgentRunner", "MockAgentRunner", "RunnerOutput",
    "RunStore", "WORKFLOW_TOOL",
)
LOOP_NAMES = (
    "LoopContract", "lint_contract", "Finding", "decide", "simulate", "FAILURE_INJECTIONS", "review_packet",
    "simulate_firing", "Firing", "FiringItem", "Expectations", "grade", "learn_from_receipts", "read_receipt_log",
    "write_receipt_log", "receipt_records", "diff_contracts",
)


@pytest.mark.parametrize("names", [AGENT_NAMES, WORKFLOW_NAMES, RUNTIME_NAMES, LOOP_NAMES],
                         ids=["agents", "workflow", "runtime", "loops"])
def test_every_name_of_the_design_is_exported(names):
    missing = [name for name in names if not hasattr(alp_nb, name)]
    assert missing == []
    assert set(names) <= set(alp_nb.__all__)


def test_all_lists_only_names_that_exist():
    assert [name for name in alp_nb.__all__ if not hasattr(alp_nb, name)] == []


def test_console_script_entry_point_is_the_cli_main():
    from importlib.metadata import entry_points

    (script,) = [entry for entry in entry_points(group="console_scripts") if entry.name == "alp-nb"]
    assert script.value == "alp_nb.cli:main"
