"""Walk a contract through a scripted run before it is ever scheduled: failure injection on paper.

A scenario scripts what the trigger delivers, what the ledger already holds and
what each attempt observes (or how it crashes or hangs). ``simulate`` plays it
against the contract with the real decision policy: intake with dedupe, then per
attempt act → persist the observation → decide → write the receipt, until a
terminal outcome. Each attempt runs under a per-attempt time limit, so a hang is
a timeout that spends part of the run's minutes: a bounded retry, never a pass.

The contract's own words bound what an attempt may do. An action it lists as
disallowed is refused at the boundary (the attempt's claim counts for nothing and
the item is escalated, the refusal named); an effect past a cap it writes ("at
most 3 pull requests") is refused and named; a success commits the contract's
effect. External effects go to a simulated outside world keyed by idempotency
key; each attempt first reconciles every effect found outside but never
checkpointed (a crash between an effect and its checkpoint), so it is recorded
instead of repeated, and a run that ends before it could reconcile names that
effect in its receipt. Every observation carries the input version it was made
against, so evidence about an item that changed meanwhile is stale; an
escalation nobody answers times out with the run's minutes and ends it, still
open.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Annotated

from pydantic import Field

from alp_nb.base.frozen import FrozenMapping

from .decision import BudgetState, Evidence, LoopState, Outcome, Record, decide, stop_reasons
from .effects import EffectCap, effect_caps, effect_kind, external_effects
from .errors import LoopContractError
from .injections import FAILURE_INJECTIONS, scenarios_for
from .loop_contract import LoopContract, normalized
from .receipts import Receipt, make_receipt, receipt_owner
from .scenario import Scenario, ScriptedAttempt

SIMULATION_START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
"""The simulated clock's start, fixed so traces are reproducible."""


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
    among them is named in the final receipt. ``refused`` lists what the run refused at its boundary
    (a disallowed action, an effect past a cap), in order.
    """

    contract_name: str
    scenario: Scenario
    steps: tuple[Step, ...]
    external_effects: FrozenMapping[int] = MappingProxyType({})
    checkpointed_effects: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()

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
        return len({step.attempt for step in self.steps if step.attempt > 0})

    @property
    def as_expected(self) -> bool:
        """The scenario's expected outcome, and the refusal it expects named in the last receipt."""
        refused = getattr(self.receipt, "refused", ())
        return self.outcome == self.scenario.expected and (
            self.scenario.must_refuse is None or self.scenario.must_refuse in refused)


def simulate(contract: LoopContract, scenario: Scenario | str, start: datetime = SIMULATION_START) -> Simulation:
    """Run ``scenario`` against ``contract``: a ``Scenario``, or the name of one of ``scenarios_for(contract)``
    (the failure injections, and the scenarios derived from the contract's own fields).

    Ends in a terminal outcome within ``max_retries + 1`` attempts: every attempt
    spends budget, and a spent budget stops the run before it can retry.
    """
    scenario = _scenario(contract, scenario)
    run = _Run(contract, scenario, start)
    item = next((item for item in dict.fromkeys(scenario.delivered) if item not in scenario.ledger), None)
    if item is None:
        return run.intake_found_nothing()
    if not scenario.attempts:
        raise LoopContractError("SCENARIO_EMPTY",
                                f"scenario `{scenario.name}` delivers `{item}` but scripts no attempt")
    run.state = LoopState(item=item, input_version=scenario.input_version)
    attempt, decision = 0, "retry-with-new-evidence"
    while decision == "retry-with-new-evidence":  # ends: every attempt spends budget, a spent budget never retries
        attempt += 1
        decision = run.attempt(attempt, scenario.attempts[min(attempt, len(scenario.attempts)) - 1]).decision
    if decision == "escalate" and not scenario.owner_responds:
        run.owner_never_answers(attempt)
    return run.finish()


