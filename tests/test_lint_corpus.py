"""Lint on contracts a reviewer read and judged (``lint_judgments.py``): precision at least 0.9 and recall at least
0.8, every finding judged, and no heuristic firing on more than a third of the public contracts unless each of those
findings was judged true. The public contracts are read from ``../shared`` when it is there; without it the corpus
is ours alone, and the tests about the public contracts skip."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from lint_judgments import OWN, PUBLIC, Judgment
from loop_contract_samples import SHARED_ABSENT, SHARED_EXAMPLES

from alp_nb.loops.lint import RULES_BY_ID, lint_contract

ROOT = Path(__file__).resolve().parents[1]
OWN_CONTRACTS = [*sorted((ROOT / "tests" / "lint_corpus").glob("*.json")),
                 *sorted((ROOT / "examples" / "contracts").glob("*.json"))]
TODAY = date(2026, 3, 1)
PRECISION, RECALL = 0.9, 0.8


def public_contracts() -> list[Path]:
    return sorted(SHARED_EXAMPLES.glob("*.json")) if SHARED_EXAMPLES.is_dir() else []


def judged_corpus() -> list[tuple[str, dict, tuple[Judgment, ...]]]:
    """(file name, document, judgments) for each contract of the corpus present here."""
    own = [(path.name, json.loads(path.read_text()), OWN.get(path.name, ())) for path in OWN_CONTRACTS]
    public = [(path.name, json.loads(path.read_text()), PUBLIC.get(path.name, ())) for path in public_contracts()]
    return own + public


def fired(document: dict) -> set[tuple[str, str]]:
    return {(finding.rule, finding.path) for finding in lint_contract(document, today=TODAY)}


def test_every_finding_on_the_corpus_is_judged():
    unjudged = [(name, *finding) for name, document, judgments in judged_corpus()
                for finding in sorted(fired(document) - {(judgment.rule, judgment.path) for judgment in judgments})]
    assert unjudged == []


def test_every_judgment_names_a_rule_a_contract_of_the_corpus_and_a_reason():
    names = {path.name for path in OWN_CONTRACTS}
    assert set(OWN) <= names
    for judgments in (*OWN.values(), *PUBLIC.values()):
        for judgment in judgments:
            assert judgment.rule in RULES_BY_ID and judgment.reason.strip()
        assert len({(judgment.rule, judgment.path) for judgment in judgments}) == len(judgments)


def test_lint_holds_its_precision_and_recall_on_the_judged_corpus():
    true_positives = false_positives = false_negatives = 0
    for _, document, judgments in judged_corpus():
        found = fired(document)
        for judgment in judgments:
            hit = (judgment.rule, judgment.path) in found
            true_positives += hit and judgment.true
            false_positives += hit and not judgment.true
            false_negatives += not hit and judgment.true
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    print(f"lint on {len(judged_corpus())} judged contracts: precision {precision:.3f} "
          f"({true_positives} true of {true_positives + false_positives} findings), recall {recall:.3f} "
          f"({true_positives} of {true_positives + false_negatives} true problems found)")
    assert precision >= PRECISION and recall >= RECALL


def test_no_heuristic_fires_on_more_than_a_third_of_the_public_contracts_unless_judged_true():
    contracts = public_contracts()
    if not contracts:
        pytest.skip(SHARED_ABSENT)
    truth = {(path.name, judgment.rule, judgment.path): judgment.true for path in contracts
             for judgment in PUBLIC.get(path.name, ())}
    by_rule: dict[str, list[tuple[str, str]]] = {}
    for path in contracts:
        for rule, where in fired(json.loads(path.read_text())):
            if rule >= "LC100":
                by_rule.setdefault(rule, []).append((path.name, where))
    noisy = {rule: hits for rule, hits in by_rule.items()
             if len({name for name, _ in hits}) > len(contracts) / 3
             and not all(truth.get((name, rule, where)) for name, where in hits)}
    assert noisy == {}


def test_the_public_contracts_lint_without_an_error():
    contracts = public_contracts()
    if not contracts:
        pytest.skip(SHARED_ABSENT)
    assert [(path.name, finding.rule) for path in contracts
            for finding in lint_contract(json.loads(path.read_text()), today=TODAY).errors] == []
