"""Where one execution stands in its workflow: a frozen, JSON-serialisable snapshot.

The runner never mutates a snapshot; every move returns a new one, so two
reads of the same state can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import NonNegativeInt

from alp_nb.agents.output_contract import OutputValidation
from alp_nb.base.frozen_model import FrozenModel

WorkflowRunStatus = Literal["running", "awaiting-output", "repairing", "completed", "failed", "cancelled"]
RUN_STATUSES: tuple[WorkflowRunStatus, ...] = (
    "running", "awaiting-output", "repairing", "completed", "failed", "cancelled",
)
LIVE_STATUSES: tuple[WorkflowRunStatus, ...] = ("running", "awaiting-output", "repairing")
"""The statuses an execution can still leave; only these can be cancelled."""

MAX_OUTPUT_REPAIR_ATTEMPTS = 1
"""One repair, not three: if the first repair misses, later ones mostly burn tokens on the same
misunderstanding, and an early ``failed`` is a signal a person can read."""


def can_repair_output(repair_attempts: int) -> bool:
    return repair_attempts < MAX_OUTPUT_REPAIR_ATTEMPTS


class WorkflowExecutionState(FrozenModel):
    """ALP's ``{workflowId, currentState, status, repairAttempts}``, exactly these four fields."""

    workflow_id: str
    current_state: str
    status: WorkflowRunStatus
    repair_attempts: NonNegativeInt = 0


@dataclass(frozen=True)
class SubmitResult:
    """What ``submit_output`` returns: the next snapshot and the contract's verdict."""

    state: WorkflowExecutionState
    validation: OutputValidation
