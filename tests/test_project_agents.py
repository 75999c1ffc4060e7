"""Loading ``.alp/agents/<id>/agent.yaml`` (reference §7 "Resulting definition", "Ceiling",
"Loader"; §10 "Custom agents"): every custom agent is a leaf under ``main``, every ceiling
breach is reported with its message, and one broken file never blocks another."""

from __future__ import annotations

import os

import pytest
from custom_agent_files import agent_yaml, skills_dir, with_skill_tool, write_agent, write_skill
from pydantic import ValidationError

from alp_nb.agents import (
    BUILTIN_AGENTS,
    CODE_CRAFT_RULES,
    CODE_NATIVE_HOUSE_RULES,
    AgentError,
    TextOutputContract,
    definition_hash,
    load_project_agents,
)
from alp_nb.agents.agent_file import AgentFile, parse_agent_file
from alp_nb.agents.ceiling import enforce_ceiling

MAIN_TOOLS = ("Read", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill")
BUILTIN_IDS = tuple(definition.id for definition in BUILTIN_AGENTS)


def load_one(project, agent_id="migrator", **overrides):
    """Write one agent file and load the project; the single loaded definition."""
    write_agent(project, agent_id, **overrides)
    result = load_project_agents(project)
    assert result.failed == (), result.failed
    (definition,) = result.loaded
    return definition


def refusal(project, agent_id="migrator", **overrides) -> tuple[str, ...]:
    """Write one agent file and load the project; the issues of its single failure."""
    write_agent(project, agent_id, **overrides)
    result = load_project_agents(project)
    assert result.loaded == ()
    (failure,) = result.failed
    assert failure.id == agent_id
    return failure.issues


def only_issue(project, agent_id="migrator", **overrides) -> str:
    issues = refusal(project, agent_id, **overrides)
    assert len(issues) == 1, issues
    return issues[0]


# --- the resulting definition --------------------------------------------------------------------

def test_valid_file_is_a_leaf_reporting_to_main(tmp_path):
    definition = load_one(tmp_path)
    assert definition.id == "migrator"
    assert definition.display_name == "Migrator"
    assert definition.reports_to == "main"
    assert definition.delegates_to == ()


def test_valid_file_reads_the_project_and_writes_nothing(tmp_path):
    capabilities = load_one(tmp_path).capabilities
    assert capabilities.workspace.read_roots == (".",)
    assert capabilities.workspace.write_roots == ()
    assert capabilities.subagents == ()
    assert capabilities.mcp_servers == ()
    assert capabilities.skills == ()
    assert capabilities.skill_bindings is None
    assert capabilities.skill_roots is None
    assert capabilities.memory.read == ("shared", "private:migrator")
    assert capabilities.memory.write == ("private:migrator",)


def test_output_is_text_named_after_the_agent(tmp_path):
    output = load_one(tmp_path).output
    assert isinstance(output, TextOutputContract)
    assert output.name == "migrator-result"
    assert output.validate("A plan with three risks.").ok
    assert not output.validate("   ").ok


def test_workflow_is_linear_named_after_the_agent_and_ends_terminal(tmp_path):
    workflow = load_one(tmp_path, workflow=[
        {"id": "SCOPE", "allowedTools": ["Read"]},
        {"id": "PLAN", "allowedTools": ["Read", "Grep"]},
        {"id": "REPORT", "allowedTools": []},
    ]).workflow
    assert workflow.id == "migrator-workflow"
    assert workflow.initial == "SCOPE"
    assert workflow.chain() == ("SCOPE", "PLAN", "REPORT")
    assert workflow.states["SCOPE"].transitions == ("PLAN",)
    assert workflow.states["PLAN"].transitions == ("REPORT",)
    assert workflow.states["PLAN"].allowed_tools == ("Read", "Grep")
    assert workflow.states["REPORT"].terminal
    assert workflow.states["REPORT"].transitions == ()
    assert workflow.terminal_states() == ("REPORT",)
    assert workflow.problems(("Read", "Glob", "Grep")) == []


def test_single_state_workflow_starts_terminal(tmp_path):
    workflow = load_one(tmp_path, workflow=[{"id": "ANSWER", "allowedTools": []}]).workflow
    assert workflow.initial == "ANSWER"
    assert workflow.terminal_states() == ("ANSWER",)


def test_default_house_rules_are_code_native_then_own_rules(tmp_path):
    rules = load_one(tmp_path).instructions.rules
    assert rules == (*CODE_NATIVE_HOUSE_RULES, "Name every table a migration would touch.")


def test_house_rules_none_keeps_only_own_rules(tmp_path):
    rules = load_one(tmp_path, instructions={"houseRules": "none"}).instructions.rules
    assert rules == ("Name every table a migration would touch.",)


def test_code_native_plus_craft_includes_both_sets(tmp_path):
    rules = load_one(tmp_path, instructions={"houseRules": "code-native+craft"}).instructions.rules
    assert rules == (*CODE_NATIVE_HOUSE_RULES, *CODE_CRAFT_RULES, "Name every table a migration would touch.")


def test_rules_are_optional(tmp_path):
    definition = load_one(tmp_path, instructions={"houseRules": "none", "rules": []})
    assert definition.instructions.rules == ()
    assert definition.instructions.role == "Migrator, the schema migration planner"
    assert definition.instructions.audience is None


def test_declared_auto_compact_tokens_are_kept(tmp_path):
    definition = load_one(tmp_path, autoCompactTokens={"claude": 150000})
    assert definition.auto_compact_tokens.claude == 150000
    assert definition.auto_compact_tokens.codex is None


def test_shipped_skills_are_granted_with_the_skill_tool(tmp_path):
    definition = load_one(tmp_path, capabilities={**with_skill_tool(), "skills": ["git", "code-review"]},
                          workflow=[{"id": "SCOPE", "allowedTools": ["Read", "Skill"]}, {"id": "REPORT"}])
    assert definition.capabilities.skills == ("git", "code-review")
    assert definition.capabilities.tools == ("Read", "Glob", "Grep", "Skill")
    assert definition.capabilities.skill_bindings is None


# --- the ceiling: one refusal per case, with its message -----------------------------------------

def test_any_workspace_write_root_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"workspace": {"writeRoots": ["."]}})
    assert issue == ("capabilities.workspace.writeRoots: `.` is refused; workspace write is not available "
                     "to a custom agent until approval exists")


