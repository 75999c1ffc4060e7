"""A scripted run for the simulator: what the trigger delivers, what the ledger holds, and each attempt in order.

An attempt scripts what it observes (its evidence) or how it fails: it hangs (no ``minutes``), it crashes around
its external effect or after its verification, it proposes an action, it makes effects, it spends tokens and
money, or the item changes under it. A scenario derived from a contract names the field it came from
(``derived_from``) and what the run sets out to make the contract refuse (``must_refuse``). A scenario states
no outcome it expects: the reviewer does (``expectations.py``).

A ``Firing`` is a whole firing of the trigger (a night, for a nightly loop): several items, each scripted like a
scenario's one item, run against the caps and the budget they share.

What a contract allows is not what the simulator plays: the public schema bounds neither ``budget.max_retries`` nor
``budget.max_runtime_minutes``, and a cap may be written "at most 999999", so a simulation stops at its own limits
(``SIMULATED_ATTEMPTS_LIMIT``, ``SIMULATED_ITEMS_LIMIT``) and says so, whatever the contract from a cloned
repository asks for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, model_validator

from .decision import Evidence, LoopModel, Text

if TYPE_CHECKING:
    from .loop_contract import Budget

SIMULATED_ATTEMPTS_LIMIT = 100
"""The most attempts the simulator plays of one item: 25 times the longest run of any contract known (3 retries, 4
attempts), 20 times the retries LC018 already calls large (5), and more than a reviewer reads in one trace. A trace
holds memory for each attempt it plays, so a run at the limit holds under ten times what a 10-retry run does."""
SIMULATED_ITEMS_LIMIT = 1_000
"""The most items of one firing, and effects of one attempt, the simulator plays: a derived firing is one item past a
cap, each passing at once, so every cap up to 999 a night is played in full, at one attempt an item."""


def attempts_possible(budget: Budget) -> int:
    """How many attempts of a minute or more one item's run can make: one more than its retries, or its minutes when
    those run out first. Past ``SIMULATED_ATTEMPTS_LIMIT``, a simulation of it stops at the limit."""
    return min(budget.max_retries + 1, budget.max_runtime_minutes)


OwnerAnswer = Literal["takes over", "approves", "denies", "never answers"]
"""What the escalation destination does with an escalation: takes the item over (the run ends with it), approves
the blocked step (the item goes on), denies it (the item stops), or never answers (the run waits, then stops)."""


class ScriptedAttempt(LoopModel):
    """One attempt as the scenario scripts it.

    ``minutes`` is how long it runs; ``None`` means it hangs. An attempt that would run
    past its limit (``BudgetState.attempt_minutes``) is cut there: a timeout with no
    verdict and no effect. ``tokens`` and ``cost_usd`` are what it spends; one that
    would spend past the firing's budget is cut when the budget runs out, with no
    verdict and no effect. ``side_effect`` is the idempotency key of the external effect
    it makes (a comment, a PR), ``extra_effects`` the keys of any further effects, in
    order (each counted against the contract's caps by the kind of effect its key
    names). ``crash`` kills the worker just before or just after its side effect, or
    after its verification and before the decision. ``proposes`` is an action the
    attempt sets out to take; ``input_changes_to`` a new version the item gets while
    the attempt runs (after intake, before anything is committed).
    """

    evidence: Evidence | None = None
    minutes: Annotated[int, Field(ge=0)] | None = 4
    tokens: Annotated[int, Field(ge=0)] = 0
    cost_usd: Annotated[float, Field(ge=0)] = 0.0
    side_effect: Text | None = None
    extra_effects: tuple[Text, ...] = ()
    crash: Literal["before-side-effect", "after-side-effect", "after-verify"] | None = None
    proposes: Text | None = None
    input_changes_to: Text | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ScriptedAttempt:
        if self.minutes is not None and self.evidence is None:
            raise ValueError("an attempt that returns (minutes set) must script its evidence")
        if self.crash in ("before-side-effect", "after-side-effect") and self.side_effect is None:
            raise ValueError("a crash around a side effect needs the effect's idempotency key (side_effect)")
        if self.crash == "after-verify" and self.evidence is None:
            raise ValueError("a crash after verification needs the evidence the verification persisted")
        if (self.crash in ("before-side-effect", "after-side-effect") and self.evidence is not None
                and self.evidence.proves_goal):
            raise ValueError("a crashed attempt proves nothing: its evidence cannot prove the goal")
        return self


class Scenario(LoopModel):
    """A scripted run: deliveries, the ledger of items already done, and the attempts in order.

    When the script runs out the last attempt repeats: an actor with nothing new keeps
    producing the same evidence. ``input_version`` is the delivered item's version at
    intake. ``owner_answer`` is what the escalation destination does with an escalation.
    ``derived_from`` is the JSON path of the contract text a derived scenario plays;
    ``must_refuse`` what its run sets out to make the contract refuse at the boundary
    (a disallowed action, an effect past a cap).
    """

    name: Text
    description: Text
    delivered: tuple[Text, ...] = ("item-1",)
    ledger: tuple[Text, ...] = ()
    attempts: tuple[ScriptedAttempt, ...] = ()
    input_version: Text = "v1"
    owner_answer: OwnerAnswer = "takes over"
    derived_from: Text | None = None
    must_refuse: Text | None = None


class FiringItem(LoopModel):
    """One item a firing's intake delivers, and how its attempts go."""

    item: Text
    attempts: Annotated[tuple[ScriptedAttempt, ...], Field(min_length=1)]
    input_version: Text = "v1"
    owner_answer: OwnerAnswer = "takes over"


class Firing(LoopModel):
    """A whole firing of the trigger: the items intake delivers, in order, against one shared budget and one set of
    caps. An item in ``ledger``, or delivered a second time, is skipped at intake. Each item's run is named
    ``<firing name>/<item>``, so a reviewer's expectations can name it. A firing delivers at most
    ``SIMULATED_ITEMS_LIMIT`` items: more is refused, naming ``items``, rather than played for hours."""

    name: Text
    description: Text
    items: Annotated[tuple[FiringItem, ...], Field(max_length=SIMULATED_ITEMS_LIMIT)]
    ledger: tuple[Text, ...] = ()
    derived_from: Text | None = None