class _Run:
    """The mutable side of one simulation: state, budget, clock, outside world and trace so far."""

    def __init__(self, contract: LoopContract, scenario: Scenario, start: datetime) -> None:
        self.contract = contract
        self.scenario = scenario
        self.start = start
        self.state = LoopState()
        self.budget = BudgetState.of(contract.budget)
        self.caps: dict[str, EffectCap] = {cap.effect: cap for cap in effect_caps(contract)}
        self.world: dict[str, int] = {}
        self.refused: list[str] = []
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
        version = self.state.input_version  # what this attempt's intake read
        limit = self.budget.attempt_minutes
        if scripted.minutes is None or scripted.minutes > limit or scripted.evidence is None:
            minutes, evidence = limit, self._timed_out(number, limit)
            notes.append("timed out: no verdict, never counted as a pass")
        elif scripted.proposes is not None and (refusal := self._disallowed(scripted.proposes)) is not None:
            minutes, evidence = scripted.minutes, refusal
            notes.append(f"refused at the boundary: `{scripted.proposes}` is a disallowed action; nothing was "
                         "committed")
        else:
            minutes, evidence = scripted.minutes, scripted.evidence
            notes += [self._side_effect(scripted), *(self._effect(key) for key in scripted.extra_effects)]
        evidence = evidence.model_copy(update={"input_version": version})
        if scripted.input_changes_to is not None:
            self.state = self.state.model_copy(update={"input_version": scripted.input_changes_to})
            notes.append(f"the item changed from {version} to {scripted.input_changes_to} during the attempt")
        self.budget = self.budget.spend(minutes)
        self.state = self.state.observe(evidence, attempt=number)  # persist before decide
        if scripted.crash == "after-verify":
            notes.append(f"crashed after verification, before the decision: the resumed run read attempt "
                         f"{number}'s persisted observation and decided on it, without verifying again")
        decision = decide(evidence, self.state, self.budget)
        if decision == "exit-success" and not self.state.committed_effects and not scripted.extra_effects:
            notes.append(self._effect(self._success_effect()))  # a success commits its effect
        return self._record(number, evidence, decision, self._receipt(number, evidence, decision),
                            "; ".join(note for note in notes if note))

    def owner_never_answers(self, attempt: int) -> Step:
        """After an escalation nobody answers: the run waits out its minutes, then stops, the escalation open."""
        destination = self.contract.escalation.destination
        waited = self.budget.minutes_left
        self.budget = self.budget.wait(waited)
        evidence = Evidence(summary=f"no answer from {destination} in the {waited} minutes the run had left",
                            unanswered_escalation=destination, input_version=self.state.input_version)
        self.state = self.state.observe(evidence, attempt=attempt)
        decision = decide(evidence, self.state, self.budget)
        return self._record(attempt, evidence, decision, self._receipt(attempt, evidence, decision),
                            "the escalation timed out unanswered: the run stops and the escalation stays open")

    def finish(self) -> Simulation:
        return Simulation(contract_name=self.contract.name, scenario=self.scenario, steps=tuple(self.steps),
                          external_effects=dict(self.world), checkpointed_effects=self.state.committed_effects,
                          refused=tuple(self.refused))

    def _disallowed(self, action: str) -> Evidence | None:
        """The evidence of a refused attempt when ``action`` is one the contract disallows, else None."""
        for index, disallowed in enumerate(self.contract.workspace.disallowed_actions):
            forbidden, proposed = normalized(disallowed), normalized(action)
            if forbidden == proposed or (forbidden and forbidden in proposed):
                self.refused.append(action)
                return Evidence(summary=f"the attempt set out to `{action}` and was stopped at the boundary",
                                requires_authority=True,
                                blocker=f"`{disallowed}` is a disallowed action of this contract "
                                        f"(workspace.disallowed_actions[{index}]); it was refused, not taken")
        return None

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
        """Apply the attempt's side effect at most once, around the crash it scripts."""
        key = scripted.side_effect
        if key is None:
            return ""
        if scripted.crash == "before-side-effect":
            return f"crashed before effect `{key}`: nothing reached the outside world"
        return self._effect(key, crash_after=scripted.crash == "after-side-effect")

    def _effect(self, key: str, crash_after: bool = False) -> str:
        """Apply one effect at most once, unless a cap the contract writes refuses it."""
        if key in self.state.committed_effects:
            return f"effect `{key}` already checkpointed: not repeated"
        kind = effect_kind(key)
        cap = self.caps.get(kind) if kind is not None else None
        if cap is not None and sum(effect_kind(done) == kind for done in self.world) >= cap.limit:
            self.refused.append(key)
            return f"effect `{key}` refused: the contract allows at most {cap.limit} {cap.effect} ({cap.path})"
        self.world[key] = self.world.get(key, 0) + 1  # a count, so that a repeated effect would show
        if crash_after:
            return f"effect `{key}` applied, then crashed before the checkpoint"
        self.state = self.state.commit(key)
        return f"effect `{key}` applied and checkpointed"

    def _success_effect(self) -> str:
        """What a success commits: the contract's first external effect for the item, else its result."""
        effects = external_effects(self.contract)
        return f"{effects[0][1] if effects else 'result'}: {self.state.item}"

    def _receipt(self, number: int, evidence: Evidence, decision: Outcome) -> Receipt:
        destination = self.contract.escalation.destination
        version, refused = self.state.input_version, tuple(self.refused)
        effects = f"committed effects: {', '.join(self.state.committed_effects) or 'none'}" + self._unreconciled()
        if decision == "exit-success":
            return make_receipt(decision, gate_output=evidence.summary, artifact=evidence.artifact,
                                final_state=f"`{self.state.item}` ({version}) done in attempt {number}; {effects}; "
                                            f"recorded in {', '.join(self.contract.state.artifacts)}",
                                input_version=version, refused=refused)
        if decision == "escalate":
            return make_receipt(decision, blocker=evidence.blocker or evidence.escalation_condition,
                                evidence=evidence.summary + self._unreconciled(), destination=destination,
                                input_version=version, refused=refused)
        if decision == "stop-with-receipt":
            opened = None
            if evidence.unanswered_escalation is not None:
                blocker = next((getattr(step.receipt, "blocker", "") for step in reversed(self.steps)
                                if step.decision == "escalate"), "the escalation")
                opened = f"{blocker} (escalated to {evidence.unanswered_escalation}, no answer yet)"
            return make_receipt(decision, attempts=self.budget.attempts_used,
                                reason="; ".join(stop_reasons(evidence, self.state, self.budget)),
                                residual_risk=f"`{self.state.item}` is unresolved; last evidence: {evidence.summary}; "
                                              f"{effects}",
                                owner=destination, input_version=version, refused=refused, open_escalation=opened)
        if self.state.stale(evidence):
            return make_receipt(decision, attempt=number, input_version=version,
                                hypothesis=f"the item changed from {evidence.input_version} to {version} since "
                                           "intake: this attempt's evidence is stale and proves nothing",
                                next_action=f"a fresh intake of `{self.state.item}` at {version}, then verify again")
        return make_receipt(decision, attempt=number, hypothesis=evidence.hypothesis, next_action=evidence.next_action,
                            input_version=version)

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


def _scenario(contract: LoopContract, scenario: Scenario | str) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if not isinstance(scenario, str):
        raise LoopContractError("UNKNOWN_SCENARIO",
                                f"scenario must be a Scenario or the name of a failure injection, not a "
                                f"{type(scenario).__name__}; known: {', '.join(FAILURE_INJECTIONS)}")
    if scenario in FAILURE_INJECTIONS:
        return FAILURE_INJECTIONS[scenario]
    known = {each.name: each for each in scenarios_for(contract)}
    if scenario not in known:
        raise LoopContractError("UNKNOWN_SCENARIO", f"unknown scenario `{scenario}`; known: {', '.join(known)}")
    return known[scenario]
