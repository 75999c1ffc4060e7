"""Failure injection: each scripted case ends in its expected terminal outcome, with a receipt."""

import json
import re
from pathlib import Path

import pytest
from IPython.lib.pretty import pretty
from pydantic import ValidationError

from alp_nb.loops import simulator
from alp_nb.loops.contract import Budget, Escalation, LoopContract
from alp_nb.loops.decision import Evidence
from alp_nb.loops.errors import LoopContractError
from alp_nb.loops.simulator import FAILURE_INJECTIONS, Scenario, ScriptedAttempt, simulate

SHARED_EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "loop-contracts" / "examples"
OWNER = "Release manager on the #release channel"
REQUIRED_CASES = ("timeout", "crash-before-side-effect", "crash-after-side-effect", "duplicate-item",
                  "broken-verifier", "missing-authority", "repeated-failure", "no-qualifying-work", "success-on-retry")


def contract(max_retries: int = 3, minutes: int = 60, destination: str = OWNER) -> LoopContract:
    template = LoopContract.template("Release notes draft loop")
    return template.model_copy(update={
        "budget": Budget(max_retries=max_retries, max_runtime_minutes=minutes),
        "escalation": Escalation(conditions=("retry budget exhausted",), destination=destination),
    })


def test_the_injections_cover_the_seed_and_issue_cases():
    assert set(REQUIRED_CASES) <= set(FAILURE_INJECTIONS)


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
    assert run.outcome == FAILURE_INJECTIONS[name].expected
    assert run.receipt.outcome == run.outcome
    assert all(step.decision == "retry-with-new-evidence" for step in run.steps[:-1])


@pytest.mark.parametrize("name", ["timeout", "broken-verifier", "missing-authority", "ambiguous-requirement",
                                  "repeated-failure", "retries-exhausted"])
def test_escalate_and_stop_hand_the_item_to_the_escalation_destination(name):
    assert simulate(contract(), name).owner == OWNER


def test_a_timeout_spends_the_runtime_budget_and_never_passes():
    run = simulate(contract(minutes=25), "timeout")
    (step,) = run.steps
    assert step.minutes_left == 0 and not step.evidence.proves_goal
    assert "runtime budget spent: 25 of 25 minutes" in run.receipt.reason


def test_a_crash_before_the_side_effect_makes_it_once_on_resume():
    run = simulate(contract(), "crash-before-side-effect")
    assert [step.decision for step in run.steps] == ["retry-with-new-evidence", "exit-success"]
    assert "nothing reached the outside world" in run.steps[0].note
    assert dict(run.external_effects) == {"effect:item-1": 1}


def test_a_crash_after_the_side_effect_is_reconciled_not_repeated():
    run = simulate(contract(), "crash-after-side-effect")
    assert "crashed before the checkpoint" in run.steps[0].note
    assert "reconciled into state, not repeated" in run.steps[1].note
    assert dict(run.external_effects) == {"effect:item-1": 1}
    assert "committed effects: effect:item-1" in run.receipt.final_state


def test_a_duplicate_delivery_of_a_processed_item_is_a_noop_with_its_query():
    run = simulate(contract(), "duplicate-item")
    assert run.attempts == 0
    assert "deduped against the ledger: item-1" in run.receipt.query
    assert run.receipt.checkpoint_time.isoformat() == "2026-01-01T08:00:00+00:00"


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


def test_a_scenario_with_work_but_no_attempt_is_refused():
    empty = Scenario(name="empty", description="nothing scripted", expected="exit-success")
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
    html = run._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html
    for header in ("attempt", "evidence", "decision", "receipt", "budget left"):
        assert f"<th>{header}</th>" in html
    text = pretty(run)
    assert "missing-authority" in text and "escalate" in text and "destination: <script>" in text
    assert "<script>" not in run._repr_markdown_()


def test_a_simulation_dumps_to_json():
    dumped = simulate(contract(), "crash-after-side-effect").model_dump(mode="json")
    assert json.loads(json.dumps(dumped))["external_effects"] == {"effect:item-1": 1}


@pytest.mark.skipif(not SHARED_EXAMPLES.is_dir(), reason="../shared is not beside the repository")
@pytest.mark.parametrize("path", sorted(SHARED_EXAMPLES.glob("*.json")) if SHARED_EXAMPLES.is_dir() else [],
                         ids=lambda path: path.stem)
def test_the_shared_contracts_survive_every_injection_as_expected(path):
    real = LoopContract.load(path)
    for name, scenario in FAILURE_INJECTIONS.items():
        run = simulate(real, name)
        assert run.outcome == scenario.expected, name
        if run.outcome in ("escalate", "stop-with-receipt"):
            assert run.owner == real.escalation.destination


def test_external_effects_count_every_application_so_a_repeat_would_show(monkeypatch):
    class ForgetfulWorld(dict):
        """An outside world whose idempotency lookup is lost, so the resumed run applies the effect again."""

        def __contains__(self, key):
            return False

    opened = simulator._Run.__init__

    def with_forgetful_world(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        self.world = ForgetfulWorld()

    monkeypatch.setattr(simulator._Run, "__init__", with_forgetful_world)
    run = simulate(contract(), "crash-after-side-effect")
    assert [("applied" in step.note) for step in run.steps] == [True, True]
    assert dict(run.external_effects) == {"effect:item-1": 2}
