"""Parsing ``agent.yaml`` (reference §7 "Parsing", §10 "Custom agents"): size cap before parsing,
YAML 1.2 core schema, no aliases, unique keys, one document, a closed strict schema."""

from __future__ import annotations

import pytest
from custom_agent_files import DELETE, agent_yaml, write_agent

from alp_nb.agents import AGENT_FILE_MAX_BYTES, AgentFile, parse_agent_file
from alp_nb.agents.agent_file import read_agent_file


def parse(text: str | bytes):
    return parse_agent_file(text.encode("utf-8") if isinstance(text, str) else text)


def refused(text: str | bytes) -> tuple[str, ...]:
    agent_file, issues = parse(text)
    assert agent_file is None, "the file was expected to be refused"
    assert issues, "a refusal carries at least one issue"
    return issues


def test_valid_file_parses_into_the_closed_schema():
    agent_file, issues = parse(agent_yaml())
    assert issues == ()
    assert isinstance(agent_file, AgentFile)
    assert agent_file.id == "migrator"
    assert agent_file.schema_version == 1
    assert agent_file.instructions.house_rules == "code-native"
    assert agent_file.capabilities.tools == ["Read", "Glob", "Grep"]
    assert agent_file.capabilities.workspace.read_roots == ["."]
    assert [state.id for state in agent_file.workflow] == ["SCOPE", "REPORT"]
    assert agent_file.output.kind == "text"


def test_file_limit_is_32_kib():
    assert AGENT_FILE_MAX_BYTES == 32768


# --- YAML-level refusals -------------------------------------------------------------------------

def test_yaml_bomb_with_anchors_and_aliases_is_refused_as_an_alias():
    bomb = (
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    )
    issues = refused(bomb)
    assert len(issues) == 1
    assert issues[0].startswith("yaml: ")
    assert "Alias resolution is disabled" in issues[0]


def test_a_single_alias_inside_an_otherwise_valid_file_is_refused():
    text = agent_yaml().replace("displayName: Migrator", "displayName: &name Migrator\nlabel: *name")
    issues = refused(text)
    assert any("Alias resolution is disabled" in issue for issue in issues)


def test_duplicate_key_is_refused_as_not_unique():
    text = agent_yaml() + "id: other\n"
    issues = refused(text)
    assert len(issues) == 1
    assert issues[0].startswith("yaml: ")
    assert "unique" in issues[0]
    assert "id" in issues[0]


def test_duplicate_nested_key_is_refused_as_not_unique():
    issues = refused("model:\n  claude: claude-opus-5\n  claude: claude-sonnet-5\n")
    assert "unique" in issues[0]


def test_second_document_is_refused():
    issues = refused(agent_yaml() + "---\n" + agent_yaml())
    assert len(issues) == 1
    assert "multiple documents" in issues[0]


def test_second_empty_document_is_still_a_second_document():
    issues = refused(agent_yaml() + "---\n")
    assert "multiple documents" in issues[0]


def test_a_single_explicit_document_is_accepted():
    agent_file, issues = parse("---\n" + agent_yaml())
    assert issues == ()
    assert agent_file is not None


def test_syntax_error_is_reported_as_yaml_issue_with_its_line():
    issues = refused("id: migrator\nmodel: {claude: x\n")
    assert len(issues) == 1
    assert issues[0].startswith("yaml: ")
    assert "line" in issues[0]


def test_non_mapping_top_level_is_refused():
    for text in ("- id: migrator\n- id: other\n", "just a sentence\n", "", "42\n"):
        assert refused(text) == ("agent file must be a YAML mapping at the top level",), text


def test_non_utf8_bytes_are_refused_before_yaml():
    issues = refused(b"id: migr\xff\xfeator\n")
    assert len(issues) == 1
    assert "not UTF-8" in issues[0]
    assert not issues[0].startswith("yaml:")


def test_unknown_yaml_tag_is_refused():
    issues = refused(agent_yaml().replace("displayName: Migrator", "displayName: !!python/object:os.system x"))
    assert issues[0].startswith("yaml: ")


# --- size cap ------------------------------------------------------------------------------------

def test_file_over_32_kib_is_refused_with_its_size():
    text = agent_yaml() + "#" * (AGENT_FILE_MAX_BYTES + 10) + "\n"
    size = len(text.encode("utf-8"))
    assert refused(text) == (f"agent file is {size} bytes, over the 32768 byte limit",)


