"""Scenarios derived from a contract's own words: its escalation conditions, disallowed actions, budget and
caps, checked one by one on the project's flaky-test contract; the seed's paths (a crash after verification,
stale input, an owner who never answers); and, as a property, that no derived scenario ever ends in success
with a disallowed action taken or past a cap."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from alp_nb.loops.effects import EFFECT_NOUNS, EffectCap, effect_caps, effect_kind
from alp_nb.loops.injections import FAILURE_INJECTIONS, scenarios_for
from alp_nb.loops.loop_contract import LoopContract
from alp_nb.loops.simulator import simulate

FLAKY = LoopContract.load(Path(__file__).resolve().parents[1] / "examples" / "contracts"
                          / "flaky-test-quarantine-loop.json")
OWNER = FLAKY.escalation.destination
DERIVED = {scenario.name: scenario for scenario in scenarios_for(FLAKY) if scenario.derived_from is not None}


def run(name: str):
    return simulate(FLAKY, name)


def test_the_flaky_contract_derives_one_scenario_per_condition_disallowed_action_budget_and_cap():
    assert list(DERIVED) == [
        "escalation-condition-1", "escalation-condition-2", "escalation-condition-3", "escalation-condition-4",
        "disallowed-action-1", "disallowed-action-2", "disallowed-action-3", "disallowed-action-4",
        "retry-budget", "runtime-budget", "over-cap-pull-requests", "over-cap-issues"]
    assert [scenario.name for scenario in scenarios_for(FLAKY)][:len(FAILURE_INJECTIONS)] == list(FAILURE_INJECTIONS)
    assert DERIVED["escalation-condition-2"].derived_from == "escalation.conditions[1]"
    assert DERIVED["disallowed-action-1"].derived_from == "workspace.disallowed_actions[0]"
    assert DERIVED["over-cap-pull-requests"].derived_from == "objective"


def test_the_more_than_5_flakes_condition_escalates_to_the_test_infra_owner():
    flakes = run("escalation-condition-2")
    assert (flakes.outcome, flakes.attempts, flakes.owner) == ("escalate", 1, OWNER)
    assert flakes.receipt.blocker == "a test flakes on main more than 5 times"
    assert flakes.external_effects == {} and flakes.checkpointed_effects == ()


@pytest.mark.parametrize("number", [1, 3, 4])
def test_every_other_escalation_condition_escalates_with_its_own_words(number):
    condition = run(f"escalation-condition-{number}")
    assert (condition.outcome, condition.owner) == ("escalate", OWNER)
    assert condition.receipt.blocker == FLAKY.escalation.conditions[number - 1]


def test_deleting_a_test_is_refused_never_committed_and_named_in_the_escalation():
    delete = run("disallowed-action-1")
    assert (delete.outcome, delete.owner) == ("escalate", OWNER)
    assert delete.refused == ("delete tests",) and delete.receipt.refused == ("delete tests",)
    assert "`delete tests` is a disallowed action" in delete.receipt.blocker
    assert "workspace.disallowed_actions[0]" in delete.receipt.blocker
    assert delete.external_effects == {} and delete.checkpointed_effects == ()
    assert "refused at the boundary" in delete.steps[-1].note


@pytest.mark.parametrize("number", [2, 3, 4])
def test_every_other_disallowed_action_is_refused_and_named(number):
    action = FLAKY.workspace.disallowed_actions[number - 1]
    refused = run(f"disallowed-action-{number}")
    assert refused.outcome == "escalate" and refused.receipt.refused == (action,)
    assert f"`{action}`" in refused.receipt.blocker and refused.external_effects == {}


def test_the_retry_budget_stops_after_the_contracts_own_three_attempts():
    spent = run("retry-budget")
    assert (spent.outcome, spent.attempts, spent.owner) == ("stop-with-receipt", FLAKY.budget.max_retries + 1, OWNER)
    assert [step.decision for step in spent.steps] == ["retry-with-new-evidence"] * 2 + ["stop-with-receipt"]
    assert "retry budget spent: 3 of 3 attempts used" in spent.receipt.reason


def test_the_runtime_budget_stops_once_the_contracts_45_minutes_are_spent_never_passing_a_timeout():
    spent = run("runtime-budget")
    assert spent.outcome == "stop-with-receipt" and spent.steps[-1].minutes_left == 0
    assert "runtime budget spent: 45 of 45 minutes used" in spent.receipt.reason
    assert all(step.evidence.timed_out and not step.evidence.proves_goal for step in spent.steps)


def test_the_fourth_pull_request_is_refused_by_the_3_pr_cap_and_named_in_the_receipt():
    over = run("over-cap-pull-requests")
    assert over.outcome == "exit-success"
    assert sorted(over.external_effects) == ["pull requests #1", "pull requests #2", "pull requests #3"]
    assert over.refused == ("pull requests #4",) and over.receipt.refused == ("pull requests #4",)
    assert "refused: the contract allows at most 3 pull requests (objective)" in over.steps[-1].note


def test_the_fourth_tracking_issue_is_refused_too():
    over = run("over-cap-issues")
    assert over.outcome == "exit-success" and over.receipt.refused == ("issues #4",)
    assert len(over.external_effects) == 3


def test_a_success_commits_the_contracts_effect():
    success = run("success-on-retry")
    assert success.outcome == "exit-success"
    assert success.checkpointed_effects == ("open a pull request: item-1",)
    assert success.external_effects == {"open a pull request: item-1": 1}
    assert "committed effects: open a pull request: item-1" in success.receipt.final_state


# --- the seed's paths ---------------------------------------------------------------------------------------


def test_a_crash_after_verify_is_decided_from_the_persisted_evidence_without_verifying_again():
    crashed = run("crash-after-verify")
    assert (crashed.outcome, crashed.attempts, len(crashed.steps)) == ("exit-success", 1, 1)
    assert crashed.steps[0].evidence.proves_goal
    assert "read attempt 1's persisted observation" in crashed.steps[0].note
    assert crashed.external_effects == {"open a pull request: item-1": 1}


def test_stale_input_proves_nothing_and_the_retry_reads_the_new_version():
    stale = run("stale-input")
    first, second = stale.steps
    assert first.evidence.proves_goal and first.evidence.input_version == "v1"
    assert first.decision == "retry-with-new-evidence" and first.receipt.input_version == "v2"
    assert "stale" in first.receipt.hypothesis and "fresh intake" in first.receipt.next_action
    assert second.decision == "exit-success" and second.evidence.input_version == "v2"
    assert stale.receipt.input_version == "v2" and "(v2)" in stale.receipt.final_state


def test_an_owner_who_never_answers_ends_the_run_with_the_escalation_still_open():
    silent = run("owner-not-responding")
    escalated, stopped = silent.steps
    assert escalated.decision == "escalate" and stopped.decision == "stop-with-receipt"
    assert stopped.minutes_left == 0 and silent.owner == OWNER
    assert silent.receipt.open_escalation == (f"the loop's credential does not grant the next action (escalated to "
                                              f"{OWNER}, no answer yet)")
    assert "got no answer: it stays open" in silent.receipt.reason


def test_every_receipt_names_the_input_version_it_was_made_against():
    for scenario in scenarios_for(FLAKY):
        simulation = simulate(FLAKY, scenario)
        if simulation.attempts:
            assert all(step.receipt.input_version for step in simulation.steps), scenario.name


# --- caps ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "cap"), [
    ("open at most 3 quarantine pull requests a night", (3, "pull requests")),
    ("open one draft pull request per run", (1, "pull requests")),
    ("post no more than two comments", (2, "comments")),
    ("5 tickets or fewer", (5, "tickets")),
    ("send a single email per run", (1, "emails")),
])
def test_a_cap_is_read_from_a_number_next_to_an_effect_word(text, cap):
    contract = FLAKY.replace(objective=text)
    found = {(each.limit, each.effect) for each in effect_caps(contract) if each.path == "objective"}
    assert found == {cap}


def test_a_number_that_counts_no_effect_is_no_cap():
    contract = FLAKY.replace(objective="Keep main green by quarantining tests that flip at least 3 times.")
    assert [cap for cap in effect_caps(contract) if cap.path == "objective"] == []


# --- the property -------------------------------------------------------------------------------------------

texts = st.text(min_size=1, max_size=24).filter(str.strip)
actions = st.one_of(texts, st.sampled_from(("delete tests", "force push", "merge the pull request", "...", "-")))
caps = st.tuples(st.integers(1, 5), st.sampled_from(sorted(EFFECT_NOUNS)))


@st.composite
def contracts(draw) -> LoopContract:
    written = draw(st.lists(caps, max_size=3))
    allowed = [f"open {draw(st.sampled_from(sorted(EFFECT_NOUNS)))}", *draw(st.lists(texts, max_size=2))]
    return FLAKY.replace(
        objective=draw(texts) + "".join(f"; at most {limit} {kind}" for limit, kind in written),
        workspace={"isolation": "fresh worktree", "allowed_actions": allowed,
                   "disallowed_actions": draw(st.lists(actions, max_size=4))},
        escalation={"conditions": draw(st.lists(texts, min_size=1, max_size=3)), "destination": draw(texts)},
        budget={"max_retries": draw(st.integers(0, 6)), "max_runtime_minutes": draw(st.integers(1, 240))},
    )


def _over_cap(simulation, contract_caps: tuple[EffectCap, ...]) -> list[str]:
    made = list(simulation.external_effects)
    return [cap.effect for cap in contract_caps if sum(effect_kind(key) == cap.effect for key in made) > cap.limit]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contract=contracts())
def test_no_derived_scenario_ends_in_success_with_a_disallowed_action_or_past_a_cap(contract):
    contract_caps = effect_caps(contract)
    for scenario in scenarios_for(contract):
        simulation = simulate(contract, scenario)
        proposed = [attempt.proposes for attempt in scenario.attempts if attempt.proposes is not None]
        if simulation.outcome == "exit-success":
            assert proposed == [], f"{scenario.name}: success with a disallowed action"
        assert _over_cap(simulation, contract_caps) == [], f"{scenario.name}: an effect past its cap"
        if scenario.must_refuse is not None and simulation.steps[-1].decision != "retry-with-new-evidence":
            refused_or_stopped = scenario.must_refuse in simulation.refused or simulation.outcome != "exit-success"
            assert refused_or_stopped, scenario.name
