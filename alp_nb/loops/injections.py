"""The scenarios a contract is walked through before it is scheduled: the failure injections, and its own.

``FAILURE_INJECTIONS`` are the cases every contract should survive, scripted in the contract's own terms (its
gate, its item, its one external effect), never in one kind of job's, so the trace of any contract reads true
in its review; they include the seed's paths (a crash after verification and before the decision, stale input,
an owner who never answers). ``scenarios_for(contract)`` adds the scenarios only this contract has, each from
a field of its own (``derived_from``): every escalation condition (and, for one that asks for an approval, the
owner approving, denying and never answering), every disallowed action, its own retry and runtime budget, the
firing budget its extension writes (tokens, cost, the repeated-evidence stop), and every cap it writes on an effect.
``firings_for(contract)`` derives whole firings: for each cap, one item more than the cap allows, so the effect
past the cap is refused across items, as a night of the loop would meet it.

A derived scenario scripts no more than the simulator plays (``SIMULATED_ATTEMPTS_LIMIT`` attempts,
``SIMULATED_ITEMS_LIMIT`` items or effects), and one whose budget or cap reaches past that says so in its
description, naming the field.

No scenario says which outcome it expects: what should happen is the reviewer's to state (``expectations.py``).
"""

from __future__ import annotations

import re
from types import MappingProxyType

from .decision import Evidence
from .effects import EffectCap, action_kind, effect_caps, external_effects
from .extension import EXTENSION_KEY
from .injection_names import INJECTION_NAMES
from .loop_contract import LoopContract
from .scenario import (
    SIMULATED_ATTEMPTS_LIMIT,
    SIMULATED_ITEMS_LIMIT,
    Firing,
    FiringItem,
    OwnerAnswer,
    Scenario,
    ScriptedAttempt,
    attempts_possible,
)
from .words import Words


def _failed(summary: str, hypothesis: str, next_action: str) -> Evidence:
    return Evidence(summary=summary, hypothesis=hypothesis, next_action=next_action)


# Scripted in the contract's own terms (its gate, its item, its one external effect), never in one
# kind of job's (a test file, a pull request), so the trace of any contract reads true in its review.
_EFFECT = "effect:item-1"
_PASSED = Evidence(summary="gate passed: the acceptance check exited 0", proves_goal=True,
                   artifact="change and gate log attached to item-1")
_NO_AUTHORITY = Evidence(summary="the next action exited 1: permission denied", requires_authority=True,
                         blocker="the loop's credential does not grant the next action")
_NEW_FAILURES = ("the change is incomplete", "the change reaches outside its scope", "the output is malformed",
                 "a required input is missing", "a source the item needs is unavailable",
                 "the result contradicts its source", "a check ran out of time", "a format is rejected")