def test_write_root_inside_a_read_root_is_still_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"workspace": {"readRoots": ["."], "writeRoots": ["out"]}})
    assert "`out` is refused; workspace write is not available to a custom agent" in issue


@pytest.mark.parametrize("root", ["/etc", "../x", "docs/../../x", "..", "C:\\..\\x"])
def test_read_root_outside_the_project_is_refused(tmp_path, root):
    issue = only_issue(tmp_path, capabilities={"workspace": {"readRoots": [root]}})
    assert issue == f"capabilities.workspace.readRoots: `{root}` must stay inside the project"


def test_read_root_below_the_project_is_accepted(tmp_path):
    definition = load_one(tmp_path, capabilities={"workspace": {"readRoots": ["docs", "src/db"]}})
    assert definition.capabilities.workspace.read_roots == ("docs", "src/db")


def test_no_read_root_makes_a_memory_only_agent(tmp_path):
    definition = load_one(tmp_path, capabilities={"workspace": {"readRoots": []}})
    assert definition.capabilities.workspace.read_roots == ()


def test_reading_another_roles_private_memory_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"memory": {"read": ["shared", "private:main"],
                                                          "write": ["private:migrator"]}})
    assert issue == "capabilities.memory.read: `private:main` is another role's private memory"


def test_writing_shared_memory_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"memory": {"read": ["shared"], "write": ["shared"]}})
    assert issue == ("capabilities.memory.write: `shared` is refused; `private:migrator` is the only "
                     "writable scope for a custom agent")


def test_writing_a_project_scope_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"memory": {"read": ["project:*"], "write": ["project:alp"]}})
    assert "`project:alp` is refused; `private:migrator` is the only writable scope" in issue


def test_malformed_memory_scope_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"memory": {"read": ["everything"], "write": []}})
    assert issue == "capabilities.memory.read: memory scope `everything` is malformed"


def test_skills_without_the_skill_tool_are_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"skills": ["git"]})
    assert issue == "capabilities.skills: skills are granted but the `Skill` tool to invoke them is not"


def test_skill_tool_without_skills_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities=with_skill_tool())
    assert issue == "capabilities.tools: the `Skill` tool is granted but no skill is named or found in `skills/`"


def test_subagent_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"subagents": ["prober"]})
    assert issue == "capabilities.subagents: subagent `prober` is not in the subagent catalog"


