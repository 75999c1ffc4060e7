"""The scenarios a contract is walked through before it is scheduled: the failure injections, and its own.

``FAILURE_INJECTIONS`` are the cases every contract should survive, scripted in the contract's own terms (its
gate, its item, its one external effect), never in one kind of job's, so the trace of any contract reads true
in its review; they include the seed's paths (a crash after verification and before the decision, stale input,
an owner who never answers). ``scenarios_for(contract)`` adds the scenarios only this contract has, each from
a field of its own (``derived_from``): every escalation condition, every disallowed action, its own retry and
runtime budget, and every cap it writes on an effect.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from .decision import Evidence
from .effects import effect_caps
from .loop_contract import LoopContract
from .scenario import Scenario, ScriptedAttempt


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
        expected="stop-with-receipt",
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
        expected="exit-success",
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
        expected="exit-success",
    ),
    Scenario(
        name="duplicate-item",
        description="The trigger fires twice for an item the ledger already holds: dedupe, then no-op.",
        delivered=("item-1", "item-1"),
        ledger=("item-1",),
        expected="exit-noop",
    ),
    Scenario(
        name="broken-verifier",
        description="The gate cannot run: an unknown verdict stops the run and hands it to the owner.",
        attempts=(ScriptedAttempt(evidence=Evidence(
            summary="verifier exited 127: command not found", verifier_broken=True,
            hypothesis="the check environment lost its checker", next_action="rerun the gate")),),
        expected="stop-with-receipt",
    ),
    Scenario(
        name="missing-authority",
        description="The next step needs a credential the workspace does not grant: escalate, do not work around.",
        attempts=(ScriptedAttempt(evidence=_NO_AUTHORITY),),
        expected="escalate",
    ),
    Scenario(
        name="ambiguous-requirement",
        description="Two sources ask for opposite fixes: a judgment call, so escalate.",
        attempts=(ScriptedAttempt(evidence=Evidence(
            summary="one source asks to keep item-1 as it is; another asks to change it", is_ambiguous=True,
            blocker="conflicting requirements need the owner's decision")),),
        expected="escalate",
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
        expected="stop-with-receipt",
    ),
    Scenario(
        name="retries-exhausted",
        description="Every attempt fails in a new way with a new hypothesis until the budget is spent.",
        attempts=tuple(
            ScriptedAttempt(evidence=_failed(f"gate failed: {failure}", f"this attempt's cause: {failure}",
                                             "remove that cause and rerun the gate"), minutes=2)
            for failure in _NEW_FAILURES
        ),
        expected="stop-with-receipt",
    ),
    Scenario(
        name="no-qualifying-work",
        description="The trigger fires but intake finds nothing: a no-op with a receipt, never invented work.",
        delivered=(),
        expected="exit-noop",
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
        expected="exit-success",
    ),
    Scenario(
        name="crash-after-verify",
        description="The gate passes and its observation is persisted, then the worker dies before the decision: "
                    "the resumed run reads the persisted evidence and decides on it, without verifying again.",
        attempts=(ScriptedAttempt(evidence=_PASSED, crash="after-verify"),),
        expected="exit-success",
    ),
    Scenario(
        name="stale-input",
        description="The item changes (v1 to v2) while the first attempt works on it: its passing evidence is about "
                    "v1, so it proves nothing; the run retries with a fresh intake of v2, which passes.",
        attempts=(ScriptedAttempt(evidence=_PASSED, input_changes_to="v2"), ScriptedAttempt(evidence=_PASSED)),
        expected="exit-success",
    ),
    Scenario(
        name="owner-not-responding",
        description="The next step needs a credential, so the item is escalated; the owner never answers, so the "
                    "escalation times out with the run's minutes and the run stops, the escalation still open.",
        attempts=(ScriptedAttempt(evidence=_NO_AUTHORITY),),
        expected="stop-with-receipt",
        owner_responds=False,
    ),
)})
"""The failure-injection cases a contract should survive before it is scheduled, by name."""


def scenarios_for(contract: LoopContract) -> tuple[Scenario, ...]:
    """The failure injections, then the scenarios derived from ``contract``'s own fields."""
    return (*FAILURE_INJECTIONS.values(), *_escalations(contract), *_disallowed(contract), *_budget(contract),
            *_caps(contract))


def _escalations(contract: LoopContract) -> list[Scenario]:
    destination = contract.escalation.destination
    return [Scenario(
        name=f"escalation-condition-{index}",
        description=f"An attempt observes one of this contract's escalation conditions (“{condition}”): the item goes "
                    f"to {destination}.",
        attempts=(ScriptedAttempt(evidence=Evidence(summary=f"observed: {condition}", escalation_condition=condition,
                                                    blocker=condition)),),
        expected="escalate",
        derived_from=f"escalation.conditions[{index - 1}]",
    ) for index, condition in enumerate(contract.escalation.conditions, 1)]


def _disallowed(contract: LoopContract) -> list[Scenario]:
    return [Scenario(
        name=f"disallowed-action-{index}",
        description=f"An attempt sets out to “{action}”, a disallowed action, and claims success: the action is "
                    "refused at the boundary, nothing is committed, and the item is escalated with the refusal named.",
        attempts=(ScriptedAttempt(evidence=_PASSED, proposes=action),),
        expected="escalate",
        derived_from=f"workspace.disallowed_actions[{index - 1}]",
        must_refuse=action,
    ) for index, action in enumerate(contract.workspace.disallowed_actions, 1)]


def _budget(contract: LoopContract) -> list[Scenario]:
    retries, minutes = contract.budget.max_retries, contract.budget.max_runtime_minutes
    failing = tuple(ScriptedAttempt(evidence=_failed(f"gate failed: {failure}", f"this attempt's cause: {failure}",
                                                     "remove that cause and rerun the gate"), minutes=1)
                    for failure in _distinct_failures(retries + 1))
    return [
        Scenario(
            name="retry-budget",
            description=f"Every attempt fails in a new way: after this contract's {retries + 1} attempts "
                        f"({retries} retries) the run stops and hands the item to its owner.",
            attempts=failing, expected="stop-with-receipt", derived_from="budget.max_retries"),
        Scenario(
            name="runtime-budget",
            description=f"Every attempt runs out its share of this contract's {minutes} minutes: the run stops "
                        "once they are spent, never counting a timeout as a pass.",
            attempts=(ScriptedAttempt(minutes=None),), expected="stop-with-receipt",
            derived_from="budget.max_runtime_minutes"),
    ]


def _caps(contract: LoopContract) -> list[Scenario]:
    return [Scenario(
        name=f"over-cap-{re.sub(r'[^a-z0-9]+', '-', cap.effect.lower()).strip('-')}",
        description=f"An attempt passes its gate and tries to make {cap.limit + 1} {cap.effect}, one more than this "
                    f"contract allows (“{cap.text}”): the last one is refused and named in the receipt.",
        attempts=(ScriptedAttempt(evidence=_PASSED, extra_effects=tuple(
            f"{cap.effect} #{number}" for number in range(1, cap.limit + 2))),),
        expected="exit-success",
        derived_from=cap.path,
        must_refuse=f"{cap.effect} #{cap.limit + 1}",
    ) for cap in effect_caps(contract)]


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

