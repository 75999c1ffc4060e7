"""``lint_contract``: run the rules of ``lint_rules`` over a contract and collect findings.

The schema proves a contract is complete; lint looks for what the schema cannot see:
contradictions, placeholders, and the field pairs a design review walks together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any, Literal

from alp_nb.base.frozen_model import FrozenModel

from .errors import LoopContractError
from .lint_rules import LINT_RULES, LintRule
from .loop_contract import LoopContract

RULES_BY_ID: Mapping[str, LintRule] = {rule.id: rule for rule in LINT_RULES}


class Finding(FrozenModel):
    """One place a rule fired: ``path`` is the JSON path (``workspace.allowed_actions[2]``)."""

    rule: str
    severity: Literal["error", "warning", "info"]
    path: str
    message: str
    hint: str
    looked_for: str = ""
    """For a heuristic, the words it read: write one of them, or ``ignore`` the rule."""

    @property
    def part(self) -> str:
        """The top-level part the finding concerns (``workspace``), or ``$`` for the whole document."""
        match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", self.path)
        return match.group(0) if match else "$"


class Findings(tuple[Finding, ...]):
    """The findings of one lint run, in rule order; renders as a table in a notebook."""

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self if finding.severity == "error")


def lint_contract(contract: LoopContract | Mapping[str, Any], ignore: Iterable[str] = (), *,
                  today: date | None = None) -> Findings:
    """Every finding of every rule on ``contract``, in the order of ``LINT_RULES``.

    ``contract`` is a ``LoopContract`` or the JSON document as written (a parsed file). Only a
    document can show LC001 (schema violations, after which nothing else is checked) and LC002
    (a float budget), since a ``LoopContract`` has already passed the schema.

    ``ignore`` switches rules off for this contract, like a ``# noqa`` list: pass rule ids, e.g.
    ``lint_contract(contract, ignore=["LC105", "LC110"])`` for a contract whose gates are known
    to be observable and whose intake cannot repeat. An unknown id is an error (a typo would
    otherwise silence nothing), and LC001 cannot be ignored.

    ``today`` is the day LC019 judges a review overdue on (by default, today); pass it to get the same findings on
    every day, as a test or a recorded notebook must.
    """
    skipped = _checked_ignore(ignore)
    findings: list[Finding] = []
    if not isinstance(contract, LoopContract):
        document = contract
        findings += _run((rule for rule in LINT_RULES if rule.reads == "document"), document, skipped)
        if any(finding.rule == "LC001" for finding in findings):
            return Findings(findings)
        contract = LoopContract.from_document(document)
    day = date.today() if today is None else today
    findings += _run((rule for rule in LINT_RULES if rule.reads != "document"), contract, skipped, day)
    return Findings(findings)


def _run(rules: Iterable[LintRule], subject: Any, skipped: frozenset[str], today: date | None = None) -> list[Finding]:
    """The findings of ``rules`` on ``subject``; a dated rule also reads ``today``."""
    return [
        Finding(rule=rule.id, severity=rule.severity, path=path, message=message, hint=rule.hint,
                looked_for=rule.looked_for)
        for rule in rules
        if rule.id not in skipped
        for path, message in (rule.check(subject, today) if rule.reads == "dated" else rule.check(subject))
    ]


def _checked_ignore(ignore: Iterable[str]) -> frozenset[str]:
    if isinstance(ignore, str):
        ignore = [ignore]
    ids = frozenset(rule_id.strip().upper() for rule_id in ignore)
    unknown = sorted(ids - RULES_BY_ID.keys())
    if unknown:
        raise LoopContractError("UNKNOWN_LINT_RULE", f"cannot ignore unknown lint rule(s): {', '.join(unknown)}")
    if "LC001" in ids:
        raise LoopContractError("UNKNOWN_LINT_RULE", "LC001 cannot be ignored: nothing else can be checked "
                                "on a contract the schema rejects")
    return ids
