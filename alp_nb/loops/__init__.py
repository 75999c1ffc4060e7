"""The loops layer: Loop Engineering Contracts (and alp_nb's extension of them), their linter, the decision
policy, a failure-injection simulator of single runs and whole firings, the reviewer's expectations, learning from
receipts, contract diffs and the review packet. Pure except for the named loaders and writers.

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .contract_diff import ContractDiff as ContractDiff, diff_contracts as diff_contracts
    from .decision import (
        OUTCOMES as OUTCOMES,
        BudgetState as BudgetState,
        Evidence as Evidence,
        LoopState as LoopState,
        Outcome as Outcome,
        decide as decide,
        failure_signature as failure_signature,
    )
    from .effects import EffectCap as EffectCap, effect_caps as effect_caps, external_effects as external_effects
    from .errors import LOOP_CONTRACT_ERROR_CODES as LOOP_CONTRACT_ERROR_CODES, LoopContractError as LoopContractError
    from .expectations import (
        Expectation as Expectation,
        Expectations as Expectations,
        Grade as Grade,
        Grades as Grades,
        grade as grade,
    )
    from .extension import (
        EXTENSION_KEY as EXTENSION_KEY,
        Extension as Extension,
        FiringBudget as FiringBudget,
        Review as Review,
        extended_json_schema as extended_json_schema,
    )
    from .firing import FiringSimulation as FiringSimulation, simulate_firing as simulate_firing
    from .injections import (
        FAILURE_INJECTIONS as FAILURE_INJECTIONS,
        firings_for as firings_for,
        scenarios_for as scenarios_for,
    )
    from .learn import (
        LEARN_RULES as LEARN_RULES,
        LearnedFinding as LearnedFinding,
        LearnedFindings as LearnedFindings,
        learn_from_receipts as learn_from_receipts,
    )
    from .lint import Finding as Finding, Findings as Findings, lint_contract as lint_contract
    from .lint_rules import LINT_RULES as LINT_RULES, LintRule as LintRule
    from .loop_contract import (
        PARTS as PARTS,
        PHASES as PHASES,
        TEMPLATE_MARK as TEMPLATE_MARK,
        TRIGGER_TYPES as TRIGGER_TYPES,
        AgentRole as AgentRole,
        Budget as Budget,
        Context as Context,
        Escalation as Escalation,
        Exit as Exit,
        Intake as Intake,
        LoopContract as LoopContract,
        State as State,
        Trigger as Trigger,
        Verification as Verification,
        Workspace as Workspace,
        read_contract_document as read_contract_document,
    )
    from .receipt_log import (
        ReceiptRecord as ReceiptRecord,
        read_receipt_log as read_receipt_log,
        receipt_records as receipt_records,
        write_receipt_log as write_receipt_log,
    )
    from .receipts import RECEIPT_FIELDS as RECEIPT_FIELDS, CapHit as CapHit, make_receipt as make_receipt
    from .review_packet import (
        REVIEW_PAIRS as REVIEW_PAIRS,
        REVIEWERS as REVIEWERS,
        DecisionRow as DecisionRow,
        PairReview as PairReview,
        Reviewer as Reviewer,
        ReviewerSection as ReviewerSection,
        ReviewPacket as ReviewPacket,
        ReviewPair as ReviewPair,
    )
    from .scenario import (
        Firing as Firing,
        FiringItem as FiringItem,
        Scenario as Scenario,
        ScriptedAttempt as ScriptedAttempt,
    )
    from .simulator import Simulation as Simulation, Step as Step, simulate as simulate

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
