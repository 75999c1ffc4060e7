"""AgentDefinition (reference §1): deep freeze, camelCase load and dump, malformed data; the
definition hash (§1 "Definition hash") and canonical JSON."""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import subprocess
import sys

import pytest
from agent_factory import DELETE, build_agent, make_agent
from pydantic import ValidationError

from alp_nb.agents import (
    BUILTIN_AGENTS,
    MODE_IDS,
    AgentDefinition,
    AgentRegistryError,
    WorkflowDefinition,
    builtin_registry,
    canonical_json,
    define_agent,
    definition_hash,
    model_for_mode,
    short_hash,
    text_output,
)
from alp_nb.workflow import WorkflowError, define_linear_workflow

# --- Deep freeze -----------------------------------------------------------------------------


@pytest.fixture
def probe() -> AgentDefinition:
    return build_agent("probe", capabilities={"tools": ["Read", "Skill"], "skills": ["git"]}, delegatesTo=[])


@pytest.mark.parametrize(
    "path, value",
    [
        (("id",), "other"),
        (("display_name",), "Other"),
        (("capabilities", "tools"), ("Read", "Write")),
        (("capabilities", "memory", "read"), ("shared",)),
        (("capabilities", "workspace", "write_roots"), (".",)),
        (("model", "claude"), "claude-haiku-4-5"),
        (("instructions", "rules"), ()),
        (("workflow", "initial"), "DONE"),
    ],
    ids=["id", "display-name", "tools", "memory-read", "write-roots", "model", "rules", "initial"],
)
def test_attribute_assignment_is_refused_at_every_depth(probe, path, value):
    owner = probe
    for name in path[:-1]:
        owner = getattr(owner, name)
    with pytest.raises(ValidationError):
        setattr(owner, path[-1], value)


def test_output_contract_cannot_be_reassigned(probe):
    with pytest.raises(AttributeError):
        probe.output.name = "other"


def test_sequences_are_tuples(probe):
    assert isinstance(probe.delegates_to, tuple)
    for sequence in (
        probe.capabilities.tools, probe.capabilities.skills, probe.capabilities.subagents,
        probe.capabilities.mcp_servers, probe.capabilities.memory.read, probe.capabilities.memory.write,
        probe.capabilities.workspace.read_roots, probe.instructions.rules, probe.workflow.states["WORK"].allowed_tools,
        probe.workflow.states["WORK"].transitions,
    ):
        assert isinstance(sequence, tuple)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.workflow.states.__setitem__("EXTRA", d.workflow.states["DONE"]),
        lambda d: d.workflow.states.pop("DONE"),
        lambda d: d.workflow.states.__delitem__("DONE"),
        lambda d: d.output.schema.__setitem__("type", "object"),
        lambda d: d.output.schema.clear(),
        lambda d: d.capabilities.tools.__setitem__(0, "Write"),
    ],
    ids=["add-state", "pop-state", "delete-state", "schema-set", "schema-clear", "tool-item"],
)
def test_mappings_and_sequences_inside_a_definition_are_read_only(probe, mutate):
    with pytest.raises((TypeError, AttributeError)):
        mutate(probe)
    assert probe == build_agent("probe", capabilities={"tools": ["Read", "Skill"], "skills": ["git"]})


def test_definition_is_a_clone_of_its_input():
    data = make_agent("probe")
    definition = define_agent(data)
    data["capabilities"]["tools"].append("Write")
    data["workflow"]["states"]["WORK"]["allowedTools"].append("Write")
    data["output"]["schema"]["minLength"] = 5
    assert definition.capabilities.tools == ("Read",)
    assert definition.workflow.states["WORK"].allowed_tools == ("Read",)
    assert definition.output.schema["minLength"] == 1


def test_deep_copy_of_a_frozen_definition_is_the_definition_itself(probe):
    assert copy.deepcopy(probe) is probe
    assert copy.deepcopy(probe.output) is probe.output
    assert probe.model_copy(deep=True) == probe
    assert copy.deepcopy({"agent": probe})["agent"] is probe


def test_define_agent_returns_a_definition_unchanged(probe):
    assert define_agent(probe) is probe


def test_definitions_compare_by_value(probe):
    assert probe == build_agent("probe", capabilities={"tools": ["Read", "Skill"], "skills": ["git"]})
    assert probe != build_agent("other")


# --- camelCase load and dump -----------------------------------------------------------------

CAMEL_KEYS = {
    (): {"displayName", "reasoningEffort", "reportsTo", "delegatesTo", "autoCompactTokens"},
    ("capabilities",): {"mcpServers", "skillBindings", "skillRoots"},
    ("capabilities", "workspace"): {"readRoots", "writeRoots"},
}


def at(data, path):
    for key in path:
        data = data[key]
    return data


