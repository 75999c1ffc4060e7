"""A whole firing (a night) of the flaky-test contract: several items and attempts against one set of caps and one
budget. The 4th quarantine PR of the night is refused and named, a test is rerun at most 3 times, a critical test
waits for the owner's answer, the night's token budget stops items that have not started, concurrency caps how many
items run at once, and the ledger skips what is done."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from alp_nb.loops import Evidence, Firing, FiringItem, LoopContract, LoopContractError, ScriptedAttempt
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.receipt_log import receipt_records

FLAKY = LoopContract.load(Path(__file__).resolve().parents[1] / "examples" / "contracts"
                          / "flaky-test-quarantine-loop.json")
OWNER = FLAKY.escalation.destination
CRITICAL = FLAKY.escalation.conditions[1]
PASSED = Evidence(summary="rerun log: 12 passes, 8 fails on one commit", proves_goal=True,
                  artifact="rerun log and quarantine diff")


def failed(reason: str) -> Evidence:
    return Evidence(summary=f"gate failed: {reason}", hypothesis=f"cause: {reason}", next_action="rerun with more logs",
                    gates_failed=(FLAKY.verification.gates[0],))


def flaky(item: str, tokens: int = 10_000) -> FiringItem:
    return FiringItem(item=item, attempts=(ScriptedAttempt(evidence=PASSED, minutes=5, tokens=tokens),))


def night(*items: FiringItem, ledger: tuple[str, ...] = ()) -> Firing:
    return Firing(name="night-1", description="one night of the flaky-test loop", items=items, ledger=ledger)


def test_the_fourth_pr_of_the_night_is_refused_and_named_across_items():
    played = simulate_firing(FLAKY, night(*(flaky(f"test_{number}") for number in range(1, 6))))
    outcomes = list(played.outcomes.values())
    assert outcomes == ["exit-success"] * 3 + ["stop-with-receipt"] * 2
    fourth = played.run("test_4")
    assert fourth.refused == ("open a quarantine pull request: test_4",)
    assert fourth.receipt.reason.startswith("cap reached: at most 3 pull requests (objective: “at most 3 quarantine "
                                            "pull requests")
    assert [(hit.path, hit.cap) for hit in fourth.steps[-1].caps_hit] == [("objective", "at most 3 pull requests")]
    assert sorted(played.external_effects) == [f"open a quarantine pull request: test_{n}" for n in (1, 2, 3)]
    assert played.refused == ("open a quarantine pull request: test_4", "open a quarantine pull request: test_5")


def test_the_pr_that_passes_the_cap_is_the_last_in_time_not_in_intake_order():
    slow = FiringItem(item="test_slow", attempts=(ScriptedAttempt(evidence=PASSED, minutes=30),))
    played = simulate_firing(FLAKY, night(slow, flaky("test_a"), flaky("test_b"), flaky("test_c")))
    assert played.run("test_slow").outcome == "stop-with-receipt"  # it finished fourth, two slots later
    assert [run.outcome for run in played.runs[1:]] == ["exit-success"] * 3


def test_concurrency_caps_how_many_items_run_at_once():
    played = simulate_firing(FLAKY, night(*(flaky(f"test_{number}") for number in range(1, 4))))
    assert played.peak_concurrency == 2 == FLAKY.x_alp_nb.budget.max_concurrency
    assert [(slot.item, slot.slot, slot.start_minute) for slot in played.schedule] == [
        ("test_1", 1, 0), ("test_2", 2, 0), ("test_3", 1, 5)]
    one_at_a_time = FLAKY.replace(x_alp_nb={"version": 1})
    sequential = simulate_firing(one_at_a_time, night(*(flaky(f"test_{number}") for number in range(1, 4))))
    assert sequential.peak_concurrency == 1 and [slot.start_minute for slot in sequential.schedule] == [0, 5, 10]


def test_a_test_is_rerun_at_most_3_times_then_stops_with_the_owner():
    stubborn = FiringItem(item="test_stubborn", attempts=tuple(
        ScriptedAttempt(evidence=failed(f"not reproduced, case {case}"), minutes=5) for case in "abcdef"))
    run = simulate_firing(FLAKY, night(stubborn)).run("test_stubborn")
    assert run.attempts == 4 == FLAKY.budget.max_retries + 1 and run.owner == OWNER
    assert [step.decision for step in run.steps] == ["retry-with-new-evidence"] * 3 + ["stop-with-receipt"]


@pytest.mark.parametrize(("answer", "ends"), [("approves", "exit-success"), ("denies", "stop-with-receipt"),
                                              ("never answers", "stop-with-receipt")])
def test_a_critical_test_in_the_night_waits_for_the_owners_answer(answer, ends):
    critical = FiringItem(item="test_login", owner_answer=answer, attempts=(
        ScriptedAttempt(evidence=Evidence(summary="test_login is labelled critical", escalation_condition=CRITICAL,
                                          blocker=CRITICAL)),
        ScriptedAttempt(evidence=PASSED)))
    run = simulate_firing(FLAKY, night(critical)).run("test_login")
    assert run.steps[0].decision == "escalate" and run.outcome == ends
    if answer == "approves":
        assert run.steps[1].evidence.approved_by == OWNER
        assert run.checkpointed_effects == ("open a quarantine pull request: test_login",)
    if answer == "never answers":
        assert run.receipt.open_escalation.startswith(CRITICAL)


def test_the_nights_token_budget_stops_the_items_it_runs_out_in_and_starts_no_other():
    hungry = [flaky(f"test_{number}", tokens=90_000) for number in range(1, 6)]
    played = simulate_firing(FLAKY, night(*hungry))
    assert played.tokens_used == 200_000
    for item in ("test_3", "test_4"):  # both started in the two slots freed at minute 5, before the budget ran out
        assert played.run(item).receipt.reason.startswith("token budget spent: 200,000 of 200,000 tokens")
        assert "cut mid-attempt" in played.run(item).steps[-1].evidence.summary and not played.run(item).refused
    assert played.not_started == ("test_5",)


def test_intake_skips_what_the_ledger_holds_and_what_is_delivered_twice():
    played = simulate_firing(FLAKY, night(flaky("test_1"), flaky("test_1"), flaky("test_2"), ledger=("test_2",)))
    assert played.skipped == ("test_1", "test_2") and list(played.outcomes) == ["night-1/test_1"]
    nothing = simulate_firing(FLAKY, night(flaky("test_2"), ledger=("test_2",)))
    assert [run.outcome for run in nothing.runs] == ["exit-noop"]
    assert "deduped against the ledger: test_2" in nothing.runs[0].receipt.query


def test_every_step_of_every_item_becomes_a_receipt_record_of_the_night():
    played = simulate_firing(FLAKY, night(flaky("test_1"), flaky("test_2")))
    records = receipt_records(played)
    assert [(record.firing, record.item, record.attempt, record.outcome) for record in records] == [
        ("night-1", "test_1", 1, "exit-success"), ("night-1", "test_2", 1, "exit-success")]


def test_a_derived_night_over_each_cap_refuses_the_effect_past_it():
    played = simulate_firing(FLAKY, "night-cap-pull-requests")
    assert played.firing.derived_from == "objective" and len(played.runs) == 4
    assert played.run("item-4").outcome == "stop-with-receipt" and played.run("item-4").refused


def test_an_unknown_firing_and_a_contract_with_lint_errors_are_refused():
    with pytest.raises(LoopContractError, match="unknown firing `night-99`") as unknown:
        simulate_firing(FLAKY, "night-99")
    assert unknown.value.code == "UNKNOWN_SCENARIO" and "night-cap-pull-requests" in unknown.value.message
    with pytest.raises(LoopContractError) as broken:
        simulate_firing(LoopContract.template("draft"), night(flaky("test_1")))
    assert broken.value.code == "CONTRACT_HAS_LINT_ERRORS"
    provisional = simulate_firing(LoopContract.template("draft"), night(flaky("test_1")), allow_lint_errors=True)
    assert provisional.provisional and all(run.provisional for run in provisional.runs)


attempts = st.builds(ScriptedAttempt, evidence=st.sampled_from([PASSED, failed("no flips"), failed("no repro")]),
                     minutes=st.one_of(st.none(), st.integers(0, 30)), tokens=st.integers(0, 120_000))
items = st.lists(st.builds(FiringItem, item=st.sampled_from([f"test_{n}" for n in range(8)]),
                           attempts=st.lists(attempts, min_size=1, max_size=4).map(tuple),
                           owner_answer=st.sampled_from(["takes over", "approves", "denies", "never answers"])),
                 min_size=1, max_size=8)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(delivered=items, concurrency=st.integers(1, 4))
def test_no_night_spends_past_its_budget_runs_past_its_concurrency_or_makes_an_effect_past_its_cap(delivered,
                                                                                                   concurrency):
    contract = FLAKY.replace(x_alp_nb={"version": 1, "budget": {"max_tokens": 200_000,
                                                                  "max_concurrency": concurrency}})
    played = simulate_firing(contract, night(*delivered))
    assert played.tokens_used <= 200_000 and played.peak_concurrency <= concurrency
    assert sum(key.startswith("open a quarantine pull request") for key in played.external_effects) <= 3
    assert all(count == 1 for count in played.external_effects.values())
    assert all(run.attempts <= contract.budget.max_retries + 1 for run in played.runs)
    started = {run.item for run in played.runs} | set(played.skipped) | set(played.not_started)
    assert started == {entry.item for entry in delivered}
