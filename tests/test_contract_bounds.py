"""Every number of alp_nb's extension has a bound no real loop reaches, and nothing a contract states costs more
than what its run does: a contract from a cloned repository must not take a reviewer's machine down.

The shipped schema and the model refuse a number past its bound alike, naming its field; a firing holds memory
for the items it works, not for the concurrency it may use; a review whose next date is past the calendar's last
day is a finding, never an ``OverflowError``."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_support import alp_nb
from loop_contract_samples import edit, peak_memory

from alp_nb.loops import LoopContract, LoopContractError
from alp_nb.loops.contract_diff import diff_contracts
from alp_nb.loops.extension import extended_json_schema
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.injections import firings_for
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.simulator import simulate
from alp_nb.viz.rendering import render
from alp_nb.viz.views.packet_documents import review_packet_markdown

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "flaky-test-quarantine-loop.json"
FLAKY: dict[str, Any] = json.loads(EXAMPLE.read_text())
TODAY = date(2026, 12, 1)

BOUNDS = {
    "budget.max_concurrency": (10_000, (10_001, 10**9)),
    "budget.max_tokens": (10**12, (10**12 + 1, 10**50)),
    "budget.max_cost_usd": (1_000_000, (1_000_000.01, 1e308)),
    "budget.repeated_evidence_stop": (1_000, (1_001,)),
    "review.every_days": (3_650, (3_651, 10**50)),
}
"""Each number of ``x_alp_nb``: the largest value a contract may write, and values past it."""


def flaky(**changes: Any) -> dict[str, Any]:
    """The flaky-test contract with each ``x_alp_nb`` path (``budget.max_tokens``) set."""
    return edit(FLAKY, {f"x_alp_nb.{path}": value for path, value in changes.items()})


def shipped_schema_accepts(document: dict[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(extended_json_schema(),
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
                                           ).is_valid(document)


@pytest.mark.parametrize("path", BOUNDS)
def test_a_number_no_real_loop_reaches_is_refused_naming_its_field(path):
    bound, past = BOUNDS[path]
    at_bound = flaky(**{path: bound})
    assert LoopContract.from_document(at_bound).to_document() == at_bound
    assert shipped_schema_accepts(at_bound)
    for value in past:
        document = flaky(**{path: value})
        with pytest.raises(LoopContractError) as refused:
            LoopContract.from_document(document)
        assert refused.value.code == "CONTRACT_INVALID"
        assert [issue.split(": ", 1)[0] for issue in refused.value.issues] == [f"x_alp_nb.{path}"], value
        assert f"{bound:,}" in refused.value.issues[0]
        assert not shipped_schema_accepts(document), value


def test_a_contract_with_a_concurrency_no_real_loop_reaches_is_refused_naming_the_field(tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps(flaky(**{"budget.max_concurrency": 10**9})))
    commands = (("simulate", str(huge)), ("packet", str(huge), "-o", str(tmp_path / "packet.md")),
                ("diff", str(EXAMPLE), str(huge)))
    for command in commands:
        ran = alp_nb("contract", *command)
        assert ran.returncode == 2, (command, ran.stderr[-2000:])
        assert f"{huge}" in ran.stderr and "x_alp_nb.budget.max_concurrency" in ran.stderr, ran.stderr
    linted = alp_nb("contract", "lint", str(huge))
    assert linted.returncode == 1 and f"{huge}:x_alp_nb.budget.max_concurrency: error LC001" in linted.stdout


def test_a_simulation_holds_memory_for_what_happens_not_for_its_caps():
    def night(concurrency: int) -> Any:
        contract = LoopContract.from_document(flaky(**{"budget.max_concurrency": concurrency}))
        firing = firings_for(contract)[0]  # one item past a cap of 3 pull requests: 4 items, all at once
        return lambda: simulate_firing(contract, firing)

    assert night(4)().peak_concurrency == night(BOUNDS["budget.max_concurrency"][0])().peak_concurrency == 4
    assert peak_memory(night(BOUNDS["budget.max_concurrency"][0])) < 2 * peak_memory(night(4))

    def retries(max_retries: int) -> Any:  # 45 minutes, one a failing attempt: 45 attempts whatever the retries
        contract = LoopContract.from_document(edit(FLAKY, {"budget": {"max_retries": max_retries,
                                                                      "max_runtime_minutes": 45}}))
        return lambda: simulate(contract, "retry-budget")

    assert retries(44)().attempts == retries(100_000)().attempts == 45
    assert peak_memory(retries(100_000)) < 2 * peak_memory(retries(44))


def test_a_review_due_past_the_last_date_is_a_finding_not_a_crash(tmp_path):
    document = flaky(review={"every_days": 1, "last_reviewed": "9999-12-31"})
    contract = LoopContract.from_document(document)
    assert contract.x_alp_nb.review.due is None  # never: no calendar day comes after it

    [finding] = [finding for finding in lint_contract(contract, today=TODAY) if finding.rule == "LC019"]
    assert (finding.severity, finding.path) == ("warning", "x_alp_nb.review.last_reviewed")
    assert finding.message == ("last reviewed 9999-12-31, due every 1 days: the next review would fall after "
                               "9999-12-31, the last day a date can hold, so it never comes due")
    assert "next due never (after 9999-12-31)" in render(contract, "text")
    assert "never comes due" in review_packet_markdown(contract, today=TODAY)
    assert diff_contracts(LoopContract.load(EXAMPLE), contract, today=TODAY).changed

    path = tmp_path / "reviewed-in-9999.json"
    path.write_text(json.dumps(document))
    for command in (("lint", str(path)), ("simulate", str(path)), ("diff", str(EXAMPLE), str(path)),
                    ("packet", str(path), "-o", str(tmp_path / "packet.html"))):
        ran = alp_nb("contract", *command, *(("--today", TODAY.isoformat()) if command[0] != "simulate" else ()))
        assert "Traceback" not in ran.stderr and ran.returncode in (0, 1), (command, ran.stderr[-2000:])