def test_mcp_server_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"mcpServers": ["docs"]})
    assert issue == "capabilities.mcpServers: mcp server `docs` is not trusted on this machine"


def test_tool_task_is_refused_by_the_schema(tmp_path):
    issue = only_issue(tmp_path, capabilities={"tools": ["Read", "Task"]})
    assert issue.startswith("capabilities.tools.1: ")


@pytest.mark.parametrize("tool", ["Write", "Edit"])
def test_tool_not_held_by_main_is_refused(tmp_path, tool):
    issue = only_issue(tmp_path, capabilities={"tools": ["Read", "Glob", "Grep", tool]})
    assert issue == f"capabilities.tools: tool `{tool}` is not held by `main`, so it cannot be delegated onward"


def test_every_tool_main_holds_may_be_delegated(tmp_path):
    definition = load_one(tmp_path, capabilities={"tools": list(MAIN_TOOLS), "skills": ["git"]})
    assert definition.capabilities.tools == MAIN_TOOLS


def test_duplicate_tool_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={"tools": ["Read", "Glob", "Grep", "Read"]})
    assert issue == "capabilities.tools: tool `Read` is granted twice"


def test_state_allowing_a_tool_the_agent_lacks_is_refused(tmp_path):
    issue = only_issue(tmp_path, workflow=[{"id": "SCOPE", "allowedTools": ["Read", "Bash"]}, {"id": "REPORT"}])
    assert issue == "workflow: state `SCOPE` allows `Bash`, which the agent does not hold"


def test_state_allowing_write_reports_both_the_state_and_nothing_else(tmp_path):
    issue = only_issue(tmp_path, workflow=[{"id": "EDIT", "allowedTools": ["Write"]}, {"id": "REPORT"}])
    assert issue == "workflow: state `EDIT` allows `Write`, which the agent does not hold"


def test_duplicate_state_id_is_refused(tmp_path):
    issue = only_issue(tmp_path, workflow=[{"id": "SCOPE"}, {"id": "SCOPE"}, {"id": "REPORT"}])
    assert issue == "workflow: state `SCOPE` is declared twice"


def test_unknown_model_is_refused(tmp_path):
    issue = only_issue(tmp_path, model={"claude": "claude-opus-9"})
    assert issue == "model.claude: `claude-opus-9` is not a model in MODEL_RUNTIMES"


def test_builtin_id_is_refused(tmp_path):
    issue = only_issue(tmp_path, "review")
    assert issue == "id: `review` belongs to a built-in role; an `agent.yaml` may not take it over"


@pytest.mark.parametrize("builtin_id", BUILTIN_IDS)
def test_no_builtin_id_can_be_taken_over(tmp_path, builtin_id):
    issues = refusal(tmp_path, builtin_id)
    assert f"id: `{builtin_id}` belongs to a built-in role; an `agent.yaml` may not take it over" in issues


def test_id_other_than_the_directory_name_is_refused(tmp_path):
    write_agent(tmp_path, "other", directory="migrator")
    (failure,) = load_project_agents(tmp_path).failed
    assert failure.id == "migrator"
    assert failure.issues == ("id: declares id `other` but lives in directory `migrator`",)


@pytest.mark.parametrize("bad_id", ["Migrator", "data_migrator", "data--migrator", "-migrator", "migrator-"])
def test_non_kebab_id_is_refused(tmp_path, bad_id):
    issue = only_issue(tmp_path, bad_id)
    assert issue == f"id: `{bad_id}` must be kebab-case (lowercase letters and digits joined by single dashes)"


def test_more_than_twenty_rules_is_refused(tmp_path):
    issue = only_issue(tmp_path, instructions={"rules": [f"Rule {index}." for index in range(21)]})
    assert issue == "instructions.rules: 21 rules, over the limit of 20"


def test_twenty_rules_are_accepted(tmp_path):
    rules = [f"Rule {index}." for index in range(20)]
    definition = load_one(tmp_path, instructions={"houseRules": "none", "rules": rules})
    assert definition.instructions.rules == tuple(rules)


def test_rule_over_240_characters_is_refused(tmp_path):
    issue = only_issue(tmp_path, instructions={"rules": ["ok", "r" * 241]})
    assert issue == "instructions.rules.1: 241 characters, over the limit of 240"


