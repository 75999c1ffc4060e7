"""The agent registry (reference §4, §10 "Registry", "Capability grants", "Auto-compact"):
every code and exact message, the order the checks run in, first failure only, frozen
entries, lookups and the delegation graph."""

from __future__ import annotations

import copy

import pytest
from agent_factory import DELETE, build_agent, make_agent
from pydantic import ValidationError

from alp_nb.agents import (
    DEFAULT_CATALOG,
    MCP_SERVER_CATALOG,
    SKILL_CATALOG,
    SUBAGENT_CATALOG,
    TOOL_CATALOG,
    AgentError,
    AgentRegistry,
    AgentRegistryError,
    CapabilityCatalog,
    McpServerCatalogEntry,
    SubagentCatalogEntry,
    create_agent_registry,
    define_agent,
    delegation_cycle,
)


def refusal(*definitions, catalog=None) -> AgentRegistryError:
    """The error the registry raises for ``definitions``."""
    with pytest.raises(AgentRegistryError) as caught:
        create_agent_registry(definitions, catalog)
    return caught.value


def assert_refused(definitions, code, message, catalog=None):
    error = refusal(*definitions, catalog=catalog)
    assert (error.code, str(error)) == (code, message)


def with_skills(*skills, tools=("Read", "Skill"), **capabilities):
    return {"capabilities": {"tools": list(tools), "skills": list(skills), **capabilities}}


PROBER = SubagentCatalogEntry(description="Probes", prompt="Probe the code.", tools=("Read", "Bash"))
DOCS = McpServerCatalogEntry(description="Docs search", egress="network", command="docs-mcp", args=("--stdio",))
CATALOG = CapabilityCatalog(subagents={"prober": PROBER}, mcp_servers={"docs": DOCS})


def test_minimal_agent_is_accepted():
    registry = create_agent_registry([make_agent("probe")])
    assert registry.ids() == ("probe",)


def test_registry_error_is_an_agent_error_with_a_code():
    error = refusal(make_agent("probe"), make_agent("probe"))
    assert isinstance(error, AgentError)
    assert type(error).__name__ == "AgentRegistryError"
    assert error.code == "DUPLICATE_AGENT"


# --- DUPLICATE_AGENT and INVALID_AGENT -------------------------------------------------------

def test_second_definition_with_the_same_id_is_duplicate_agent():
    assert_refused([make_agent("probe"), make_agent("probe")], "DUPLICATE_AGENT", "duplicate agent `probe`")


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"id": "  "}, "agent `  ` has an empty id"),
        ({"id": ""}, "agent `` has an empty id"),
        ({"displayName": " "}, "agent `probe` has an empty displayName"),
        ({"model": {"claude": ""}}, "agent `probe` is missing Claude runtime model"),
        ({"model": {"codex": "   "}}, "agent `probe` is missing Codex runtime model"),
        ({"reasoningEffort": {"claude": "extreme"}}, "agent `probe` has invalid claude reasoning effort"),
        ({"reasoningEffort": {"codex": "HIGH"}}, "agent `probe` has invalid codex reasoning effort"),
        ({"instructions": {"role": ""}}, "agent `probe` has an empty instruction role"),
        ({"instructions": {"purpose": "  "}}, "agent `probe` has an empty instruction purpose"),
        ({"instructions": {"rules": ["Keep going.", ""]}}, "agent `probe` has an empty instruction rule"),
        ({"instructions": {"rules": [" \t"]}}, "agent `probe` has an empty instruction rule"),
        ({"instructions": {"audience": "robots"}}, "agent `probe` has unknown instruction audience `robots`"),
        ({"workflow": {"id": " "}}, "agent `probe` has an empty workflow id"),
        ({"output": {"name": ""}}, "agent `probe` has an empty output contract name"),
    ],
    ids=[
        "blank-id", "empty-id", "display-name", "claude-model", "codex-model", "claude-effort", "codex-effort",
        "role", "purpose", "empty-rule", "whitespace-rule", "audience", "workflow-id", "output-name",
    ],
)
def test_blank_or_unknown_identity_field_is_invalid_agent(overrides, message):
    assert_refused([make_agent("probe", **overrides)], "INVALID_AGENT", message)


def test_absent_model_side_is_invalid_agent_naming_the_field():
    error = refusal(make_agent("probe", model={"codex": DELETE}))
    assert error.code == "INVALID_AGENT"
    assert "`probe`" in str(error) and "model.codex" in str(error)


