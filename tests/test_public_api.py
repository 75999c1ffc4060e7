"""The names DESIGN.md promises are importable from ``alp_nb``."""

import alp_nb

AGENT_NAMES = (
    "TOOL_CATALOG", "AgentDefinition", "define_agent", "BUILTIN_AGENTS", "builtin_registry",
    "create_agent_registry", "AgentRegistry", "AgentRegistryError", "definition_hash", "memory_grant_covers",
    "MODE_IDS", "DEFAULT_MODE", "MODEL_RUNTIMES", "MODEL_CONTEXT_WINDOWS", "model_for_mode", "PolicyEngine",
    "Authorization", "load_project_agents", "TrustStore", "diff_authority",
)


def test_every_agents_layer_name_of_the_design_is_exported():
    missing = [name for name in AGENT_NAMES if not hasattr(alp_nb, name)]
    assert missing == []
    assert set(AGENT_NAMES) <= set(alp_nb.__all__)


def test_all_lists_only_names_that_exist():
    assert [name for name in alp_nb.__all__ if not hasattr(alp_nb, name)] == []


def test_console_script_entry_point_is_the_cli_main():
    from importlib.metadata import entry_points

    (script,) = [entry for entry in entry_points(group="console_scripts") if entry.name == "alp-nb"]
    assert script.value == "alp_nb.cli:main"
