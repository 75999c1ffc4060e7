"""The loops layer: Loop Engineering Contracts, their linter, the decision policy, a
failure-injection simulator and the review packet. Pure except for the named loaders."""

from .contract import (
    PARTS, PHASES, TEMPLATE_MARK, TRIGGER_TYPES, AgentRole, Budget, Context, Escalation, Exit, Intake, LoopContract,
    State, Trigger, Verification, Workspace, read_contract_document,
)
from .errors import LoopContractError
from .lint import Finding, Findings, lint_contract
from .lint_rules import LINT_RULES, LintRule
from .decision import OUTCOMES, BudgetState, Evidence, LoopState, Outcome, decide, failure_signature
from .receipts import RECEIPT_FIELDS, make_receipt
from .simulator import FAILURE_INJECTIONS, Scenario, ScriptedAttempt, Simulation, simulate
