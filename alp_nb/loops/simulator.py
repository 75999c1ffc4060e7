"""Walk a contract through a scripted run before it is ever scheduled: failure injection on paper.

A scenario scripts what the trigger delivers, what the ledger already holds and
what each attempt observes (or how it crashes or hangs). ``simulate`` plays it
against a contract's budget and escalation destination with the real decision
policy: intake with dedupe, then per attempt act → persist the observation →
decide → write the receipt, until a terminal outcome. Each attempt runs under a
per-attempt time limit, so a hang is a timeout that spends part of the run's
minutes: a bounded retry, never a pass. External effects go to a simulated
outside world keyed by idempotency key; each attempt first reconciles every
effect found outside but never checkpointed (a crash between an effect and its
checkpoint), so it is recorded instead of repeated, and a run that ends before
it could reconcile names that effect in its receipt.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Annotated, Literal

from pydantic import Field, model_validator

from alp_nb.base.frozen import FrozenMapping

from .decision import (
    BudgetState,
    Evidence,
    LoopState,
    Outcome,
    Record,
    Text,
    decide,
    stop_reasons,
)
from .errors import LoopContractError
from .loop_contract import LoopContract
from .receipts import Receipt, make_receipt, receipt_owner

SIMULATION_START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
"""The simulated clock's start, fixed so traces are reproducible."""


class ScriptedAttempt(Record):
    """One attempt as the scenario scripts it.

    ``minutes`` is how long it runs; ``None`` means it hangs. An attempt that would run
    past its limit (``BudgetState.attempt_minutes``) is cut there: a timeout with no
    verdict and no effect. ``side_effect`` is the idempotency key of the external effect
    it makes (a comment, a PR); ``crash`` kills the worker just before or just after it.
    """

    evidence: Evidence | None = None
    minutes: Annotated[int, Field(ge=0)] | None = 4
    side_effect: Text | None = None
    crash: Literal["before-side-effect", "after-side-effect"] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ScriptedAttempt:
        if self.minutes is not None and self.evidence is None:
            raise ValueError("an attempt that returns (minutes set) must script its evidence")
        if self.crash is not None and self.side_effect is None:
            raise ValueError("a crash around a side effect needs the effect's idempotency key (side_effect)")
        if self.crash is not None and self.evidence is not None and self.evidence.proves_goal:
            raise ValueError("a crashed attempt proves nothing: its evidence cannot prove the goal")
        return self


class Scenario(Record):
    """A scripted run: deliveries, the ledger of items already done, and the attempts in order.

    When the script runs out the last attempt repeats: an actor with nothing new keeps
    producing the same evidence. ``expected`` is the outcome under a budget that is
    not the limiting factor (at least three retries, and minutes enough for each
    attempt to run its scripted minutes within its share of them).
    """

    name: Text
    description: Text
    delivered: tuple[Text, ...] = ("item-1",)
    ledger: tuple[Text, ...] = ()
    attempts: tuple[ScriptedAttempt, ...] = ()
    expected: Outcome


class Step(Record):
    """One line of a trace: the attempt (0 = intake), what it observed, the decision and its receipt."""

    attempt: Annotated[int, Field(ge=0)]
    evidence: Evidence
    decision: Outcome
    receipt: Receipt
    retries_left: int
    minutes_left: int
    note: str = ""


class Simulation(Record):
    """A finished simulated run: its trace, terminal outcome and what reached the outside world.

    ``external_effects`` counts how often each idempotency key was applied outside; above 1 is a repeat.
    ``checkpointed_effects`` are the keys the run's state recorded; an effect outside but not
    among them is named in the final receipt.
    """

    contract_name: str
    scenario: Scenario
    steps: tuple[Step, ...]
    external_effects: FrozenMapping[int] = MappingProxyType({})
    checkpointed_effects: tuple[str, ...] = ()

    @property
    def outcome(self) -> Outcome:
        return self.steps[-1].decision

    @property
    def receipt(self) -> Receipt:
        return self.steps[-1].receipt

    @property
    def owner(self) -> str | None:
        return receipt_owner(self.receipt)

    @property
    def attempts(self) -> int:
        return sum(step.attempt > 0 for step in self.steps)


