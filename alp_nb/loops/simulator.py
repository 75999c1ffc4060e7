"""Walk a contract through a scripted run before it is ever scheduled: failure injection on paper.

A scenario scripts what the trigger delivers, what the ledger already holds and
what each attempt observes (or how it crashes, hangs or spends). ``simulate`` plays
it against the contract with the real decision policy: intake with dedupe, then per
attempt act → persist the observation → decide → write the receipt, until a
terminal outcome. Each attempt runs under a per-attempt time limit, so a hang is
a timeout that spends part of the run's minutes: a bounded retry, never a pass.
``firing.py`` plays a whole firing (a night) of several items through the same
``ItemRun``, sharing one ``Outside``.

The contract's own words bound what an attempt may do. An action it lists as
disallowed is refused at the boundary (the attempt's claim counts for nothing and
the item is escalated, the refusal named); an effect past a cap it writes ("at
most 3 pull requests") is refused and named, counted over the whole firing; a
success commits the contract's effect before it counts, so a success whose effect
a cap refuses stops instead, naming the cap. Its extension's firing budget cuts an
attempt when the firing's tokens or money run out. External effects go to a
simulated outside world keyed by idempotency key; each attempt first reconciles
every effect found outside but never checkpointed (a crash between an effect and
its checkpoint), so it is recorded instead of repeated, and a run that ends before
it could reconcile names that effect in its receipt. Every observation carries the
input version it was made against, so evidence about an item that changed meanwhile
is stale. An escalation is answered as the scenario scripts: the owner takes the
item over, approves the blocked step (the item goes on), denies it (it stops), or
never answers (the run waits out its minutes and stops, the escalation open).

A contract with lint errors is simulated only when asked (``allow_lint_errors``),
and every outcome of it is then provisional: a draft cannot pass for a design.

A run that would go on past ``SIMULATED_ATTEMPTS_LIMIT`` attempts (a budget of a billion retries, which the public
schema accepts) stops there, its last step's note and ``Simulation.truncated`` saying where and what budget was
left: a simulation holds memory and time for the attempts it plays, and never passes them off as the whole run.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import MappingProxyType
from typing import Annotated

from pydantic import Field

from alp_nb.base.frozen_model import FrozenMapping

from .decision import BudgetState, Evidence, LoopModel, LoopState, Outcome, decide, stop_reasons
from .effects import EffectCap, action_kind, effect_caps, effect_kind, external_effects
from .errors import LoopContractError
from .extension import EXTENSION_KEY
from .injections import FAILURE_INJECTIONS, scenarios_for
from .lint import Findings, lint_contract
from .loop_contract import LoopContract, normalized
from .receipts import CapHit, Receipt, make_receipt, receipt_owner
from .scenario import SIMULATED_ATTEMPTS_LIMIT, Scenario, ScriptedAttempt

SIMULATION_START = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
"""The simulated clock's start, fixed so traces are reproducible."""
ANSWER_MINUTES = 10
"""How long an owner who answers takes to answer an escalation (at most the minutes the run has left)."""


class Step(LoopModel):
    """One line of a trace: the attempt (0 = intake), what it observed, the decision and its receipt.

    ``caps_hit`` names each cap this step ran into: one that refused an effect (at most 3 pull requests, written
    in ``objective``), and, when the step stops the item, each budget it spent (``budget.max_retries``,
    ``x_alp_nb.budget.max_tokens``)."""

    attempt: Annotated[int, Field(ge=0)]
    evidence: Evidence
    decision: Outcome
    receipt: Receipt
    retries_left: int
    minutes_left: int
    note: str = ""
    caps_hit: tuple[CapHit, ...] = ()


class Simulation(LoopModel):
    """A finished simulated run: its trace, terminal outcome and what reached the outside world.

    ``external_effects`` counts how often each idempotency key this run made was applied outside; above 1 is a
    repeat. ``checkpointed_effects`` are the keys the run's state recorded; an effect outside but not among them
    is named in the final receipt. ``refused`` lists what the run refused at its boundary (a disallowed action,
    an effect past a cap), in order. ``lint_errors`` are the contract's lint errors when it was simulated despite
    them: then every outcome is ``provisional``. ``truncated`` says where the simulation stopped when the run would
    have gone on past ``SIMULATED_ATTEMPTS_LIMIT`` attempts: its outcome is then the last decision played, not the
    run's end.
    """

    contract_name: str
    scenario: Scenario
    steps: tuple[Step, ...]
    item: str | None = None
    """The item the run worked on; None when intake found none."""
    external_effects: FrozenMapping[int] = Field(default_factory=lambda: MappingProxyType({}))
    checkpointed_effects: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()
    lint_errors: tuple[str, ...] = ()
    truncated: str | None = None

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
    def provisional(self) -> bool:
        """Whether the contract had lint errors: the outcome says what a broken draft would do, not the design."""
        return bool(self.lint_errors)