def test_oversized_invalid_yaml_reports_size_not_yaml_error():
    garbage = b"{[: &x *x ---\n" * (40 * 1024 // 14 + 1)
    assert len(garbage) > 40 * 1024 - 14
    issues = refused(garbage)
    assert issues == (f"agent file is {len(garbage)} bytes, over the 32768 byte limit",)


def test_oversized_file_on_disk_is_refused_before_it_is_parsed(tmp_path):
    path = write_agent(tmp_path, text=b"\xff{[: *nope\n" * (40 * 1024 // 11 + 1))
    agent_file, issues = read_agent_file(path)
    assert agent_file is None
    assert issues == (f"agent.yaml is {path.stat().st_size} bytes, over the 32768 byte limit",)


def test_file_of_exactly_32768_bytes_is_not_over_the_limit():
    text = agent_yaml()
    padding = AGENT_FILE_MAX_BYTES - len(text.encode("utf-8")) - 2
    exact = text + "#" + "x" * padding + "\n"
    assert len(exact.encode("utf-8")) == AGENT_FILE_MAX_BYTES
    agent_file, issues = parse(exact)
    assert issues == ()
    assert agent_file is not None
    over = exact + "\n"
    assert refused(over) == ("agent file is 32769 bytes, over the 32768 byte limit",)


# --- schema refusals -----------------------------------------------------------------------------

def test_unknown_top_level_key_is_refused_by_name():
    issues = refused(agent_yaml(reportsTo="principal"))
    assert "reportsTo: Extra inputs are not permitted" in issues


def test_typo_key_is_refused_naming_the_dotted_path():
    text = agent_yaml().replace("readRoots:", "readRoot:")
    issues = refused(text)
    assert issues == ("capabilities.workspace.readRoot: Extra inputs are not permitted",)


def test_typo_of_a_required_key_names_both_the_missing_and_the_unknown_key():
    text = agent_yaml().replace("displayName:", "dispayName:")
    issues = refused(text)
    assert "displayName: Field required" in issues
    assert "dispayName: Extra inputs are not permitted" in issues


def test_unknown_key_inside_a_workflow_state_names_its_index():
    issues = refused(agent_yaml(workflow=[{"id": "SCOPE", "allowedTools": [], "next": "REPORT"}]))
    assert issues == ("workflow.0.next: Extra inputs are not permitted",)


def test_delegates_to_and_reports_to_are_not_declarable():
    assert any(issue.startswith("delegatesTo:") for issue in refused(agent_yaml(delegatesTo=["search"])))
    assert any(issue.startswith("reportsTo:") for issue in refused(agent_yaml(reportsTo="main")))


def test_schema_version_2_is_refused():
    issues = refused(agent_yaml(schemaVersion=2))
    assert len(issues) == 1
    assert issues[0].startswith("schemaVersion: ")


def test_schema_version_is_required():
    issues = refused(agent_yaml(schemaVersion=DELETE))
    assert "schemaVersion: Field required" in issues


def test_schema_version_as_a_string_is_not_coerced():
    issues = refused(agent_yaml().replace("schemaVersion: 1", "schemaVersion: '1'"))
    assert issues[0].startswith("schemaVersion: ")


def test_output_kind_json_is_refused():
    issues = refused(agent_yaml(output={"kind": "json"}))
    assert len(issues) == 1
    assert issues[0].startswith("output.kind: ")


def test_unknown_tool_is_refused_by_the_schema_with_its_index():
    issues = refused(agent_yaml(capabilities={"tools": ["Read", "Task"]}))
    assert len(issues) == 1
    assert issues[0].startswith("capabilities.tools.1: ")


def test_unknown_reasoning_effort_is_refused():
    issues = refused(agent_yaml(reasoningEffort={"codex": "extreme"}))
    assert issues[0].startswith("reasoningEffort.codex: ")


def test_unknown_house_rule_set_is_refused():
    issues = refused(agent_yaml(instructions={"houseRules": "craft"}))
    assert issues[0].startswith("instructions.houseRules: ")


def test_workflow_needs_one_to_twelve_states():
    assert refused(agent_yaml(workflow=[]))[0].startswith("workflow: ")
    states = [{"id": f"S{index}", "allowedTools": []} for index in range(13)]
    assert refused(agent_yaml(workflow=states))[0].startswith("workflow: ")
    agent_file, issues = parse(agent_yaml(workflow=states[:12]))
    assert issues == () and agent_file is not None


def test_blank_and_overlong_strings_are_refused():
    assert refused(agent_yaml(displayName=""))[0].startswith("displayName: ")
    assert refused(agent_yaml(displayName="x" * 65))[0].startswith("displayName: ")
    assert refused(agent_yaml(id="x" * 65))[0].startswith("id: ")
    assert refused(agent_yaml(instructions={"role": "r" * 241}))[0].startswith("instructions.role: ")
    assert refused(agent_yaml(instructions={"purpose": "p" * 1001}))[0].startswith("instructions.purpose: ")
    assert refused(agent_yaml(model={"claude": "m" * 201}))[0].startswith("model.claude: ")


def test_every_schema_issue_of_the_file_is_reported_together():
    issues = refused(agent_yaml(schemaVersion=2, output={"kind": "json"}, extra=True))
    assert len(issues) == 3
    assert {issue.split(":")[0] for issue in issues} == {"schemaVersion", "output.kind", "extra"}


# --- YAML 1.2 core schema ------------------------------------------------------------------------

@pytest.mark.parametrize("word", ["yes", "no", "on", "off", "y", "Yes"])
def test_yaml_1_1_booleans_stay_strings(word):
    agent_file, issues = parse(agent_yaml().replace("displayName: Migrator", f"displayName: {word}"))
    assert issues == ()
    assert agent_file.display_name == word


def test_true_is_a_boolean_and_so_not_a_display_name():
    issues = refused(agent_yaml().replace("displayName: Migrator", "displayName: true"))
    assert issues[0].startswith("displayName: ")


@pytest.mark.parametrize("scalar", ["2024-01-01", "1_000", "0b101"])
def test_scalars_outside_the_core_schema_stay_strings(scalar):
    agent_file, issues = parse(agent_yaml().replace("displayName: Migrator", f"displayName: {scalar}"))
    assert issues == ()
    assert agent_file.display_name == scalar


def test_a_yaml_1_1_directive_does_not_turn_yes_into_a_boolean():
    text = "%YAML 1.1\n---\n" + agent_yaml().replace("displayName: Migrator", "displayName: yes")
    agent_file, issues = parse(text)
    assert issues == ()
    assert agent_file.display_name == "yes"


def test_auto_compact_tokens_are_core_schema_integers():
    agent_file, issues = parse(agent_yaml(autoCompactTokens={"claude": 150000}))
    assert issues == ()
    assert agent_file.auto_compact_tokens.claude == 150000
    underscored = agent_yaml(autoCompactTokens={"claude": 1}).replace("claude: 1\n", "claude: 150_000\n", 1)
    assert refused(underscored)[0].startswith("autoCompactTokens.claude: ")
