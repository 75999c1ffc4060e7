"""Failure injection: each scripted case ends in its expected terminal outcome, with a receipt."""

import json
import re

import pytest
from loop_contract_samples import CLEAN, INJECTION_OUTCOMES as EXPECTED, SHARED_ABSENT, SHARED_EXAMPLES
from pydantic import ValidationError

from alp_nb.loops import simulator
from alp_nb.loops.decision import Evidence
from alp_nb.loops.errors import LoopContractError
from alp_nb.loops.injections import FAILURE_INJECTIONS
from alp_nb.loops.loop_contract import Budget, Escalation, LoopContract
from alp_nb.loops.scenario import Scenario, ScriptedAttempt
from alp_nb.loops.simulator import simulate
from alp_nb.viz.rendering import render

OWNER = "Release manager on the #release channel"
REQUIRED_CASES = ("timeout", "crash-before-side-effect", "crash-after-side-effect", "duplicate-item",
                  "broken-verifier", "missing-authority", "repeated-failure", "no-qualifying-work", "success-on-retry")


def contract(max_retries: int = 3, minutes: int = 60, destination: str = OWNER) -> LoopContract:
    return LoopContract.from_document(CLEAN).model_copy(update={
        "budget": Budget(max_retries=max_retries, max_runtime_minutes=minutes),
        "escalation": Escalation(conditions=("retry budget exhausted",), destination=destination),
    })


def test_the_injections_cover_the_seed_and_issue_cases():
    assert set(REQUIRED_CASES) <= set(FAILURE_INJECTIONS) == set(EXPECTED)


ONE_KIND_OF_JOB = re.compile(r"\.py\b|\btests?/|pull request|\bPR\b|comment|branch|\bpush|pagination|cursor|parser"
                             r"|\bflag\b", re.IGNORECASE)


@pytest.mark.parametrize("name", list(FAILURE_INJECTIONS))
def test_an_injection_speaks_of_the_contract_gate_item_and_effect_not_of_one_kind_of_job(name):
    """The same injections run against every contract, so their traces must read true for a docs loop
    as much as for a CI loop: no test file, pull request or branch scripted into the evidence."""
    scenario = FAILURE_INJECTIONS[name]
    scripted = [scenario.description, *scenario.delivered]
    for attempt in scenario.attempts:
        scripted += [attempt.side_effect or "", *(text for _, text in attempt.evidence or () if isinstance(text, str))]
    assert [text for text in scripted if ONE_KIND_OF_JOB.search(text)] == []


@pytest.mark.parametrize("name", list(FAILURE_INJECTIONS))
def test_each_injection_ends_in_its_expected_outcome(name):
    run = simulate(contract(), name)
    assert run.outcome == EXPECTED[name]
    assert run.receipt.outcome == run.outcome
    carried_on = {"retry-with-new-evidence"} | ({"escalate"} if run.scenario.owner_answer != "takes over" else set())
    assert all(step.decision in carried_on for step in run.steps[:-1])  # an unanswered escalation times out


@pytest.mark.parametrize("name", ["timeout", "broken-verifier", "missing-authority", "ambiguous-requirement",
                                  "repeated-failure", "retries-exhausted"])
def test_escalate_and_stop_hand_the_item_to_the_escalation_destination(name):
    assert simulate(contract(), name).owner == OWNER


def test_a_timeout_with_retries_left_is_logged_as_a_bounded_retry_before_the_run_stops():
    """Reference §7, Timeout: "Log a bounded retry; never count it as a pass; once retries run out,
    stop and escalate" (upstream: a `retry` receipt with a timeout reason, up to --max-retries)."""
    run = simulate(contract(max_retries=3, minutes=60), "timeout")
    assert run.steps[0].decision == "retry-with-new-evidence"
    assert not any(step.evidence.proves_goal for step in run.steps)
    assert run.outcome == "stop-with-receipt" and run.owner == OWNER


def test_each_timeout_spends_only_its_share_of_the_runtime_until_the_retries_run_out():
    run = simulate(contract(max_retries=3, minutes=25), "timeout")
    assert [step.minutes_left for step in run.steps] == [18, 12, 6, 0]  # 25 minutes over 4, 3, 2, 1 attempts left
    assert all(step.evidence.timed_out and "timed out" in step.note for step in run.steps)
    first = run.steps[0].receipt
    assert first.hypothesis.startswith("timed out") and "7-minute limit" in first.hypothesis
    assert "retry budget spent: 4 of 4 attempts used" in run.receipt.reason
    assert "repeats" not in run.receipt.reason  # a timeout is no verdict, so never a repeated failure