def lint_errors_for(contract: LoopContract, allow_lint_errors: bool,
                    findings: Findings | None = None) -> tuple[str, ...]:
    """The contract's lint errors (from ``findings``, its lint today, when the caller has it) as ``RULE path:
    message`` lines, when simulating despite them is allowed; ``LoopContractError(CONTRACT_HAS_LINT_ERRORS)``
    listing them when it is not."""
    findings = lint_contract(contract) if findings is None else findings
    errors = tuple(f"{finding.rule} {finding.path}: {finding.message}" for finding in findings.errors)
    if errors and not allow_lint_errors:
        raise LoopContractError(
            "CONTRACT_HAS_LINT_ERRORS",
            f"{contract.name}: {len(errors)} lint error{'s' if len(errors) != 1 else ''}; a contract with lint errors "
            "is simulated only with allow_lint_errors=True (--allow-lint-errors), and every outcome is then "
            "provisional", errors)
    return errors


def simulate(contract: LoopContract, scenario: Scenario | str, start: datetime = SIMULATION_START, *,
             allow_lint_errors: bool = False, findings: Findings | None = None) -> Simulation:
    """Run ``scenario`` against ``contract``: a ``Scenario``, or the name of one of ``scenarios_for(contract)``
    (the failure injections, and the scenarios derived from the contract's own fields).

    Ends in a terminal outcome within ``max_retries + 1`` attempts: every attempt
    spends budget, and a spent budget stops the run before it can retry; a run still retrying at
    ``SIMULATED_ATTEMPTS_LIMIT`` attempts stops there, ``truncated`` saying so. A contract
    with lint errors is refused unless ``allow_lint_errors``; its outcomes are then
    marked provisional. ``findings``: the contract's lint today, when the caller has it (one lint for many
    scenarios).
    """
    lint_errors = lint_errors_for(contract, allow_lint_errors, findings)
    scenario = _scenario(contract, scenario)
    outside = Outside(contract, start, lint_errors)
    item = next((item for item in dict.fromkeys(scenario.delivered) if item not in scenario.ledger), None)
    if item is None:
        return outside.intake_found_nothing(scenario)
    run = ItemRun(outside, scenario, item)
    while run.advance():  # ends: every attempt spends budget, a spent budget never retries, and the limit holds
        pass
    return run.finish()


class Outside:
    """What one firing's items share: the outside world their effects reach, the contract's caps counted across
    them, and the firing's tokens and money."""

    def __init__(self, contract: LoopContract, start: datetime, lint_errors: tuple[str, ...]) -> None:
        self.contract = contract
        self.start = start
        self.lint_errors = lint_errors
        self.caps: dict[str, EffectCap] = {cap.effect: cap for cap in effect_caps(contract)}
        self.world: dict[str, int] = {}
        self.kinds: dict[str, str | None] = {}
        self.refused: list[str] = []
        self.tokens = 0
        self.cost = 0.0
        extension = contract.x_alp_nb
        self.budget = BudgetState.of(contract.budget, extension.budget if extension is not None else None)

    def made(self, kind: str) -> int:
        return sum(made_kind == kind for made_kind in self.kinds.values())

    @property
    def spent(self) -> bool:
        """Whether the firing's tokens or money are spent: no further item may start."""
        budget = self.budget.firing_spent(self.tokens, self.cost)
        return budget.tokens_left == 0 or budget.cost_left == 0

    def spend(self, tokens: int, cost: float) -> None:
        self.tokens += tokens
        self.cost += cost

    def intake_found_nothing(self, scenario: Scenario, skipped: tuple[str, ...] | None = None) -> Simulation:
        """The no-op of a firing whose intake found no qualifying item: its query and checkpoint time."""
        delivered = scenario.delivered
        skipped = skipped if skipped is not None else tuple(item for item in dict.fromkeys(delivered)
                                                            if item in scenario.ledger)
        evidence = Evidence(summary=f"intake: 0 qualifying of {len(delivered)} delivered"
                                    + (f"; already in the ledger: {', '.join(skipped)}" if skipped else ""))
        state = LoopState(no_qualifying_work=True).observe(evidence, attempt=0)
        decision = decide(evidence, state, self.budget)
        query = (f"sources: {', '.join(self.contract.intake.sources)}; "
                 f"rule: {self.contract.intake.selection_rule}; delivered: {', '.join(delivered) or 'nothing'}; "
                 f"deduped against the ledger: {', '.join(skipped) or 'none'}")
        step = Step(attempt=0, evidence=evidence, decision=decision, retries_left=self.budget.retries_left,
                    minutes_left=self.budget.minutes_left,
                    receipt=make_receipt(decision, query=query, checkpoint_time=self.start))
        return Simulation(contract_name=self.contract.name, scenario=scenario, steps=(step,),
                          lint_errors=self.lint_errors)