@pytest.mark.parametrize("effort", ["low", "medium", "high", "xhigh", "max", "ultra"])
def test_every_reasoning_effort_is_accepted_on_both_runtimes(effort):
    create_agent_registry([make_agent("probe", reasoningEffort={"claude": effort, "codex": effort})])


@pytest.mark.parametrize("audience", ["principal", "machine", DELETE])
def test_principal_machine_or_absent_audience_is_accepted(audience):
    create_agent_registry([make_agent("probe", instructions={"audience": audience})])


# --- INVALID_AUTO_COMPACT_LIMIT --------------------------------------------------------------

RANGE = "outside 100000–1000000 whole tokens"


@pytest.mark.parametrize(
    "model, tokens, message",
    [
        ({}, {"claude": 50_000}, f"agent `probe` has claude auto-compact threshold `50000`, {RANGE}"),
        ({}, {"codex": 2_000_000}, f"agent `probe` has codex auto-compact threshold `2000000`, {RANGE}"),
        ({}, {"claude": 150_000.5}, f"agent `probe` has claude auto-compact threshold `150000.5`, {RANGE}"),
        ({}, {"claude": 99_999}, f"agent `probe` has claude auto-compact threshold `99999`, {RANGE}"),
        ({}, {"claude": 1_000_001}, f"agent `probe` has claude auto-compact threshold `1000001`, {RANGE}"),
        (
            {"codex": "gpt-5.6-sol"}, {"codex": 500_000},
            "agent `probe` has codex auto-compact threshold `500000` above the context window of "
            "`gpt-5.6-sol` (272000 tokens)",
        ),
        (
            {"claude": "claude-haiku-4-5"}, {"claude": 300_000},
            "agent `probe` has claude auto-compact threshold `300000` above the context window of "
            "`claude-haiku-4-5` (200000 tokens)",
        ),
        (
            {"codex": "gpt-5.6-terra"}, {"codex": 272_001},
            "agent `probe` has codex auto-compact threshold `272001` above the context window of "
            "`gpt-5.6-terra` (272000 tokens)",
        ),
        ({"claude": "mystery-model"}, {"claude": 1_000_001},
         f"agent `probe` has claude auto-compact threshold `1000001`, {RANGE}"),
    ],
    ids=["50k", "2m", "fraction", "just-below", "just-above", "sol-window", "haiku-window", "terra-window",
         "unknown-model-range"],
)
def test_threshold_out_of_range_or_above_window_is_invalid_auto_compact_limit(model, tokens, message):
    agent = make_agent("probe", model=model, autoCompactTokens=tokens)
    assert_refused([agent], "INVALID_AUTO_COMPACT_LIMIT", message)


def test_out_of_range_threshold_reports_the_range_even_above_the_window():
    agent = make_agent("probe", model={"claude": "claude-haiku-4-5"}, autoCompactTokens={"claude": 2_000_000})
    assert str(refusal(agent)).endswith(RANGE)


def test_claude_threshold_is_checked_before_codex():
    agent = make_agent("probe", autoCompactTokens={"codex": 1, "claude": 2})
    assert "claude auto-compact threshold `2`" in str(refusal(agent))


@pytest.mark.parametrize(
    "model, tokens",
    [
        ({}, {"claude": 150_000}),
        ({}, {"codex": 150_000}),
        ({}, {"claude": 100_000, "codex": 272_000}),
        ({}, {"claude": 1_000_000}),
        ({}, {"claude": 150_000.0}),
        ({}, {}),
        ({}, None),
        ({}, DELETE),
        ({"claude": "mystery-model", "codex": "other-mystery"}, {"claude": 1_000_000, "codex": 999_999}),
    ],
    ids=["claude-only", "codex-only", "both-at-bounds", "max", "integral-float", "empty", "none", "absent",
         "unknown-models-range-only"],
)
def test_threshold_within_range_and_window_is_accepted(model, tokens):
    create_agent_registry([make_agent("probe", model=model, autoCompactTokens=tokens)])


@pytest.mark.parametrize("value", ["150000", True])
def test_threshold_that_is_not_a_number_is_refused(value):
    assert refusal(make_agent("probe", autoCompactTokens={"claude": value})).code == "INVALID_AGENT"


# --- UNKNOWN_TOOL ----------------------------------------------------------------------------

