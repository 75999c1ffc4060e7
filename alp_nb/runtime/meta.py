"""Saved-workflow metadata and workflow arguments, checked before any workflow code runs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from alp_nb.agents.errors import AgentError
from alp_nb.agents.output_contract import OutputContract
from alp_nb.base.frozen import thaw
from alp_nb.base.frozen_struct import FrozenStruct
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .errors import WorkflowInputError

WORKFLOW_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
META_FIELDS = ("name", "description", "phases", "args")
RUNTIME_ARGS = ("budget",)
"""Args every workflow takes, read by the runtime itself; an args schema never needs to declare them."""


class WorkflowMeta(FrozenStruct, frozen=True, kw_only=True):
    """What the host registers beside a trusted script: its name (a file-safe slug), description, phases and,
    optionally, a JSON Schema for its args (checked before the script runs)."""

    FROZEN = ("args",)
    name: str
    description: str
    phases: tuple[str, ...] = ()
    args: Any = None


def validate_meta(meta: Any) -> WorkflowMeta:
    """The checked metadata, or WorkflowInputError(INVALID_META) with s16's message for the first problem."""
    checked = checked_fields(meta)
    args_contract(checked)
    return checked


def checked_fields(meta: Any) -> WorkflowMeta:
    """``validate_meta`` but for the args schema, which is left uncompiled: alp_nb's own workflow, whose
    schema its tests check, is registered without importing any JSON Schema machinery."""
    if isinstance(meta, WorkflowMeta):
        meta = {"name": meta.name, "description": meta.description, "phases": meta.phases, "args": meta.args}
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
    return WorkflowMeta(name=name, description=description, phases=tuple(phases), args=meta.get("args"))


def args_contract(meta: WorkflowMeta) -> OutputContract | None:
    """The compiled args schema of ``meta`` (None when it declares none); INVALID_META if it is not a JSON Schema."""
    if meta.args is None:
        return None
    if not isinstance(meta.args, Mapping):
        raise WorkflowInputError("INVALID_META", "meta.args must be a JSON Schema object")
    try:
        return OutputContract(f"{meta.name} args", thaw(meta.args))
    except AgentError as error:
        raise WorkflowInputError("INVALID_META", f"meta.args is not a valid JSON Schema: {error.message}") from None


def check_declared_args(contract: OutputContract | None, args: dict[str, Any], workflow: str,
                        field: str = "args") -> None:
    """INVALID_ARGS naming each key that breaks the workflow's args schema (a typo in a key is refused, not
    silently ignored); the runtime's own args (``budget``) are left to ``validate_args``."""
    if contract is None:
        return
    verdict = contract.validate({key: value for key, value in args.items() if key not in RUNTIME_ARGS})
    if not verdict.ok:
        issues = (field + (issue.removeprefix("output") if issue.startswith("output: ") else f".{issue}")
                  for issue in verdict.issues)
        raise WorkflowInputError("INVALID_ARGS", f"{field} do not match what `{workflow}` takes: "
                                 + "; ".join(issues))


def validate_args(args: Any, field: str = "args") -> dict[str, Any]:
    """A private JSON copy of workflow arguments: an object of JSON values; ``budget``, if set, a positive int, or
    null for no budget (what a run written elsewhere, the s16 reference's included, may hold)."""
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise WorkflowInputError("INVALID_ARGS", f"{field} must be a JSON object, not {type(args).__name__}")
    try:  # read back as an untrusted document: what the snapshot holds must load again
        copy = loads_untrusted(json.dumps(dict(args), allow_nan=False))
    except (TypeError, ValueError) as error:
        raise WorkflowInputError("INVALID_ARGS", f"{field} must hold only JSON values: {error}") from None
    except RecursionError:
        raise WorkflowInputError("INVALID_ARGS", f"{field} are nested too deeply") from None
    except UntrustedJson as error:
        raise WorkflowInputError("INVALID_ARGS", f"{field} must be JSON a run can store: {error.message}") from None
    if set(copy) != set(args):
        raise WorkflowInputError("INVALID_ARGS", f"{field} keys must be strings")
    for text, path, is_key in _texts(copy):
        try:
            text.encode()
        except UnicodeEncodeError as error:  # a lone surrogate: no file of the run could hold it
            where = ".".join(path)
            what = (f"has a key{f' in `{where}`' if where else ''} that" if is_key else f"key `{where}`")
            raise WorkflowInputError("INVALID_ARGS", f"{field} {what} is not valid Unicode text (a lone surrogate at "
                                     f"character {error.start}): a run could not write it to its files") from None
    budget = copy.get("budget")
    if budget is not None and (type(budget) is not int or budget <= 0):
        raise WorkflowInputError("INVALID_ARGS", f"{field}.budget must be a positive integer number of tokens, "
                                 "or null for no budget")
    return copy


def _texts(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, tuple[str, ...], bool]]:
    """Every string in JSON ``value``: (the text, the keys leading to it, whether it is itself a key)."""
    if isinstance(value, str):
        yield value, path, False
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key, path, True
            yield from _texts(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _texts(item, (*path, str(index)))
