"""The workflow layer's exception: a workflow that cannot run, a move it does not allow, or an
execution on disk that cannot be prepared, read or finalised.

The runner's messages are ALP's; ALP's runner throws plain errors with no
code, so the codes are alp_nb's own.
"""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

WORKFLOW_ERROR_CODES: tuple[str, ...] = (
    "INVALID_WORKFLOW", "WRONG_WORKFLOW", "TRANSITION_REFUSED", "SUBMIT_REFUSED", "CANCEL_REFUSED",
    "NO_OUTPUT_PATH", "NOTHING_TO_UNDO", "INVALID_EXECUTION_ID", "INVALID_OPTION", "UNKNOWN_AGENT",
    "AUTHORIZATION_FAILED", "EXECUTION_EXISTS", "EXECUTION_UNWRITABLE", "EXECUTION_NOT_FOUND", "EXECUTION_CORRUPT",
    "EXECUTION_TAMPERED", "POLICY_STALE",
)


class WorkflowError(AlpError):
    """A workflow that cannot be defined, a move the workflow does not allow, or an execution refused."""

    codes: ClassVar[tuple[str, ...]] = WORKFLOW_ERROR_CODES