FAILURE_INJECTIONS: MappingProxyType[str, Scenario] = MappingProxyType({scenario.name: scenario for scenario in (
    Scenario(
        name="timeout",
        description="Every attempt hangs past its time limit: each timeout is a bounded retry with no verdict, "
                    "never a pass; when the retries run out the run stops and hands the item to the owner.",
        attempts=(ScriptedAttempt(minutes=None),),
    ),
    Scenario(
        name="crash-before-side-effect",
        description="The worker is killed before its external effect; the resumed run acts once.",
        attempts=(
            ScriptedAttempt(
                evidence=_failed("worker killed (signal 9) at 08:03:12 before its external effect",
                                 "the pass died mid-way; the checkpoint shows no effect was made",
                                 "resume from the checkpoint and make the effect once"),
                side_effect=_EFFECT, crash="before-side-effect"),
            ScriptedAttempt(evidence=_PASSED, side_effect=_EFFECT),
        ),
    ),
    Scenario(
        name="crash-after-side-effect",
        description="The worker makes its external effect, then dies before the checkpoint; the resumed run "
                    "finds the effect by its idempotency key and does not repeat it.",
        attempts=(
            ScriptedAttempt(
                evidence=_failed("worker killed (signal 9) at 08:04:40 after its external effect, "
                                 "before the checkpoint",
                                 "the effect may exist outside although state does not record it",
                                 "resume and reconcile the effect by its idempotency key before acting"),
                side_effect=_EFFECT, crash="after-side-effect"),
            ScriptedAttempt(evidence=_PASSED, side_effect=_EFFECT),
        ),
    ),
    Scenario(
        name="duplicate-item",
        description="The trigger fires twice for an item the ledger already holds: dedupe, then no-op.",
        delivered=("item-1", "item-1"),
        ledger=("item-1",),
    ),
    Scenario(
        name="broken-verifier",
        description="The gate cannot run: an unknown verdict stops the run and hands it to the owner.",
        attempts=(ScriptedAttempt(evidence=Evidence(
            summary="verifier exited 127: command not found", verifier_broken=True,
            hypothesis="the check environment lost its checker", next_action="rerun the gate")),),
    ),
    Scenario(
        name="missing-authority",
        description="The next step needs a credential the workspace does not grant: escalate, do not work around.",
        attempts=(ScriptedAttempt(evidence=_NO_AUTHORITY),),
    ),
    Scenario(
        name="ambiguous-requirement",
        description="Two sources ask for opposite fixes: a judgment call, so escalate.",
        attempts=(ScriptedAttempt(evidence=Evidence(
            summary="one source asks to keep item-1 as it is; another asks to change it", is_ambiguous=True,
            blocker="conflicting requirements need the owner's decision")),),
    ),
    Scenario(
        name="repeated-failure",
        description="The second attempt fails the same way, reworded only in line, time and path: stop.",
        attempts=(
            ScriptedAttempt(evidence=_failed(
                "gate failed at 2026-01-01T08:02:11Z: check exited 1, see /tmp/run-1/gate.log line 42",
                "the first change missed part of the item", "complete the change and rerun the gate")),
            ScriptedAttempt(evidence=_failed(
                "gate failed at 2026-01-01T08:09:40Z: check exited 1, see /tmp/run-2/gate.log line 57",
                "the gate read a stale copy of the item", "refresh the item and rerun the gate")),
        ),
    ),
    Scenario(
        name="retries-exhausted",
        description="Every attempt fails in a new way with a new hypothesis until the budget is spent.",
        attempts=tuple(
            ScriptedAttempt(evidence=_failed(f"gate failed: {failure}", f"this attempt's cause: {failure}",
                                             "remove that cause and rerun the gate"), minutes=2)
            for failure in _NEW_FAILURES
        ),
    ),
    Scenario(
        name="no-qualifying-work",
        description="The trigger fires but intake finds nothing: a no-op with a receipt, never invented work.",
        delivered=(),
    ),
    Scenario(
        name="success-on-retry",
        description="The first attempt fails with an actionable hypothesis; the retry passes the gate and "
                    "commits the contract's effect.",
        attempts=(
            ScriptedAttempt(evidence=_failed("gate failed: check exited 1 on one case of item-1",
                                             "the change handles every case but that one",
                                             "cover that case and rerun the gate")),
            ScriptedAttempt(evidence=_PASSED),
        ),
    ),
    Scenario(
        name="crash-after-verify",
        description="The gate passes and its observation is persisted, then the worker dies before the decision: "
                    "the resumed run reads the persisted evidence and decides on it, without verifying again.",
        attempts=(ScriptedAttempt(evidence=_PASSED, crash="after-verify"),),
    ),
    Scenario(
        name="stale-input",
        description="The item changes (v1 to v2) while the first attempt works on it: its passing evidence is about "
                    "v1, so it proves nothing; the run retries with a fresh intake of v2, which passes.",
        attempts=(ScriptedAttempt(evidence=_PASSED, input_changes_to="v2"), ScriptedAttempt(evidence=_PASSED)),
    ),
    Scenario(
        name="owner-not-responding",
        description="The next step needs a credential, so the item is escalated; the owner never answers, so the "
                    "escalation times out with the run's minutes and the run stops, the escalation still open.",
        attempts=(ScriptedAttempt(evidence=_NO_AUTHORITY),),
        owner_answer="never answers",
    ),
)})
"""The failure-injection cases a contract should survive before it is scheduled, by name."""
if tuple(FAILURE_INJECTIONS) != INJECTION_NAMES:
    raise ImportError("loops.injection_names.INJECTION_NAMES must name FAILURE_INJECTIONS in their order")


