"""The project's own example contracts: they load, lint without errors, survive every injection,
are not copies of the shared upstream fixtures, and the flaky loop's review file grades it."""

import json
from pathlib import Path

import pytest
from loop_contract_samples import INJECTION_OUTCOMES, SHARED_ABSENT, SHARED_EXAMPLES

from alp_nb.loops import Expectations, grade, simulate_firing
from alp_nb.loops.injections import FAILURE_INJECTIONS, firings_for, scenarios_for
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.loop_contract import LoopContract, read_contract_document
from alp_nb.loops.simulator import simulate

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples" / "contracts").glob("*.json"))


def test_the_project_ships_three_or_more_example_contracts():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_an_example_lints_without_errors(path):
    findings = lint_contract(read_contract_document(path))
    assert [finding for finding in findings if finding.severity == "error"] == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_an_example_survives_every_injection_as_expected(path):
    contract = LoopContract.load(path)
    outcomes = {name: simulate(contract, name).outcome for name in FAILURE_INJECTIONS}
    assert outcomes == INJECTION_OUTCOMES


def test_examples_are_not_copies_of_the_shared_fixtures():
    if not SHARED_EXAMPLES.is_dir():
        pytest.skip(SHARED_ABSENT)
    shared = [json.loads(path.read_text()) for path in SHARED_EXAMPLES.glob("*.json")]
    ours = [json.loads(path.read_text()) for path in EXAMPLES]
    shared_texts = {document[key] for document in shared for key in ("name", "objective")}
    assert not shared_texts & {document[key] for document in ours for key in ("name", "objective")}


def test_the_flaky_loops_review_file_grades_it_with_its_one_deliberate_disagreement():
    folder = EXAMPLES[0].parent
    contract = LoopContract.load(folder / "flaky-test-quarantine-loop.json")
    review = Expectations.load(folder / "flaky-test-quarantine-loop.review.yaml")
    runs = [simulate(contract, scenario) for scenario in scenarios_for(contract)]
    runs += [run for firing in firings_for(contract) for run in simulate_firing(contract, firing).runs]
    grades = grade(contract, runs, review)
    assert [grade.scenario for grade in grades.disagreements] == ["retry-budget"]
    assert grades.counted("agree") == len(review.expectations) - 1
