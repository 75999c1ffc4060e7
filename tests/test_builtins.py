"""The nine built-in agents exactly as reference §3 lists them, and the §10 "Built-ins" and
"Auto-compact" (built-ins) behaviours."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from alp_nb.agents import (
    BUILTIN_AGENTS,
    BUILTIN_IDS,
    CODE_CRAFT_RULES,
    CODE_NATIVE_HOUSE_RULES,
    RUNTIME_IDS,
    AgentDefinition,
    builtin_registry,
    default_auto_compact_tokens,
    render_instructions,
)

READ, WRITE, EDIT, GLOB, GREP, BASH, SEARCH, FETCH, SKILL = (
    "Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill",
)
ALL_TOOLS = (READ, WRITE, EDIT, GLOB, GREP, BASH, SEARCH, FETCH, SKILL)


class Row(NamedTuple):
    """One built-in as §3 tabulates it."""

    display_name: str
    models: tuple[str, str]
    efforts: tuple[str, str]
    tools: tuple[str, ...]
    skills: tuple[str, ...]
    memory_read: tuple[str, ...]
    memory_write: tuple[str, ...]
    read_roots: tuple[str, ...]
    write_roots: tuple[str, ...]
    auto_compact: dict[str, int] | None
    role: str
    workflow_id: str
    states: tuple[tuple[str, tuple[str, ...]], ...]
    output: str


def own(agent_id):
    return ("shared", "project:*", f"private:{agent_id}")


ADVISING = (READ, GLOB, GREP, BASH, SEARCH, FETCH)

SECTION_3 = {
    "main": Row(
        "Phở 🍜", ("claude-opus-5", "gpt-5.6-sol"), ("high", "xhigh"),
        (READ, GLOB, GREP, BASH, SEARCH, FETCH, SKILL),
        ("alp-plan", "problem-solving", "delegation", "git", "agent-memory"),
        own("main"), own("main"), (".",), (), None,
        "Phở, the principal-facing coordinator", "coordinate-principal-task",
        (("ASSESS", (READ, GLOB, GREP)), ("PLAN", (READ, GLOB, GREP, SEARCH, FETCH, SKILL)),
         ("DELEGATE", (READ, GLOB, GREP, BASH, SKILL)), ("VERIFY", (READ, GLOB, GREP, BASH, FETCH)), ("REPORT", ())),
        "principal-response",
    ),
    "worker": Row(
        "Worker 🛠️", ("claude-opus-5", "gpt-5.6-sol"), ("high", "xhigh"), ALL_TOOLS,
        ("problem-solving", "alp-debug", "git", "agent-memory", "test-quality-guard"),
        own("worker"), ("private:worker",), (".",), (".",), None,
        "Worker, the delegated task executor", "execute-delegated-task",
        (("ASSESS", (READ, GLOB, GREP)), ("IMPLEMENT", ALL_TOOLS), ("VERIFY", (READ, GLOB, GREP, BASH)),
         ("REPORT", ())),
        "task-result",
    ),
    "search": Row(
        "Search 🔍", ("claude-sonnet-5", "gpt-5.6-terra"), ("low", "low"), (READ, GLOB, GREP, BASH, SKILL),
        ("gkg", "repomix"), own("search"), ("private:search",), (".",), (), {"claude": 150_000, "codex": 150_000},
        "Search, the local code retrieval specialist", "retrieve-code",
        (("VALIDATE_WORKSPACE", (READ, GLOB)), ("RETRIEVE", (READ, GLOB, GREP, BASH)),
         ("VERIFY", (READ, GLOB, GREP, BASH)), ("REPORT", ())),
        "code-search-result",
    ),
    "librarian": Row(
        "Librarian 📚", ("claude-opus-5", "gpt-5.6-sol"), ("high", "high"), (*ADVISING, SKILL),
        ("docs-seeker", "research", "repomix"), own("librarian"),
        ("shared:reference:*", "project:*:refs:*", "private:librarian"), (".",), (), {"claude": 300_000},
        "Librarian, the external and cross-repository research specialist", "research-sources",
        (("SCOPE", (READ, GLOB, GREP)), ("RESEARCH", ADVISING), ("CORROBORATE", (READ, SEARCH, FETCH)), ("REPORT", ())),
        "research-report",
    ),
    "read-thread": Row(
        "Read Thread 🧵", ("claude-haiku-4-5", "gpt-5.6-luna"), ("low", "low"), (READ, GLOB, GREP, SKILL),
        ("agent-memory",), own("read-thread"), ("private:read-thread",), (), (), {"codex": 200_000},
        "Read Thread, the memory retrieval specialist", "retrieve-memory",
        (("PARSE_QUERY", ()), ("RETRIEVE", (READ, GLOB, GREP)), ("VERIFY", (READ, GLOB, GREP)), ("REPORT", ())),
        "memory-retrieval-result",
    ),
    "review": Row(
        "Review 🔎", ("claude-opus-5", "gpt-5.6-terra"), ("high", "medium"), (READ, GLOB, GREP, BASH, SKILL),
        ("code-review", "alp-scenario", "security-scan", "test-quality-guard"), own("review"), ("private:review",),
        (".",), (), {"claude": 300_000},
        "Review, the code review specialist", "review-concern",
        (("SCOPE_CONCERN", (READ, GLOB, GREP)), ("INSPECT", (READ, GLOB, GREP, BASH)),
         ("VERIFY", (READ, GLOB, GREP, BASH)), ("REPORT", ())),
        "code-review-report",
    ),
    "oracle": Row(
        "Oracle 🔮", ("claude-opus-5", "gpt-5.6-sol"), ("high", "xhigh"), (*ADVISING, SKILL),
        ("alp-debug", "alp-predict", "alp-scenario", "problem-solving"), own("oracle"), ("private:oracle",),
        (".",), (), None,
        "Oracle, the senior reasoning and architecture advisor", "advise",
        (("FRAME", (READ, GLOB, GREP)), ("CHALLENGE", ADVISING), ("EVALUATE", ADVISING), ("RECOMMEND", ())),
        "architecture-advice",
    ),
    "compaction": Row(
        "Compaction 🗜️", ("claude-opus-5", "gpt-5.6-sol"), ("medium", "medium"), (READ, GLOB, GREP), (),
        own("compaction"), ("private:compaction",), (), (), {"claude": 150_000, "codex": 150_000},
        "Compaction, the continuation-context specialist", "compact-context",
        (("EXTRACT", (READ, GLOB, GREP)), ("SEPARATE_FACTS", (READ, GLOB, GREP)),
         ("PRESERVE_ANCHORS", (READ, GLOB, GREP)), ("HANDOFF", ())),
        "context-handoff",
    ),
    "titling": Row(
        "Titling 🏷️", ("claude-haiku-4-5", "gpt-5.6-luna"), ("low", "low"), (), (),
        ("private:titling",), ("private:titling",), (), (), {"claude": 100_000, "codex": 100_000},
        "Titling, the thread-title specialist", "title-thread", (("TITLE", ()),), "thread-title",
    ),
}

IDS = list(SECTION_3)
SPECIALISTS = IDS[1:]


def agent(agent_id) -> AgentDefinition:
    return builtin_registry().get(agent_id)


def test_nine_builtins_in_registry_order():
    assert IDS == ["main", "worker", "search", "librarian", "read-thread", "review", "oracle", "compaction", "titling"]
    assert tuple(IDS) == BUILTIN_IDS
    assert [definition.id for definition in BUILTIN_AGENTS] == IDS
    assert builtin_registry().list() == BUILTIN_AGENTS


def test_builtin_registry_is_built_once_and_shared():
    assert builtin_registry() is builtin_registry()


@pytest.mark.parametrize("agent_id", IDS)
def test_identity_models_and_efforts_match_section_3(agent_id):
    row, definition = SECTION_3[agent_id], agent(agent_id)
    assert definition.display_name == row.display_name
    assert (definition.model.claude, definition.model.codex) == row.models
    assert (definition.reasoning_effort.claude, definition.reasoning_effort.codex) == row.efforts


@pytest.mark.parametrize("agent_id", IDS)
def test_tools_and_skills_match_section_3(agent_id):
    row, capabilities = SECTION_3[agent_id], agent(agent_id).capabilities
    assert capabilities.tools == row.tools
    assert capabilities.skills == row.skills
    assert bool(capabilities.skills) == (SKILL in capabilities.tools)


@pytest.mark.parametrize("agent_id", IDS)
def test_memory_and_workspace_grants_match_section_3(agent_id):
    row, capabilities = SECTION_3[agent_id], agent(agent_id).capabilities
    assert capabilities.memory.read == row.memory_read
    assert capabilities.memory.write == row.memory_write
    assert capabilities.workspace.read_roots == row.read_roots
    assert capabilities.workspace.write_roots == row.write_roots


@pytest.mark.parametrize("agent_id", IDS)
def test_auto_compact_declarations_match_section_3(agent_id):
    declared = agent(agent_id).auto_compact_tokens
    sides = {} if declared is None else declared.model_dump(exclude_none=True)
    assert sides == (SECTION_3[agent_id].auto_compact or {})


@pytest.mark.parametrize("agent_id", IDS)
def test_workflow_chain_and_allowed_tools_match_section_3(agent_id):
    row, workflow = SECTION_3[agent_id], agent(agent_id).workflow
    assert workflow.id == row.workflow_id
    assert workflow.initial == row.states[0][0]
    assert workflow.chain() == tuple(state_id for state_id, _ in row.states)
    assert [(state_id, state.allowed_tools) for state_id, state in workflow.states.items()] == list(row.states)
    transitions = [state.transitions for state in workflow.states.values()]
    assert transitions == [(next_id,) for next_id, _ in row.states[1:]] + [()]


@pytest.mark.parametrize("agent_id", IDS)
def test_output_contract_name_matches_section_3(agent_id):
    contract = agent(agent_id).output
    assert contract.name == SECTION_3[agent_id].output
    assert contract.kind == "text"
    assert dict(contract.schema) == {"type": "string", "minLength": 1}


@pytest.mark.parametrize("agent_id", IDS)
def test_only_the_last_state_is_terminal_and_it_allows_no_tool(agent_id):
    workflow = agent(agent_id).workflow
    final = workflow.chain()[-1]
    assert workflow.terminal_states() == (final,)
    assert workflow.states[final].allowed_tools == ()
    assert workflow.states[final].transitions == ()


@pytest.mark.parametrize("agent_id", IDS)
def test_builtin_workflow_has_no_problems(agent_id):
    definition = agent(agent_id)
    assert definition.workflow.problems(definition.capabilities.tools) == []


def test_only_main_delegates_and_it_delegates_to_the_other_eight_in_order():
    assert agent("main").reports_to == "principal"
    assert agent("main").delegates_to == tuple(SPECIALISTS)


@pytest.mark.parametrize("agent_id", SPECIALISTS)
def test_specialist_reports_to_main_and_delegates_to_none(agent_id):
    assert agent(agent_id).reports_to == "main"
    assert agent(agent_id).delegates_to == ()


@pytest.mark.parametrize("agent_id", IDS)
def test_no_builtin_grants_subagents_or_mcp_servers(agent_id):
    capabilities = agent(agent_id).capabilities
    assert capabilities.subagents == () and capabilities.mcp_servers == ()
    assert capabilities.skill_bindings is None and capabilities.skill_roots is None


def test_main_is_read_only_by_grant():
    capabilities = agent("main").capabilities
    assert WRITE not in capabilities.tools and EDIT not in capabilities.tools
    assert capabilities.workspace.write_roots == ()
    assert capabilities.workspace.read_roots == (".",)


def test_only_worker_writes():
    writers = [definition.id for definition in BUILTIN_AGENTS if definition.capabilities.workspace.write_roots]
    editors = [d.id for d in BUILTIN_AGENTS if {WRITE, EDIT} & set(d.capabilities.tools)]
    assert writers == editors == ["worker"]
    assert agent("worker").capabilities.workspace.write_roots == (".",)


def test_memory_only_roles_have_no_workspace_root():
    memory_only = [d.id for d in BUILTIN_AGENTS if not d.capabilities.workspace.read_roots]
    assert memory_only == ["read-thread", "compaction", "titling"]


def test_no_builtin_reads_another_roles_private_memory():
    for definition in BUILTIN_AGENTS:
        private = [grant for grant in definition.capabilities.memory.read if grant.startswith("private:")]
        assert private == [f"private:{definition.id}"]


def test_graph_of_builtins_is_principal_main_and_eight_leaves():
    graph = builtin_registry().graph()
    assert list(graph.nodes) == IDS
    edges = {(source, target): data for source, target, data in graph.edges(data=True)}
    assert edges == {("main", leaf): {"delegates": True, "reports_to": True} for leaf in SPECIALISTS}


# --- Output contracts ------------------------------------------------------------------------

def test_titling_starts_terminal_with_a_single_title_state():
    workflow = agent("titling").workflow
    assert workflow.id == "title-thread"
    assert workflow.chain() == ("TITLE",)
    assert workflow.initial == "TITLE" and workflow.states["TITLE"].terminal


@pytest.mark.parametrize("value, ok", [("Tên thread ngắn", True), ("   ", False), ("", False)])
def test_titling_contract_accepts_a_title_and_rejects_blank(value, ok):
    verdict = agent("titling").output.validate(value)
    assert verdict.ok is ok
    if ok:
        assert verdict.value == value
    else:
        assert verdict.issues == ("output must be non-empty text",)


@pytest.mark.parametrize("agent_id", IDS)
@pytest.mark.parametrize("value", [None, "", " \n\t", 42, ["prose"], {"text": "prose"}])
def test_every_contract_rejects_what_is_not_non_blank_text(agent_id, value):
    verdict = agent(agent_id).output.validate(value)
    assert not verdict.ok
    assert verdict.issues == ("output must be non-empty text",)


@pytest.mark.parametrize("agent_id", IDS)
def test_every_contract_accepts_prose(agent_id):
    prose = "Done: the parser now rejects blank input.\nEvidence: tests/test_parser.py passes."
    verdict = agent(agent_id).output.validate(prose)
    assert verdict.ok and verdict.value == prose and verdict.issues == ()


# --- Instructions ----------------------------------------------------------------------------

OWN_RULE_COUNT = {"search": 1, "librarian": 1, "read-thread": 1, "review": 1, "oracle": 1, "compaction": 1}
WITH_CRAFT = {"main", "worker", "review", "oracle"}


@pytest.mark.parametrize("agent_id", IDS)
def test_instructions_render_long_and_deterministically(agent_id):
    spec = agent(agent_id).instructions
    text = render_instructions(spec)
    assert len(text) > 80
    assert text == render_instructions(spec) == render_instructions(BUILTIN_AGENTS[IDS.index(agent_id)].instructions)
    assert text.startswith(f"You are {SECTION_3[agent_id].role}. {spec.purpose}")
    for rule in spec.rules:
        assert f"\n- {rule}" in text


@pytest.mark.parametrize("agent_id", IDS)
def test_role_text_matches_section_3(agent_id):
    assert agent(agent_id).instructions.role == SECTION_3[agent_id].role


@pytest.mark.parametrize("agent_id", [agent_id for agent_id in IDS if agent_id != "titling"])
def test_house_rules_open_every_role_but_titling_and_craft_rules_follow_where_listed(agent_id):
    rules = agent(agent_id).instructions.rules
    house, craft = len(CODE_NATIVE_HOUSE_RULES), len(CODE_CRAFT_RULES)
    assert rules[:house] == CODE_NATIVE_HOUSE_RULES
    assert (rules[house:house + craft] == CODE_CRAFT_RULES) is (agent_id in WITH_CRAFT)
    if agent_id in OWN_RULE_COUNT:
        extra = house + (craft if agent_id in WITH_CRAFT else 0)
        assert len(rules) - extra == OWN_RULE_COUNT[agent_id]


def test_titling_has_only_its_own_rule():
    rules = agent("titling").instructions.rules
    assert len(rules) == 1
    assert not set(rules) & set(CODE_NATIVE_HOUSE_RULES)
    for word in ("quotes", "label", "explanation", "alternatives", "punctuation"):
        assert word in rules[0]


@pytest.mark.parametrize("agent_id, audience", [("compaction", "machine"), ("titling", "machine"), ("main", None)])
def test_machine_audience_drops_the_principal_lines(agent_id, audience):
    spec = agent(agent_id).instructions
    assert spec.audience == audience
    text = render_instructions(spec)
    assert ("State status or conclusion first." in text) is (audience is None)


def test_only_compaction_and_titling_speak_to_a_machine():
    assert [d.id for d in BUILTIN_AGENTS if d.instructions.audience == "machine"] == ["compaction", "titling"]


def test_worker_rules_carry_the_assignment_block_peer_contract_and_disposition_trailer():
    text = "\n".join(agent("worker").instructions.rules)
    for phrase in ("Objective", "Owned paths", "Excluded paths", "Verification", "peer contract",
                   "reopen-request", "dependency-request", "blocked", "`done`",
                   "Disposition: done | blocked | reopen-request | dependency-request", "Reason:", "Evidence:",
                   "unknown"):
        assert phrase in text, phrase


def test_main_rules_read_the_outcome_disposition_and_never_edit():
    text = "\n".join(agent("main").instructions.rules)
    for phrase in ("outcome.disposition", "`worker`", "accept or reject", "Verify the evidence"):
        assert phrase in text, phrase


# --- Auto-compact (§10) ----------------------------------------------------------------------

def resolved_threshold(definition: AgentDefinition, runtime: str) -> int:
    declared = getattr(definition.auto_compact_tokens, runtime, None) if definition.auto_compact_tokens else None
    return declared if declared is not None else default_auto_compact_tokens(getattr(definition.model, runtime))


RESOLVED = {
    "main": (900_000, 244_800), "worker": (900_000, 244_800), "search": (150_000, 150_000),
    "librarian": (300_000, 244_800), "read-thread": (180_000, 200_000), "review": (300_000, 244_800),
    "oracle": (900_000, 244_800), "compaction": (150_000, 150_000), "titling": (100_000, 100_000),
}


@pytest.mark.parametrize("agent_id", IDS)
def test_resolved_thresholds_are_the_declared_side_or_ninety_percent_of_the_window(agent_id):
    assert tuple(resolved_threshold(agent(agent_id), runtime) for runtime in RUNTIME_IDS) == RESOLVED[agent_id]


@pytest.mark.parametrize("runtime", RUNTIME_IDS)
@pytest.mark.parametrize("agent_id", IDS)
def test_resolved_threshold_is_in_range_and_not_above_main(agent_id, runtime):
    threshold = resolved_threshold(agent(agent_id), runtime)
    assert 100_000 <= threshold <= 1_000_000
    assert threshold <= resolved_threshold(agent("main"), runtime)


@pytest.mark.parametrize("runtime", RUNTIME_IDS)
@pytest.mark.parametrize("agent_id", ["search", "compaction", "titling", "read-thread"])
def test_light_roles_compact_strictly_before_main(agent_id, runtime):
    assert resolved_threshold(agent(agent_id), runtime) < resolved_threshold(agent("main"), runtime)
