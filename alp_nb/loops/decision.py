"""The decision policy: after each persisted observation, pick exactly one of five outcomes.

The order is the seed's and it is a precedence: proven goal, then no qualifying
work, then escalation (authority or ambiguity), then stop (budget spent,
repeated failure, broken verifier, nothing actionable left), and only then a
retry. A retry is the last resort, so a loop can never retry its way around a
blocker, a spent budget or a failure it has already seen.

A timeout is the one failure the repeat rule does not stop: it is no verdict, so
it has no failure signature, and the reference (§7) makes it "a bounded retry"
that stops only once the retry or runtime budget runs out.

The budget is the seed's whole list: retries and minutes (the public budget, per
item), and, when the contract's extension writes them, the firing's tokens, cost
and repeated-evidence stop. An owner's answer to an escalation is evidence too:
an approval is new evidence from a role with authority (the seed's words), so the
item retries; a denial stops it.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints, model_validator

from alp_nb.base.frozen_model import FrozenModel

from .errors import LoopContractError

if TYPE_CHECKING:
    from .extension import FiringBudget
    from .loop_contract import Budget

Outcome = Literal["exit-success", "exit-noop", "escalate", "stop-with-receipt", "retry-with-new-evidence"]

OUTCOMES: tuple[Outcome, ...] = (
    "exit-success", "exit-noop", "escalate", "stop-with-receipt", "retry-with-new-evidence",
)
"""Every outcome, in the order ``decide`` tests them: an earlier one wins over every later one."""

TERMINAL_OUTCOMES: frozenset[Outcome] = frozenset(OUTCOMES[:4])
"""The outcomes that end a run; only a retry continues it."""

OUTCOME_CONDITIONS: dict[Outcome, str] = {
    "exit-success": "external evidence, about the item as it is now, proves the acceptance criteria",
    "exit-noop": "intake found no qualifying item after filter and dedupe",
    "escalate": "the item needs authority, a credential or a judgment the loop lacks, or an escalation condition holds",
    "stop-with-receipt": "budget spent (retries, minutes, tokens, cost, a cap), the failure repeats, the verifier is "
                         "broken, an escalation was denied or went unanswered, or nothing actionable is left",
    "retry-with-new-evidence": "the failure is new (or the input changed), a hypothesis is actionable and budget "
                               "remains",
}
"""The seed's condition column, one line per outcome, for decision tables."""


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    return text


Text = Annotated[str, StringConstraints(strict=True), AfterValidator(_not_blank)]
"""Required text: present, a string, and more than whitespace (kept as written)."""


class LoopModel(FrozenModel):
    """Frozen and closed like every model here, keyed in snake_case like the contract's own JSON."""

    model_config = ConfigDict(alias_generator=None)


_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?")
_WEEKDAY = r"(?:mon|tue(?:s)?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\b\.?,?"
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
    rf"|\b(?:{_WEEKDAY}\s+)?(?:\d{{1,2}}\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}\b)",  # "Thu, 01 Jan", "Mon Jan  5"
    re.IGNORECASE,
)
_PATH = re.compile(
    r"(?:[A-Za-z]:\\|~/|\.{1,2}/|(?<![\w/.])/)[\w.\-~/\\]+"  # absolute, home, ./ or C:\ paths
    r"|\b[\w.\-]+(?:/[\w.\-]+)*/[\w\-]+\.\w+"  # relative paths to a file with an extension
    r"|\b[\w.\-]+(?:/[\w.\-]+){2,}"  # other relative paths of three parts or more ("pass/fail" is prose)
)
_UUID = re.compile(r"(?<![0-9a-z])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-z])",
                   re.IGNORECASE)