def test_tool_outside_the_catalog_is_unknown_tool():
    agent = make_agent("probe", capabilities={"tools": ["Read", "UnknownTool"]})
    assert_refused([agent], "UNKNOWN_TOOL", "agent `probe` has unknown tool `UnknownTool`")


@pytest.mark.parametrize("tool", ["Task", "Agent", "read", "mcp__docs__search"])
def test_runtime_and_mcp_tool_names_are_not_catalog_tools(tool):
    agent = make_agent("probe", capabilities={"tools": [tool]})
    assert_refused([agent], "UNKNOWN_TOOL", f"agent `probe` has unknown tool `{tool}`")


def test_every_catalog_tool_is_accepted():
    create_agent_registry([make_agent(
        "probe", capabilities={"tools": list(TOOL_CATALOG), "skills": ["git"]},
    )])


def test_subagent_holding_a_tool_the_role_lacks_is_unknown_tool():
    agent = make_agent("probe", capabilities={"tools": ["Read"], "subagents": ["prober"]})
    assert_refused(
        [agent], "UNKNOWN_TOOL", "agent `probe` grants subagent `prober` the ungranted tool `Bash`", catalog=CATALOG
    )


# --- INVALID_WORKSPACE_GRANT -----------------------------------------------------------------

@pytest.mark.parametrize(
    "read_roots, write_root",
    [
        (["/workspace/read"], "/workspace/write"),
        (["/project"], "/project-evil"),
        (["."], "../elsewhere"),
        ([], "."),
        (["/workspace/output"], "/workspace"),
    ],
    ids=["sibling", "string-prefix-is-not-containment", "parent-escape", "no-read-root", "parent-of-read-root"],
)
def test_write_root_outside_every_read_root_is_invalid_workspace_grant(read_roots, write_root):
    agent = make_agent("probe", capabilities={"workspace": {"readRoots": read_roots, "writeRoots": [write_root]}})
    assert_refused(
        [agent], "INVALID_WORKSPACE_GRANT", f"agent `probe` workspace write root `{write_root}` is not readable"
    )


@pytest.mark.parametrize(
    "read_roots, write_roots",
    [
        (["/workspace"], ["/workspace/output"]),
        (["/workspace"], ["/workspace"]),
        (["."], ["."]),
        (["."], ["./build/../out"]),
        (["/elsewhere", "/workspace"], ["/workspace/output", "/elsewhere/x"]),
    ],
    ids=["child", "same", "dot", "normalised", "second-read-root"],
)
def test_write_root_within_some_read_root_is_accepted(read_roots, write_roots):
    create_agent_registry([make_agent(
        "probe", capabilities={"workspace": {"readRoots": read_roots, "writeRoots": write_roots}},
    )])


def test_relative_write_root_is_resolved_against_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    agent = make_agent("probe", capabilities={"workspace": {"readRoots": [str(tmp_path)], "writeRoots": ["out"]}})
    create_agent_registry([agent])
    monkeypatch.chdir(tmp_path.parent)
    assert refusal(agent).code == "INVALID_WORKSPACE_GRANT"


# --- INVALID_MEMORY_GRANT --------------------------------------------------------------------

def memory(read, write):
    return {"capabilities": {"memory": {"read": read, "write": write}}}


@pytest.mark.parametrize(
    "read, write, message",
    [
        (["shared"], ["project:alp-code"], "agent `probe` memory write grant `project:alp-code` is not readable"),
        (
            ["shared:reference:*"], ["shared:reference"],
            "agent `probe` memory write grant `shared:reference` is not readable",
        ),
        ([], ["private:probe"], "agent `probe` memory write grant `private:probe` is not readable"),
        (["private:other"], ["private:other"], "agent `probe` cannot access private memory for `other`"),
        (["shared", "private:other"], [], "agent `probe` cannot access private memory for `other`"),
        (["private:*"], ["private:probe"], "agent `probe` cannot access private memory for `*`"),
        (["shared"], ["private:other"], "agent `probe` memory write grant `private:other` is not readable"),
    ],
    ids=["write-not-covered", "wildcard-needs-a-segment", "no-read", "foreign-read-and-write", "foreign-read",
         "wildcard-private", "uncovered-foreign-write-reports-not-readable"],
)
def test_uncovered_write_or_foreign_private_grant_is_invalid_memory_grant(read, write, message):
    assert_refused([make_agent("probe", **memory(read, write))], "INVALID_MEMORY_GRANT", message)


