"""The runtime layer's one exception: every refusal and failure carries a stable ``code``."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

RUNTIME_ERROR_CODES: tuple[str, ...] = (
    "INVALID_META", "DUPLICATE_WORKFLOW", "UNKNOWN_WORKFLOW", "INVALID_ARGS", "INVALID_OPTION", "INVALID_RUN_ID",
    "RUN_NOT_FOUND", "RUN_NOT_STARTED", "RUN_ACTIVE", "WORKFLOW_MISMATCH", "ARGS_MISMATCH", "UNSAFE_STORE_FILE",
    "STORE_INACCESSIBLE",
    "CORRUPT_RUN", "JOURNAL_CORRUPT", "JOURNAL_TAMPERED", "INVALID_SCRIPT",
    "INVALID_CALL", "INVALID_SCHEMA", "INVALID_OUTPUT", "RUNNER_OUTPUT", "RUNNER_UNAVAILABLE", "BUDGET_EXCEEDED",
    "AGENT_CAP_REACHED", "NESTING_TOO_DEEP", "INVALID_TOOL_INPUT",
)
"""Refused before launch: INVALID_META to INVALID_SCRIPT, and BUDGET_EXCEEDED for a resume on a spent budget.
Raised inside a script, ending the run ``failed``: INVALID_CALL to NESTING_TOO_DEEP. INVALID_TOOL_INPUT comes back
only in a Workflow tool error result."""


class WorkflowInputError(AlpError):
    """A saved workflow, its input, its run or one of its calls was refused (s16's ``WorkflowInputError``)."""

    codes: ClassVar[tuple[str, ...]] = RUNTIME_ERROR_CODES