_HEX = re.compile(
    r"(?<![0-9a-z])(?:0x[0-9a-f]+"  # after a space, a dash or an underscore (``tmp_8e3f2a1c``)
    r"|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}"  # a SHA or address: digits and letters
    r"|[a-f]{8,})(?![0-9a-z])",  # a digit-free id (``deadbeef``): no English word is eight letters from a-f
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def failure_signature(text: str) -> str:
    """The failure with its incidental parts replaced, so a rewording of only those parts repeats.

    Timestamps (ISO, clock times, dates with month or weekday names), paths, UUIDs and
    hex ids (commit SHAs, addresses, ``tmp_<hex>`` names), then any remaining
    number become placeholders; case and whitespace are folded. Two runs that fail
    the same way at another line, time or temp folder share a signature; a different
    error message does not.
    """
    normal = _TIMESTAMP.sub("<time>", text)
    normal = _PATH.sub("<path>", normal)
    normal = _UUID.sub("<id>", normal)
    normal = _HEX.sub("<id>", normal)
    normal = _NUMBER.sub("<n>", normal)
    return " ".join(normal.lower().split())


class Evidence(LoopModel):
    """What one attempt (or the intake) observed, as the verifier or the environment reported it.

    ``summary`` is the observation itself (gate output, log excerpt, intake result);
    the flags are what the policy reads. A failing attempt is actionable only when it
    names a ``hypothesis`` and the ``next_action`` that would test it. ``timed_out``
    marks an attempt cut at its time limit: no verdict, never a pass.
    ``input_version`` is the version of the item the observation was made against:
    evidence about a version the item no longer has is stale, and proves nothing.
    ``escalation_condition`` is one of the contract's escalation conditions that
    holds; ``unanswered_escalation`` the destination an escalation went to and
    that never answered; ``approved_by`` and ``denied_by`` the destination that
    answered it. ``gates_failed`` names the contract's gates that failed (what
    ``learn`` counts); ``cap_reached`` the cap that refused the effect a passing
    attempt would have committed.
    """

    summary: Text
    proves_goal: bool = False
    artifact: Text | None = None
    requires_authority: bool = False
    is_ambiguous: bool = False
    escalation_condition: Text | None = None
    blocker: Text | None = None
    verifier_broken: bool = False
    timed_out: bool = False
    unanswered_escalation: Text | None = None
    hypothesis: Text | None = None
    next_action: Text | None = None
    input_version: Text | None = None
    approved_by: Text | None = None
    denied_by: Text | None = None
    gates_failed: tuple[Text, ...] = ()
    cap_reached: Text | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Evidence:
        if self.proves_goal and self.artifact is None:
            raise ValueError("evidence that proves the goal names its artifact (diff, report, link)")
        if self.proves_goal and self.verifier_broken:
            raise ValueError("a broken verifier proves nothing: proves_goal and verifier_broken exclude each other")
        if self.proves_goal and self.timed_out:
            raise ValueError("a timeout is no verdict, never a pass: proves_goal and timed_out exclude each other")
        if self.proves_goal and self.unanswered_escalation is not None:
            raise ValueError("an unanswered escalation proves nothing: proves_goal and unanswered_escalation exclude "
                             "each other")
        if (self.requires_authority or self.is_ambiguous) and self.blocker is None:
            raise ValueError("evidence that needs authority or judgment names its blocker")
        if self.approved_by is not None and self.denied_by is not None:
            raise ValueError("an owner approves or denies an escalation, not both")
        if self.proves_goal and (self.gates_failed or self.cap_reached is not None or self.denied_by is not None):
            raise ValueError("evidence that proves the goal has no failed gate, refused effect or denial")
        return self

    @property
    def escalates(self) -> bool:
        """The item needs authority or a judgment the loop lacks, or a condition of the contract holds."""
        return self.requires_authority or self.is_ambiguous or self.escalation_condition is not None

    @property
    def actionable(self) -> bool:
        return self.hypothesis is not None and self.next_action is not None

    @property
    def signature(self) -> str | None:
        """The normalised failure this evidence shows; None when it shows no failure verdict.

        A pass has none, and neither has a timeout: it says nothing about how the work
        fails, so a second timeout is not a repeated failure (only the budget bounds them).
        """
        return None if self.proves_goal or self.timed_out else failure_signature(self.summary)


class Observation(LoopModel):
    """One persisted record: the attempt number and what it observed (against which input version)."""

    attempt: Annotated[int, Field(ge=0)]
    evidence: Evidence


class LoopState(LoopModel):
    """The system's record of one run (not the model's context): what survives a crash.

    ``observations`` is written before every decision; ``committed_effects`` holds the
    idempotency keys of external effects that were checkpointed; ``input_version`` is
    the version the item has now (read again before anything is committed).
    """

    item: str | None = None
    no_qualifying_work: bool = False
    observations: tuple[Observation, ...] = ()
    committed_effects: tuple[str, ...] = ()
    input_version: str | None = None

    def observe(self, evidence: Evidence, attempt: int) -> LoopState:
        """This state with one more persisted observation; ``decide`` reads only persisted evidence."""
        return self.model_copy(update={"observations": (*self.observations, Observation(attempt=attempt,
                                                                                         evidence=evidence))})

    def commit(self, effect_key: str) -> LoopState:
        return self.model_copy(update={"committed_effects": (*self.committed_effects, effect_key)})

    def repeats(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` fails the way an earlier observation already failed."""
        return self.sightings(evidence) > 1

    def sightings(self, evidence: Evidence) -> int:
        """How many persisted observations fail the way ``evidence`` does (itself included); 0 for no verdict."""
        if evidence.signature is None:
            return 0
        return sum(observation.evidence.signature == evidence.signature for observation in self.observations)

    def stale(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` was gathered against a version of the item it no longer has: it proves nothing,
        and the next attempt starts from a fresh intake of the new version."""
        return (evidence.input_version is not None and self.input_version is not None
                and evidence.input_version != self.input_version)


class BudgetState(LoopModel):
    """The contract's budget and what a run has spent of it.

    A run may make ``max_retries + 1`` attempts: the first is not a retry, so the
    retries left never exceed ``max_retries``. Retries and minutes are the item's;
    tokens and cost are the firing's, shared by every item it runs (the simulator
    keeps them current). ``repeated_evidence_stop`` is how many sightings of one
    failure stop the item: 2 stops at the first repeat.
    """

    max_retries: Annotated[int, Field(ge=0)]
    max_runtime_minutes: Annotated[int, Field(ge=1)]
    attempts_used: Annotated[int, Field(ge=0)] = 0
    minutes_used: Annotated[int, Field(ge=0)] = 0
    max_tokens: Annotated[int, Field(ge=1)] | None = None
    tokens_used: Annotated[int, Field(ge=0)] = 0
    max_cost_usd: Annotated[float, Field(gt=0)] | None = None
    cost_used: Annotated[float, Field(ge=0)] = 0.0
    repeated_evidence_stop: Annotated[int, Field(ge=2)] = 2

    @classmethod
    def of(cls, budget: Budget, firing: FiringBudget | None = None) -> BudgetState:
        """The untouched budget of a contract's ``budget`` part and, when its extension writes one, the firing's."""
        caps = {} if firing is None else firing.model_dump(exclude_none=True, exclude={"max_concurrency"})
        return cls(max_retries=budget.max_retries, max_runtime_minutes=budget.max_runtime_minutes, **caps)

    @property
    def tokens_left(self) -> int | None:
        return None if self.max_tokens is None else max(0, self.max_tokens - self.tokens_used)

    @property
    def cost_left(self) -> float | None:
        return None if self.max_cost_usd is None else max(0.0, self.max_cost_usd - self.cost_used)

    @property
    def attempts_left(self) -> int:
        return max(0, self.max_retries + 1 - self.attempts_used)

    @property
    def retries_left(self) -> int:
        return min(self.max_retries, self.attempts_left)

    @property
    def minutes_left(self) -> int:
        return max(0, self.max_runtime_minutes - self.minutes_used)

    @property
    def attempt_minutes(self) -> int:
        """The most the next attempt may run: the minutes left shared evenly over the attempts
        left, so one hung attempt cannot spend the time the contract grants its retries."""
        return math.ceil(self.minutes_left / max(1, self.attempts_left))

    @property
    def exhausted(self) -> bool:
        return self.attempts_left == 0 or self.minutes_left == 0 or self.tokens_left == 0 or self.cost_left == 0

    def spend(self, minutes: int) -> BudgetState:
        """The budget after one more attempt that ran ``minutes``."""
        return self.model_copy(update={"attempts_used": self.attempts_used + 1,
                                       "minutes_used": self.minutes_used + minutes})

    def firing_spent(self, tokens: int, cost: float) -> BudgetState:
        """The budget with the firing's tokens and cost spent so far, across every item."""
        return self.model_copy(update={"tokens_used": tokens, "cost_used": cost})

    def wait(self, minutes: int) -> BudgetState:
        """The budget after ``minutes`` spent waiting (for an owner's answer): no attempt is used."""
        return self.model_copy(update={"minutes_used": self.minutes_used + minutes})


def stop_reasons(evidence: Evidence, state: LoopState, budget: BudgetState) -> tuple[str, ...]:
    """Every reason the run may not retry after this evidence; empty when a retry is allowed."""
    return (*_budget_stop_reasons(budget), *_evidence_stop_reasons(evidence, state, budget))


def _budget_stop_reasons(budget: BudgetState) -> list[str]:
    """Each budget spent to zero stops the run, whatever the evidence says."""
    reasons = []
    if budget.attempts_left == 0:
        reasons.append(f"retry budget spent: {budget.attempts_used} of {budget.max_retries + 1} attempts used")
    if budget.minutes_left == 0:
        reasons.append(f"runtime budget spent: {budget.minutes_used} of {budget.max_runtime_minutes} minutes used")
    if budget.tokens_left == 0:
        reasons.append(f"token budget spent: {budget.tokens_used:,} of {budget.max_tokens:,} tokens of the firing "
                       "used (x_alp_nb.budget.max_tokens)")
    if budget.cost_left == 0:
        reasons.append(f"cost budget spent: ${budget.cost_used:,.2f} of ${budget.max_cost_usd:,.2f} of the firing "
                       "used (x_alp_nb.budget.max_cost_usd)")
    return reasons


def _evidence_stop_reasons(evidence: Evidence, state: LoopState, budget: BudgetState) -> list[str]:
    """What the evidence itself says against another attempt: a repeat, a broken verifier, a cap, an escalation."""
    reasons = []
    stale = state.stale(evidence)
    if repeat := _repeat_reason(evidence, state, budget, stale):
        reasons.append(repeat)
    if evidence.verifier_broken:
        reasons.append("the verifier is broken: its verdict is unknown, never a pass")
    if evidence.cap_reached is not None:
        reasons.append(f"cap reached: {evidence.cap_reached}")
    if evidence.denied_by is not None:
        reasons.append(f"{evidence.denied_by} denied the escalation: {evidence.blocker or evidence.summary}")
    elif evidence.unanswered_escalation is not None:
        reasons.append(f"the escalation to {evidence.unanswered_escalation} got no answer: it stays open")
    elif not evidence.actionable and not stale and evidence.cap_reached is None:
        reasons.append("no actionable hypothesis and next action for another attempt")  # stale: a fresh intake
    return reasons


def _repeat_reason(evidence: Evidence, state: LoopState, budget: BudgetState, stale: bool) -> str | None:
    """A failure seen as often as the repeated-evidence stop allows will not change on retry (stale evidence may)."""
    seen = state.sightings(evidence)
    if seen < budget.repeated_evidence_stop or stale:
        return None
    if budget.repeated_evidence_stop == 2:
        return f"the failure repeats an earlier attempt (signature: {evidence.signature})"
    return (f"the same failure was seen {seen} times, the contract's repeated-evidence stop "
            f"(x_alp_nb.budget.repeated_evidence_stop; signature: {evidence.signature})")


def decide(evidence: Evidence, state: LoopState, budget: BudgetState) -> Outcome:
    """The next transition for persisted ``evidence``, in the seed's order of precedence.

    Persist before decide: the evidence must already be ``state``'s latest
    observation, so a crash after this call can never lose what the decision saw.
    A timeout takes the same path as any failure; it only never counts as a repeat
    (its ``signature`` is None), so it retries until the budget stops it. Evidence
    gathered against an older version of the item proves nothing: the run retries
    with a fresh intake while budget remains.
    """
    if not state.observations or state.observations[-1].evidence != evidence:
        raise LoopContractError("DECIDE_BEFORE_PERSIST",
                                "decide() needs the evidence persisted first: call state.observe(evidence, attempt)")
    if evidence.proves_goal and not state.stale(evidence):
        return "exit-success"
    if state.no_qualifying_work:
        return "exit-noop"
    if evidence.escalates:
        return "escalate"
    if stop_reasons(evidence, state, budget):
        return "stop-with-receipt"
    return "retry-with-new-evidence"