@pytest.mark.parametrize(
    "read, write",
    [
        (["project:*"], ["project:alp-code"]),
        (["shared"], ["shared:decisions"]),
        (["private:probe"], ["private:probe:notes"]),
        (["shared", "project:*", "private:probe"], ["shared:reference:*", "project:*:refs:*", "private:probe"]),
        (["shared"], []),
    ],
    ids=["project-wildcard", "shared", "own-private-below", "librarian-shape", "read-only"],
)
def test_write_covered_by_a_read_grant_is_accepted(read, write):
    create_agent_registry([make_agent("probe", **memory(read, write))])


# --- DUPLICATE_GRANT, UNKNOWN_SKILL / SUBAGENT / MCP_SERVER ----------------------------------

@pytest.mark.parametrize(
    "capabilities, message",
    [
        (with_skills("git", "git")["capabilities"], "agent `probe` names skill `git` twice"),
        ({"subagents": ["prober", "prober"], "tools": ["Read", "Bash"]}, "agent `probe` names subagent `prober` twice"),
        ({"mcpServers": ["docs", "docs"]}, "agent `probe` names mcp server `docs` twice"),
    ],
    ids=["skill", "subagent", "mcp-server"],
)
def test_name_granted_twice_is_duplicate_grant(capabilities, message):
    assert_refused([make_agent("probe", capabilities=capabilities)], "DUPLICATE_GRANT", message, catalog=CATALOG)


def test_duplicate_grant_is_reported_before_the_name_is_looked_up():
    agent = make_agent("probe", capabilities={"subagents": ["ghost", "ghost"]})
    assert_refused([agent], "DUPLICATE_GRANT", "agent `probe` names subagent `ghost` twice")


@pytest.mark.parametrize(
    "capabilities, code, message",
    [
        (
            with_skills("no-such-skill")["capabilities"],
            "UNKNOWN_SKILL", "agent `probe` has unknown skill `no-such-skill`",
        ),
        ({"subagents": ["prober"]}, "UNKNOWN_SUBAGENT", "agent `probe` has unknown subagent `prober`"),
        ({"mcpServers": ["docs"]}, "UNKNOWN_MCP_SERVER", "agent `probe` has unknown mcp server `docs`"),
    ],
    ids=["skill", "subagent", "mcp-server"],
)
def test_name_missing_from_the_shipped_catalog_is_refused(capabilities, code, message):
    assert_refused([make_agent("probe", capabilities=capabilities)], code, message)


def test_shipped_catalogs_name_no_subagent_or_mcp_server():
    assert dict(SUBAGENT_CATALOG) == {} and dict(MCP_SERVER_CATALOG) == {}
    assert dict(DEFAULT_CATALOG.subagents) == {} and dict(DEFAULT_CATALOG.mcp_servers) == {}
    assert DEFAULT_CATALOG.skills == SKILL_CATALOG


def test_subagent_and_mcp_server_named_by_the_catalog_are_accepted():
    agent = make_agent(
        "probe", capabilities={"tools": ["Read", "Bash"], "subagents": ["prober"], "mcpServers": ["docs"]}
    )
    registry = create_agent_registry([agent], CATALOG)
    assert registry.catalog is CATALOG
    assert registry.get("probe").capabilities.subagents == ("prober",)
    assert registry.get("probe").capabilities.mcp_servers == ("docs",)


def test_catalog_given_as_plain_dicts_is_frozen():
    catalog = CapabilityCatalog(
        subagents={"prober": {"description": "d", "prompt": "p", "tools": ["Read"]}},
        mcp_servers={"docs": {"description": "d", "egress": "none", "command": "c", "env": {"A": "1"}}},
    )
    assert catalog.subagents["prober"].tools == ("Read",)
    with pytest.raises(TypeError):
        catalog.subagents["other"] = PROBER
    with pytest.raises(TypeError):
        catalog.mcp_servers["docs"].env["B"] = "2"
    with pytest.raises(ValidationError):
        catalog.skills = ()


def test_mcp_server_egress_is_none_or_network():
    with pytest.raises(ValidationError):
        McpServerCatalogEntry(description="d", egress="internet", command="c")


def test_shipped_catalogs_are_the_reference_vocabulary():
    assert TOOL_CATALOG == ("Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill")
    assert SKILL_CATALOG == (
        "agent-memory", "alp-debug", "alp-plan", "alp-predict", "alp-scenario", "code-review", "delegation",
        "docs-seeker", "git", "gkg", "problem-solving", "repomix", "research", "security-scan", "test-quality-guard",
    )