def simulate(contract: LoopContract, scenario: Scenario | str, start: datetime = SIMULATION_START) -> Simulation:
    """Run ``scenario`` (or the name of a ``FAILURE_INJECTIONS`` entry) against ``contract``.

    Ends in a terminal outcome within ``max_retries + 1`` attempts: every attempt
    spends budget, and a spent budget stops the run before it can retry.
    """
    scenario = _scenario(scenario)
    run = _Run(contract, scenario, start)
    item = next((item for item in dict.fromkeys(scenario.delivered) if item not in scenario.ledger), None)
    if item is None:
        return run.intake_found_nothing()
    if not scenario.attempts:
        raise LoopContractError("SCENARIO_EMPTY",
                                f"scenario `{scenario.name}` delivers `{item}` but scripts no attempt")
    run.state = LoopState(item=item)
    attempt, decision = 0, "retry-with-new-evidence"
    while decision == "retry-with-new-evidence":  # ends: every attempt spends budget, a spent budget never retries
        attempt += 1
        decision = run.attempt(attempt, scenario.attempts[min(attempt, len(scenario.attempts)) - 1]).decision
    return run.finish()


class _Run:
    """The mutable side of one simulation: state, budget, clock, outside world and trace so far."""

    def __init__(self, contract: LoopContract, scenario: Scenario, start: datetime) -> None:
        self.contract = contract
        self.scenario = scenario
        self.start = start
        self.state = LoopState()
        self.budget = BudgetState.of(contract.budget)
        self.world: dict[str, int] = {}
        self.steps: list[Step] = []

    def intake_found_nothing(self) -> Simulation:
        delivered = self.scenario.delivered
        skipped = [item for item in dict.fromkeys(delivered) if item in self.scenario.ledger]
        evidence = Evidence(summary=f"intake: 0 qualifying of {len(delivered)} delivered"
                                    + (f"; already in the ledger: {', '.join(skipped)}" if skipped else ""))
        self.state = LoopState(no_qualifying_work=True).observe(evidence, attempt=0)
        decision = decide(evidence, self.state, self.budget)
        query = (f"sources: {', '.join(self.contract.intake.sources)}; "
                 f"rule: {self.contract.intake.selection_rule}; delivered: {', '.join(delivered) or 'nothing'}; "
                 f"deduped against the ledger: {', '.join(skipped) or 'none'}")
        self._record(0, evidence, decision, make_receipt(decision, query=query, checkpoint_time=self._now()))
        return self.finish()

    def attempt(self, number: int, scripted: ScriptedAttempt) -> Step:
        notes = [self._reconcile()]
        limit = self.budget.attempt_minutes
        if scripted.minutes is None or scripted.minutes > limit or scripted.evidence is None:
            minutes, evidence = limit, self._timed_out(number, limit)
            notes.append("timed out: no verdict, never counted as a pass")
        else:
            minutes, evidence = scripted.minutes, scripted.evidence
            notes.append(self._side_effect(scripted))
        self.budget = self.budget.spend(minutes)
        self.state = self.state.observe(evidence, attempt=number)  # persist before decide
        decision = decide(evidence, self.state, self.budget)
        return self._record(number, evidence, decision, self._receipt(number, evidence, decision),
                            "; ".join(note for note in notes if note))

    def finish(self) -> Simulation:
        return Simulation(contract_name=self.contract.name, scenario=self.scenario, steps=tuple(self.steps),
                          external_effects=dict(self.world), checkpointed_effects=self.state.committed_effects)

    def _reconcile(self) -> str:
        """Read the idempotency record before acting: a resumed attempt records every effect that reached
        the outside world but not the checkpoint (its worker died in between), so none is made twice."""
        found = self._uncheckpointed()
        for key in found:
            self.state = self.state.commit(key)
        return "; ".join(f"effect `{key}` found outside by its idempotency key: reconciled into state"
                         for key in found)

    def _uncheckpointed(self) -> list[str]:
        return [key for key in self.world if key not in self.state.committed_effects]

    def _timed_out(self, number: int, limit: int) -> Evidence:
        """A timeout's evidence: no verdict, and what the next attempt changes (a fresh limit) to act on."""
        budget = self.budget
        return Evidence(
            summary=f"attempt {number} timed out at its {limit}-minute limit ({budget.minutes_left} of "
                    f"{budget.max_runtime_minutes} run minutes were left); no verdict",
            timed_out=True,
            hypothesis=f"timed out: the attempt hung or needs more than its {limit}-minute limit",
            next_action="run the attempt again within a fresh limit; once retries run out, stop and escalate")

    def _side_effect(self, scripted: ScriptedAttempt) -> str:
        """Apply the attempt's external effect at most once: an effect already checkpointed is not repeated."""
        key = scripted.side_effect
        if key is None:
            return ""
        if scripted.crash == "before-side-effect":
            return f"crashed before effect `{key}`: nothing reached the outside world"
        if key in self.state.committed_effects:
            return f"effect `{key}` already checkpointed: not repeated"
        self.world[key] = self.world.get(key, 0) + 1  # a count, so that a repeated effect would show
        if scripted.crash == "after-side-effect":
            return f"effect `{key}` applied, then crashed before the checkpoint"
        self.state = self.state.commit(key)
        return f"effect `{key}` applied and checkpointed"

    def _receipt(self, number: int, evidence: Evidence, decision: Outcome) -> Receipt:
        destination = self.contract.escalation.destination
        effects = f"committed effects: {', '.join(self.state.committed_effects) or 'none'}" + self._unreconciled()
        if decision == "exit-success":
            return make_receipt(decision, gate_output=evidence.summary, artifact=evidence.artifact,
                                final_state=f"`{self.state.item}` done in attempt {number}; {effects}; "
                                            f"recorded in {', '.join(self.contract.state.artifacts)}")
        if decision == "escalate":
            return make_receipt(decision, blocker=evidence.blocker, evidence=evidence.summary + self._unreconciled(),
                                destination=destination)
        if decision == "stop-with-receipt":
            return make_receipt(decision, attempts=self.budget.attempts_used,
                                reason="; ".join(stop_reasons(evidence, self.state, self.budget)),
                                residual_risk=f"`{self.state.item}` is unresolved; last evidence: {evidence.summary}; "
                                              f"{effects}",
                                owner=destination)
        return make_receipt(decision, attempt=number, hypothesis=evidence.hypothesis, next_action=evidence.next_action)

    def _unreconciled(self) -> str:
        """The effects outside that state never recorded, for a receipt: whoever takes the item next
        must reconcile them by idempotency key before acting, or make them twice."""
        found = self._uncheckpointed()
        if not found:
            return ""
        return f"; outside but never checkpointed: {', '.join(found)} (reconcile by idempotency key before acting)"

    def _record(self, number: int, evidence: Evidence, decision: Outcome, receipt: Receipt, note: str = "") -> Step:
        step = Step(attempt=number, evidence=evidence, decision=decision, receipt=receipt,
                    retries_left=self.budget.retries_left, minutes_left=self.budget.minutes_left, note=note)
        self.steps.append(step)
        return step

    def _now(self) -> datetime:
        return self.start + timedelta(minutes=self.budget.minutes_used)