def test_an_attempt_running_past_its_limit_times_out_and_its_retry_can_still_pass():
    passed = Evidence(summary="gate passed", proves_goal=True, artifact="the change")
    slow = Scenario(name="slow-then-pass", description="the first attempt would run 50 minutes",
                    attempts=(ScriptedAttempt(evidence=passed, minutes=50, side_effect="effect:item-1"),
                              ScriptedAttempt(evidence=passed, side_effect="effect:item-1")))
    run = simulate(contract(max_retries=3, minutes=60), slow)
    assert [step.decision for step in run.steps] == ["retry-with-new-evidence", "exit-success"]
    assert run.steps[0].minutes_left == 45 and run.steps[0].evidence.timed_out
    assert dict(run.external_effects) == {"effect:item-1": 1}  # the cut attempt made no effect


def test_a_crash_before_the_side_effect_makes_it_once_on_resume():
    run = simulate(contract(), "crash-before-side-effect")
    assert [step.decision for step in run.steps] == ["retry-with-new-evidence", "exit-success"]
    assert "nothing reached the outside world" in run.steps[0].note
    assert dict(run.external_effects) == {"effect:item-1": 1}


def test_a_crash_after_the_side_effect_is_reconciled_not_repeated():
    run = simulate(contract(), "crash-after-side-effect")
    assert "crashed before the checkpoint" in run.steps[0].note
    assert "found outside by its idempotency key: reconciled into state" in run.steps[1].note
    assert "already checkpointed: not repeated" in run.steps[1].note
    assert dict(run.external_effects) == {"effect:item-1": 1}
    assert "committed effects: effect:item-1" in run.receipt.final_state


def test_a_stop_after_a_crash_after_the_side_effect_names_the_uncheckpointed_effect():
    """Seed: "Nếu process chết sau external write nhưng trước checkpoint, system cần idempotency record
    để reconcile." With no retry left the owner inherits the item; its residual risk is exactly that effect."""
    run = simulate(contract(max_retries=0), "crash-after-side-effect")
    assert run.outcome == "stop-with-receipt"
    assert dict(run.external_effects) == {"effect:item-1": 1}
    assert "effect:item-1" in run.receipt.residual_risk
    assert run.checkpointed_effects == ()


def test_a_resumed_run_reconciles_an_uncheckpointed_effect_whatever_its_next_attempt_does():
    """Seed: crash after the external write, before the checkpoint → the system reconciles by its
    idempotency record; the final state must then account for the effect that exists outside."""
    failed = Evidence(summary="worker killed after its effect", hypothesis="the pass died mid-way",
                      next_action="resume from the checkpoint")
    passed = Evidence(summary="gate passed", proves_goal=True, artifact="the change")
    scenario = Scenario(name="crash-then-pass", description="crash after the effect, then a pass with no effect",
                        attempts=(ScriptedAttempt(evidence=failed, side_effect="effect:item-1",
                                                  crash="after-side-effect"),
                                  ScriptedAttempt(evidence=passed)))
    run = simulate(contract(), scenario)
    assert run.outcome == "exit-success"
    assert dict(run.external_effects) == {"effect:item-1": 1}
    assert "effect:item-1" in run.receipt.final_state
    assert run.checkpointed_effects == ("effect:item-1",)


def test_a_duplicate_delivery_of_a_processed_item_is_a_noop_with_its_query():
    run = simulate(contract(), "duplicate-item")
    assert run.attempts == 0
    assert "deduped against the ledger: item-1" in run.receipt.query
    assert run.receipt.checkpoint_time.isoformat() == "2026-01-01T08:00:00+00:00"


def test_the_budget_left_in_a_trace_never_exceeds_the_contract_retry_budget():
    """Every step shows the budget left; a no-op under `max_retries: 3` must not show 4 retries."""
    for name in ("no-qualifying-work", "duplicate-item", "retries-exhausted"):
        run = simulate(contract(max_retries=3), name)
        assert all(step.retries_left <= 3 for step in run.steps), name
    exhausted = simulate(contract(max_retries=3), "retries-exhausted")
    assert [step.retries_left for step in exhausted.steps] == [3, 2, 1, 0]


def test_a_repeated_failure_stops_on_its_signature():
    run = simulate(contract(), "repeated-failure")
    assert run.attempts == 2
    assert "the failure repeats an earlier attempt" in run.receipt.reason


@pytest.mark.parametrize("max_retries", [0, 1, 2, 5])
def test_new_failures_stop_after_max_retries_plus_one_attempts(max_retries):
    run = simulate(contract(max_retries=max_retries), "retries-exhausted")
    assert run.attempts == max_retries + 1
    assert run.receipt.attempts == max_retries + 1
    assert "retry budget spent" in run.receipt.reason