# --- INVALID_SKILL_GRANT ---------------------------------------------------------------------

HOUSE = {"name": "house", "kind": "directory", "path": "/project/.alp/agents/probe/skills/house"}


@pytest.mark.parametrize(
    "capabilities, message",
    [
        (
            {"tools": ["Read", "Skill"], "skills": ["git"], "skillBindings": [HOUSE], "skillRoots": ["/skills"]},
            "agent `probe` binds skill `house` without naming it",
        ),
        (
            {"tools": ["Read", "Skill"], "skills": ["house"], "skillBindings": [HOUSE]},
            "agent `probe` binds skills but declares no skill root",
        ),
        (
            {"tools": ["Read", "Skill"], "skills": ["house"], "skillBindings": [HOUSE], "skillRoots": []},
            "agent `probe` binds skills but declares no skill root",
        ),
        ({"tools": ["Read", "Skill"], "skills": []}, "agent `probe` grants the `Skill` tool but names no skill"),
        ({"tools": ["Read"], "skills": ["git"]}, "agent `probe` names skills but has no `Skill` tool to invoke them"),
    ],
    ids=["unnamed-binding", "no-skill-root", "empty-skill-roots", "skill-tool-without-skills", "skills-without-tool"],
)
def test_inconsistent_skill_grant_is_invalid_skill_grant(capabilities, message):
    assert_refused([make_agent("probe", capabilities=capabilities)], "INVALID_SKILL_GRANT", message)


def test_skill_bound_by_the_project_is_accepted_without_the_catalog():
    agent = make_agent("probe", capabilities={
        "tools": ["Read", "Skill"], "skills": ["house", "git"], "skillBindings": [HOUSE], "skillRoots": ["/skills"],
    })
    assert create_agent_registry([agent]).get("probe").capabilities.skill_bindings[0].name == "house"


# --- What the registry does not check (§4 last line) -----------------------------------------

@pytest.mark.parametrize(
    "overrides",
    [
        {"workflow": {"states": {"WORK": {"allowedTools": ["Read", "Write"]}}}},
        {"workflow": {"initial": "MISSING"}},
        {"workflow": {"states": {"ORPHAN": {"allowedTools": [], "transitions": []}}}},
        {"id": "Not_Kebab", "capabilities": {"memory": {"read": ["private:Not_Kebab"], "write": []}}},
        {"model": {"claude": "mystery-model", "codex": "other-mystery"}},
    ],
    ids=["state-tool-not-held", "unknown-initial", "unreachable-state", "non-kebab-id", "unknown-models"],
)
def test_registry_leaves_workflow_structure_ids_and_models_to_tier_one(overrides):
    create_agent_registry([make_agent("probe", **overrides)])


# --- Phase B: relations ----------------------------------------------------------------------

def test_unknown_reports_to_is_unknown_relation():
    assert_refused(
        [make_agent("probe", reportsTo="missing")], "UNKNOWN_RELATION", "agent `probe` has unknown reportsTo `missing`"
    )


def test_unknown_delegation_target_is_unknown_relation():
    assert_refused(
        [make_agent("probe", delegatesTo=["missing"])],
        "UNKNOWN_RELATION", "agent `probe` has unknown delegation target `missing`",
    )


def test_delegating_to_itself_is_invalid_delegation():
    assert_refused(
        [make_agent("probe", delegatesTo=["probe"])], "INVALID_DELEGATION", "agent `probe` cannot delegate to itself"
    )


def test_relations_may_point_forward_in_input_order():
    registry = create_agent_registry([
        make_agent("lead", delegatesTo=["helper"]), make_agent("helper", reportsTo="lead"),
    ])
    assert registry.get("helper").reports_to == "lead"


def test_reports_to_is_checked_before_the_delegation_targets():
    agent = make_agent("probe", reportsTo="missing", delegatesTo=["probe"])
    assert refusal(agent).code == "UNKNOWN_RELATION"


def test_self_delegation_is_reported_where_it_stands_among_the_targets():
    agent = make_agent("probe", delegatesTo=["probe", "missing"])
    assert refusal(agent).code == "INVALID_DELEGATION"
    agent = make_agent("probe", delegatesTo=["missing", "probe"])
    assert refusal(agent).code == "UNKNOWN_RELATION"