def _scenario(scenario: Scenario | str) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if not isinstance(scenario, str):
        raise LoopContractError("UNKNOWN_SCENARIO",
                                f"scenario must be a Scenario or the name of a failure injection, not a "
                                f"{type(scenario).__name__}; known: {', '.join(FAILURE_INJECTIONS)}")
    if scenario not in FAILURE_INJECTIONS:
        raise LoopContractError("UNKNOWN_SCENARIO",
                                f"unknown scenario `{scenario}`; known: {', '.join(FAILURE_INJECTIONS)}")
    return FAILURE_INJECTIONS[scenario]


def _failed(summary: str, hypothesis: str, next_action: str) -> Evidence:
    return Evidence(summary=summary, hypothesis=hypothesis, next_action=next_action)


# Scripted in the contract's own terms (its gate, its item, its one external effect), never in one
# kind of job's (a test file, a pull request), so the trace of any contract reads true in its review.
_EFFECT = "effect:item-1"
_PASSED = Evidence(summary="gate passed: the acceptance check exited 0", proves_goal=True,
                   artifact="change and gate log attached to item-1")
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
        attempts=(ScriptedAttempt(evidence=Evidence(
            summary="the next action exited 1: permission denied", requires_authority=True,
            blocker="the loop's credential does not grant the next action")),),
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
        description="The first attempt fails with an actionable hypothesis; the retry passes the gate.",
        attempts=(
            ScriptedAttempt(evidence=_failed("gate failed: check exited 1 on one case of item-1",
                                             "the change handles every case but that one",
                                             "cover that case and rerun the gate")),
            ScriptedAttempt(evidence=_PASSED),
        ),
        expected="exit-success",
    ),
)})
"""The failure-injection cases a contract should survive before it is scheduled, by name."""