APPROVAL = Words("approv*", "sign-off", "sign off", "signs off", "permission", "consent")
"""An escalation condition that asks for an approval: the owner may say yes, and then the item goes on."""


def scenarios_for(contract: LoopContract) -> tuple[Scenario, ...]:
    """The failure injections, then the scenarios derived from ``contract``'s own fields."""
    return (*FAILURE_INJECTIONS.values(), *_escalations(contract), *_approvals(contract), *_disallowed(contract),
            *_budget(contract), *_firing_budget(contract), *_caps(contract))


def firings_for(contract: LoopContract) -> tuple[Firing, ...]:
    """The whole firings derived from ``contract``: for each cap it writes, one item more than the cap allows."""
    return tuple(_night_over_cap(contract, cap) for cap in effect_caps(contract))


def scenario_names(contract: LoopContract) -> tuple[str, ...]:
    """The name of every run the contract's own scenarios make: each of ``scenarios_for``, then each item of each
    derived firing (``night-cap-pull-requests/item-4``), as a review file may name them."""
    return (*(scenario.name for scenario in scenarios_for(contract)),
            *(f"{firing.name}/{entry.item}" for firing in firings_for(contract) for entry in firing.items))


def _escalations(contract: LoopContract) -> list[Scenario]:
    destination = contract.escalation.destination
    return [Scenario(
        name=f"escalation-condition-{index}",
        description=f"An attempt observes one of this contract's escalation conditions (“{condition}”): the item goes "
                    f"to {destination}.",
        attempts=(ScriptedAttempt(evidence=Evidence(summary=f"observed: {condition}", escalation_condition=condition,
                                                    blocker=condition)),),
        derived_from=f"escalation.conditions[{index - 1}]",
    ) for index, condition in enumerate(contract.escalation.conditions, 1)]


def _approvals(contract: LoopContract) -> list[Scenario]:
    """For each condition that asks for an approval, the three answers an owner can give."""
    destination = contract.escalation.destination
    outcomes: dict[OwnerAnswer, str] = {
        "approves": "the blocked step goes ahead and the item is verified again",
        "denies": "the item stops, nothing committed for it",
        "never answers": "the run waits out its minutes and stops with the escalation open",
    }
    return [Scenario(
        name=f"approval-{index}-{answer.replace(' ', '-')}",
        description=f"An attempt meets “{condition}”, so the item is escalated to {destination}, who {answer}: "
                    f"{consequence}.",
        attempts=(ScriptedAttempt(evidence=Evidence(summary=f"observed: {condition}", escalation_condition=condition,
                                                    blocker=condition)),
                  ScriptedAttempt(evidence=_PASSED)),
        owner_answer=answer,
        derived_from=f"escalation.conditions[{index - 1}]",
    ) for index, condition in enumerate(contract.escalation.conditions, 1) if APPROVAL.search(condition)
        for answer, consequence in outcomes.items()]


def _disallowed(contract: LoopContract) -> list[Scenario]:
    return [Scenario(
        name=f"disallowed-action-{index}",
        description=f"An attempt sets out to “{action}”, a disallowed action, and claims success: the action is "
                    "refused at the boundary, nothing is committed, and the item is escalated with the refusal named.",
        attempts=(ScriptedAttempt(evidence=_PASSED, proposes=action),),
        derived_from=f"workspace.disallowed_actions[{index - 1}]",
        must_refuse=action,
    ) for index, action in enumerate(contract.workspace.disallowed_actions, 1)]