# --- Phase C: cycles -------------------------------------------------------------------------

def chain(*pairs):
    """Definitions whose delegations are ``pairs`` (id, [targets]), in that order."""
    return [make_agent(agent_id, delegatesTo=list(targets)) for agent_id, targets in pairs]


def test_two_agents_delegating_to_each_other_is_a_delegation_cycle():
    assert_refused(
        chain(("parent", ["child"]), ("child", ["parent"])),
        "INVALID_DELEGATION", "delegation cycle: parent -> child -> parent",
    )


def test_cycle_reached_from_a_non_cycle_start_shows_only_the_cycle():
    definitions = chain(("start", ["a"]), ("a", ["b"]), ("b", ["c"]), ("c", ["a"]))
    assert_refused(definitions, "INVALID_DELEGATION", "delegation cycle: a -> b -> c -> a")


def test_cycle_is_reported_from_the_first_definition_in_registry_order():
    definitions = chain(("c", ["a"]), ("a", ["b"]), ("b", ["c"]))
    assert str(refusal(*definitions)) == "delegation cycle: c -> a -> b -> c"


def test_delegations_are_followed_in_declared_order():
    definitions = chain(("root", ["x", "y"]), ("x", []), ("y", ["z"]), ("z", ["y"]))
    assert str(refusal(*definitions)) == "delegation cycle: y -> z -> y"


def test_diamond_delegation_is_not_a_cycle():
    create_agent_registry(chain(("a", ["b", "c"]), ("b", ["d"]), ("c", ["d"]), ("d", [])))


def test_chain_of_two_thousand_agents_validates_without_recursion_error():
    count = 2_000
    ids = [f"a{index:04d}" for index in range(count)]
    definitions = [
        make_agent(agent_id, delegatesTo=ids[index + 1:index + 2], reportsTo=ids[index - 1] if index else "principal")
        for index, agent_id in enumerate(ids)
    ]
    registry = create_agent_registry(definitions)
    assert len(registry.list()) == count
    assert registry.get("a1999").reports_to == "a1998"


def test_cycle_through_two_thousand_agents_names_every_agent():
    ids = [f"a{index:04d}" for index in range(2_000)]
    definitions = [
        make_agent(agent_id, delegatesTo=[ids[(index + 1) % len(ids)]]) for index, agent_id in enumerate(ids)
    ]
    assert str(refusal(*definitions)) == "delegation cycle: " + " -> ".join([*ids, ids[0]])


def defined(*pairs):
    return [define_agent(data) for data in chain(*pairs)]


def test_the_registry_names_the_cycle_that_delegation_cycle_finds():
    definitions = defined(("start", ["a"]), ("a", ["b"]), ("b", ["c"]), ("c", ["a"]))
    cycle = delegation_cycle(definitions)
    assert cycle == ("a", "b", "c", "a")
    assert str(refusal(*definitions)) == "delegation cycle: " + " -> ".join(cycle)


def test_delegation_cycle_answers_without_raising_for_a_set_the_registry_refuses():
    assert delegation_cycle(defined(("a", ["b", "missing"]), ("b", ["a"]))) == ("a", "b", "a")
    assert delegation_cycle(defined(("a", ["a"]))) == ("a", "a")
    assert delegation_cycle(defined(("a", ["b"]), ("b", []), ("a", ["a"]))) is None  # the first `a` counts
    assert delegation_cycle(defined(("a", ["b", "c"]), ("b", ["d"]), ("c", ["d"]), ("d", []))) is None
    assert delegation_cycle([]) is None


# --- Check order and first failure -----------------------------------------------------------