def test_without_a_retry_budget_success_on_retry_stops_after_the_first_attempt():
    run = simulate(contract(max_retries=0), "success-on-retry")
    assert (run.outcome, run.attempts) == ("stop-with-receipt", 1)


def test_a_retry_receipt_carries_the_attempt_hypothesis_and_next_action():
    first = simulate(contract(), "success-on-retry").steps[0]
    scripted = FAILURE_INJECTIONS["success-on-retry"].attempts[0].evidence
    assert (first.receipt.attempt, first.receipt.hypothesis) == (1, scripted.hypothesis)
    assert first.receipt.next_action == scripted.next_action


def test_every_observation_is_persisted_before_its_decision(monkeypatch):
    seen = []

    def spy(evidence, state, budget):
        seen.append(state.observations[-1].evidence == evidence)
        return decide(evidence, state, budget)

    decide = simulator.decide
    monkeypatch.setattr(simulator, "decide", spy)
    for name in FAILURE_INJECTIONS:
        simulate(contract(), name)
    assert seen and all(seen)


def test_an_unknown_scenario_name_lists_the_known_ones():
    with pytest.raises(LoopContractError) as error:
        simulate(contract(), "meteor-strike")
    assert error.value.code == "UNKNOWN_SCENARIO" and "success-on-retry" in error.value.message


@pytest.mark.parametrize("scenario", [FAILURE_INJECTIONS["timeout"].model_dump(), None, 3, ["timeout"]],
                         ids=["dict", "none", "int", "list"])
def test_simulate_answers_a_scenario_of_the_wrong_type_with_a_clear_error(scenario):
    """A bad input gets a clear error naming what is wrong, never an unrelated exception type."""
    with pytest.raises(LoopContractError) as error:
        simulate(contract(), scenario)
    assert error.value.code == "UNKNOWN_SCENARIO"
    assert "scenario must be a Scenario or the name of a failure injection" in error.value.message


def test_a_scenario_with_work_but_no_attempt_is_refused():
    empty = Scenario(name="empty", description="nothing scripted")
    with pytest.raises(LoopContractError) as error:
        simulate(contract(), empty)
    assert error.value.code == "SCENARIO_EMPTY"


@pytest.mark.parametrize(("fields", "problem"), [
    ({}, "must script its evidence"),
    ({"evidence": Evidence(summary="x"), "crash": "after-side-effect"}, "idempotency key"),
    ({"evidence": Evidence(summary="x", proves_goal=True, artifact="d"), "crash": "before-side-effect",
      "side_effect": "k"}, "a crashed attempt proves nothing"),
])
def test_inconsistent_scripted_attempts_are_refused(fields, problem):
    with pytest.raises(ValidationError, match=problem):
        ScriptedAttempt(**fields)


def test_a_simulation_renders_as_its_trace_with_contract_text_escaped():
    run = simulate(contract(destination="<script>alert(1)</script>"), "missing-authority")
    html = render(run, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    for header in ("attempt", "evidence", "decision", "receipt", "budget left"):
        assert f"<th>{header}</th>" in html
    text = render(run, "text")
    assert "missing-authority" in text and "escalate" in text and "destination: <script>" in text
    assert "<script>" not in render(run, "markdown")


def test_a_simulation_dumps_to_json():
    dumped = simulate(contract(), "crash-after-side-effect").model_dump(mode="json")
    assert json.loads(json.dumps(dumped))["external_effects"] == {"effect:item-1": 1}


@pytest.mark.skipif(not SHARED_EXAMPLES.is_dir(), reason=SHARED_ABSENT)
@pytest.mark.parametrize("path", sorted(SHARED_EXAMPLES.glob("*.json")) if SHARED_EXAMPLES.is_dir() else [],
                         ids=lambda path: path.stem)
def test_the_shared_contracts_survive_every_injection_as_expected(path):
    real = LoopContract.load(path)
    for name in FAILURE_INJECTIONS:
        run = simulate(real, name)
        assert run.outcome == EXPECTED[name], name
        if run.outcome in ("escalate", "stop-with-receipt"):
            assert run.owner == real.escalation.destination


def test_external_effects_count_every_application_so_a_repeat_would_show(monkeypatch):
    monkeypatch.setattr(simulator.ItemRun, "_reconcile", lambda run: "")  # the idempotency record is lost
    run = simulate(contract(), "crash-after-side-effect")
    assert [("applied" in step.note) for step in run.steps] == [True, True]
    assert dict(run.external_effects) == {"effect:item-1": 2}
