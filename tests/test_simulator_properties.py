"""The seed's closing question, as a property: whatever the actor, the crashes or the verifier do,
every run reaches a finite terminal state with a receipt and, when it did not finish, a named owner;
and every effect it made outside is either checkpointed or named in that final receipt."""

from hypothesis import HealthCheck, given, settings, strategies as st

from alp_nb.loops.decision import TERMINAL_OUTCOMES, Evidence
from alp_nb.loops.loop_contract import Budget, Escalation, LoopContract
from alp_nb.loops.receipts import RECEIPT_TYPES
from alp_nb.loops.scenario import Scenario, ScriptedAttempt
from alp_nb.loops.simulator import simulate

texts = st.text(min_size=1, max_size=30).filter(str.strip)
items = st.sampled_from(("item-1", "item-2", "item-3"))


@st.composite
def contracts(draw) -> LoopContract:
    template = LoopContract.template(draw(texts))
    return template.model_copy(update={
        "budget": Budget(max_retries=draw(st.integers(0, 6)), max_runtime_minutes=draw(st.integers(1, 120))),
        "escalation": Escalation(conditions=(draw(texts),), destination=draw(texts)),
    })


@st.composite
def evidence(draw) -> Evidence:
    proves_goal = draw(st.booleans())
    needs_human = draw(st.sampled_from(("none", "authority", "ambiguous")))
    actionable = draw(st.booleans())
    summary = draw(st.one_of(texts, st.sampled_from(("FAILED at line 12", "FAILED at line 99", "timed out"))))
    return Evidence(
        summary=summary,
        proves_goal=proves_goal,
        artifact=draw(texts) if proves_goal else None,
        requires_authority=needs_human == "authority",
        is_ambiguous=needs_human == "ambiguous",
        blocker=draw(texts) if needs_human != "none" else None,
        verifier_broken=not proves_goal and draw(st.booleans()),
        timed_out=not proves_goal and draw(st.booleans()),
        hypothesis=draw(texts) if actionable else None,
        next_action=draw(texts) if actionable else None,
    )


@st.composite
def attempts(draw) -> ScriptedAttempt:
    observed = draw(evidence())
    crash = None if observed.proves_goal else draw(st.sampled_from((None, "before-side-effect", "after-side-effect")))
    keys = st.sampled_from(("comment:1", "pr:1"))  # shared by attempts, so a resumed one can meet a crashed one's
    side_effect = draw(keys) if crash else draw(st.one_of(st.none(), keys, texts))
    return ScriptedAttempt(evidence=observed, minutes=draw(st.one_of(st.none(), st.integers(0, 40))),
                           side_effect=side_effect, crash=crash)


scenarios = st.builds(
    Scenario,
    name=texts, description=texts,
    delivered=st.lists(items, max_size=3).map(tuple),
    ledger=st.lists(items, max_size=2).map(tuple),
    attempts=st.lists(attempts(), min_size=1, max_size=10).map(tuple),
    owner_answer=st.sampled_from(("takes over", "approves", "denies", "never answers")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contract=contracts(), scenario=scenarios)
def test_every_run_ends_in_a_terminal_state_within_the_budget_with_a_receipt_and_an_owner(contract, scenario):
    run = simulate(contract, scenario, allow_lint_errors=True)  # a template's drafts: the property holds for them too
    assert run.outcome in TERMINAL_OUTCOMES and run.provisional
    carried_on = {"retry-with-new-evidence"} | ({"escalate"} if scenario.owner_answer != "takes over" else set())
    assert all(step.decision in carried_on for step in run.steps[:-1])
    assert run.attempts <= contract.budget.max_retries + 1
    assert all(step.retries_left <= contract.budget.max_retries for step in run.steps)
    assert all(isinstance(step.receipt, RECEIPT_TYPES[step.decision]) for step in run.steps)
    if run.outcome in ("escalate", "stop-with-receipt"):
        assert run.owner == contract.escalation.destination
    assert all(count == 1 for count in run.external_effects.values()), "an external effect was repeated"
    receipt_text = " ".join(str(value) for _, value in run.receipt)
    unaccounted = [key for key in run.external_effects
                   if key not in run.checkpointed_effects and key not in receipt_text]
    assert unaccounted == [], "an effect exists outside but is neither checkpointed nor named in the final receipt"
