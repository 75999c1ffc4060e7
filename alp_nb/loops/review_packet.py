"""The review packet: what a design review walks through before a loop is scheduled.

A packet is the contract, its lint findings, a simulated run of each failure
injection, of each scenario derived from the contract and of each derived firing,
graded by the reviewers' expectations when a review file is given (disagreements
first; ``not stated`` where nobody wrote one), the five field pairs (most contract
bugs sit at the interface of two fields: the seed's review checklist, reference
§6.2), the decision table with who owns the item after each outcome, the findings
learned from receipts when given, the contract's owner and review cadence (its
extension, flagged when the review is overdue), and one sign-off section per
reviewer (``REVIEWERS``: the fields that reviewer answers for, the findings and
derived scenarios under them, and a decision line). A contract with lint errors
is still simulated, and every outcome is marked provisional. It is a model:
``alp_nb.viz`` renders it to HTML and Markdown and decides nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from .decision import OUTCOME_CONDITIONS, OUTCOMES, Outcome
from .expectations import Expectations, Grades, grade
from .extension import EXTENSION_KEY
from .firing import simulate_firing
from .injections import firings_for, scenario_names, scenarios_for
from .learn import LearnedFinding
from .lint import Finding, Findings, lint_contract
from .loop_contract import PARTS, LoopContract
from .receipts import RECEIPT_FIELDS
from .simulator import Simulation, simulate


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


@dataclass(frozen=True)
class Reviewer:
    """One role of the design review and the contract fields it signs off. Each reviews its own slice; the
    packet puts the slices side by side so the assumptions between two of them are read too (seed 004)."""

    name: str
    signs_off: tuple[str, ...]
    question: str
    refusals: bool = False
    """Whether it also signs off every scenario whose run must refuse something at the boundary (a disallowed
    action, an effect past a cap), wherever in the contract the cap or the action is written."""


REVIEWERS: tuple[Reviewer, ...] = (
    Reviewer("product owner", ("objective", "exit.success", "exit.stop_without_success", f"{EXTENSION_KEY}.owner",
                               f"{EXTENSION_KEY}.review"),
             "Is this the outcome we want, and do we agree on when the loop is done and when it should give up?"),
    Reviewer("security", ("workspace.isolation", "workspace.allowed_actions", "workspace.disallowed_actions",
                          "agents"),
             "How far can this loop reach if it goes wrong: is each agent's authority no wider than its job, is "
             "every dangerous action ruled out, and is every external effect capped?", refusals=True),
    Reviewer("operator", ("trigger.type", "trigger.cadence_or_event", "state.artifacts", "state.update_rule",
                          "budget.max_retries", "budget.max_runtime_minutes", f"{EXTENSION_KEY}.budget",
                          "escalation.conditions", "escalation.destination"),
             "Can we run this unattended: do we know what starts it, where its state lives, what it may spend, "
             "and who is told when it is stuck?"),
    Reviewer("builder", ("intake.sources", "intake.selection_rule", "context.required_files",
                         "context.runtime_sources", "workspace.isolation", "state.artifacts", "verification.receipts"),
             "Can each of these fields be wired into the runtime as written: every source readable, every file "
             "present, the isolation buildable, and the state and receipts stored where they are named?"),
    Reviewer("verifier owner", ("verification.gates", "verification.receipts", "agents"),
             "Will we maintain these gates: does each one check something observable, is it checked by someone "
             "other than the actor, and does each receipt show what was checked?"),
)
"""The five reviewers of seed 004, in the order they sign; a field may be signed off by more than one."""


def concerns(path: str, field: str) -> bool:
    """Whether something at JSON ``path`` (a finding, a scenario's ``derived_from``) is about ``field``: the field
    itself, an item or key inside it (``escalation.conditions[0]``), or the whole part holding it (``context``)."""
    return path == field or path.startswith((f"{field}.", f"{field}[")) or field.startswith(f"{path}.")


def field_value(contract: LoopContract, path: str) -> Any:
    """The value at a dotted path of the contract (``workspace.allowed_actions``); None for an extension field the
    contract does not write."""
    value: Any = contract
    for part in path.split("."):
        value = getattr(value, part, None)
    return value


def field_values(contract: LoopContract, paths: Iterable[str]) -> tuple[tuple[str, Any], ...]:
    """``(path, value)`` for each path the contract writes."""
    return tuple((path, value) for path in paths if (value := field_value(contract, path)) is not None)


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
class ReviewerSection:
    """One reviewer's part of the packet: its fields as ``(path, value)``, and the findings and simulations
    about them."""

    reviewer: Reviewer
    fields: tuple[tuple[str, Any], ...]
    findings: tuple[Finding, ...]
    simulations: tuple[Simulation, ...]
    """The simulations of the scenarios derived from one of the fields; a failure injection belongs to nobody."""

    @property
    def decision(self) -> str:
        """What the reviewer fills in."""
        return f"{self.reviewer.name}: approved / changes requested — name, date"

    @property
    def decision_line(self) -> str:
        """The decision as a Markdown task-list line, to tick in a pull request."""
        return f"- [ ] {self.decision}"


@dataclass(frozen=True)
class ReviewPacket:
    """Everything a review packet shows; build one with ``ReviewPacket.build``."""

    contract: LoopContract
    findings: Findings
    simulations: tuple[Simulation, ...]
    grades: Grades
    learned: tuple[LearnedFinding, ...] = ()
    today: date | None = None
    """The day the review cadence was judged on (LC019)."""

    @classmethod
    def build(cls, contract: LoopContract, simulations: Iterable[Simulation] | None = None,
              findings: Sequence[Finding] | None = None, expectations: Expectations | None = None,
              learned: Iterable[LearnedFinding] = (), today: date | None = None) -> ReviewPacket:
        """``simulations`` defaults to every scenario of ``scenarios_for(contract)`` (the failure injections and the
        ones derived from the contract) and every item of its derived firings, played against it (provisionally
        when it has lint errors); ``findings`` to ``lint_contract(contract, today=today)``; pass ``()`` to leave
        either out. ``expectations`` (a review file) grades the simulations; ``learned`` are findings from
        receipts (``learn_from_receipts``)."""
        if simulations is None:
            simulations = [simulate(contract, scenario, allow_lint_errors=True) for scenario in scenarios_for(contract)]
            simulations += [run for firing in firings_for(contract)
                            for run in simulate_firing(contract, firing, allow_lint_errors=True).runs]
        simulations = tuple(simulations)
        known = scenario_names(contract)
        return cls(contract, lint_contract(contract, today=today) if findings is None else Findings(findings),
                   simulations, grade(contract, simulations, expectations, known), tuple(learned), today)

    @property
    def provisional(self) -> bool:
        """Whether the contract has lint errors: every simulated outcome is then provisional."""
        return any(simulation.provisional for simulation in self.simulations) or bool(self.findings.errors)

    @property
    def review_overdue(self) -> tuple[Finding, ...]:
        """LC019's finding when the contract's last review is older than its cadence."""
        return tuple(finding for finding in self.findings if finding.rule == "LC019")

    def findings_about(self, part: str) -> tuple[Finding, ...]:
        """The findings beside one part; ``contract`` collects those about the document as a whole."""
        return tuple(finding for finding in self.findings
                     if (finding.part if finding.part in PARTS else "contract") == part)

    def severity_counts(self) -> dict[str, int]:
        """How many findings of each severity, errors first."""
        return {severity: sum(finding.severity == severity for finding in self.findings)
                for severity in ("error", "warning", "info")}

    @property
    def disagreements(self) -> tuple[Simulation, ...]:
        """The simulations whose outcome a reviewer expected otherwise."""
        names = {grade.scenario for grade in self.grades.disagreements}
        return tuple(simulation for simulation in self.simulations if simulation.scenario.name in names)

    @property
    def pairs(self) -> tuple[PairReview, ...]:
        return tuple(PairReview(pair, field_values(self.contract, pair.left), field_values(self.contract, pair.right))
                     for pair in REVIEW_PAIRS)

    @property
    def reviewer_sections(self) -> tuple[ReviewerSection, ...]:
        """One section per reviewer, in ``REVIEWERS`` order."""
        def about(path: str | None, reviewer: Reviewer) -> bool:
            return path is not None and any(concerns(path, field) for field in reviewer.signs_off)

        return tuple(ReviewerSection(
            reviewer=reviewer,
            fields=field_values(self.contract, reviewer.signs_off),
            findings=tuple(finding for finding in self.findings if about(finding.path, reviewer)),
            simulations=tuple(simulation for simulation in self.simulations
                              if about(simulation.scenario.derived_from, reviewer)
                              or (reviewer.refusals and simulation.scenario.must_refuse is not None)),
        ) for reviewer in REVIEWERS)

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