def _budget(contract: LoopContract) -> list[Scenario]:
    retries, minutes = contract.budget.max_retries, contract.budget.max_runtime_minutes
    past = _past_limit(attempts_possible(contract.budget), "budget.max_retries and budget.max_runtime_minutes allow")
    failing = tuple(ScriptedAttempt(evidence=_failed(f"gate failed: {failure}", f"this attempt's cause: {failure}",
                                                     "remove that cause and rerun the gate"), minutes=1)
                    for failure in _distinct_failures(_attempts_scripted(contract)))
    return [
        Scenario(
            name="retry-budget",
            description=f"Every attempt fails in a new way: after this contract's {retries + 1} attempts "
                        f"({retries} retries) the run stops and hands the item to its owner.{past}",
            attempts=failing, derived_from="budget.max_retries"),
        Scenario(
            name="runtime-budget",
            description=f"Every attempt runs out its share of this contract's {minutes} minutes: the run stops "
                        f"once they are spent, never counting a timeout as a pass.{past}",
            attempts=(ScriptedAttempt(minutes=None),), derived_from="budget.max_runtime_minutes"),
    ]


def _firing_budget(contract: LoopContract) -> list[Scenario]:
    """The caps of the extension's firing budget, each spent by a run that fails in new ways until it runs out."""
    budget = contract.x_alp_nb.budget if contract.x_alp_nb is not None else None
    if budget is None:
        return []
    failures = _distinct_failures(_attempts_scripted(contract))
    spending = max(1, min(contract.budget.max_retries, SIMULATED_ATTEMPTS_LIMIT - 1))  # within the attempts played

    def failing(**spend: float) -> tuple[ScriptedAttempt, ...]:
        return tuple(ScriptedAttempt(evidence=_failed(f"gate failed: {failure}", f"this attempt's cause: {failure}",
                                                      "remove that cause and rerun the gate"), minutes=1, **spend)
                     for failure in failures)

    found = []
    if budget.max_tokens is not None:
        tokens = budget.max_tokens // spending + 1  # runs out in the last attempt but one, while a retry is left
        found.append(Scenario(
            name="token-budget",
            description=f"Every attempt fails in a new way and spends {tokens:,} tokens: the firing's "
                        f"{budget.max_tokens:,} tokens run out mid-attempt, and the run stops naming the budget.",
            attempts=failing(tokens=tokens), derived_from=f"{EXTENSION_KEY}.budget.max_tokens"))
    if budget.max_cost_usd is not None:
        cost = budget.max_cost_usd / spending * 1.01
        found.append(Scenario(
            name="cost-budget",
            description=f"Every attempt fails in a new way and costs ${cost:,.2f}: the firing's "
                        f"${budget.max_cost_usd:,.2f} run out mid-attempt, and the run stops naming the budget.",
            attempts=failing(cost_usd=cost), derived_from=f"{EXTENSION_KEY}.budget.max_cost_usd"))
    if budget.repeated_evidence_stop is not None:
        same = _failed("gate failed: the same check fails the same way", "one more look may find the cause",
                       "rerun the gate with more logging")
        found.append(Scenario(
            name="repeated-evidence-stop",
            description=f"Every attempt fails the same way: the run stops once the failure has been seen "
                        f"{budget.repeated_evidence_stop} times, the contract's repeated-evidence stop."
                        + _past_limit(min(budget.repeated_evidence_stop, attempts_possible(contract.budget)),
                                      f"{EXTENSION_KEY}.budget.repeated_evidence_stop asks"),
            attempts=(ScriptedAttempt(evidence=same, minutes=1),),
            derived_from=f"{EXTENSION_KEY}.budget.repeated_evidence_stop"))
    return found


def _attempts_scripted(contract: LoopContract) -> int:
    """The attempts a budget scenario scripts: those its run makes, up to those the simulator plays, so it holds
    memory for what is played, not for all the attempts a contract's retries allow."""
    return min(attempts_possible(contract.budget), SIMULATED_ATTEMPTS_LIMIT)


