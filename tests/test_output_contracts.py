"""Output contracts (reference §5 "Output contracts"): ``text_output`` and ``define_output_contract``
with a pydantic model or a JSON Schema dict checked by jsonschema; issues read ``<path>: <message>``."""

from __future__ import annotations

import dataclasses
import re

import pytest
from pydantic import BaseModel, Field

from alp_nb.agents import AgentError
from alp_nb.base.frozen import thaw
from alp_nb.workflow import OutputValidation, define_output_contract, text_output

TEXT_ISSUE = "output must be non-empty text"


class Summary(BaseModel):
    title: str
    words: int = 0


class Report(BaseModel):
    summary: Summary
    tags: list[str] = Field(default_factory=list)


FINDINGS_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["pass", "fail"]},
        "ticket": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
        },
    },
    "required": ["verdict"],
}


# --- text_output ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["Tên thread ngắn", "x", "  padded  "])
def test_text_output_accepts_non_blank_text_as_given(value):
    assert text_output("thread-title").validate(value) == OutputValidation(ok=True, value=value)


@pytest.mark.parametrize("value", ["", "   ", "\n\t "])
def test_text_output_refuses_blank_text_with_exactly_one_issue(value):
    assert text_output("thread-title").validate(value) == OutputValidation(ok=False, issues=(TEXT_ISSUE,))


@pytest.mark.parametrize("value", [None, 0, 1.5, ["text"], {"text": "x"}, b"bytes"])
def test_text_output_refuses_a_value_that_is_not_a_string(value):
    assert text_output("thread-title").validate(value) == OutputValidation(ok=False, issues=(TEXT_ISSUE,))


def test_text_output_publishes_alp_schema_and_name():
    contract = text_output("task-result")
    assert contract.name == "task-result"
    assert thaw(contract.schema) == {"type": "string", "minLength": 1}
    assert contract.to_alp() == {"name": "task-result", "schema": {"type": "string", "minLength": 1}}


# --- pydantic models ------------------------------------------------------------------------------


def test_pydantic_contract_reports_a_missing_nested_field_at_its_dotted_path():
    validation = define_output_contract("report", Report).validate({"summary": {}})
    assert validation == OutputValidation(ok=False, issues=("summary.title: Field required",))


def test_pydantic_contract_stringifies_list_indices_in_paths():
    validation = define_output_contract("report", Report).validate({"summary": {"title": "t"}, "tags": ["a", 2]})
    assert validation.issues == ("tags.1: Input should be a valid string",)


def test_pydantic_contract_reports_a_wrong_whole_value_at_output():
    validation = define_output_contract("report", Report).validate("just prose")
    assert not validation.ok
    assert len(validation.issues) == 1 and validation.issues[0].startswith("output: ")


def test_pydantic_contract_value_of_a_valid_output_is_the_parsed_model():
    validation = define_output_contract("report", Report).validate({"summary": {"title": "Done", "words": "3"}})
    assert validation.ok and validation.issues == ()
    assert validation.value == Report(summary=Summary(title="Done", words=3), tags=[])
    assert isinstance(validation.value, Report)


def test_pydantic_contract_schema_is_the_models_json_schema():
    contract = define_output_contract("report", Report)
    assert contract.name == "report"
    assert thaw(contract.schema) == Report.model_json_schema()


# --- JSON Schema dicts ----------------------------------------------------------------------------


@pytest.fixture
def findings():
    return define_output_contract("findings", FINDINGS_SCHEMA)


def test_json_schema_contract_accepts_a_valid_value_unchanged(findings):
    value = {"verdict": "pass", "ticket": "ABC-12", "items": [{"x": 1}]}
    assert findings.validate(value) == OutputValidation(ok=True, value=value)


def test_json_schema_contract_applies_enum(findings):
    assert findings.validate({"verdict": "maybe"}).issues == ("verdict: 'maybe' is not one of ['pass', 'fail']",)


def test_json_schema_contract_applies_pattern(findings):
    assert findings.validate({"verdict": "pass", "ticket": "abc-1"}).issues == (
        "ticket: 'abc-1' does not match '^[A-Z]{3}-[0-9]+$'",
    )


def test_json_schema_contract_paths_run_through_nested_arrays(findings):
    issues = findings.validate({"verdict": "pass", "items": [{"x": "1"}, {}]}).issues
    assert issues == ("items.0.x: '1' is not of type 'integer'", "items.1.x: 'x' is a required property")


def test_json_schema_contract_reports_a_missing_top_level_field_at_its_name(findings):
    assert findings.validate({}).issues == ("verdict: 'verdict' is a required property",)


@pytest.mark.parametrize("value, issue", [
    ([1], "output: [1] is not of type 'object'"),
    ("prose", "output: 'prose' is not of type 'object'"),
])
def test_json_schema_contract_reports_a_wrong_whole_value_at_output(findings, value, issue):
    assert findings.validate(value).issues == (issue,)


def test_json_schema_contract_reports_every_issue_at_once(findings):
    issues = findings.validate({"verdict": "x", "ticket": "y", "items": [{}]}).issues
    assert [issue.split(":")[0] for issue in issues] == ["items.0.x", "ticket", "verdict"]


def test_json_schema_contract_uses_the_schemas_declared_draft():
    """A real validator: ``prefixItems`` means something in draft 2020-12 and nothing in draft 7."""
    draft_2020 = {"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "integer"}]}
    draft_7 = {**draft_2020, "$schema": "http://json-schema.org/draft-07/schema#"}
    assert not define_output_contract("new", draft_2020).validate(["a"]).ok
    assert define_output_contract("old", draft_7).validate(["a"]).ok


def test_an_invalid_json_schema_is_refused_at_definition_time():
    with pytest.raises(AgentError, match=re.escape("output contract `broken` has an invalid JSON Schema")) as caught:
        define_output_contract("broken", {"type": "nonsense"})
    assert caught.value.code == "INVALID_OUTPUT_SCHEMA"


@pytest.mark.parametrize("schema", [5, "string", ["type", "string"], dict])
def test_a_schema_that_is_neither_a_model_nor_a_dict_is_refused(schema):
    with pytest.raises(TypeError, match=re.escape("output contract `odd`: schema must be a pydantic model class")):
        define_output_contract("odd", schema)


# --- frozen ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: text_output("t"),
    lambda: define_output_contract("report", Report),
    lambda: define_output_contract("findings", FINDINGS_SCHEMA),
], ids=["text", "pydantic", "json-schema"])
def test_contracts_are_frozen(make):
    contract = make()
    with pytest.raises(dataclasses.FrozenInstanceError):
        contract.name = "renamed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        contract.schema = {}
    with pytest.raises(TypeError):
        contract.schema["type"] = "number"


def test_a_contract_does_not_share_the_callers_schema_dict():
    schema = {"type": "object", "required": ["a"]}
    contract = define_output_contract("copy", schema)
    schema["required"].append("b")
    assert contract.validate({"a": 1}).ok


def test_validation_results_are_frozen():
    validation = text_output("t").validate("")
    with pytest.raises(dataclasses.FrozenInstanceError):
        validation.ok = True
    assert isinstance(validation.issues, tuple)
