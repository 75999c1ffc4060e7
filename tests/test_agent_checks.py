"""Tier-1 static checks (reference §9 "alp agent test --tier 1", §10 "Agent-test tooling"):
fourteen checks in a fixed order; all nine built-ins pass; each check catches what the registry
does not (ungranted state tools, unreachable states, dead ends, unknown models, missing skill
assets, non-kebab ids, an output contract that accepts empty output)."""

from __future__ import annotations

import pytest
from custom_agent_files import skills_dir, with_skill_tool, write_agent, write_skill

from alp_nb.agents import (
    BUILTIN_AGENTS,
    MODE_IDS,
    TIER1_CHECK_IDS,
    AgentError,
    AgentReport,
    AutoCompactTokens,
    OutputContract,
    RuntimeModelMap,
    WorkflowDefinition,
    WorkflowState,
    builtin_registry,
    load_project_agents,
    project_registry,
    render_instructions,
    text_output,
    tier1_report,
)

BUILTINS = {definition.id: definition for definition in BUILTIN_AGENTS}


@pytest.fixture(scope="module")
def registry():
    return builtin_registry()


def check(report: AgentReport, check_id: str):
    return next(result for result in report.checks if result.id == check_id)


def failed_ids(report: AgentReport) -> list[str]:
    return [result.id for result in report.failures()]


def search_with(**update):
    return BUILTINS["search"].model_copy(update=update)


def workflow(initial: str = "A", **states: WorkflowState) -> WorkflowDefinition:
    return WorkflowDefinition(id="probe-workflow", initial=initial, states=states)


# --- the check list ------------------------------------------------------------------------------

def test_tier1_has_fourteen_checks_in_alps_order():
    assert TIER1_CHECK_IDS == (
        "identity", "model-runtime", "auto-compact", "tool-grant", "skill-grant", "skill-assets",
        "subagent-grant", "mcp-grant", "memory-grant", "workspace-grant", "workflow", "relations",
        "instructions", "output-contract",
    )


@pytest.mark.parametrize("role", list(BUILTINS))
def test_every_builtin_passes_all_fourteen_checks(registry, role):
    report = tier1_report(registry.get(role), registry)
    assert tuple(result.id for result in report.checks) == TIER1_CHECK_IDS
    assert all(result.tier == 1 for result in report.checks)
    assert [result.status for result in report.checks] == ["PASS"] * 14, report.failures()
    assert report.ok
    assert report.stopped_at is None
    assert report.role == role
    assert report.display_name == BUILTINS[role].display_name


def test_report_records_the_default_mode(registry):
    assert tier1_report(registry.get("main"), registry).mode == "medium"


@pytest.mark.parametrize("mode", MODE_IDS)
def test_report_records_the_requested_mode(registry, mode):
    assert tier1_report(registry.get("worker"), registry, mode).mode == mode


def test_unknown_mode_is_refused(registry):
    with pytest.raises(AgentError, match="mode must be one of"):
        tier1_report(registry.get("worker"), registry, "turbo")


# --- pass details --------------------------------------------------------------------------------

def test_pass_details_describe_what_was_seen(registry):
    report = tier1_report(registry.get("search"), registry)
    assert check(report, "identity").detail == "`search` is kebab-case, displayed as `Search 🔍`"
    assert check(report, "model-runtime").detail == "claude=claude-sonnet-5, codex=gpt-5.6-terra"
    assert check(report, "auto-compact").detail == "claude: 150,000 declared; codex: 150,000 declared"
    assert check(report, "tool-grant").detail == "Read, Glob, Grep, Bash, Skill"
    assert check(report, "skill-grant").detail == "gkg, repomix"
    assert check(report, "skill-assets").detail == "2 skills resolved (0 from the project)"
    assert check(report, "subagent-grant").detail == "none"
    assert check(report, "mcp-grant").detail == "none"
    assert check(report, "memory-grant").detail == "read shared, project:*, private:search · write private:search"
    assert check(report, "workspace-grant").detail == "read . · write none"
    assert check(report, "workflow").detail == "retrieve-code: VALIDATE_WORKSPACE → RETRIEVE → VERIFY → REPORT"
    assert check(report, "relations").detail == "reports to main · delegates to nobody"
    assert check(report, "output-contract").detail == "`code-search-result` accepts prose and rejects empty output"


def test_undeclared_auto_compact_is_ninety_percent_of_the_window(registry):
    detail = check(tier1_report(registry.get("main"), registry), "auto-compact").detail
    assert detail.startswith("claude: undeclared → 90% of 1,000,000")
    assert "codex: undeclared → 90% of 272,000" in detail


def test_memory_only_roles_show_no_workspace(registry):
    for role in ("read-thread", "compaction", "titling"):
        assert check(tier1_report(registry.get(role), registry), "workspace-grant").detail == "none (memory-only)"


