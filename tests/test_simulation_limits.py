"""A simulation is bounded by the simulator's limits, never by what a contract allows: the public schema bounds
neither ``budget.max_retries`` nor ``budget.max_runtime_minutes``, and a cap's text may write "at most 999999", so a
contract from a cloned repository could otherwise script a billion attempts or a million items on a reviewer's
machine. Past a limit, the simulation plays up to it and says where it stopped, in the trace, the description and
lint, instead of hanging or passing off a part for the whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import alp_nb
from loop_contract_samples import edit, peak_memory
from pydantic import ValidationError

from alp_nb.loops import Firing, LoopContract
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.injections import firings_for, scenarios_for
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.scenario import SIMULATED_ATTEMPTS_LIMIT, SIMULATED_ITEMS_LIMIT
from alp_nb.loops.simulator import simulate
from alp_nb.viz.views.packet_documents import review_packet_markdown

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "flaky-test-quarantine-loop.json"
FLAKY: dict[str, Any] = json.loads(EXAMPLE.read_text())
HUGE = edit(FLAKY, {"budget": {"max_retries": 10**9, "max_runtime_minutes": 10**9}})
"""A budget no loop has: a billion retries and a billion minutes, which the public schema accepts."""
STOPPED = f"the simulation stopped here, at the simulator's limit of {SIMULATED_ATTEMPTS_LIMIT:,} attempts an item"


def budget(retries: int, minutes: int) -> LoopContract:
    return LoopContract.from_document(edit(FLAKY, {"budget": {"max_retries": retries, "max_runtime_minutes": minutes}}))


def capped(limit: int) -> LoopContract:
    """The flaky-test contract with its cap of quarantine pull requests written as ``limit``."""
    return LoopContract.from_document(edit(FLAKY, {"objective": FLAKY["objective"].replace(
        "at most 3 quarantine", f"at most {limit} quarantine")}))


def test_a_retry_budget_past_the_simulators_limit_is_simulated_to_the_limit_and_said(tmp_path):
    contract = LoopContract.from_document(HUGE)
    retried = simulate(contract, "retry-budget")
    assert retried.attempts == SIMULATED_ATTEMPTS_LIMIT and retried.outcome == "retry-with-new-evidence"
    left = 10**9 - SIMULATED_ATTEMPTS_LIMIT
    assert retried.truncated == (f"{STOPPED}: budget.max_retries leaves {left + 1:,} retries and "
                                 f"budget.max_runtime_minutes {left:,} minutes, so the run would go on; it is not "
                                 f"simulated past attempt {SIMULATED_ATTEMPTS_LIMIT:,}")
    assert retried.steps[-1].note.endswith(retried.truncated)
    assert f"The simulator plays {SIMULATED_ATTEMPTS_LIMIT:,} attempts of an item" in retried.scenario.description
    for name in ("runtime-budget", "timeout"):  # a hung attempt too: one minute each, a billion of them
        hung = simulate(contract, name)
        assert hung.attempts == SIMULATED_ATTEMPTS_LIMIT and hung.truncated.startswith(STOPPED), name
    tokens = simulate(contract, "token-budget")  # scripted to run out within what the simulator plays
    assert tokens.outcome == "stop-with-receipt" and tokens.truncated is None
    assert "x_alp_nb.budget.max_tokens" in [hit.path for hit in tokens.steps[-1].caps_hit]
    assert simulate(budget(10, 45), "retry-budget").truncated is None
    stubborn = LoopContract.from_document(edit(HUGE, {"x_alp_nb.budget.repeated_evidence_stop": 1_000}))
    repeated = simulate(stubborn, "repeated-evidence-stop")
    assert repeated.attempts == SIMULATED_ATTEMPTS_LIMIT and repeated.truncated.startswith(STOPPED)
    assert "fewer than x_alp_nb.budget.repeated_evidence_stop asks" in repeated.scenario.description

    [lc018] = [finding for finding in lint_contract(contract) if finding.path == "budget.max_retries"]
    assert lc018.rule == "LC018" and f"the simulator plays at most {SIMULATED_ATTEMPTS_LIMIT:,}" in lc018.message
    assert STOPPED in review_packet_markdown(contract)

    ten = budget(10, 10**9)
    assert (peak_memory(lambda: simulate(contract, "retry-budget"))
            < 10 * peak_memory(lambda: simulate(ten, "retry-budget")))

    huge = tmp_path / "huge.json"
    huge.write_text(json.dumps(HUGE))
    packet = tmp_path / "packet.md"
    for command, code in ((("simulate", str(huge)), 0), (("packet", str(huge), "-o", str(packet)), 0),
                          (("diff", str(EXAMPLE), str(huge)), 1)):
        ran = alp_nb("contract", *command)
        assert ran.returncode == code and "Traceback" not in ran.stderr, (command, ran.stderr[-2000:])
    assert STOPPED in alp_nb("contract", "simulate", str(huge), "--scenario", "timeout").stdout
    assert STOPPED in packet.read_text()


def test_a_textual_cap_past_the_simulators_limit_derives_a_firing_bounded_by_the_limit_and_said(tmp_path):
    contract = capped(999_999)
    [night] = [firing for firing in firings_for(contract) if firing.name == "night-cap-pull-requests"]
    assert len(night.items) == SIMULATED_ITEMS_LIMIT
    said = (f"the simulator plays at most {SIMULATED_ITEMS_LIMIT:,} items of a firing, fewer than the 1,000,000 it "
            "takes to pass “at most 999999 quarantine pull requests” (objective)")
    assert said in night.description
    played = simulate_firing(contract, night)
    assert set(played.outcomes.values()) == {"exit-success"} and played.refused == ()
    assert len(played.runs) == SIMULATED_ITEMS_LIMIT
    too_many = rf"items\n  Tuple should have at most {SIMULATED_ITEMS_LIMIT} items"  # a firing scripted by hand too
    with pytest.raises(ValidationError, match=too_many):
        Firing(name="night-1", description="one item more than the simulator plays", items=night.items * 2)

    [over] = [scenario for scenario in scenarios_for(contract) if scenario.name == "over-cap-pull-requests"]
    assert len(over.attempts[0].extra_effects) == SIMULATED_ITEMS_LIMIT and over.must_refuse is None
    assert f"the simulator plays at most {SIMULATED_ITEMS_LIMIT:,} effects of an attempt" in over.description

    at_the_limit = capped(SIMULATED_ITEMS_LIMIT - 1)  # one item past the cap: every item the simulator plays
    assert len(firings_for(at_the_limit)[0].items) == SIMULATED_ITEMS_LIMIT
    assert simulate_firing(at_the_limit, "night-cap-pull-requests").refused[-1].endswith(
        f"item-{SIMULATED_ITEMS_LIMIT}")
    assert (peak_memory(lambda: simulate_firing(contract, "night-cap-pull-requests"))
            < 2 * peak_memory(lambda: simulate_firing(at_the_limit, "night-cap-pull-requests")))

    path = tmp_path / "capped.json"
    path.write_text(json.dumps(contract.to_document()))
    ran = alp_nb("contract", "simulate", str(path), "--scenario", "night-cap-pull-requests")
    assert ran.returncode == 0 and said in ran.stdout, ran.stderr[-2000:]
