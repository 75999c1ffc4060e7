"""The decision policy: the seed's five outcomes, in the seed's order of precedence."""

from itertools import combinations

import pytest
from pydantic import ValidationError

from alp_nb.loops.decision import OUTCOMES, BudgetState, Evidence, LoopState, decide, stop_reasons
from alp_nb.loops.errors import LoopContractError

ACTIONABLE = {"summary": "FAILED test_parse: ValueError", "hypothesis": "dates are read month-first",
              "next_action": "parse with an explicit format"}

# Each outcome's condition, as changes to the evidence, the state and the budget that make it hold.
CONDITIONS = {
    "exit-success": ({"proves_goal": True, "artifact": "diff"}, {}, {}),
    "exit-noop": ({}, {"no_qualifying_work": True}, {}),
    "escalate": ({"requires_authority": True, "blocker": "no write token"}, {}, {}),
    "stop-with-receipt": ({}, {}, {"attempts_used": 3}),
    "retry-with-new-evidence": ({}, {}, {}),
}


def _decide(evidence_fields=None, state_fields=None, budget_fields=None, earlier=()):
    evidence = Evidence(**{**ACTIONABLE, **(evidence_fields or {})})
    state = LoopState(**(state_fields or {}))
    for attempt, summary in enumerate(earlier, start=1):
        state = state.observe(Evidence(**{**ACTIONABLE, "summary": summary}), attempt)
    state = state.observe(evidence, attempt=len(earlier) + 1)
    budget = BudgetState(max_retries=2, max_runtime_minutes=30, **{"attempts_used": 1, **(budget_fields or {})})
    return decide(evidence, state, budget)


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_each_outcome_follows_from_its_condition_alone(outcome):
    assert _decide(*CONDITIONS[outcome]) == outcome


@pytest.mark.parametrize(("earlier", "later"), list(combinations(OUTCOMES, 2)),
                         ids=lambda outcome: outcome)
def test_an_earlier_outcome_wins_over_every_later_one(earlier, later):
    both = [{**CONDITIONS[earlier][part], **CONDITIONS[later][part]} for part in range(3)]
    assert _decide(*both) == earlier


@pytest.mark.parametrize(("evidence_fields", "budget_fields", "earlier", "reason"), [
    ({}, {"attempts_used": 3}, (), "retry budget spent: 3 of 3 attempts used"),
    ({}, {"minutes_used": 30}, (), "runtime budget spent: 30 of 30 minutes used"),
    ({"summary": "FAILED test_parse at line 88: ValueError"}, {}, ("FAILED test_parse at line 12: ValueError",),
     "the failure repeats an earlier attempt"),
    ({"verifier_broken": True}, {}, (), "the verifier is broken"),
    ({"hypothesis": None}, {}, (), "no actionable hypothesis"),
    ({"next_action": None}, {}, (), "no actionable hypothesis"),
], ids=["retries", "minutes", "repeated-failure", "broken-verifier", "no-hypothesis", "no-next-action"])
def test_each_stop_reason_stops_instead_of_retrying(evidence_fields, budget_fields, earlier, reason):
    assert _decide(evidence_fields, {}, budget_fields, earlier) == "stop-with-receipt"
    evidence = Evidence(**{**ACTIONABLE, **evidence_fields})
    state = LoopState()
    for attempt, summary in enumerate(earlier, start=1):
        state = state.observe(Evidence(summary=summary), attempt)
    state = state.observe(evidence, len(earlier) + 1)
    budget = BudgetState(max_retries=2, max_runtime_minutes=30, **{"attempts_used": 1, **budget_fields})
    assert any(reason in text for text in stop_reasons(evidence, state, budget))


def test_a_new_failure_with_budget_left_retries():
    assert _decide({"summary": "FAILED test_parse: KeyError"}, {}, {}, ("FAILED test_parse: ValueError",)) \
        == "retry-with-new-evidence"


def test_a_timeout_is_never_a_repeated_failure_so_only_the_budget_stops_it():
    timed_out = {"summary": "attempt timed out at its limit; no verdict", "timed_out": True}
    earlier = Evidence(**{**ACTIONABLE, **timed_out})
    evidence = Evidence(**{**ACTIONABLE, **timed_out})
    state = LoopState().observe(earlier, 1).observe(evidence, 2)
    budget = BudgetState(max_retries=2, max_runtime_minutes=30, attempts_used=2)
    assert evidence.signature is None and not state.repeats(evidence)
    assert decide(evidence, state, budget) == "retry-with-new-evidence"
    assert decide(evidence, state, budget.spend(1)) == "stop-with-receipt"


@pytest.mark.parametrize("attempts_used", range(5))
def test_the_retries_left_never_exceed_max_retries_and_the_first_attempt_is_not_one(attempts_used):
    budget = BudgetState(max_retries=3, max_runtime_minutes=30, attempts_used=attempts_used)
    assert budget.retries_left == min(3, 4 - attempts_used)
    assert budget.exhausted == (attempts_used == 4)


@pytest.mark.parametrize(("minutes_used", "attempts_used", "limit"), [(0, 0, 8), (8, 1, 8), (29, 3, 1), (0, 3, 30)])
def test_an_attempt_may_run_its_share_of_the_minutes_left(minutes_used, attempts_used, limit):
    budget = BudgetState(max_retries=3, max_runtime_minutes=30, minutes_used=minutes_used,
                         attempts_used=attempts_used)
    assert budget.attempt_minutes == limit


def test_ambiguity_escalates_like_missing_authority():
    assert _decide({"is_ambiguous": True, "blocker": "two owners disagree"}) == "escalate"


def test_decide_refuses_evidence_not_yet_persisted():
    evidence = Evidence(**ACTIONABLE)
    with pytest.raises(LoopContractError) as error:
        decide(evidence, LoopState(), BudgetState(max_retries=1, max_runtime_minutes=5))
    assert error.value.code == "DECIDE_BEFORE_PERSIST"


def test_a_zero_retry_budget_allows_exactly_one_attempt():
    budget = BudgetState(max_retries=0, max_runtime_minutes=10)
    assert not budget.exhausted
    assert budget.spend(1).exhausted and budget.spend(1).retries_left == 0


@pytest.mark.parametrize(("fields", "problem"), [
    ({"proves_goal": True}, "names its artifact"),
    ({"proves_goal": True, "artifact": "diff", "verifier_broken": True}, "a broken verifier proves nothing"),
    ({"proves_goal": True, "artifact": "diff", "timed_out": True}, "a timeout is no verdict, never a pass"),
    ({"requires_authority": True}, "names its blocker"),
    ({"is_ambiguous": True}, "names its blocker"),
    ({"summary": "   "}, "summary"),
])
def test_inconsistent_evidence_is_refused(fields, problem):
    with pytest.raises(ValidationError, match=problem):
        Evidence(**{"summary": "observed", **fields})