def test_role_without_skills_says_so(registry):
    report = tier1_report(registry.get("titling"), registry)
    assert check(report, "skill-assets").detail == "no skill named"
    assert check(report, "skill-grant").detail == "none"
    assert check(report, "tool-grant").detail == "none"


def test_main_delegates_to_the_other_eight(registry):
    detail = check(tier1_report(registry.get("main"), registry), "relations").detail
    assert detail == ("reports to principal · delegates to worker, search, librarian, read-thread, review, "
                      "oracle, compaction, titling")


@pytest.mark.parametrize("role, noun", [("titling", "rule"), ("search", "rules")])
def test_instructions_detail_counts_rules_and_rendered_length(registry, role, noun):
    definition = registry.get(role)
    detail = check(tier1_report(definition, registry), "instructions").detail
    rules = definition.instructions.rules
    rendered = len(render_instructions(definition.instructions))
    assert detail == f"{len(rules)} {noun}, longest {max(map(len, rules))} chars → {rendered} chars rendered"


# --- failures ------------------------------------------------------------------------------------

def test_state_allowing_an_ungranted_tool_fails_the_workflow_check(registry):
    states = dict(BUILTINS["search"].workflow.states)
    states["RETRIEVE"] = states["RETRIEVE"].model_copy(update={"allowed_tools": ("Read", "Write")})
    definition = search_with(workflow=BUILTINS["search"].workflow.model_copy(update={"states": states}))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["workflow"]
    assert check(report, "workflow").detail == "state `RETRIEVE` allows `Write`, which the agent does not hold"
    assert not report.ok
    assert report.stopped_at == 1


def test_unreachable_state_fails_the_workflow_check(registry):
    definition = search_with(workflow=workflow(
        A=WorkflowState(allowed_tools=("Read",), transitions=("B",)),
        B=WorkflowState(terminal=True),
        ORPHAN=WorkflowState(terminal=True),
    ))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["workflow"]
    assert check(report, "workflow").detail == "state `ORPHAN` is unreachable from `A`"


def test_dead_end_state_fails_the_workflow_check(registry):
    definition = search_with(workflow=workflow(
        A=WorkflowState(transitions=("STUCK", "B")),
        STUCK=WorkflowState(allowed_tools=("Read",)),
        B=WorkflowState(terminal=True),
    ))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["workflow"]
    assert check(report, "workflow").detail == "state `STUCK` is a dead end: it is not terminal and leads nowhere"


def test_workflow_without_a_reachable_terminal_fails(registry):
    definition = search_with(workflow=workflow(
        A=WorkflowState(transitions=("B",)),
        B=WorkflowState(transitions=("A",)),
    ))
    assert check(tier1_report(definition, registry), "workflow").detail == "no terminal state is reachable from `A`"


def test_unknown_initial_state_fails_the_workflow_check(registry):
    definition = search_with(workflow=workflow(initial="MISSING", A=WorkflowState(terminal=True)))
    assert check(tier1_report(definition, registry), "workflow").detail == "unknown initial state `MISSING`"


def test_unknown_transition_target_fails_the_workflow_check(registry):
    definition = search_with(workflow=workflow(
        A=WorkflowState(transitions=("MISSING",)), B=WorkflowState(terminal=True),
    ))
    report = tier1_report(definition, registry)
    assert check(report, "workflow").detail == "state `A` has unknown transition target `MISSING`"


def test_terminal_state_with_transitions_fails_the_workflow_check(registry):
    definition = search_with(workflow=workflow(A=WorkflowState(terminal=True, transitions=("A",))))
    assert check(tier1_report(definition, registry), "workflow").detail == (
        "terminal state `A` cannot declare transitions"
    )


def test_unknown_model_fails_model_runtime(registry):
    definition = search_with(model=RuntimeModelMap(claude="claude-opus-9", codex="gpt-5.6-terra"))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["model-runtime"]
    assert check(report, "model-runtime").detail == "claude model `claude-opus-9` is not in MODEL_RUNTIMES"


def test_model_on_the_wrong_runtime_fails_model_runtime(registry):
    definition = search_with(model=RuntimeModelMap(claude="gpt-5.6-sol", codex="gpt-5.6-terra"))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["model-runtime"]
    assert check(report, "model-runtime").detail == "claude model `gpt-5.6-sol` runs on codex, not claude"


def test_unknown_model_lets_the_runtime_decide_auto_compact(registry):
    definition = BUILTINS["main"].model_copy(
        update={"model": RuntimeModelMap(claude="claude-opus-9", codex="gpt-5.6-sol")}
    )
    report = tier1_report(definition, registry)
    assert check(report, "auto-compact").status == "PASS"
    assert "claude: undeclared → the runtime decides (unknown model `claude-opus-9`)" in check(
        report, "auto-compact").detail


