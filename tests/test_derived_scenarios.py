"""Scenarios derived from a contract's own words: its escalation conditions (an approval answered three ways),
disallowed actions, budget (retries, minutes, and the extension's tokens, cost and repeated-evidence stop) and
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
        *(f"escalation-condition-{number}" for number in range(1, 6)),
        "approval-2-approves", "approval-2-denies", "approval-2-never-answers",
        *(f"disallowed-action-{number}" for number in range(1, 6)),
        "retry-budget", "runtime-budget", "token-budget", "over-cap-pull-requests", "over-cap-issues"]
    assert [scenario.name for scenario in scenarios_for(FLAKY)][:len(FAILURE_INJECTIONS)] == list(FAILURE_INJECTIONS)
    assert DERIVED["escalation-condition-2"].derived_from == "escalation.conditions[1]"
    assert DERIVED["approval-2-denies"].derived_from == "escalation.conditions[1]"
    assert DERIVED["disallowed-action-1"].derived_from == "workspace.disallowed_actions[0]"
    assert DERIVED["token-budget"].derived_from == "x_alp_nb.budget.max_tokens"
    assert DERIVED["over-cap-pull-requests"].derived_from == "objective"


def test_the_critical_test_condition_escalates_to_the_test_infra_owner():
    critical = run("escalation-condition-2")
    assert (critical.outcome, critical.attempts, critical.owner) == ("escalate", 1, OWNER)
    assert critical.receipt.blocker == FLAKY.escalation.conditions[1]
    assert critical.external_effects == {} and critical.checkpointed_effects == ()


@pytest.mark.parametrize("number", [1, 3, 4, 5])
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


def test_rerun_up_to_3_times_stops_after_the_first_run_and_its_3_reruns():
    spent = run("retry-budget")
    assert (spent.outcome, spent.attempts, spent.owner) == ("stop-with-receipt", FLAKY.budget.max_retries + 1, OWNER)
    assert [step.decision for step in spent.steps] == ["retry-with-new-evidence"] * 3 + ["stop-with-receipt"]
    assert "retry budget spent: 4 of 4 attempts used" in spent.receipt.reason


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
    assert success.checkpointed_effects == ("open a quarantine pull request: item-1",)
    assert success.external_effects == {"open a quarantine pull request: item-1": 1}
    assert "committed effects: open a quarantine pull request: item-1" in success.receipt.final_state


# --- the seed's paths ---------------------------------------------------------------------------------------


def test_a_crash_after_verify_is_decided_from_the_persisted_evidence_without_verifying_again():
    crashed = run("crash-after-verify")
    assert (crashed.outcome, crashed.attempts, len(crashed.steps)) == ("exit-success", 1, 1)
    assert crashed.steps[0].evidence.proves_goal
    assert "read attempt 1's persisted observation" in crashed.steps[0].note
    assert crashed.external_effects == {"open a quarantine pull request: item-1": 1}


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
        simulation = simulate(contract, scenario, allow_lint_errors=True)  # random lists may overlap (LC010)
        proposed = [attempt.proposes for attempt in scenario.attempts if attempt.proposes is not None]
        if simulation.outcome == "exit-success":
            assert proposed == [], f"{scenario.name}: success with a disallowed action"
        assert _over_cap(simulation, contract_caps) == [], f"{scenario.name}: an effect past its cap"
        if scenario.must_refuse is not None and simulation.steps[-1].decision != "retry-with-new-evidence":
            refused_or_stopped = scenario.must_refuse in simulation.refused or simulation.outcome != "exit-success"
            assert refused_or_stopped, scenario.name


# --- an approval, three ways ------------------------------------------------------------------------------------


def test_the_owner_approving_a_critical_quarantine_lets_the_item_go_on_and_succeed():
    approved = run("approval-2-approves")
    decisions = [step.decision for step in approved.steps]
    assert decisions == ["escalate", "retry-with-new-evidence", "exit-success"]
    assert approved.steps[1].evidence.approved_by == OWNER and approved.attempts == 2
    assert approved.checkpointed_effects == ("open a quarantine pull request: item-1",)


def test_the_owner_denying_it_stops_the_item_with_nothing_committed():
    denied = run("approval-2-denies")
    assert [step.decision for step in denied.steps] == ["escalate", "stop-with-receipt"]
    assert denied.receipt.reason == f"{OWNER} denied the escalation: {FLAKY.escalation.conditions[1]}"
    assert denied.external_effects == {} and denied.owner == OWNER and denied.receipt.open_escalation is None


def test_the_owner_never_answering_stops_the_run_with_the_escalation_open():
    silent = run("approval-2-never-answers")
    assert [step.decision for step in silent.steps] == ["escalate", "stop-with-receipt"]
    assert silent.receipt.open_escalation.startswith(FLAKY.escalation.conditions[1])
    assert silent.steps[-1].minutes_left == 0


def test_only_a_condition_that_asks_for_an_approval_gets_the_three_answers():
    plain = FLAKY.replace(escalation={"conditions": ["the test fails on every rerun"], "destination": OWNER})
    assert not [scenario for scenario in scenarios_for(plain) if scenario.name.startswith("approval-")]


# --- the firing budget -----------------------------------------------------------------------------------------


def test_the_nights_token_budget_spent_mid_attempt_stops_the_run_naming_it():
    spent = run("token-budget")
    assert spent.outcome == "stop-with-receipt" and spent.attempts < FLAKY.budget.max_retries + 1
    assert spent.receipt.reason == ("token budget spent: 200,000 of 200,000 tokens of the firing used "
                                    "(x_alp_nb.budget.max_tokens)")
    assert "cut mid-attempt" in spent.steps[-1].evidence.summary and spent.external_effects == {}
    assert [hit.path for hit in spent.steps[-1].caps_hit] == ["x_alp_nb.budget.max_tokens"]


def test_a_cost_budget_and_a_repeated_evidence_stop_are_derived_when_written():
    extended = FLAKY.replace(x_alp_nb={"version": 1, "budget": {"max_cost_usd": 2.5, "repeated_evidence_stop": 3}})
    names = {scenario.name: scenario for scenario in scenarios_for(extended)}
    assert "token-budget" not in names
    cost = simulate(extended, names["cost-budget"])
    assert cost.outcome == "stop-with-receipt" and "cost budget spent: $2.50 of $2.50" in cost.receipt.reason
    repeats = simulate(extended, names["repeated-evidence-stop"])
    assert repeats.attempts == 3 and "seen 3 times, the contract's repeated-evidence stop" in repeats.receipt.reason


def test_a_public_contract_has_no_firing_budget_scenario():
    public, dropped = FLAKY.to_public()
    assert dropped and not {"token-budget", "cost-budget", "repeated-evidence-stop"} & {
        scenario.name for scenario in scenarios_for(public)}