@pytest.mark.parametrize(
    "overrides, code, message",
    [
        ({"displayName": "", "model": {"claude": ""}}, "INVALID_AGENT", "agent `probe` has an empty displayName"),
        ({"model": {"claude": "", "codex": ""}}, "INVALID_AGENT", "agent `probe` is missing Claude runtime model"),
        ({"model": {"codex": ""}, "reasoningEffort": {"claude": "x"}}, "INVALID_AGENT",
         "agent `probe` is missing Codex runtime model"),
        ({"reasoningEffort": {"codex": "x"}, "autoCompactTokens": {"claude": 1}}, "INVALID_AGENT",
         "agent `probe` has invalid codex reasoning effort"),
        ({"autoCompactTokens": {"claude": 1}, "instructions": {"role": ""}}, "INVALID_AUTO_COMPACT_LIMIT",
         f"agent `probe` has claude auto-compact threshold `1`, {RANGE}"),
        ({"instructions": {"role": "", "purpose": ""}}, "INVALID_AGENT", "agent `probe` has an empty instruction role"),
        ({"instructions": {"audience": "x"}, "workflow": {"id": ""}}, "INVALID_AGENT",
         "agent `probe` has unknown instruction audience `x`"),
        ({"workflow": {"id": ""}, "output": {"name": ""}}, "INVALID_AGENT", "agent `probe` has an empty workflow id"),
        (
            {"output": {"name": ""}, "capabilities": {"workspace": {"readRoots": [], "writeRoots": ["."]}}},
            "INVALID_AGENT", "agent `probe` has an empty output contract name",
        ),
        (
            {"capabilities": {
                "workspace": {"readRoots": [], "writeRoots": ["."]}, "memory": {"read": [], "write": ["shared"]},
            }},
            "INVALID_WORKSPACE_GRANT", "agent `probe` workspace write root `.` is not readable",
        ),
        (
            {"capabilities": {"memory": {"read": [], "write": ["shared"]}, "tools": ["Nope"]}},
            "INVALID_MEMORY_GRANT", "agent `probe` memory write grant `shared` is not readable",
        ),
        (
            {"capabilities": {"tools": ["Nope"], "skills": ["git", "git"]}},
            "UNKNOWN_TOOL", "agent `probe` has unknown tool `Nope`",
        ),
        (
            {"capabilities": {"skills": ["nope"], "memory": {"read": ["private:probe", "private:other"]}}},
            "UNKNOWN_SKILL", "agent `probe` has unknown skill `nope`",
        ),
        (
            {"capabilities": {
                "tools": ["Read"], "skills": ["git"], "memory": {"read": ["private:probe", "private:other"]},
            }},
            "INVALID_SKILL_GRANT", "agent `probe` names skills but has no `Skill` tool to invoke them",
        ),
        (
            {"capabilities": {"skills": ["nope"], "subagents": ["ghost"], "mcpServers": ["ghost"]}},
            "UNKNOWN_SKILL", "agent `probe` has unknown skill `nope`",
        ),
        (
            {"capabilities": {"subagents": ["ghost"], "mcpServers": ["ghost"]}},
            "UNKNOWN_SUBAGENT", "agent `probe` has unknown subagent `ghost`",
        ),
        (
            {"capabilities": {"mcpServers": ["ghost"], "tools": ["Read", "Skill"]}},
            "UNKNOWN_MCP_SERVER", "agent `probe` has unknown mcp server `ghost`",
        ),
    ],
    ids=[
        "identity-before-model", "claude-before-codex", "model-before-effort", "effort-before-auto-compact",
        "auto-compact-before-instructions", "role-before-purpose", "instructions-before-workflow",
        "workflow-before-output", "output-before-workspace", "workspace-before-memory", "memory-before-tools",
        "tools-before-grants", "skills-before-foreign-private", "skill-tool-rule-before-foreign-private",
        "skill-before-subagent", "subagent-before-mcp", "mcp-before-skill-tool-rule",
    ],
)
def test_definition_with_two_problems_reports_the_earlier_check(overrides, code, message):
    assert_refused([make_agent("probe", **overrides)], code, message)


def test_only_the_first_failure_is_reported():
    agent = make_agent(
        "probe",
        displayName="",
        instructions={"role": "", "purpose": "", "rules": [""]},
        capabilities={"tools": ["Nope"], "memory": {"read": ["private:other"], "write": ["shared"]}},
    )
    assert str(refusal(agent)) == "agent `probe` has an empty displayName"


def test_definitions_are_checked_in_input_order():
    first = make_agent("first", capabilities={"tools": ["Nope"]})
    second = make_agent("second", displayName="")
    assert str(refusal(first, second)) == "agent `first` has unknown tool `Nope`"
    assert str(refusal(second, first)) == "agent `second` has an empty displayName"


def test_every_definition_is_checked_before_any_relation():
    early = make_agent("early", reportsTo="missing")
    late = make_agent("late", capabilities={"tools": ["Nope"]})
    assert_refused([early, late], "UNKNOWN_TOOL", "agent `late` has unknown tool `Nope`")


