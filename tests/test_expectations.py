"""The reviewer grades, not the simulator: a review file (YAML or JSON) read strictly, each simulation graded agree,
disagree (naming what differs) or not stated, disagreements first, and a review that does not fit the contract
refused naming the key."""

from __future__ import annotations

import json
import os

import pytest
from loop_contract_samples import CLEAN

from alp_nb.loops import Expectations, LoopContract, LoopContractError, grade, scenarios_for, simulate

CONTRACT = LoopContract.from_document(CLEAN)
OWNER = CONTRACT.escalation.destination
RUNS = [simulate(CONTRACT, name) for name in ("timeout", "missing-authority", "duplicate-item")]


def review(**expectations: dict) -> Expectations:
    return Expectations.from_document({"contract": CONTRACT.name, "expectations": expectations})


def test_nobody_stating_an_expectation_reads_not_stated_for_every_run():
    grades = grade(CONTRACT, RUNS, None)
    assert [each.verdict for each in grades] == ["not stated"] * 3
    assert grades.tally == "0 disagree, 0 agree, 3 not stated"


def test_a_stated_outcome_and_owner_agree_or_disagree_naming_what_differs():
    grades = grade(CONTRACT, RUNS, review(
        timeout={"outcome": "escalate", "signed_by": "Ana (operator)"},
        **{"missing-authority": {"outcome": "escalate", "owner": "The platform pager", "signed_by": "Ben"},
           "duplicate-item": {"outcome": "exit-noop", "signed_by": "Cy"}}))
    assert [(each.scenario, each.verdict) for each in grades] == [
        ("timeout", "disagree"), ("missing-authority", "disagree"), ("duplicate-item", "agree")]
    assert grades[0].differences == ("expected escalate, the run ended stop-with-receipt",)
    assert grades[1].differences == (f"expected the item with The platform pager, it is with {OWNER}",)
    assert len(grades.disagreements) == 2


def test_an_owner_matches_however_it_is_spaced_or_cased():
    (agreed,) = grade(CONTRACT, RUNS[1:2], review(**{"missing-authority": {
        "outcome": "escalate", "owner": f"  {OWNER.upper()} ", "signed_by": "Ben"}}))
    assert agreed.verdict == "agree"


@pytest.mark.parametrize(("suffix", "text"), [
    (".yaml", "contract: {name}\nexpectations:\n  timeout:\n    outcome: stop-with-receipt\n    signed_by: Ana\n"),
    (".json", json.dumps({"contract": "{name}", "expectations": {"timeout": {"outcome": "stop-with-receipt",
                                                                              "signed_by": "Ana"}}})),
])
def test_a_review_file_loads_from_yaml_or_json(tmp_path, suffix, text):
    path = tmp_path / f"review{suffix}"
    path.write_text(text.replace("{name}", CONTRACT.name))
    loaded = Expectations.load(path)
    assert loaded.expectations["timeout"].signed_by == "Ana"
    assert grade(CONTRACT, RUNS[:1], loaded)[0].verdict == "agree"


@pytest.mark.parametrize(("text", "problem"), [
    ("contract: x\nexpectations:\n  timeout: {outcome: done, signed_by: Ana}\n", "expectations.timeout.outcome"),
    ("contract: x\nexpectations:\n  timeout: {outcome: escalate}\n", "expectations.timeout.signed_by: Field required"),
    ("contract: x\nexpectations:\n  timeout: {outcome: escalate, signed_by: Ana, when: always}\n",
     "expectations.timeout.when: Extra inputs are not permitted"),
    ("contract: x\n", "expectations: Field required"),
    ("contract: x\nexpectations:\n  a: {outcome: escalate, signed_by: A}\n  a: {outcome: escalate, signed_by: B}\n",
     "duplicate"),
    ("contract: &a x\nexpectations: *a\n", "Alias resolution is disabled (line 2"),
])
def test_a_bad_review_file_is_refused_naming_the_file_and_the_key_or_line(tmp_path, text, problem):
    path = tmp_path / "review.yaml"
    path.write_text(text)
    with pytest.raises(LoopContractError) as refused:
        Expectations.load(path)
    assert refused.value.code == "REVIEW_INVALID" and str(path) in refused.value.message
    assert problem in refused.value.message


def test_a_review_file_is_read_as_untrusted_input(tmp_path):
    os.mkfifo(tmp_path / "fifo.yaml")
    with pytest.raises(LoopContractError, match="not a regular file"):
        Expectations.load(tmp_path / "fifo.yaml")
    with pytest.raises(LoopContractError, match=r"ends in \.json, \.yaml or \.yml"):
        Expectations.load(tmp_path / "review.txt")
    (tmp_path / "nan.json").write_text('{"contract": NaN}')
    with pytest.raises(LoopContractError, match=r"nan\.json"):
        Expectations.load(tmp_path / "nan.json")


def test_a_review_of_another_contract_or_of_a_scenario_the_contract_lacks_is_refused():
    with pytest.raises(LoopContractError) as other:
        grade(CONTRACT, RUNS, Expectations.from_document({"contract": "Another loop", "expectations": {}}))
    assert other.value.issues[0] == f"contract: the review is about `Another loop`, not `{CONTRACT.name}`"
    with pytest.raises(LoopContractError) as typo:
        grade(CONTRACT, RUNS, review(**{"time-out": {"outcome": "escalate", "signed_by": "Ana"}}))
    assert typo.value.issues[0] == 'expectations["time-out"]: the contract has no such scenario'
    assert "timeout" in typo.value.issues[-1]


def test_an_expectation_for_a_scenario_not_run_this_time_is_kept_quiet_when_the_contract_has_it():
    known = [scenario.name for scenario in scenarios_for(CONTRACT)]
    grades = grade(CONTRACT, RUNS[:1], review(**{"retry-budget": {"outcome": "escalate", "signed_by": "Ana"}}), known)
    assert [each.verdict for each in grades] == ["not stated"]


@pytest.mark.parametrize(("content", "problem"), [
    (b'{"contract": ' + b"[" * 200 + b"]" * 200 + b"}", "nested"),
    (b"\xff\xfe binary", "not UTF-8"),
    (b'{"contract": "x", "expectations": {}, "contract": "y"}', "repeated key"),
    (b'{"contract": 1' + b"0" * 200 + b"}", "digits"),
])
def test_a_hostile_review_file_is_refused_in_one_clear_error(tmp_path, content, problem):
    path = tmp_path / "review.json"
    path.write_bytes(content)
    with pytest.raises(LoopContractError) as refused:
        Expectations.load(path)
    assert refused.value.code == "REVIEW_INVALID" and str(path) in refused.value.message
    assert problem in refused.value.message


def test_a_review_file_over_one_mib_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "review.yaml"
    path.write_text("contract: x\n" + "#" * (1 << 20))
    with pytest.raises(LoopContractError, match="cannot read review file"):
        Expectations.load(path)