def test_rule_of_240_characters_is_accepted(tmp_path):
    definition = load_one(tmp_path, instructions={"houseRules": "none", "rules": ["r" * 240]})
    assert definition.instructions.rules == ("r" * 240,)


def test_named_skill_outside_the_shipped_catalog_is_refused(tmp_path):
    issue = only_issue(tmp_path, capabilities={**with_skill_tool(), "skills": ["house-style"]})
    assert issue == ("capabilities.skills: skill `house-style` is not in the shipped catalog; "
                     "a project skill belongs in `skills/`, not here")


def test_three_or_more_issues_of_one_file_are_reported_together(tmp_path):
    issues = refusal(
        tmp_path,
        model={"codex": "gpt-9"},
        capabilities={"tools": ["Read", "Glob", "Grep", "Write"], "subagents": ["prober"],
                      "workspace": {"readRoots": ["/etc"], "writeRoots": ["."]}},
    )
    assert len(issues) == 5
    assert issues == (
        "model.codex: `gpt-9` is not a model in MODEL_RUNTIMES",
        "capabilities.tools: tool `Write` is not held by `main`, so it cannot be delegated onward",
        "capabilities.subagents: subagent `prober` is not in the subagent catalog",
        "capabilities.workspace.readRoots: `/etc` must stay inside the project",
        "capabilities.workspace.writeRoots: `.` is refused; workspace write is not available to a custom "
        "agent until approval exists",
    )


def test_directory_mismatch_and_ceiling_issues_are_reported_together(tmp_path):
    write_agent(tmp_path, "review", directory="reviewer")
    (failure,) = load_project_agents(tmp_path).failed
    assert failure.issues == (
        "id: declares id `review` but lives in directory `reviewer`",
        "id: `review` belongs to a built-in role; an `agent.yaml` may not take it over",
    )


def test_enforce_ceiling_returns_no_issue_for_a_valid_file():
    agent_file, _ = parse_agent_file(agent_yaml().encode())
    assert isinstance(agent_file, AgentFile)
    assert enforce_ceiling(agent_file, builtin_ids=BUILTIN_IDS, main_tools=MAIN_TOOLS) == ()


def test_enforce_ceiling_counts_project_skills_for_the_skill_tool():
    agent_file, _ = parse_agent_file(agent_yaml(capabilities=with_skill_tool()).encode())
    assert enforce_ceiling(agent_file, builtin_ids=BUILTIN_IDS, main_tools=MAIN_TOOLS,
                           project_skills=("house",)) == ()


# --- registry checks after the ceiling -----------------------------------------------------------

def test_definition_passing_the_ceiling_but_failing_the_registry_lands_in_failed(tmp_path):
    issue = only_issue(tmp_path, autoCompactTokens={"claude": 50000})
    assert issue == ("INVALID_AUTO_COMPACT_LIMIT: agent `migrator` has claude auto-compact threshold `50000`, "
                     "outside 100000–1000000 whole tokens")


def test_auto_compact_above_the_models_window_is_refused_by_the_registry(tmp_path):
    issue = only_issue(tmp_path, model={"codex": "gpt-5.6-sol"}, autoCompactTokens={"codex": 500000})
    assert issue.startswith("INVALID_AUTO_COMPACT_LIMIT: ")
    assert "above the context window of `gpt-5.6-sol` (272000 tokens)" in issue


def test_memory_write_not_covered_by_a_read_grant_is_refused_by_the_registry(tmp_path):
    issue = only_issue(tmp_path, capabilities={"memory": {"read": ["shared"], "write": ["private:migrator"]}})
    assert issue == "INVALID_MEMORY_GRANT: agent `migrator` memory write grant `private:migrator` is not readable"


# --- the loader ----------------------------------------------------------------------------------

def test_no_alp_agents_directory_gives_an_empty_result(tmp_path):
    result = load_project_agents(tmp_path)
    assert result.loaded == ()
    assert result.failed == ()
    assert result.overlays == ()
    assert result.source_paths == {}
    assert result.project == str(tmp_path.resolve())
    assert result.agents_directory == str(tmp_path.resolve() / ".alp" / "agents")


def test_missing_project_is_an_error(tmp_path):
    with pytest.raises(AgentError) as error:
        load_project_agents(tmp_path / "absent")
    assert error.value.code == "UNKNOWN_PROJECT"


