"""The reviewer grades, not the simulator: a review file of expected outcomes, and each simulation graded by it.

A simulator that writes its own expectations can only agree with itself. So no scenario carries an expected
outcome; the reviewers write theirs in a review file beside the contract (YAML or JSON), per scenario: the outcome
they expect, optionally who should hold the item afterwards, and who signs the expectation::

    contract: Flaky test quarantine loop        # the name of the contract these expectations are about
    expectations:
      retry-budget:                             # a scenario's name, as simulate and the packet show it
        outcome: escalate                       # exit-success, exit-noop, escalate, stop-with-receipt, ...
        owner: Test-infrastructure owner via a tracking issue labelled flaky-triage   # optional
        signed_by: Priya (operator)
        why: a test that keeps failing its reruns should reach test-infra   # optional

``grade`` compares each simulation with its expectation: ``agree``, ``disagree`` (naming what differs), or ``not
stated`` when nobody wrote one, never "as expected". A review file is untrusted input, read as a contract is;
every problem names the file and the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from alp_nb.base.frozen_model import FrozenMapping

from .decision import LoopModel, Outcome, Text
from .errors import LoopContractError
from .loop_contract import LoopContract, document_format, json_path, normalized, read_document
from .simulator import Simulation

Verdict = Literal["agree", "disagree", "not stated"]
VERDICTS: tuple[Verdict, ...] = ("disagree", "agree", "not stated")
"""The verdicts in the order a review reads them: disagreements first."""


class Expectation(LoopModel):
    """What a reviewer expects one scenario to end in, and who signs it."""

    outcome: Outcome
    owner: Text | None = None
    signed_by: Text
    why: Text | None = None


class Expectations(LoopModel):
    """A review file: the contract it is about, and the expectation for each scenario it names."""

    contract: Text
    expectations: FrozenMapping[Expectation]

    @classmethod
    def from_document(cls, document: Any, source: str = "review") -> Expectations:
        """The expectations of a parsed review file; ``REVIEW_INVALID`` names each bad key."""
        try:
            return cls.model_validate(document)
        except ValidationError as error:
            issues = tuple(f"{json_path(issue['loc'])}: {issue['msg']}" for issue in error.errors())
            raise LoopContractError("REVIEW_INVALID", f"{source}: not a valid review file", issues) from None

    @classmethod
    def load(cls, path: str | Path) -> Expectations:
        """Read a review file (``.json``, ``.yaml`` or ``.yml``), as strictly as a contract is read."""
        fmt = document_format(path)
        if fmt is None:
            raise LoopContractError("REVIEW_INVALID", f"{path}: a review file ends in .json, .yaml or .yml")
        document, problem = read_document(path, fmt, "review file")
        if problem:
            raise LoopContractError("REVIEW_INVALID", problem)
        return cls.from_document(document, str(path))


class Grade(LoopModel):
    """One simulation beside what its reviewer expected."""

    scenario: str
    outcome: Outcome
    owner: str | None
    provisional: bool
    expectation: Expectation | None = None

    @property
    def differences(self) -> tuple[str, ...]:
        """What differs from the expectation: the outcome, the owner afterwards."""
        expected = self.expectation
        if expected is None:
            return ()
        found = []
        if expected.outcome != self.outcome:
            found.append(f"expected {expected.outcome}, the run ended {self.outcome}")
        if expected.owner is not None and normalized(expected.owner) != normalized(self.owner or ""):
            found.append(f"expected the item with {expected.owner}, it is with {self.owner or 'the loop'}")
        return tuple(found)

    @property
    def verdict(self) -> Verdict:
        if self.expectation is None:
            return "not stated"
        return "disagree" if self.differences else "agree"


class Grades(tuple[Grade, ...]):
    """The grades of a set of simulations, disagreements first; renders as a table in a notebook."""

    def counted(self, verdict: Verdict) -> int:
        return sum(grade.verdict == verdict for grade in self)

    @property
    def disagreements(self) -> tuple[Grade, ...]:
        return tuple(grade for grade in self if grade.verdict == "disagree")

    @property
    def tally(self) -> str:
        """``1 disagree, 3 agree, 20 not stated``."""
        return ", ".join(f"{self.counted(verdict)} {verdict}" for verdict in VERDICTS)


def grade(contract: LoopContract, simulations: Iterable[Simulation], expectations: Expectations | None,
          known: Iterable[str] = ()) -> Grades:
    """Each simulation beside the reviewer's expectation, disagreements first (each verdict in the order run).

    ``expectations`` must be about ``contract`` (its ``contract`` is the contract's name) and name only scenarios
    that exist: those simulated, ``known`` (every scenario the contract has, when only some were run) and none
    else, so a typo or a scenario a revision removed is an error, not a silent ``not stated``.
    """
    simulations = list(simulations)
    stated: Mapping[str, Expectation] = expectations.expectations if expectations is not None else {}
    if expectations is not None:
        _check(contract, expectations, {*(run.scenario.name for run in simulations), *known})
    grades = [Grade(scenario=run.scenario.name, outcome=run.outcome, owner=run.owner, provisional=run.provisional,
                    expectation=stated.get(run.scenario.name)) for run in simulations]
    return Grades(sorted(grades, key=lambda each: VERDICTS.index(each.verdict)))


def _check(contract: LoopContract, expectations: Expectations, known: set[str]) -> None:
    issues = []
    if normalized(expectations.contract) != normalized(contract.name):
        issues.append(f"contract: the review is about `{expectations.contract}`, not `{contract.name}`")
    unknown = [name for name in expectations.expectations if name not in known]
    issues += [f"{json_path(('expectations', name))}: the contract has no such scenario" for name in unknown]
    if unknown:
        issues.append(f"its scenarios: {', '.join(sorted(known))}")
    if issues:
        raise LoopContractError("REVIEW_INVALID", f"the review file does not fit `{contract.name}`", tuple(issues))
