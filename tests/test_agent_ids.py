"""Ids, names and keys are matched whole: with ``re.match`` and ``^…$``, ``$`` also matches before a
final newline, so ``"worker\\n"`` passed as kebab-case, listed as a second ``worker`` and, once trusted, could be
delegated to. Every such pattern of the agents and workflow layers refuses a trailing newline, however it is used."""

from __future__ import annotations

import re

import pytest
from agent_factory import make_agent
from custom_agent_files import write_agent

from alp_nb.agents import (
    BUILTIN_AGENTS,
    CapabilityCatalog,
    McpServerCatalogEntry,
    PolicyEngine,
    builtin_registry,
    create_agent_registry,
    load_project_agents,
    tier1_report,
)
from alp_nb.agents.ceiling import KEBAB_CASE
from alp_nb.agents.memory import MEMORY_SCOPE_GRANT
from alp_nb.agents.policy import MCP_TOOL
from alp_nb.workflow import EXECUTION_ID, ExecutionStore, WorkflowError

BUILTINS = {definition.id: definition for definition in BUILTIN_AGENTS}

PATTERNS = {
    "kebab-case id": (KEBAB_CASE, "worker"),
    "memory scope": (MEMORY_SCOPE_GRANT, "shared:notes"),
    "mcp tool": (MCP_TOOL, "mcp__docs__search"),
    "execution id": (EXECUTION_ID, "exec_a1"),
}


@pytest.mark.parametrize(("pattern", "good"), PATTERNS.values(), ids=PATTERNS.keys())
def test_every_id_pattern_refuses_a_trailing_newline_however_it_is_used(pattern: re.Pattern[str], good: str):
    assert pattern.fullmatch(good)
    for method in (pattern.match, pattern.fullmatch, pattern.search):
        assert method(good + "\n") is None, method


def test_an_agent_id_with_a_trailing_newline_is_refused_as_not_kebab_case(tmp_path):
    write_agent(tmp_path, "worker\n")
    write_agent(tmp_path, "migrator")
    result = load_project_agents(tmp_path)
    assert [definition.id for definition in result.loaded] == ["migrator"]
    (failure,) = result.failed
    assert failure.issues[0] == ("id: `worker\n` must be kebab-case "
                                 "(lowercase letters and digits joined by single dashes)")


def test_the_identity_check_refuses_an_id_with_a_trailing_newline():
    definition = BUILTINS["titling"].model_copy(update={"id": "titling\n"})
    (identity,) = [check for check in tier1_report(definition, builtin_registry()).checks if check.id == "identity"]
    assert (identity.status, identity.detail) == ("FAIL", "`titling\n` is not kebab-case")


@pytest.mark.parametrize("scope", ["shared\n", "shared:notes\n", "project:alp\n"])
def test_a_memory_scope_with_a_trailing_newline_is_malformed(tmp_path, scope):
    write_agent(tmp_path, capabilities={"memory": {"read": [scope, "private:migrator"]}})
    (failure,) = load_project_agents(tmp_path).failed
    assert failure.issues == (f"capabilities.memory.read: memory scope `{scope}` is malformed",)


def test_an_mcp_tool_with_a_trailing_newline_is_not_routed_to_its_server():
    catalog = CapabilityCatalog(
        mcp_servers={"docs": McpServerCatalogEntry(description="documentation", egress="network", command="docs")},
    )
    registry = create_agent_registry([make_agent("reader", capabilities={"mcpServers": ["docs"]})], catalog)
    engine = PolicyEngine(registry)
    request = {"type": "tool", "actor": "reader", "tool": "mcp__docs__search"}
    assert engine.authorize(request).allowed
    answer = engine.authorize({**request, "tool": "mcp__docs__search\n"})
    assert (answer.allowed, answer.code) == (False, "TOOL_NOT_GRANTED")


def test_an_execution_id_with_a_trailing_newline_is_refused_before_reading(tmp_path):
    with pytest.raises(WorkflowError) as error:
        ExecutionStore(tmp_path).status("exec_a1\n")
    assert error.value.code == "INVALID_EXECUTION_ID"
