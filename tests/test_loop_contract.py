"""The ``LoopContract`` model: the twelve parts and nothing more, every shared example loads, bad
documents are refused naming their JSON paths, files round-trip as JSON and YAML, the template
is an editable valid contract, and ``phases()`` groups the parts as the seed does."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st
from loop_contract_samples import CLEAN, DELETE, edit, shared_examples
from pydantic import ValidationError
from ruamel.yaml import YAML

from alp_nb.loops import PARTS, LoopContract, LoopContractError
from alp_nb.loops.loop_contract import MAX_CONTRACT_BYTES, json_path, read_contract_document


def test_the_model_has_exactly_the_twelve_parts_of_the_schema_and_the_one_extension_key():
    assert tuple(LoopContract.model_fields) == (*PARTS, "x_alp_nb")
    assert len(PARTS) == 12


def test_every_shared_example_loads_and_dumps_back_to_its_document():
    for name, document in shared_examples().items():
        contract = LoopContract.from_document(document, source=name)
        assert contract.to_document() == document


def test_a_loaded_file_keeps_the_schema_key_order(tmp_path):
    path = tmp_path / "clean.json"
    LoopContract.from_document(CLEAN).dump(path)
    assert list(json.loads(path.read_text())) == list(CLEAN)


def test_a_contract_is_frozen_with_tuples_inside():
    contract = LoopContract.from_document(CLEAN)
    with pytest.raises(ValidationError):
        contract.name = "renamed"
    assert isinstance(contract.intake.sources, tuple)
    assert isinstance(contract.agents, tuple)


def test_a_bad_document_is_refused_with_one_issue_per_json_path():
    document = edit(CLEAN, {
        "trigger.type": "cron", "agents[1].role": "", "budget.max_retries": -1, "exit.success": DELETE,
        "workspace.owner": "me", "verification.gates": [],
    })
    with pytest.raises(LoopContractError) as raised:
        LoopContract.from_document(document, source="draft.json")
    error = raised.value
    assert error.code == "CONTRACT_INVALID"
    assert sorted(issue.split(": ", 1)[0] for issue in error.issues) == [
        "agents[1].role", "budget.max_retries", "exit.success", "trigger.type", "verification.gates", "workspace.owner",
    ]
    assert error.message.startswith("draft.json: not a valid loop contract\n")
    assert all(issue in error.message for issue in error.issues)


def test_an_array_with_bad_items_is_not_also_called_too_short():
    with pytest.raises(LoopContractError) as raised:
        LoopContract.from_document(edit(CLEAN, {"agents": [{"role": "", "responsibility": "x"}]}))
    assert raised.value.issues == ("agents[0].role: String should have at least 1 character",)


@pytest.mark.parametrize(("value", "accepted"), [(3, True), (3.0, True), (0, True), (True, False), ("3", False),
                                                  (2.5, False), (-1, False), (None, False)])
def test_retries_are_integers_as_json_schema_counts_them(value, accepted):
    document = edit(CLEAN, {"budget.max_retries": value})
    if accepted:
        assert LoopContract.from_document(document).budget.max_retries == int(value)
        assert isinstance(LoopContract.from_document(document).budget.max_retries, int)
    else:
        with pytest.raises(LoopContractError, match=r"budget\.max_retries"):
            LoopContract.from_document(document)


def test_strings_are_never_coerced():
    with pytest.raises(LoopContractError, match="objective: Input should be a valid string"):
        LoopContract.from_document(edit(CLEAN, {"objective": 42}))


def test_json_paths_quote_keys_that_are_not_identifiers():
    assert json_path(()) == "$"
    assert json_path(("agents", 0, "role")) == "agents[0].role"
    assert json_path(("weird key",)) == '$["weird key"]'
    assert json_path(("workspace", "a.b")) == 'workspace["a.b"]'
    assert json_path(("x-extension",)) == '$["x-extension"]'


TEXT = st.text(min_size=1, max_size=20)
TEXTS = st.lists(TEXT, max_size=3)
CONTRACT_DOCUMENTS = st.fixed_dictionaries({
    "name": TEXT,
    "objective": TEXT,
    "trigger": st.fixed_dictionaries({"type": st.sampled_from(["scheduled", "event", "goal", "manual-bootstrap"]),
                                      "cadence_or_event": TEXT}),
    "intake": st.fixed_dictionaries({"sources": st.lists(TEXT, min_size=1, max_size=3), "selection_rule": TEXT}),
    "workspace": st.fixed_dictionaries({"isolation": TEXT, "allowed_actions": TEXTS, "disallowed_actions": TEXTS}),
    "context": st.fixed_dictionaries({"required_files": TEXTS, "runtime_sources": TEXTS}),
    "agents": st.lists(st.fixed_dictionaries({"role": TEXT, "responsibility": TEXT}), min_size=1, max_size=3),
    "verification": st.fixed_dictionaries({"gates": st.lists(TEXT, min_size=1, max_size=3),
                                           "receipts": st.lists(TEXT, min_size=1, max_size=3)}),
    "state": st.fixed_dictionaries({"artifacts": st.lists(TEXT, min_size=1, max_size=3), "update_rule": TEXT}),
    "budget": st.fixed_dictionaries({"max_retries": st.integers(0, 10**6),
                                     "max_runtime_minutes": st.integers(1, 10**6)}),
    "escalation": st.fixed_dictionaries({"conditions": st.lists(TEXT, min_size=1, max_size=3), "destination": TEXT}),
    "exit": st.fixed_dictionaries({"success": TEXT, "stop_without_success": TEXT}),
})


@settings(max_examples=150, deadline=None)
@given(document=CONTRACT_DOCUMENTS, suffix=st.sampled_from([".json", ".yaml", ".yml"]))
def test_any_valid_contract_round_trips_through_a_json_or_yaml_file(tmp_path_factory, document, suffix):
    path = tmp_path_factory.mktemp("contract") / f"contract{suffix}"
    contract = LoopContract.from_document(document)
    contract.dump(path)
    assert LoopContract.load(path) == contract
    assert read_contract_document(path) == document


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_dumps_writes_the_plain_document(fmt):
    text = LoopContract.from_document(CLEAN).dumps(fmt)
    assert ("max_retries: 2" in text) if fmt == "yaml" else (json.loads(text) == CLEAN)


def test_yaml_keeps_yes_and_dates_as_strings(tmp_path):
    path = tmp_path / "contract.yaml"
    path.write_text(LoopContract.from_document(CLEAN).dumps("yaml").replace(
        "name: Nightly vulnerable-dependency bump", "name: yes").replace("Nightly at 02:00 UTC", "2026-01-01"))
    contract = LoopContract.load(path)
    assert contract.name == "yes" and contract.trigger.cadence_or_event == "2026-01-01"


def test_a_file_that_is_not_json_names_its_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n  oops\n}\n')
    with pytest.raises(LoopContractError) as raised:
        LoopContract.load(path)
    assert raised.value.code == "CONTRACT_UNREADABLE"
    assert "broken.json" in raised.value.message and "line 3" in raised.value.message


def test_a_yaml_file_with_aliases_is_refused_with_its_line(tmp_path):
    path = tmp_path / "aliased.yaml"
    path.write_text("name: &n loop\nobjective: *n\n")
    with pytest.raises(LoopContractError, match="line 2"):
        LoopContract.load(path)


def test_a_loaded_file_that_breaks_the_schema_names_file_and_path(tmp_path):
    path = tmp_path / "draft.yaml"
    path.write_text(LoopContract.from_document(CLEAN).dumps("yaml").replace("type: scheduled", "type: cron"))
    with pytest.raises(LoopContractError) as raised:
        LoopContract.load(path)
    assert str(path) in raised.value.message
    assert [issue.split(":")[0] for issue in raised.value.issues] == ["trigger.type"]


@pytest.mark.parametrize("name", ["contract.txt", "contract"])
def test_only_json_and_yaml_suffixes_are_contract_files(tmp_path, name):
    with pytest.raises(LoopContractError) as raised:
        LoopContract.from_document(CLEAN).dump(tmp_path / name)
    assert raised.value.code == "CONTRACT_FORMAT"
    assert not (tmp_path / name).exists()


def test_a_missing_file_is_unreadable(tmp_path):
    with pytest.raises(LoopContractError) as raised:
        LoopContract.load(tmp_path / "missing.json")
    assert raised.value.code == "CONTRACT_UNREADABLE"


def test_the_error_survives_pickling():
    import pickle

    error = LoopContractError("CONTRACT_INVALID", "x: bad", ("name: Field required",))
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.code, copy.message, copy.issues) == (error.code, error.message, error.issues)


def test_the_template_is_a_valid_contract_that_can_be_edited_part_by_part():
    template = LoopContract.template("nightly triage")
    assert template.name == "nightly triage"
    assert LoopContract.from_document(template.to_document()) == template
    edited = template.replace(
        objective="Label every new issue within a day.",
        budget={"max_retries": 1, "max_runtime_minutes": 10},
        agents=(*template.agents[:1], {"role": "Reviewer", "responsibility": "Check the labels."}),
    )
    assert edited.objective == "Label every new issue within a day." and template.objective.startswith("TODO:")
    assert edited.budget.max_retries == 1 and edited.agents[1].role == "Reviewer"
    assert edited.intake == template.intake


def test_replacing_a_part_validates_it_and_names_the_path():
    template = LoopContract.template("draft")
    with pytest.raises(LoopContractError) as raised:
        template.replace(budget={"max_retries": -1, "max_runtime_minutes": 10}, owner="me")
    assert sorted(raised.value.issues) == ["budget.max_retries: Input should be greater than or equal to 0",
                                           "owner: Extra inputs are not permitted"]


def test_every_text_of_the_template_is_a_todo_question():
    document = LoopContract.template("x").to_document()

    def texts(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for item in value.values():
                yield from texts(item)
        elif isinstance(value, list):
            for item in value:
                yield from texts(item)

    unanswered = [text for text in texts({k: v for k, v in document.items() if k not in ("name", "trigger")})]
    assert unanswered and all(text.startswith("TODO: ") for text in unanswered)
    assert document["trigger"]["cadence_or_event"].startswith("TODO: ")


def test_phases_group_the_eleven_parts_as_the_seed_does():
    contract = LoopContract.from_document(CLEAN)
    phases = contract.phases()
    assert {phase: list(parts) for phase, parts in phases.items()} == {
        "Set up": ["objective", "trigger", "intake", "workspace"],
        "Run": ["context", "agents", "verification", "state"],
        "Govern & close": ["budget", "escalation", "exit"],
    }
    assert phases["Run"]["agents"] is contract.agents


def _sources_as_yaml_set(contract: LoopContract) -> str:
    """The contract as YAML whose ``intake.sources`` is written as a ``!!set`` instead of a sequence."""
    text = contract.replace(intake={**contract.intake.model_dump(), "sources": ["SOURCES"]}).dumps("yaml")
    return text.replace("  sources:\n  - SOURCES\n", "  sources: !!set {pip-audit report: null, advisory feed: null}\n")


def test_a_yaml_set_where_the_schema_wants_an_array_is_refused_by_load(tmp_path):
    text = _sources_as_yaml_set(LoopContract.from_document(CLEAN))
    assert isinstance(YAML(typ="safe", pure=True).load(text)["intake"]["sources"], set)  # not a JSON array
    path = tmp_path / "contract.yaml"
    path.write_text(text)
    with pytest.raises(LoopContractError, match=r"!!set is not allowed .*\(line \d+, column \d+\)"):
        LoopContract.load(path)


@pytest.mark.parametrize("text", [".5e3", "-.25E2"])
def test_a_contract_dumped_to_yaml_loads_back_with_its_text_unchanged(tmp_path, text):
    contract = LoopContract.from_document(edit(CLEAN, {"objective": text}))
    path = tmp_path / "contract.yaml"
    contract.dump(path)
    assert read_contract_document(path)["objective"] == text
    assert LoopContract.load(path) == contract


def test_a_contract_that_repeats_a_key_is_refused_in_json_as_in_yaml(tmp_path):
    first = '"destination": "Issue assigned to the security owner"'
    text = json.dumps(CLEAN, indent=2).replace(first, f'{first},\n    "destination": "nobody"')
    yaml_file = tmp_path / "contract.yaml"
    yaml_file.write_text(LoopContract.from_document(CLEAN).dumps("yaml").replace(
        "  destination: Issue assigned to the security owner\n",
        "  destination: Issue assigned to the security owner\n  destination: nobody\n"))
    with pytest.raises(LoopContractError, match="unique"):
        LoopContract.load(yaml_file)
    json_file = tmp_path / "contract.json"
    json_file.write_text(text)
    with pytest.raises(LoopContractError, match="destination"):
        LoopContract.load(json_file)


def test_a_template_with_an_empty_name_is_refused_naming_the_field():
    with pytest.raises(LoopContractError) as raised:
        LoopContract.template("")
    assert raised.value.code == "CONTRACT_INVALID"
    assert [issue.split(":")[0] for issue in raised.value.issues] == ["name"]


def test_a_contract_that_cannot_be_written_names_its_path(tmp_path):
    folder = tmp_path / "contract.json"
    folder.mkdir()
    with pytest.raises(LoopContractError) as raised:
        LoopContract.from_document(CLEAN).dump(folder)
    assert raised.value.code == "CONTRACT_UNWRITABLE" and str(folder) in raised.value.message


def test_a_contract_is_never_written_into_a_directory_that_does_not_exist(tmp_path):
    missing = tmp_path / "typo"
    with pytest.raises(LoopContractError) as raised:
        LoopContract.from_document(CLEAN).dump(missing / "contract.yaml")
    assert raised.value.code == "CONTRACT_UNWRITABLE" and f"no such directory {missing}" in raised.value.message
    assert not missing.exists()


def test_a_contract_file_over_one_mib_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "contract.json"
    text = json.dumps(edit(CLEAN, {"objective": "PAD"}))
    path.write_text(text.replace("PAD", "x" * (MAX_CONTRACT_BYTES - len(text) + 3)))  # exactly the limit
    assert read_contract_document(path)["name"] == CLEAN["name"]
    path.write_text(text.replace("PAD", "x" * (MAX_CONTRACT_BYTES - len(text) + 4)))
    with pytest.raises(LoopContractError) as raised:
        read_contract_document(path)
    assert raised.value.code == "CONTRACT_UNREADABLE"
    assert raised.value.message == (
        f"{path}: cannot read contract: it is {MAX_CONTRACT_BYTES + 1} bytes, over the 1048576 byte limit")


def test_a_json_contract_nested_too_deep_or_with_a_huge_integer_is_unreadable_naming_the_file(tmp_path):
    for text, problem in (("[" * 5000 + "]" * 5000, "nested more than 100 levels deep"),
                          ('{"name": ' + "9" * 5000 + "}", "an integer of 5000 digits, over the limit of 100")):
        path = tmp_path / "contract.json"
        path.write_text(text)
        with pytest.raises(LoopContractError) as raised:
            LoopContract.load(path)
        assert (raised.value.code, raised.value.message) == ("CONTRACT_UNREADABLE", f"{path}: {problem}")


# --- alp_nb's extension ---------------------------------------------------------------------------------------

EXTENSION = {"version": 1, "owner": "Test-infra owner (@test-infra)",
             "review": {"every_days": 90, "last_reviewed": "2026-11-20"},
             "budget": {"max_tokens": 200000, "max_cost_usd": 4, "max_concurrency": 2, "repeated_evidence_stop": 3}}


def test_a_public_contract_has_no_extension_and_exports_losing_nothing():
    contract = LoopContract.from_document(CLEAN)
    assert contract.x_alp_nb is None and not contract.extended
    assert "x_alp_nb" not in contract.to_document()
    public, dropped = contract.to_public()
    assert public == contract and dropped == ()


def test_an_extended_contract_round_trips_as_written_and_its_export_names_every_field_it_drops(tmp_path):
    document = {**CLEAN, "x_alp_nb": EXTENSION}
    contract = LoopContract.from_document(document)
    assert contract.to_document() == document and contract.extended
    assert contract.x_alp_nb.budget.max_cost_usd == 4 and isinstance(contract.x_alp_nb.budget.max_cost_usd, int)
    for suffix in (".json", ".yaml"):
        contract.dump(tmp_path / f"extended{suffix}")
        assert LoopContract.load(tmp_path / f"extended{suffix}") == contract
    public, dropped = contract.to_public()
    assert public.to_document() == CLEAN
    assert [path for path, _ in dropped] == [
        "x_alp_nb.version", "x_alp_nb.owner", "x_alp_nb.review.every_days", "x_alp_nb.review.last_reviewed",
        "x_alp_nb.budget.max_tokens", "x_alp_nb.budget.max_cost_usd", "x_alp_nb.budget.max_concurrency",
        "x_alp_nb.budget.repeated_evidence_stop"]


@pytest.mark.parametrize(("extension", "issue"), [
    (None, "x_alp_nb: Value error, write a value, or leave the key out"),
    ({"version": 2}, "x_alp_nb.version: Input should be 1"),
    ({"version": 1, "budget": {"max_tokens": None}}, "x_alp_nb.budget.max_tokens: Value error, write a value"),
    ({"version": 1, "budget": {"max_tokens": 0}}, "x_alp_nb.budget.max_tokens: Input should be greater than or equal"),
    ({"version": 1, "budget": {"max_cost_usd": "4"}}, "x_alp_nb.budget.max_cost_usd: Value error, Input should be a "
                                                      "valid number"),
    ({"version": 1, "budget": {"repeated_evidence_stop": 1}}, "x_alp_nb.budget.repeated_evidence_stop: Input should "
                                                             "be greater than or equal to 2"),
    ({"version": 1, "review": {"every_days": 30, "last_reviewed": "2026-02-30"}},
     "x_alp_nb.review.last_reviewed: Value error, day is out of range for month"),
    ({"version": 1, "review": {"every_days": 30, "last_reviewed": "next week"}},
     "x_alp_nb.review.last_reviewed: Value error, write the date as YYYY-MM-DD"),
    ({"version": 1, "tokens": 5}, "x_alp_nb.tokens: Extra inputs are not permitted"),
])
def test_a_bad_extension_is_refused_naming_its_path(extension, issue):
    with pytest.raises(LoopContractError) as refused:
        LoopContract.from_document({**CLEAN, "x_alp_nb": extension})
    assert any(line.startswith(issue) for line in refused.value.issues), refused.value.issues


def test_replacing_the_extension_with_none_drops_it():
    contract = LoopContract.from_document({**CLEAN, "x_alp_nb": EXTENSION})
    assert contract.replace(x_alp_nb=None).to_document() == CLEAN
    assert contract.replace(objective="Bump one dependency a night.").x_alp_nb == contract.x_alp_nb