def test_auto_compact_out_of_range_fails_its_check(registry):
    definition = search_with(auto_compact_tokens=AutoCompactTokens(claude=50000))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["auto-compact"]
    assert "`50000`, outside 100000–1000000 whole tokens" in check(report, "auto-compact").detail


def test_non_kebab_id_fails_identity(registry):
    definition = BUILTINS["titling"].model_copy(update={"id": "Title_Maker"})
    report = tier1_report(definition, registry)
    assert check(report, "identity").status == "FAIL"
    assert check(report, "identity").detail == "`Title_Maker` is not kebab-case"


def test_missing_skill_md_of_a_binding_fails_skill_assets(tmp_path, registry):
    write_agent(tmp_path, capabilities=with_skill_tool())
    skill = write_skill(skills_dir(tmp_path), "house")
    (definition,) = load_project_agents(tmp_path).loaded
    assert check(tier1_report(definition, registry), "skill-assets").detail == (
        "1 skill resolved (1 from the project)"
    )
    (skill / "SKILL.md").unlink()
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["skill-assets"]
    assert check(report, "skill-assets").detail == f"project skill `house` has no SKILL.md at `{skill.resolve()}`"


def test_project_skills_are_counted_in_skill_grant(tmp_path, registry):
    write_agent(tmp_path, capabilities={**with_skill_tool(), "skills": ["git"]})
    write_skill(skills_dir(tmp_path), "house")
    (definition,) = load_project_agents(tmp_path).loaded
    assert check(tier1_report(definition, registry), "skill-grant").detail == "git, house (1 from the project)"


def test_unknown_skill_fails_skill_grant(registry):
    definition = search_with(capabilities=BUILTINS["search"].capabilities.model_copy(
        update={"skills": ("gkg", "mystery")}))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["skill-grant"]
    assert check(report, "skill-grant").detail == "agent `search` has unknown skill `mystery`"


def test_unknown_relation_fails_relations(registry):
    definition = search_with(reports_to="nobody", delegates_to=("ghost",))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["relations"]
    assert check(report, "relations").detail == "reports to unknown `nobody`"


def test_foreign_private_memory_fails_memory_grant(registry):
    capabilities = BUILTINS["search"].capabilities
    definition = search_with(capabilities=capabilities.model_copy(update={
        "memory": capabilities.memory.model_copy(update={"read": ("shared", "private:main", "private:search")})
    }))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["memory-grant"]
    assert check(report, "memory-grant").detail == "agent `search` cannot access private memory for `main`"


def test_blank_rule_fails_instructions(registry):
    definition = search_with(instructions=BUILTINS["search"].instructions.model_copy(update={"rules": ("  ",)}))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["instructions"]
    assert check(report, "instructions").detail == "agent `search` has an empty instruction rule"


def test_contract_accepting_empty_output_fails_output_contract(registry):
    definition = search_with(output=OutputContract("loose-result", {"type": "string"}))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["output-contract"]
    assert check(report, "output-contract").detail == "`loose-result` accepts empty output"


def test_contract_rejecting_empty_output_passes_output_contract(registry):
    definition = search_with(output=OutputContract("strict-result", {"type": "string", "minLength": 1}))
    assert check(tier1_report(definition, registry), "output-contract").status == "PASS"


def test_blank_output_name_fails_output_contract(registry):
    definition = search_with(output=text_output(" "))
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["output-contract"]
    assert check(report, "output-contract").detail == "agent `search` has an empty output contract name"


def test_every_failing_check_is_reported_not_just_the_first(registry):
    definition = search_with(
        model=RuntimeModelMap(claude="claude-opus-9", codex="gpt-5.6-terra"),
        output=OutputContract("loose-result", {"type": "string"}),
        reports_to="nobody",
    )
    report = tier1_report(definition, registry)
    assert failed_ids(report) == ["model-runtime", "relations", "output-contract"]
    assert len(report.checks) == 14


# --- custom agents -------------------------------------------------------------------------------

def test_loaded_custom_agent_passes_tier1_in_its_candidate_registry(tmp_path):
    write_agent(tmp_path)
    session = project_registry(tmp_path, candidates=True)
    report = tier1_report(session.registry.get("migrator"), session.registry)
    assert report.ok
    assert check(report, "relations").detail == "reports to main · delegates to nobody"
    assert check(report, "workflow").detail == "migrator-workflow: SCOPE → REPORT"
    assert check(report, "output-contract").detail == "`migrator-result` accepts prose and rejects empty output"


def test_custom_agent_on_the_wrong_runtime_loads_but_fails_tier1(tmp_path):
    write_agent(tmp_path, model={"claude": "gpt-5.6-sol", "codex": "claude-opus-5"})
    session = project_registry(tmp_path, candidates=True)
    report = tier1_report(session.registry.get("migrator"), session.registry)
    assert failed_ids(report) == ["model-runtime"]