def _past_limit(attempts: int, allowed_by: str) -> str:
    """What a derived scenario's description adds when its run would make more ``attempts`` than the simulator
    plays: the limit, and the fields (``allowed_by``) that ask for more."""
    if attempts <= SIMULATED_ATTEMPTS_LIMIT:
        return ""
    return (f" The simulator plays {SIMULATED_ATTEMPTS_LIMIT:,} attempts of an item, its limit, fewer than "
            f"{allowed_by}, and the trace says where it stopped.")


def _caps(contract: LoopContract) -> list[Scenario]:
    return [_over_cap(cap) for cap in effect_caps(contract)]


def _over_cap(cap: EffectCap) -> Scenario:
    """One attempt that makes one effect more than ``cap`` allows, the last refused; or, for a cap past what the
    simulator plays, as many as it plays, none refused, and the description says the cap is not reached."""
    made = min(cap.limit + 1, SIMULATED_ITEMS_LIMIT)
    refused = made > cap.limit
    description = (f"An attempt passes its gate and tries to make {made} {cap.effect}, one more than this contract "
                   f"allows (“{cap.text}”): the last one is refused and named in the receipt." if refused else
                   f"An attempt passes its gate and makes {made:,} {cap.effect}: "
                   f"{_cap_past_limit(cap, 'effects of an attempt')}.")
    return Scenario(
        name=f"over-cap-{_slug(cap.effect)}", description=description,
        attempts=(ScriptedAttempt(evidence=_PASSED, extra_effects=tuple(
            f"{cap.effect} #{number}" for number in range(1, made + 1))),),
        derived_from=cap.path, must_refuse=f"{cap.effect} #{made}" if refused else None)


def _night_over_cap(contract: LoopContract, cap: EffectCap) -> Firing:
    """A firing of one item more than ``cap`` allows, each passing at once, or of as many as the simulator plays.
    When the cap counts what a success commits (the contract's first effect), the last item's success is refused and
    the item stops; otherwise each item makes one effect of the capped kind beside its success, and the last of
    those is refused."""
    effects = external_effects(contract)
    commits = bool(effects) and action_kind(effects[0][1]) == cap.effect
    delivered = min(cap.limit + 1, SIMULATED_ITEMS_LIMIT)
    items = tuple(FiringItem(item=f"item-{number}", attempts=(ScriptedAttempt(
        evidence=_PASSED, extra_effects=() if commits else (f"{cap.effect}: item-{number}",)),))
        for number in range(1, delivered + 1))
    made = (f"the first {cap.limit} are made, and the last is refused by “{cap.text}”, counted across the items"
            if delivered > cap.limit else _cap_past_limit(cap, "items of a firing"))
    return Firing(
        name=f"night-cap-{_slug(cap.effect)}",
        description=f"A firing delivers {delivered} items that each pass their gate and make their {cap.effect}: "
                    f"{made}.",
        items=items, derived_from=cap.path)


def _cap_past_limit(cap: EffectCap, played: str) -> str:
    """Why a cap past what the simulator plays is not reached: the limit, and the cap's text and field."""
    return (f"the simulator plays at most {SIMULATED_ITEMS_LIMIT:,} {played}, fewer than the {cap.limit + 1:,} it "
            f"takes to pass “{cap.text}” ({cap.path}), so each is made, none is refused, and the cap is not reached "
            "in simulation")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _distinct_failures(count: int) -> list[str]:
    """``count`` failures that differ in more than numbers, so none repeats an earlier one's signature."""
    def tag(number: int) -> str:  # a, b, ..., z, ba, bb ...: letters, which a failure signature keeps
        letters = ""
        while True:
            number, digit = divmod(number, 26)
            letters = "abcdefghijklmnopqrstuvwxyz"[digit] + letters
            if not number:
                return letters

    return [_NEW_FAILURES[index] if index < len(_NEW_FAILURES)
            else f"{_NEW_FAILURES[index % len(_NEW_FAILURES)]} (case {tag(index)})" for index in range(count)]

