"""``LoopContract`` accepts exactly the documents the published schema accepts, plus alp_nb's ``x_alp_nb``.

Two corpora of mutated contracts (the shared examples and the clean contract of these tests):
every single edit at every path from a fixed pool of values, and random stacks of edits drawn by
hypothesis. On each document the published schema, ``LoopContract.json_schema()``, the schema alp_nb
ships (all three through ``jsonschema``) and the model itself must agree, and a rejection must name the
edited path. On documents that use the extension, the shipped schema and the model agree.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings, strategies as st
from loop_contract_samples import CLEAN, published_schema, shared_examples

from alp_nb.loops import LoopContract, LoopContractError
from alp_nb.loops.extension import EXTENDED_SCHEMA_ID, extended_json_schema
from alp_nb.loops.loop_contract import json_path

Location = tuple[str | int, ...]

POOL = [None, True, 0, -1, 3.0, 2.5, "", "x", "manual-bootstrap", [], [""], ["x"], {},
        {"role": "r", "responsibility": "s"}]
"""Replacement values: wrong types, empty strings and arrays, bad and good enums, negative and float numbers."""

UNKNOWN_KEYS = ["x-extension", "toString", "constructor", "version"]


@cache
def documents() -> dict[str, Any]:
    return {"clean": CLEAN, **shared_examples()}


@cache
def validators() -> tuple[jsonschema.Draft202012Validator, jsonschema.Draft202012Validator]:
    return (jsonschema.Draft202012Validator(published_schema()),
            jsonschema.Draft202012Validator(LoopContract.json_schema()))


@cache
def shipped() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(extended_json_schema(),
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def locations(value: Any, location: Location = ()) -> Iterator[Location]:
    yield location
    if isinstance(value, dict):
        for key, item in value.items():
            yield from locations(item, (*location, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from locations(item, (*location, index))


def replaced(document: Any, location: Location, value: Any) -> Any:
    if not location:
        return copy.deepcopy(value)
    document = json.loads(json.dumps(document))
    target = document
    for part in location[:-1]:
        target = target[part]
    target[location[-1]] = copy.deepcopy(value)
    return document


def dropped(document: Any, location: Location) -> Any:
    document = json.loads(json.dumps(document))
    target = document
    for part in location[:-1]:
        target = target[part]
    del target[location[-1]]
    return document


def single_edits(document: dict[str, Any]) -> Iterator[tuple[Location, Any]]:
    """(edited location, edited document) for every pool value, dropped key and unknown key at every path
    (of an array, its first item stands for the others)."""
    for location in [location for location in locations(document) if not any(
            isinstance(part, int) and part > 0 for part in location)]:
        value = _at(document, location)
        for replacement in POOL:
            yield location, replaced(document, location, replacement)
        if isinstance(value, dict):
            for key in value:
                yield (*location, key), dropped(document, (*location, key))
            for key in UNKNOWN_KEYS:
                yield (*location, key), replaced(document, (*location, key), "x")
        if isinstance(value, list) and value:
            yield location, replaced(document, location, [*value, value[0]])


def _at(document: Any, location: Location) -> Any:
    for part in location:
        document = document[part]
    return document


def model_issues(document: Any) -> tuple[str, ...] | None:
    """None when the model accepts the document, else the issues of its refusal."""
    try:
        LoopContract.from_document(document)
    except LoopContractError as error:
        assert error.code == "CONTRACT_INVALID" and error.issues
        return error.issues
    return None


def names_location(issues: tuple[str, ...], location: Location) -> bool:
    """Whether some issue's path is the edited location or lies inside it."""
    path = json_path(location)
    issue_paths = [issue.split(": ", 1)[0] for issue in issues]
    return path == "$" or any(issue == path or issue.startswith((path + ".", path + "[")) for issue in issue_paths)


