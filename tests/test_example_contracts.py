"""The project's own example contracts: they load, lint without errors, survive every injection,
and are not copies of the shared upstream fixtures."""

import json
from pathlib import Path

import pytest
from loop_contract_samples import SHARED_ABSENT, SHARED_EXAMPLES

from alp_nb.loops.injections import FAILURE_INJECTIONS
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
    assert outcomes == {name: scenario.expected for name, scenario in FAILURE_INJECTIONS.items()}


def test_examples_are_not_copies_of_the_shared_fixtures():
    if not SHARED_EXAMPLES.is_dir():
        pytest.skip(SHARED_ABSENT)
    shared = [json.loads(path.read_text()) for path in SHARED_EXAMPLES.glob("*.json")]
    ours = [json.loads(path.read_text()) for path in EXAMPLES]
    shared_texts = {document[key] for document in shared for key in ("name", "objective")}
    assert not shared_texts & {document[key] for document in ours for key in ("name", "objective")}
