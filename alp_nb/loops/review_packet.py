"""The review packet: what a design review walks through before a loop is scheduled.

A packet is the contract, its lint findings, a simulated run of each failure
injection, the five field pairs (most contract bugs sit at the interface of two
fields: the seed's review checklist, reference §6.2) and the decision table
with who owns the item after each outcome. It is a model: ``alp_nb.viz``
renders it to HTML and Markdown and decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .decision import OUTCOME_CONDITIONS, OUTCOMES, Outcome
from .lint import Finding, Findings, lint_contract
from .loop_contract import PARTS, LoopContract
from .receipts import RECEIPT_FIELDS
from .simulator import FAILURE_INJECTIONS, Simulation, simulate


@dataclass(frozen=True)
class ReviewPair:
    """Two sides of the contract a reviewer reads together, and the question to ask of them."""

    name: str
    left: tuple[str, ...]
    right: tuple[str, ...]
    question: str


REVIEW_PAIRS: tuple[ReviewPair, ...] = (
    ReviewPair("trigger ↔ intake", ("trigger.type", "trigger.cadence_or_event"),
               ("intake.sources", "intake.selection_rule"),
               "Does intake read the source the trigger comes from, and reject processed, stale or duplicate items?"),
    ReviewPair("action ↔ verifier", ("workspace.allowed_actions",), ("verification.gates", "agents"),
               "Is every write-capable action covered by a gate someone other than the actor checks?"),
    ReviewPair("side effect ↔ checkpoint", ("workspace.allowed_actions",), ("state.artifacts", "state.update_rule"),
               "Is each external effect written to state so a retry or restart does not repeat it?"),
    ReviewPair("budget ↔ escalation", ("budget.max_retries", "budget.max_runtime_minutes"),
               ("escalation.conditions", "escalation.destination"),
               "When the budget runs out, who learns of it, with what evidence? Is a repeated failure a condition?"),
    ReviewPair("success ↔ stop-without-success", ("exit.success",), ("exit.stop_without_success",),
               "Do the exits exclude each other, is success a gate rather than an opinion, and does stop cover "
               "budget, blockers and judgment calls?"),
)


def field_value(contract: LoopContract, path: str) -> Any:
    """The value at a dotted path of the contract (``workspace.allowed_actions``)."""
    value: Any = contract
    for part in path.split("."):
        value = getattr(value, part)
    return value


def outcome_owner(outcome: Outcome, contract: LoopContract) -> str:
    """Who holds the item once ``outcome`` is decided: the escalation destination when the loop hands it
    over (escalate, stop), else the loop itself."""
    if outcome in ("escalate", "stop-with-receipt"):
        return contract.escalation.destination
    return "the loop (run closed)" if outcome.startswith("exit") else "the loop (next attempt)"


@dataclass(frozen=True)
class PairReview:
    """One field pair filled in from a contract: each side as ``(path, value)``."""

    pair: ReviewPair
    left: tuple[tuple[str, Any], ...]
    right: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class DecisionRow:
    """One outcome of the decision table, for this contract and these simulations."""

    outcome: Outcome
    condition: str
    minimum_receipt: tuple[str, ...]
    owner: str
    ending_here: tuple[str, ...]
    """The names of the simulated scenarios that ended in this outcome."""


@dataclass(frozen=True)
class ReviewPacket:
    """Everything a review packet shows; build one with ``ReviewPacket.build``."""

    contract: LoopContract
    findings: Findings
    simulations: tuple[Simulation, ...]

    @classmethod
    def build(cls, contract: LoopContract, simulations: Iterable[Simulation] | None = None,
              findings: Sequence[Finding] | None = None) -> ReviewPacket:
        """``simulations`` defaults to every failure injection played against the contract, ``findings`` to
        ``lint_contract(contract)``; pass ``()`` to leave either out."""
        if simulations is None:
            simulations = [simulate(contract, scenario) for scenario in FAILURE_INJECTIONS.values()]
        return cls(contract, lint_contract(contract) if findings is None else Findings(findings), tuple(simulations))

    def findings_about(self, part: str) -> tuple[Finding, ...]:
        """The findings beside one part; ``contract`` collects those about the document as a whole."""
        return tuple(finding for finding in self.findings
                     if (finding.part if finding.part in PARTS else "contract") == part)

    def severity_counts(self) -> dict[str, int]:
        """How many findings of each severity, errors first."""
        return {severity: sum(finding.severity == severity for finding in self.findings)
                for severity in ("error", "warning", "info")}

    @property
    def unexpected(self) -> tuple[Simulation, ...]:
        """The simulations whose outcome is not the one their scenario expects."""
        return tuple(simulation for simulation in self.simulations
                     if simulation.outcome != simulation.scenario.expected)

    @property
    def pairs(self) -> tuple[PairReview, ...]:
        def side(paths: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
            return tuple((path, field_value(self.contract, path)) for path in paths)

        return tuple(PairReview(pair, side(pair.left), side(pair.right)) for pair in REVIEW_PAIRS)

    @property
    def decisions(self) -> tuple[DecisionRow, ...]:
        """Every outcome in the order ``decide`` tests them, with its receipt, owner and the scenarios ending there."""
        return tuple(
            DecisionRow(outcome=outcome, condition=OUTCOME_CONDITIONS[outcome],
                        minimum_receipt=RECEIPT_FIELDS[outcome], owner=outcome_owner(outcome, self.contract),
                        ending_here=tuple(simulation.scenario.name for simulation in self.simulations
                                          if simulation.outcome == outcome))
            for outcome in OUTCOMES
        )