def test_unrelated_directory_without_agent_file_is_ignored(tmp_path):
    notes = tmp_path / ".alp" / "agents" / "notes"
    notes.mkdir(parents=True)
    (notes / "README.md").write_text("not an agent\n")
    write_skill(notes / "skills", "house")
    (tmp_path / ".alp" / "agents" / "stray.yaml").write_text(agent_yaml())
    result = load_project_agents(tmp_path)
    assert (result.loaded, result.failed, result.overlays) == ((), (), ())


def test_one_broken_file_does_not_block_a_valid_one(tmp_path):
    write_agent(tmp_path, "aaa-broken", text="id: [unclosed\n")
    write_agent(tmp_path, "migrator")
    write_agent(tmp_path, "zzz-writer", capabilities={"workspace": {"writeRoots": ["."]}})
    result = load_project_agents(tmp_path)
    assert [definition.id for definition in result.loaded] == ["migrator"]
    assert [failure.id for failure in result.failed] == ["aaa-broken", "zzz-writer"]
    assert result.failed[0].issues[0].startswith("yaml: ")


def test_several_valid_agents_load_in_directory_order(tmp_path):
    for agent_id in ("planner", "auditor", "migrator"):
        write_agent(tmp_path, agent_id)
    result = load_project_agents(tmp_path)
    assert [definition.id for definition in result.loaded] == ["auditor", "migrator", "planner"]


def test_source_paths_point_at_each_agent_file(tmp_path):
    path = write_agent(tmp_path)
    result = load_project_agents(tmp_path)
    assert result.source_paths == {"migrator": str(path.resolve())}


def test_failure_names_its_directory_and_file(tmp_path):
    path = write_agent(tmp_path, text="schemaVersion: 2\n")
    (failure,) = load_project_agents(tmp_path).failed
    assert failure.id == "migrator"
    assert failure.source_path == str(path.resolve())


def test_oversized_agent_file_is_refused_by_the_loader_unread(tmp_path):
    path = write_agent(tmp_path, text="{" * (40 * 1024))
    (failure,) = load_project_agents(tmp_path).failed
    assert failure.issues == (f"agent.yaml is {path.stat().st_size} bytes, over the 32768 byte limit",)


def test_a_symlinked_agent_folder_escaping_the_project_is_refused(tmp_path):
    """An agent (or overlay) folder linked in from outside fails alone; the others load."""
    project = tmp_path / "project"
    write_agent(project, "migrator")
    elsewhere = tmp_path / "elsewhere"
    outside_agent = write_agent(elsewhere, "evil").parent
    write_skill(skills_dir(elsewhere, "review"), "house")
    agents = project / ".alp" / "agents"
    os.symlink(outside_agent, agents / "evil")
    os.symlink(elsewhere / ".alp" / "agents" / "review", agents / "review")
    result = load_project_agents(project)
    assert [definition.id for definition in result.loaded] == ["migrator"]
    assert result.overlays == ()
    inside = project.resolve() / ".alp" / "agents"
    assert [(failure.id, failure.issues) for failure in result.failed] == [
        ("evil", (f".alp/agents/evil: escapes to `{outside_agent.resolve()}`; "
                  f"a project agent folder must stay inside `{inside}`",)),
        ("review", (f".alp/agents/review: escapes to `{(elsewhere / '.alp' / 'agents' / 'review').resolve()}`; "
                    f"a project agent folder must stay inside `{inside}`",)),
    ]


def test_loaded_definitions_are_frozen(tmp_path):
    definition = load_one(tmp_path)
    with pytest.raises(ValidationError, match="frozen"):
        definition.id = "other"  # type: ignore[misc]  # the assignment a frozen model must refuse
    with pytest.raises(ValidationError, match="frozen"):
        definition.capabilities.tools += ("Bash",)  # type: ignore[misc]  # the same, one level down
    assert isinstance(definition.capabilities.tools, tuple)


def test_loading_twice_gives_equal_definitions(tmp_path):
    write_agent(tmp_path)
    first = load_project_agents(tmp_path).loaded[0]
    second = load_project_agents(tmp_path).loaded[0]
    assert definition_hash(first) == definition_hash(second)


def test_skills_directory_of_an_agent_counts_as_project_skills(tmp_path):
    write_skill(skills_dir(tmp_path), "house")
    definition = load_one(tmp_path, capabilities=with_skill_tool())
    assert definition.capabilities.skills == ("house",)