@pytest.mark.parametrize("definition", BUILTIN_AGENTS, ids=[d.id for d in BUILTIN_AGENTS])
def test_dump_by_alias_round_trips(definition):
    dumped = definition.model_dump(by_alias=True)
    assert AgentDefinition.model_validate(dumped) == definition
    assert AgentDefinition.model_validate_json(definition.model_dump_json(by_alias=True)) == definition
    assert define_agent(json.loads(definition.model_dump_json(by_alias=True))) == definition


@pytest.mark.parametrize("definition", BUILTIN_AGENTS, ids=[d.id for d in BUILTIN_AGENTS])
def test_dump_by_alias_uses_camel_case_keys(definition):
    dumped = definition.model_dump(by_alias=True)
    for path, keys in CAMEL_KEYS.items():
        assert keys <= set(at(dumped, path)), path
        assert not {key for key in at(dumped, path) if "_" in key}, path
    for state in dumped["workflow"]["states"].values():
        assert set(state) == {"allowedTools", "transitions", "terminal"}
    assert dumped["output"] == {"name": definition.output.name, "schema": {"type": "string", "minLength": 1}}


def test_snake_case_input_loads_the_same_definition():
    definition = BUILTIN_AGENTS[1]
    assert define_agent(definition.model_dump()) == definition
    assert "display_name" in definition.model_dump() and "displayName" not in definition.model_dump()


def test_json_schema_output_contract_survives_the_round_trip():
    schema = {"type": "object", "properties": {"status": {"enum": ["done", "blocked"]}}, "required": ["status"]}
    definition = build_agent("probe", output={"name": "status-report", "schema": schema})
    assert definition.output.kind == "json-schema"
    again = AgentDefinition.model_validate(definition.model_dump(by_alias=True))
    assert again == definition and again.output.kind == "json-schema"
    assert not again.output.validate({"status": "maybe"}).ok
    assert again.output.validate({"status": "done"}).ok


def test_text_schema_in_json_loads_as_text_output():
    definition = build_agent("probe")
    assert definition.output == text_output("probe-result")
    assert definition.output.kind == "text"


# --- Malformed data --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"displayName": DELETE}, "displayName"),
        ({"capabilities": {"tools": 5}}, "capabilities.tools"),
        ({"capabilities": {"memory": {"read": "shared"}}}, "capabilities.memory.read"),
        ({"workflow": {"states": {"WORK": {"allowedTools": [1]}}}}, "workflow.states.WORK.allowedTools.0"),
        ({"colour": "blue"}, "colour"),
        ({"capabilities": {"skillBindings": [{"name": "x", "kind": "copy", "path": "/x"}]}},
         "capabilities.skillBindings.0.kind"),
        ({"output": {"name": "x", "validate": "code"}}, "output"),
        ({"autoCompactTokens": {"claude": "150000"}}, "autoCompactTokens.claude"),
    ],
    ids=["missing-field", "tools-not-a-list", "string-for-list", "state-tool", "unknown-key", "binding-kind",
         "output-extra-key", "string-threshold"],
)
def test_malformed_data_is_invalid_agent_naming_the_agent_and_field(overrides, field):
    with pytest.raises(AgentRegistryError) as caught:
        define_agent(make_agent("probe", **overrides))
    message = str(caught.value)
    assert caught.value.code == "INVALID_AGENT"
    assert message.startswith("agent `probe` has a malformed definition: ")
    assert field in message


def test_malformed_non_mapping_is_invalid_agent():
    with pytest.raises(AgentRegistryError) as caught:
        define_agent(["not", "a", "definition"])
    assert caught.value.code == "INVALID_AGENT"


# --- Definition hash -------------------------------------------------------------------------

def test_hash_is_sixty_four_hex_and_short_form_is_twelve():
    digest = definition_hash(BUILTIN_AGENTS[0])
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert short_hash(digest) == digest[:12]


def test_hash_is_the_same_in_a_fresh_process():
    script = (
        "from alp_nb.agents import builtin_registry, definition_hash\n"
        "print(definition_hash(builtin_registry().get('worker')))"
    )
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment)
    assert result.stdout.strip() == definition_hash(builtin_registry().get("worker"))


def test_builtins_have_distinct_hashes():
    assert len({definition_hash(definition) for definition in BUILTIN_AGENTS}) == len(BUILTIN_AGENTS)


def test_hash_of_data_equals_hash_of_the_defined_agent():
    assert definition_hash(make_agent("probe")) == definition_hash(build_agent("probe"))


