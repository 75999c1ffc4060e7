"""The runtime layer's one exception: every refusal and failure carries a stable ``code``."""

from __future__ import annotations

from alp_nb.coded_error import CodedError


class WorkflowInputError(CodedError):
    """A saved workflow, its input, its run or one of its calls was refused (s16's ``WorkflowInputError``).

    Refused before launch: INVALID_META, DUPLICATE_WORKFLOW, UNKNOWN_WORKFLOW, INVALID_ARGS, INVALID_OPTION,
    INVALID_RUN_ID, RUN_NOT_FOUND, RUN_ACTIVE, WORKFLOW_MISMATCH, ARGS_MISMATCH, CORRUPT_RUN, JOURNAL_CORRUPT.
    Raised inside a script (the run ends ``failed``): INVALID_CALL, INVALID_SCHEMA, INVALID_OUTPUT, RUNNER_OUTPUT,
    RUNNER_UNAVAILABLE, BUDGET_EXCEEDED, AGENT_CAP_REACHED, NESTING_TOO_DEEP. The Workflow tool adds
    INVALID_TOOL_INPUT to its error results.
    """
