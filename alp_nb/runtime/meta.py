"""Saved-workflow metadata and workflow arguments, checked before any workflow code runs."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from alp_nb.agents.frozen import FrozenModel

from .errors import WorkflowInputError

WORKFLOW_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
META_FIELDS = ("name", "description", "phases")


class WorkflowMeta(FrozenModel):
    """What the host registers beside a trusted script: its name (a file-safe slug), description and phases."""

    name: str
    description: str
    phases: tuple[str, ...] = ()


def validate_meta(meta: Any) -> WorkflowMeta:
    """The checked metadata, or WorkflowInputError(INVALID_META) with s16's message for the first problem."""
    if isinstance(meta, WorkflowMeta):
        meta = meta.model_dump()
    if not isinstance(meta, Mapping):
        raise WorkflowInputError("INVALID_META", "meta must be an object literal")
    unknown = sorted(str(key) for key in meta if key not in META_FIELDS)
    if unknown:
        raise WorkflowInputError("INVALID_META", f"meta has unknown field `{unknown[0]}`")
    name, description = meta.get("name"), meta.get("description")
    if not name or not description:
        raise WorkflowInputError("INVALID_META", "meta requires name and description")
    if not isinstance(name, str) or not WORKFLOW_NAME_RE.fullmatch(name):
        raise WorkflowInputError("INVALID_META", "meta.name must be a safe 1-64 character slug")
    if not isinstance(description, str):
        raise WorkflowInputError("INVALID_META", "meta.description must be a string")
    phases = meta.get("phases", ())
    if not isinstance(phases, list | tuple) or not all(isinstance(phase, str) and phase for phase in phases):
        raise WorkflowInputError("INVALID_META", "meta.phases must contain non-empty strings")
    return WorkflowMeta(name=name, description=description, phases=tuple(phases))


def validate_args(args: Any, field: str = "args") -> dict[str, Any]:
    """A private JSON copy of workflow arguments: an object of JSON values; ``budget``, if set, a positive int."""
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise WorkflowInputError("INVALID_ARGS", f"{field} must be a JSON object, not {type(args).__name__}")
    try:
        copy = json.loads(json.dumps(dict(args), allow_nan=False))
    except (TypeError, ValueError) as error:
        raise WorkflowInputError("INVALID_ARGS", f"{field} must hold only JSON values: {error}") from None
    except RecursionError:
        raise WorkflowInputError("INVALID_ARGS", f"{field} are nested too deeply") from None
    if set(copy) != set(args):
        raise WorkflowInputError("INVALID_ARGS", f"{field} keys must be strings")
    budget = copy.get("budget")
    if "budget" in copy and (type(budget) is not int or budget <= 0):
        raise WorkflowInputError("INVALID_ARGS", f"{field}.budget must be a positive integer number of tokens")
    return copy