class ItemRun:
    """The mutable side of one item's run: state, budget, clock, the effects it made and its trace so far."""

    def __init__(self, outside: Outside, scenario: Scenario, item: str, start_minute: int = 0) -> None:
        self.outside = outside
        self.contract = outside.contract
        self.scenario = scenario
        self.item = item
        self.start_minute = start_minute
        self.state = LoopState(item=item, input_version=scenario.input_version)
        self.budget = outside.budget
        self.made: dict[str, int] = {}
        self.refused: list[str] = []
        self.steps: list[Step] = []
        self.number = 0
        self.truncated: str | None = None
        if not scenario.attempts:
            raise LoopContractError("SCENARIO_EMPTY",
                                    f"scenario `{scenario.name}` delivers `{item}` but scripts no attempt")

    @property
    def minute(self) -> int:
        """The firing's clock for this item: when it started, plus the minutes it has spent."""
        return self.start_minute + self.budget.minutes_used

    def advance(self) -> bool:
        """Run the next attempt, and the owner's answer when it escalates; True while the item goes on, and the
        simulator's limit of attempts is not reached."""
        self.number += 1
        attempts = self.scenario.attempts
        decision = self.attempt(self.number, attempts[min(self.number, len(attempts)) - 1]).decision
        if decision == "escalate" and self.scenario.owner_answer != "takes over":
            decision = self.answer(self.number).decision
        if decision == "retry-with-new-evidence" and self.number >= SIMULATED_ATTEMPTS_LIMIT:
            self._stop_at_the_limit()
            return False
        return decision == "retry-with-new-evidence"

    def _stop_at_the_limit(self) -> None:
        """Say, in the last step's note and the run's ``truncated``, that the simulation stops where the run would
        go on: the budget the contract still grants, by its fields, so no one reads the trace as the whole run."""
        budget, last = self.budget, self.steps[-1]
        self.truncated = (f"the simulation stopped here, at the simulator's limit of {SIMULATED_ATTEMPTS_LIMIT:,} "
                          f"attempts an item: budget.max_retries leaves {budget.retries_left:,} retries and "
                          f"budget.max_runtime_minutes {budget.minutes_left:,} minutes, so the run would go on; it "
                          f"is not simulated past attempt {self.number:,}")
        self.steps[-1] = last.model_copy(update={"note": "; ".join(note for note in (last.note, self.truncated)
                                                                     if note)})

    def attempt(self, number: int, scripted: ScriptedAttempt) -> Step:
        notes, hit = [self._reconcile()], []
        version = self.state.input_version  # what this attempt's intake read
        limit = self.budget.attempt_minutes
        tokens, cost = scripted.tokens, scripted.cost_usd
        if (cut := self._cut(number, scripted)) is not None:  # the budget runs out before the attempt can end
            minutes, (evidence, tokens, cost) = min(limit, limit if scripted.minutes is None else scripted.minutes), cut
            notes.append("cut when the firing's budget ran out: no verdict, no effect")
        elif scripted.minutes is None or scripted.minutes > limit or scripted.evidence is None:
            minutes, evidence = limit, self._timed_out(number, limit)
            notes.append("timed out: no verdict, never counted as a pass")
        elif scripted.proposes is not None and (refusal := self._disallowed(scripted.proposes)) is not None:
            minutes, evidence = scripted.minutes, refusal
            notes.append(f"refused at the boundary: `{scripted.proposes}` is a disallowed action; nothing was "
                         "committed")
        else:
            minutes, evidence = scripted.minutes, scripted.evidence
            notes.append(self._side_effect(scripted))
            for key in scripted.extra_effects:
                note, cap = self._effect(key, effect_kind(key))
                notes.append(note)
                hit += [_hit(cap)] if cap is not None else []
        self.outside.spend(tokens, cost)
        evidence = evidence.model_copy(update={"input_version": version})
        if scripted.input_changes_to is not None:
            self.state = self.state.model_copy(update={"input_version": scripted.input_changes_to})
            notes.append(f"the item changed from {version} to {scripted.input_changes_to} during the attempt")
        if (evidence.proves_goal and not self.state.stale(evidence) and not self.state.committed_effects
                and not scripted.extra_effects):
            evidence, note, cap = self._commit_success(evidence)  # a success commits its effect before it counts
            notes.append(note)
            hit += [_hit(cap)] if cap is not None else []
        self.budget = self.budget.spend(minutes).firing_spent(self.outside.tokens, self.outside.cost)
        self.state = self.state.observe(evidence, attempt=number)  # persist before decide
        if scripted.crash == "after-verify":
            notes.append(f"crashed after verification, before the decision: the resumed run read attempt "
                         f"{number}'s persisted observation and decided on it, without verifying again")
        decision = decide(evidence, self.state, self.budget)
        return self._record(number, evidence, decision, "; ".join(note for note in notes if note), tuple(hit))

    def answer(self, number: int) -> Step:
        """The escalation destination's answer, as the scenario scripts it: an approval lets the blocked step go on
        (new evidence from a role with authority, so the item retries), a denial stops the item, and silence
        lets the run wait out its minutes and stop with the escalation still open."""
        destination, blocker = self.contract.escalation.destination, self._blocker()
        answer = self.scenario.owner_answer
        waited = self.budget.minutes_left if answer == "never answers" else min(ANSWER_MINUTES,
                                                                                self.budget.minutes_left)
        self.budget = self.budget.wait(waited)
        version = self.state.input_version
        if answer == "approves":
            evidence = Evidence(summary=f"{destination} approved after {waited} minutes: {blocker}",
                                approved_by=destination, input_version=version,
                                hypothesis=f"approved by {destination}: the blocked step may go ahead",
                                next_action="take the approved step, then verify again")
            note = "the escalation was approved: the item goes on with the approved step"
        elif answer == "denies":
            evidence = Evidence(summary=f"{destination} denied after {waited} minutes: {blocker}",
                                denied_by=destination, blocker=blocker, input_version=version)
            note = "the escalation was denied: the item stops, nothing committed for it"
        else:
            evidence = Evidence(summary=f"no answer from {destination} in the {waited} minutes the run had left",
                                unanswered_escalation=destination, input_version=version)
            note = "the escalation timed out unanswered: the run stops and the escalation stays open"
        self.state = self.state.observe(evidence, attempt=number)
        return self._record(number, evidence, decide(evidence, self.state, self.budget), note)

    def finish(self) -> Simulation:
        return Simulation(contract_name=self.contract.name, scenario=self.scenario, steps=tuple(self.steps),
                          item=self.item, external_effects=dict(self.made),
                          checkpointed_effects=self.state.committed_effects,
                          refused=tuple(self.refused), lint_errors=self.outside.lint_errors,
                          truncated=self.truncated)

    def _blocker(self) -> str:
        return next((getattr(step.receipt, "blocker", "") for step in reversed(self.steps)
                     if step.decision == "escalate"), "the escalation")

    def _disallowed(self, action: str) -> Evidence | None:
        """The evidence of a refused attempt when ``action`` is one the contract disallows, else None."""
        for index, disallowed in enumerate(self.contract.workspace.disallowed_actions):
            forbidden, proposed = normalized(disallowed), normalized(action)
            if forbidden == proposed or (forbidden and forbidden in proposed):
                self._refuse(action)
                return Evidence(summary=f"the attempt set out to `{action}` and was stopped at the boundary",
                                requires_authority=True,
                                blocker=f"`{disallowed}` is a disallowed action of this contract "
                                        f"(workspace.disallowed_actions[{index}]); it was refused, not taken")
        return None

    def _cut(self, number: int, scripted: ScriptedAttempt) -> tuple[Evidence, int, float] | None:
        """When the attempt would spend past the firing's tokens or money: its evidence and what it did spend (what
        was left), else None. A cut attempt has no verdict and makes no effect."""
        firing = self.budget.firing_spent(self.outside.tokens, self.outside.cost)
        tokens_over = firing.tokens_left is not None and scripted.tokens > firing.tokens_left
        cost_over = firing.cost_left is not None and scripted.cost_usd > firing.cost_left
        if not tokens_over and not cost_over:
            return None
        budgets = ([f"token budget ({firing.max_tokens or 0:,} tokens)"] if tokens_over else []) \
            + ([f"cost budget (${firing.max_cost_usd or 0:,.2f})"] if cost_over else [])
        spent = " and ".join(budgets)
        evidence = Evidence(summary=f"attempt {number} was cut mid-attempt when the firing's {spent} ran out",
                            hypothesis="the firing's budget is spent", next_action="wait for the next firing")
        tokens = scripted.tokens if firing.tokens_left is None else min(scripted.tokens, firing.tokens_left)
        cost = scripted.cost_usd if firing.cost_left is None else min(scripted.cost_usd, firing.cost_left)
        return evidence, tokens, cost

    def _reconcile(self) -> str:
        """Read the idempotency record before acting: a resumed attempt records every effect that reached
        the outside world but not the checkpoint (its worker died in between), so none is made twice."""
        found = self._uncheckpointed()
        for key in found:
            self.state = self.state.commit(key)
        return "; ".join(f"effect `{key}` found outside by its idempotency key: reconciled into state"
                         for key in found)

    def _uncheckpointed(self) -> list[str]:
        return [key for key in self.made if key not in self.state.committed_effects]

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
        return self._effect(key, effect_kind(key), crash_after=scripted.crash == "after-side-effect")[0]

    def _effect(self, key: str, kind: str | None, crash_after: bool = False) -> tuple[str, EffectCap | None]:
        """Apply one effect at most once, unless a cap the contract writes refuses it: the note, and the cap that
        refused it. A cap counts the effects of its kind made by every item of the firing."""
        if key in self.state.committed_effects:
            return f"effect `{key}` already checkpointed: not repeated", None
        cap = self.outside.caps.get(kind) if kind is not None else None
        if cap is not None and self.outside.made(cap.effect) >= cap.limit:
            self._refuse(key)
            return (f"effect `{key}` refused: the contract allows at most {cap.limit} {cap.effect} ({cap.path}), "
                    f"and the firing has made {self.outside.made(cap.effect)}", cap)
        for world in (self.outside.world, self.made):
            world[key] = world.get(key, 0) + 1  # a count, so that a repeated effect would show
        self.outside.kinds[key] = kind
        if crash_after:
            return f"effect `{key}` applied, then crashed before the checkpoint", None
        self.state = self.state.commit(key)
        return f"effect `{key}` applied and checkpointed", None

    def _commit_success(self, evidence: Evidence) -> tuple[Evidence, str, EffectCap | None]:
        """Commit what a success commits: the contract's first external effect for the item (else its result). When
        a cap refuses it, the success does not count: the evidence becomes the cap's."""
        effects = external_effects(self.contract)
        action = effects[0][1] if effects else "result"
        key = f"{action}: {self.state.item}"
        note, cap = self._effect(key, action_kind(action) if effects else None)
        if cap is None:
            return evidence, note, None
        refused = Evidence(summary=f"{evidence.summary}; but `{key}` was refused: the firing has made the "
                                   f"{cap.limit} {cap.effect} the contract allows",
                           cap_reached=f"at most {cap.limit} {cap.effect} ({cap.path}: “{cap.text}”)",
                           input_version=evidence.input_version)
        return refused, note, cap

    def _refuse(self, what: str) -> None:
        self.refused.append(what)
        self.outside.refused.append(what)

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
                opened = f"{self._blocker()} (escalated to {evidence.unanswered_escalation}, no answer yet)"
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

    def _budgets_spent(self) -> tuple[CapHit, ...]:
        budget = self.budget
        spent = (("budget.max_retries", f"{budget.max_retries} retries", budget.attempts_left == 0),
                 ("budget.max_runtime_minutes", f"{budget.max_runtime_minutes} minutes", budget.minutes_left == 0),
                 (f"{EXTENSION_KEY}.budget.max_tokens", f"{budget.max_tokens or 0:,} tokens a firing",
                  budget.tokens_left == 0),
                 (f"{EXTENSION_KEY}.budget.max_cost_usd", f"${budget.max_cost_usd or 0:,.2f} a firing",
                  budget.cost_left == 0))
        return tuple(CapHit(path=path, cap=cap) for path, cap, hit in spent if hit)

    def _record(self, number: int, evidence: Evidence, decision: Outcome, note: str = "",
                caps_hit: tuple[CapHit, ...] = ()) -> Step:
        if decision == "stop-with-receipt":
            caps_hit = (*caps_hit, *self._budgets_spent())
        step = Step(attempt=number, evidence=evidence, decision=decision,
                    receipt=self._receipt(number, evidence, decision), retries_left=self.budget.retries_left,
                    minutes_left=self.budget.minutes_left, note=note, caps_hit=caps_hit)
        self.steps.append(step)
        return step


def _hit(cap: EffectCap) -> CapHit:
    return CapHit(path=cap.path, cap=f"at most {cap.limit} {cap.effect}")


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