def test_every_single_edit_is_judged_alike_and_a_rejection_names_its_path():
    published, ours = validators()
    verdicts = {True: 0, False: 0}
    for name, document in documents().items():
        for location, candidate in single_edits(document):
            accepted = published.is_valid(candidate)
            assert ours.is_valid(candidate) == accepted, (name, json_path(location), candidate)
            assert shipped().is_valid(candidate) == accepted, (name, json_path(location), candidate)
            issues = model_issues(candidate)
            assert (issues is None) == accepted, (name, json_path(location))
            if not accepted:
                assert names_location(issues, location), (json_path(location), issues)
            verdicts[accepted] += 1
    assert verdicts[True] > 100 and verdicts[False] > 1000


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.text(max_size=3)
    | st.sampled_from(["scheduled", "goal", "cron", "x", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["role", "responsibility", "x"]), inner,
                                                                 max_size=2),
    max_leaves=4,
)


@st.composite
def mutated(draw, document: dict[str, Any]) -> Any:
    """One to three stacked edits: replace a value, drop a key or add an unknown one."""
    for _ in range(draw(st.integers(1, 3))):
        location = draw(st.sampled_from(list(locations(document))))
        value = _at(document, location)
        action = draw(st.sampled_from(["replace", "drop", "add"] if isinstance(value, dict) else ["replace"]))
        if action == "replace":
            document = replaced(document, location, draw(JSON))
        elif action == "drop" and value:
            document = dropped(document, (*location, draw(st.sampled_from(sorted(value)))))
        elif action == "add":
            document = replaced(document, (*location, draw(st.text(min_size=1, max_size=8))), draw(JSON))
        if not isinstance(document, dict):
            break
    return document


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_stacks_of_edits_are_judged_alike(data):
    published, ours = validators()
    name = data.draw(st.sampled_from(sorted(documents())))
    candidate = data.draw(mutated(documents()[name]))
    accepted = published.is_valid(candidate)
    assert ours.is_valid(candidate) == accepted
    assert shipped().is_valid(candidate) == accepted
    assert (model_issues(candidate) is None) == accepted


def test_the_generated_schema_is_a_valid_draft_2020_12_schema_with_the_published_identity():
    schema = LoopContract.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    published = published_schema()
    for key in ("$schema", "$id", "title", "description"):
        assert schema[key] == published[key]
    assert schema["required"] == published["required"]


def test_the_shipped_schema_is_the_public_one_plus_one_optional_key():
    schema, public = extended_json_schema(), LoopContract.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == EXTENDED_SCHEMA_ID != public["$id"]
    assert {key: value for key, value in schema["properties"].items() if key != "x_alp_nb"} == public["properties"]
    assert schema["required"] == public["required"] and schema["additionalProperties"] is False
    assert {name: schema["$defs"][name] for name in public["$defs"]} == public["$defs"]


def test_the_shipped_schema_is_package_data():
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    assert "loops/*.schema.json" in config["tool"]["setuptools"]["package-data"]["alp_nb"]


EXTENSION_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 300_000), st.floats(-1, 10, allow_nan=False),
                             st.sampled_from(["", "x", "2026-01-15", "2026-02-30", "15/01/2026"]))
EXTENSION = st.fixed_dictionaries({"version": st.sampled_from([1, 2, "1"])}, optional={
    "owner": EXTENSION_VALUES,
    "review": st.fixed_dictionaries({}, optional={"every_days": EXTENSION_VALUES, "last_reviewed": EXTENSION_VALUES,
                                                  "weekday": EXTENSION_VALUES}),
    "budget": st.fixed_dictionaries({}, optional={key: EXTENSION_VALUES for key in (
        "max_tokens", "max_cost_usd", "max_concurrency", "repeated_evidence_stop", "max_pages")}),
})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extension=EXTENSION)
def test_the_shipped_schema_and_the_model_judge_every_extension_alike(extension):
    candidate = {**CLEAN, "x_alp_nb": extension}
    assert shipped().is_valid(candidate) == (model_issues(candidate) is None), extension
    assert not validators()[0].is_valid(candidate)  # the public schema refuses any extension