EDITS = {
    "display-name": {"displayName": "Renamed"},
    "model": {"model": {"codex": "gpt-5.6-terra"}},
    "effort": {"reasoningEffort": {"claude": "max"}},
    "reports-to": {"reportsTo": "main"},
    "delegates-to": {"delegatesTo": ["helper"]},
    "add-tool": {"capabilities": {"tools": ["Read", "Grep"]}},
    "tool-order": {"capabilities": {"tools": ["Grep", "Read"]}, "_base": {"capabilities": {"tools": ["Read", "Grep"]}}},
    "add-skill": {"capabilities": {"tools": ["Read", "Skill"], "skills": ["git", "gkg"]},
                  "_base": {"capabilities": {"tools": ["Read", "Skill"], "skills": ["git"]}}},
    "skill-root": {"capabilities": {"skillRoots": ["/skills"]}},
    "subagent": {"capabilities": {"subagents": ["prober"]}},
    "mcp-server": {"capabilities": {"mcpServers": ["docs"]}},
    "memory-read": {"capabilities": {"memory": {"read": ["shared", "private:probe"]}}},
    "memory-write": {"capabilities": {"memory": {"write": []}}},
    "workspace-read": {"capabilities": {"workspace": {"readRoots": ["/elsewhere"]}}},
    "workspace-write": {"capabilities": {"workspace": {"writeRoots": ["."]}}},
    "auto-compact": {"autoCompactTokens": {"claude": 150_000}},
    "auto-compact-side": {"autoCompactTokens": {"codex": 150_000}, "_base": {"autoCompactTokens": {"claude": 150_000}}},
    "role": {"instructions": {"role": "Probe, another role"}},
    "purpose": {"instructions": {"purpose": "Another purpose."}},
    "rule-text": {"instructions": {"rules": ["Do another thing."]}},
    "rule-added": {"instructions": {"rules": ["Do one thing.", "And another."]}},
    "audience": {"instructions": {"audience": "machine"}},
    "workflow-id": {"workflow": {"id": "other-flow"}},
    "initial": {"workflow": {"initial": "DONE"}},
    "state-added": {"workflow": {"states": {"EXTRA": {"allowedTools": [], "transitions": []}}}},
    "allowed-tool": {"workflow": {"states": {"WORK": {"allowedTools": ["Read", "Grep"]}}}},
    "transition": {"workflow": {"states": {"WORK": {"transitions": ["WORK"]}}}},
    "terminal": {"workflow": {"states": {"WORK": {"terminal": True, "transitions": []}}}},
    "contract-name": {"output": {"name": "other-result"}},
    "contract-schema": {"output": {"schema": {"type": "string", "minLength": 2}}},
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_hash_moves_with_every_part_of_the_definition(edit):
    overrides = dict(EDITS[edit])
    base = overrides.pop("_base", {})
    assert definition_hash(make_agent("probe", **base)) != definition_hash(make_agent("probe", **{**base, **overrides}))


def reversed_keys(value):
    if isinstance(value, dict):
        return {key: reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(item) for item in value]
    return value


@pytest.mark.parametrize("definition", BUILTIN_AGENTS, ids=[d.id for d in BUILTIN_AGENTS])
def test_hash_ignores_key_order_and_key_case_of_the_input(definition):
    digest = definition_hash(definition)
    camel = json.loads(definition.model_dump_json(by_alias=True))
    snake = json.loads(definition.model_dump_json())
    assert definition_hash(camel) == digest
    assert definition_hash(reversed_keys(camel)) == digest
    assert definition_hash(snake) == digest
    assert definition_hash(reversed_keys(snake)) == digest


def test_integral_float_threshold_hashes_like_the_int():
    as_int = make_agent("probe", autoCompactTokens={"claude": 150_000})
    as_float = make_agent("probe", autoCompactTokens={"claude": 150_000.0})
    assert definition_hash(as_float) == definition_hash(as_int)


@pytest.mark.parametrize("undeclared", [None, {}, DELETE, {"claude": None, "codex": None}])
def test_undeclared_thresholds_hash_alike(undeclared):
    assert definition_hash(make_agent("probe", autoCompactTokens=undeclared)) == definition_hash(make_agent("probe"))


def test_absent_optional_fields_hash_like_their_defaults():
    explicit = make_agent("probe", instructions={"audience": None}, capabilities={"skillBindings": None})
    assert definition_hash(explicit) == definition_hash(make_agent("probe"))


def test_mode_is_not_an_input_of_the_hash():
    assert list(inspect.signature(definition_hash).parameters) == ["definition"]
    worker = builtin_registry().get("worker")
    digest = definition_hash(worker)
    assert len({model_for_mode(worker, mode) for mode in MODE_IDS}) > 1
    for mode in MODE_IDS:
        model_for_mode(worker, mode)
        assert definition_hash(worker) == digest


def test_hash_does_not_depend_on_how_the_workflow_was_built():
    linear = define_linear_workflow("probe-flow", [("WORK", ["Read"]), ("DONE", [])])
    assert definition_hash(make_agent("probe", workflow=linear)) == definition_hash(make_agent("probe"))


# --- canonical JSON --------------------------------------------------------------------------

def test_canonical_json_sorts_keys_by_code_point():
    assert canonical_json({"b": 1, "é": 2, "B": 3, "a": 4, "Z": 5}) == '{"B":3,"Z":5,"a":4,"b":1,"é":2}'


def test_canonical_json_sorts_nested_objects_and_keeps_array_order():
    value = {"z": [{"y": 1, "x": 2}, 3, 1], "REPORT": {"transitions": [], "allowedTools": []}}
    assert canonical_json(value) == '{"REPORT":{"allowedTools":[],"transitions":[]},"z":[{"x":2,"y":1},3,1]}'


def test_canonical_json_drops_none_values_but_keeps_none_items():
    assert canonical_json({"a": None, "b": {"c": None, "d": 1}, "e": [None, 1]}) == '{"b":{"d":1},"e":[null,1]}'


def test_canonical_json_writes_integral_floats_as_integers_and_text_as_utf8():
    assert canonical_json({"n": 150000.0, "f": 0.5, "t": "Phở 🍜"}) == '{"f":0.5,"n":150000,"t":"Phở 🍜"}'


def test_canonical_json_accepts_frozen_mappings_and_tuples():
    definition = BUILTIN_AGENTS[0]
    assert json.loads(canonical_json(definition.output.schema)) == {"minLength": 1, "type": "string"}
    assert canonical_json(definition.capabilities.tools) == json.dumps(list(definition.capabilities.tools),
                                                                        separators=(",", ":"))


# --- Linear workflows ------------------------------------------------------------------------

def test_linear_workflow_chains_states_and_ends_terminal():
    tools = ["Read", "Grep"]
    workflow = define_linear_workflow("retrieve", [("RECEIVE", []), ("RETRIEVE", tools), ("REPORT", [])])
    tools.append("Bash")
    assert workflow.initial == "RECEIVE"
    assert workflow.chain() == ("RECEIVE", "RETRIEVE", "REPORT")
    assert [state.transitions for state in workflow.states.values()] == [("RETRIEVE",), ("REPORT",), ()]
    assert workflow.terminal_states() == ("REPORT",)
    assert workflow.states["RETRIEVE"].allowed_tools == ("Read", "Grep")
    assert workflow.problems(["Read", "Grep"]) == []


def test_linear_workflow_accepts_state_mappings_in_either_case():
    workflow = define_linear_workflow("w", [{"id": "A", "allowedTools": ["Read"]}, {"id": "B", "allowed_tools": []}])
    assert workflow.states["A"].allowed_tools == ("Read",) and workflow.states["B"].terminal


def test_linear_workflow_with_no_state_is_refused():
    with pytest.raises(WorkflowError) as caught:
        define_linear_workflow("empty", [])
    assert str(caught.value) == "workflow `empty` must declare at least one state"


def test_linear_workflow_with_a_repeated_state_is_refused():
    with pytest.raises(WorkflowError, match="declares state `A` twice"):
        define_linear_workflow("w", [("A", []), ("A", [])])


def workflow_of(initial, states):
    return WorkflowDefinition.model_validate({"id": "w", "initial": initial, "states": states})


@pytest.mark.parametrize(
    "initial, states, tools, finding",
    [
        ("MISSING", {"A": {"terminal": True}}, None, "unknown initial state `MISSING`"),
        ("A", {"A": {"transitions": ["B"], "terminal": True}, "B": {"terminal": True}}, None,
         "terminal state `A` cannot declare transitions"),
        ("A", {"A": {"transitions": ["MISSING"]}, "B": {"terminal": True}}, None,
         "state `A` has unknown transition target `MISSING`"),
        ("A", {"A": {"transitions": ["B"]}, "B": {}}, None,
         "state `B` is a dead end: it is not terminal and leads nowhere"),
        ("A", {"A": {"terminal": True}, "ORPHAN": {"terminal": True}}, None, "state `ORPHAN` is unreachable from `A`"),
        ("A", {"A": {"transitions": ["A"]}}, None, "no terminal state is reachable from `A`"),
        ("A", {"A": {"allowedTools": ["Write"], "transitions": ["B"]}, "B": {"terminal": True}}, ["Read"],
         "state `A` allows `Write`, which the agent does not hold"),
    ],
    ids=["initial", "terminal-transitions", "unknown-target", "dead-end", "unreachable", "no-terminal", "tool"],
)
def test_workflow_problems_name_each_structural_fault(initial, states, tools, finding):
    assert finding in workflow_of(initial, states).problems(tools)