def test_relations_are_checked_before_cycles():
    definitions = [*chain(("a", ["b"]), ("b", ["a"])), make_agent("late", reportsTo="missing")]
    assert_refused(definitions, "UNKNOWN_RELATION", "agent `late` has unknown reportsTo `missing`")


def test_duplicate_is_found_before_the_duplicates_own_problems():
    broken_twin = make_agent("probe", capabilities={"tools": ["Nope"]})
    assert_refused([make_agent("probe"), broken_twin], "DUPLICATE_AGENT", "duplicate agent `probe`")


def test_earlier_definitions_problem_wins_over_a_later_duplicate():
    broken = make_agent("probe", capabilities={"tools": ["Nope"]})
    assert refusal(broken, make_agent("probe")).code == "UNKNOWN_TOOL"


# --- Lookups, list, freezing, graph ----------------------------------------------------------

@pytest.fixture
def team() -> AgentRegistry:
    return create_agent_registry([
        make_agent("lead", delegatesTo=["helper", "freelancer"]),
        make_agent("helper", reportsTo="lead"),
        make_agent("freelancer"),
        make_agent("member", reportsTo="lead"),
    ])


def test_get_unknown_id_is_unknown_agent(team):
    with pytest.raises(AgentRegistryError) as caught:
        team.get("missing")
    assert (caught.value.code, str(caught.value)) == ("UNKNOWN_AGENT", "unknown agent `missing`")


def test_get_and_has_find_registered_ids(team):
    assert team.get("helper").id == "helper"
    assert team.has("helper") and not team.has("missing") and not team.has("principal")
    assert "helper" in team and "principal" not in team


def test_list_returns_the_same_tuple_in_input_order_every_call(team):
    listed = team.list()
    assert isinstance(listed, tuple)
    assert team.list() is listed
    assert [definition.id for definition in listed] == ["lead", "helper", "freelancer", "member"]
    assert list(team) == list(listed) and len(team) == 4


def test_registry_object_cannot_be_changed(team):
    with pytest.raises(AttributeError):
        team.catalog = CATALOG
    with pytest.raises(AttributeError):
        team.extra = 1
    with pytest.raises(AttributeError):
        del team.catalog


def test_copy_of_a_frozen_registry_is_the_registry_itself(team):
    assert copy.copy(team) is team and copy.deepcopy(team) is team


def test_registry_entries_are_frozen(team):
    lead = team.get("lead")
    with pytest.raises(ValidationError):
        lead.display_name = "Changed"
    with pytest.raises(ValidationError):
        lead.capabilities.memory.read = ("shared",)
    assert isinstance(lead.delegates_to, tuple)
    assert isinstance(lead.capabilities.tools, tuple)
    assert isinstance(lead.capabilities.memory.read, tuple)
    with pytest.raises(TypeError):
        lead.workflow.states["EXTRA"] = lead.workflow.states["DONE"]


def test_registry_entries_do_not_follow_later_changes_to_the_input():
    data = make_agent("probe")
    registry = create_agent_registry([data])
    data["capabilities"]["tools"].append("Write")
    data["capabilities"]["memory"]["read"].append("shared")
    assert registry.get("probe").capabilities.tools == ("Read",)
    assert registry.get("probe").capabilities.memory.read == ("private:probe",)


def test_registry_accepts_definitions_and_data_alike():
    registry = create_agent_registry([build_agent("one"), make_agent("two")])
    assert registry.get("one") == build_agent("one")
    assert registry.get("two") == build_agent("two")


def test_graph_has_every_agent_as_a_node_in_order(team):
    graph = team.graph()
    assert list(graph.nodes) == ["lead", "helper", "freelancer", "member"]
    assert graph.nodes["lead"]["reports_to"] == "principal"
    assert graph.nodes["helper"]["reports_to"] == "lead"
    assert graph.nodes["helper"]["display_name"] == "Probe helper"


def test_graph_edges_say_whether_they_delegate_or_report(team):
    edges = {(source, target): data for source, target, data in team.graph().edges(data=True)}
    assert edges == {
        ("lead", "helper"): {"delegates": True, "reports_to": True},
        ("lead", "freelancer"): {"delegates": True, "reports_to": False},
        ("lead", "member"): {"delegates": False, "reports_to": True},
    }


def test_graph_of_a_registry_without_delegation_has_no_edges():
    graph = create_agent_registry([make_agent("solo")]).graph()
    assert list(graph.nodes) == ["solo"] and graph.number_of_edges() == 0
