"""The Workflow tool: how a model asks the host to run (or resume) a saved workflow by name.

The model sends only a name, args and an optional run id, never code. Bad
input (unknown name, malformed args, a refused run id, an active run) comes
back as an error result, so the host's loop goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alp_nb.agents.output_contract import OutputContract

from .errors import WorkflowInputError
from .run import run_workflow

WORKFLOW_TOOL: dict[str, Any] = {
    "name": "Workflow",
    "input_schema": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "args": {"type": "object"},
            "resume_from_run_id": {"type": "string"},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}

_INPUT = OutputContract.deferred("Workflow tool input", WORKFLOW_TOOL["input_schema"])


async def call_workflow_tool(tool_input: Any, **options: Any) -> dict[str, Any]:
    """The JSON-safe tool result: ``{launched, result, task}``, or ``{isError: true, error: {code, message}}``.

    ``options`` go to ``run_workflow`` (store, runner, registry, agent_cap, concurrency, durability, on_event).
    """
    if not isinstance(tool_input, Mapping):
        return _error("INVALID_TOOL_INPUT", "Workflow tool input must be a JSON object")
    verdict = _INPUT.validate(dict(tool_input))
    if not verdict.ok:
        issues = (issue.removeprefix("output: ") for issue in verdict.issues)  # the whole input has no path
        return _error("INVALID_TOOL_INPUT", "Workflow tool input: " + "; ".join(issues))
    try:
        run = await run_workflow(tool_input["name"], tool_input.get("args"), tool_input.get("resume_from_run_id"),
                                 **options)
    except WorkflowInputError as error:
        return _error(error.code, error.message)
    return run.to_json()


def _error(code: str, message: str) -> dict[str, Any]:
    return {"isError": True, "error": {"code": code, "message": message}}
