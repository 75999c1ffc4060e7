"""Executions on disk, the ALP stop-hook model: prepare writes the policy snapshot and the
initial workflow state; finalize does what the Stop hook does with the final output.

Layout: ``<root>/<exec_id>/policy.json`` and ``state.json``, mode 0600. An
execution directory appears whole or not at all (written aside, then renamed),
and every later write replaces ``state.json`` atomically. Both files are read
as untrusted: never through a link, only regular files, bounded JSON; and a
link planted at ``state.json`` is refused, never replaced.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from alp_nb.agents.builtins import builtin_registry
from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.errors import AgentError
from alp_nb.agents.hashing import definition_hash
from alp_nb.agents.modes import DEFAULT_MODE, parse_mode
from alp_nb.agents.paths import canonicalize_path
from alp_nb.agents.policy import PolicyEngine
from alp_nb.agents.registry import AgentRegistry
from alp_nb.agents.workflow_definition import WorkflowDefinition
from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.frozen_model import FrozenJson, FrozenModel, validation_issues
from alp_nb.base.safe_files import RefusedFile, check_not_link, read_regular
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .errors import WorkflowError
from .execution_state import MAX_OUTPUT_REPAIR_ATTEMPTS, WorkflowExecutionState, WorkflowRunStatus
from .policy_snapshot import WorkspaceMode, execution_policy
from .runner import WorkflowRunner, advance_to_output, effective_tools

EXECUTION_ID = re.compile(r"\Aexec_[A-Za-z0-9_-]+\Z")
MAX_EXECUTION_ID_LENGTH = 128
"""Far below a file name's 255 bytes, which the staging folder's name adds to."""
REPAIR_BUDGET_EXHAUSTED = "output repair budget exhausted"


class StoredExecutionState(FrozenModel):
    """``state.json``: ALP's StoredExecutionState. ``output`` is present only once an output passed."""

    execution_id: str
    status: Literal["prepared"] | WorkflowRunStatus
    workflow: WorkflowExecutionState
    policy_hash: str
    created_at: str
    output: FrozenJson = None
    outcome: FrozenJson = None


@dataclass(frozen=True)
class FinalizeResult:
    ok: bool
    status: str
    issues: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExecutionStatus:
    """One execution as ``alp-nb context status`` prints it."""

    execution_id: str
    role: str
    definition_hash: str
    mode: str
    workspace: str
    status: str
    workflow: WorkflowExecutionState
    effective_tools: tuple[str, ...]
    workflow_definition: WorkflowDefinition = field(repr=False, compare=False)


@dataclass(frozen=True)
class _Loaded:
    policy: dict[str, Any]
    state: StoredExecutionState
    definition: AgentDefinition
    directory: Path


class ExecutionStore:
    """Executions under ``root`` (default ``$ALP_EXECUTION_ROOT``, else ``~/.alp/executions``).

    ``finalize`` and ``status`` find the role's definition in ``registry`` (default: the
    built-ins) by role *and* hash: an edited definition no longer finalises old executions.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        default = os.environ.get("ALP_EXECUTION_ROOT") or Path.home() / ".alp" / "executions"
        self.root = Path(root if root is not None else default)
        self.runner = WorkflowRunner()

    def prepare(
        self,
        registry: AgentRegistry,
        role: str,
        *,
        workspace: str | os.PathLike[str] = ".",
        mode: str = DEFAULT_MODE,
        workspace_mode: WorkspaceMode = "read-only",
        parent: str | None = None,
        execution_id: str | None = None,
    ) -> ExecutionStatus:
        """Authorise, then write the execution. ``parent`` defaults to the role's ``reports_to``;
        a refusal raises before anything is written."""
        if execution_id is None:
            execution_id = f"exec_{secrets.token_hex(8)}"
        _check_id(execution_id)
        mode = parse_mode(mode)
        if workspace_mode not in get_args(WorkspaceMode):
            raise WorkflowError("INVALID_OPTION",
                                f"workspace_mode must be one of {', '.join(get_args(WorkspaceMode))}, "
                                f"received `{workspace_mode}`")
        if not isinstance(workspace, (str, os.PathLike)):
            raise WorkflowError("INVALID_OPTION", f"workspace must be a path, received {type(workspace).__name__}")
        if not registry.has(role):
            raise WorkflowError("UNKNOWN_AGENT", f"unknown agent `{role}`; known: {', '.join(registry.ids())}")
        definition = registry.get(role)
        workspace = canonicalize_path(os.fspath(workspace))
        _authorize(registry, definition, parent or definition.reports_to, workspace, workspace_mode)
        workflow = self.runner.initialize(definition.workflow)
        policy = execution_policy(
            registry, definition, execution_id=execution_id, workspace=workspace, workspace_mode=workspace_mode,
            mode=mode, created_at=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        )
        state = StoredExecutionState(execution_id=execution_id, status="prepared", workflow=workflow,
                                     policy_hash=policy["policyHash"], created_at=policy["createdAt"])
        self._create(execution_id, policy, state)
        return self._status(_Loaded(policy, state, definition, self.root / execution_id))

    def finalize(self, execution_id: str, output: Any, registry: AgentRegistry | None = None) -> FinalizeResult:
        """The Stop hook: advance to the output state, submit ``output`` to the role's contract,
        persist. A completed execution answers ok again; a failed one is not written."""
        loaded = self._load(execution_id, registry)
        workflow = loaded.state.workflow
        if workflow.status == "completed":
            return FinalizeResult(ok=True, status="completed")
        if workflow.status == "failed":
            return FinalizeResult(ok=False, status="failed", issues=(REPAIR_BUDGET_EXHAUSTED,))
        advanced = advance_to_output(self.runner, loaded.definition.workflow, workflow)
        result = self.runner.submit_output(advanced, loaded.definition.output, output)
        update: dict[str, Any] = {"status": result.state.status, "workflow": result.state}
        if result.validation.ok:
            update["output"] = to_jsonable_python(result.validation.value)
        self._write_state(loaded.directory, loaded.state.model_copy(update=update))
        return FinalizeResult(ok=result.validation.ok, status=result.state.status, issues=result.validation.issues)

    def status(self, execution_id: str, registry: AgentRegistry | None = None) -> ExecutionStatus:
        return self._status(self._load(execution_id, registry))

    def _status(self, loaded: _Loaded) -> ExecutionStatus:
        return ExecutionStatus(
            execution_id=loaded.state.execution_id,
            role=loaded.definition.id,
            definition_hash=loaded.policy["definitionHash"],
            mode=loaded.policy["mode"],
            workspace=loaded.policy["workspace"],
            status=loaded.state.status,
            workflow=loaded.state.workflow,
            effective_tools=effective_tools(loaded.definition, loaded.state.workflow),
            workflow_definition=loaded.definition.workflow,
        )

    def _create(self, execution_id: str, policy: dict[str, Any], state: StoredExecutionState) -> None:
        """Write both files into a private folder beside the target, then rename it into place."""
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise WorkflowError("EXECUTION_UNWRITABLE",
                                f"cannot use `{self.root}` as the executions folder: {error.strerror}") from None
        target = self.root / execution_id
        if target.exists():
            raise WorkflowError("EXECUTION_EXISTS", f"execution `{execution_id}` already exists")
        staging = Path(tempfile.mkdtemp(prefix=f".{execution_id}.", dir=self.root))
        try:
            write_atomic(staging / "policy.json", json.dumps(policy, indent=2, ensure_ascii=False))
            self._write_state(staging, state)
            os.rename(staging, target)
        except OSError as error:
            shutil.rmtree(staging, ignore_errors=True)
            if target.exists():
                raise WorkflowError("EXECUTION_EXISTS", f"execution `{execution_id}` already exists") from None
            raise WorkflowError("EXECUTION_UNWRITABLE", f"cannot write execution `{execution_id}`: {error}") from None

    @staticmethod
    def _write_state(directory: Path, state: StoredExecutionState) -> None:
        path = directory / "state.json"
        try:
            check_not_link(path)
        except RefusedFile as refused:
            raise WorkflowError("EXECUTION_CORRUPT", f"{refused.message}; it was left untouched") from None
        data = state.model_dump(mode="json", by_alias=True, include=state.model_fields_set)
        write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False))

    def _load(self, execution_id: str, registry: AgentRegistry | None) -> _Loaded:
        """loadExecution, in ALP's order of checks, plus a consistency check of the stored workflow."""
        _check_id(execution_id)
        directory = self.root / execution_id
        policy = _read_json(directory / "policy.json", execution_id)
        state = _parse_state(_read_json(directory / "state.json", execution_id), directory / "state.json")
        if state.execution_id != execution_id or policy.get("executionId") != execution_id:
            raise WorkflowError("EXECUTION_TAMPERED", "execution ID mismatch")
        if not isinstance(policy.get("policyHash"), str):
            raise WorkflowError("EXECUTION_CORRUPT", f"policy file carries no policyHash: {directory / 'policy.json'}")
        if state.policy_hash != policy["policyHash"]:
            raise WorkflowError("EXECUTION_TAMPERED", "execution state policy hash mismatch")
        registry = registry or builtin_registry()
        definition = _definition_for(registry, policy)
        try:
            derived = execution_policy(
                registry, definition, execution_id=execution_id,
                workspace=policy["workspace"], workspace_mode=policy["workspaceMode"], mode=policy["mode"],
                created_at=policy["createdAt"],
            )
        except (AgentError, KeyError, TypeError, ValueError):
            derived = None
        if derived is None or json.dumps(derived) != json.dumps(policy):
            raise WorkflowError("POLICY_STALE", "execution policy snapshot is invalid or stale")
        _check_consistent(definition.workflow, state, directory / "state.json")
        return _Loaded(policy, state, definition, directory)


def _check_id(execution_id: object) -> None:
    if not isinstance(execution_id, str) or not EXECUTION_ID.fullmatch(execution_id):
        raise WorkflowError("INVALID_EXECUTION_ID", f"missing or invalid execution ID `{execution_id}`")
    if len(execution_id) > MAX_EXECUTION_ID_LENGTH:
        raise WorkflowError("INVALID_EXECUTION_ID", f"invalid execution ID of {len(execution_id)} characters, "
                                                    f"over the limit of {MAX_EXECUTION_ID_LENGTH}")


def _authorize(registry: AgentRegistry, definition: AgentDefinition, parent: str, workspace: str,
               workspace_mode: WorkspaceMode) -> None:
    """ALP's execution service: delegation first, then the workspace; deny before any write."""
    engine = PolicyEngine(registry)
    if parent == "principal":
        if definition.reports_to != "principal":
            raise WorkflowError("AUTHORIZATION_FAILED",
                                f"delegation authorization failed: `{definition.id}` does not report to principal")
    else:
        answer = engine.authorize({"type": "delegation", "actor": parent, "target": definition.id})
        if not answer.allowed:
            raise WorkflowError("AUTHORIZATION_FAILED",
                                f"delegation authorization failed ({answer.code}): {answer.reason}")
    if not definition.capabilities.workspace.read_roots and workspace_mode != "workspace-write":
        return
    answer = engine.authorize({
        "type": "workspace", "actor": definition.id,
        "operation": "write" if workspace_mode == "workspace-write" else "read", "path": workspace,
        "execution": {"activeWorkspace": workspace, "workspaceMode": workspace_mode,
                      "delegated": parent != "principal"},
    })
    if not answer.allowed:
        raise WorkflowError("AUTHORIZATION_FAILED", f"workspace authorization failed ({answer.code}): {answer.reason}")


def _read_json(path: Path, execution_id: str) -> dict[str, Any]:
    try:
        data = loads_untrusted(read_regular(path))
    except FileNotFoundError:
        raise WorkflowError("EXECUTION_NOT_FOUND", f"execution `{execution_id}` not found: no {path}") from None
    except RefusedFile as refused:
        raise WorkflowError("EXECUTION_CORRUPT", refused.message) from None
    except OSError as error:
        raise WorkflowError("EXECUTION_CORRUPT", f"{path}: cannot be read ({error.strerror or error})") from None
    except UntrustedJson as error:
        raise WorkflowError("EXECUTION_CORRUPT", f"{path}: not readable JSON ({error.message})") from None
    if not isinstance(data, dict):
        raise WorkflowError("EXECUTION_CORRUPT", f"{path}: expected a JSON object")
    return data


def _parse_state(data: dict[str, Any], path: Path) -> StoredExecutionState:
    try:
        return StoredExecutionState.model_validate(data, strict=True)  # "1" or true is not a count
    except ValidationError as error:
        raise WorkflowError("EXECUTION_CORRUPT", f"{path}: {'; '.join(validation_issues(error, 'state'))}") from None


def _definition_for(registry: AgentRegistry, policy: dict[str, Any]) -> AgentDefinition:
    """The role's definition in ``registry`` or among the built-ins, whichever has the hash the
    execution ran with: resolved by hash, not trust (a project overlay does not hide the built-in)."""
    role = policy.get("role")
    candidates = [each.get(role) for each in (registry, builtin_registry()) if isinstance(role, str) and each.has(role)]
    for definition in candidates:
        if definition_hash(definition) == policy.get("definitionHash"):
            return definition
    raise WorkflowError("POLICY_STALE", f"no definition for `{role}` matching the hash this execution ran with")


def _check_consistent(workflow: WorkflowDefinition, state: StoredExecutionState, path: Path) -> None:
    """Refuse a ``state.json`` edited into a snapshot the runner could never have produced."""
    snapshot = state.workflow
    problem = None
    if snapshot.workflow_id != workflow.id:
        problem = f"workflow.workflowId is `{snapshot.workflow_id}`, the role runs `{workflow.id}`"
    elif snapshot.current_state not in workflow.states:
        problem = f"workflow.currentState `{snapshot.current_state}` is not a state of `{workflow.id}`"
    elif snapshot.status not in _STATUSES_IN[workflow.states[snapshot.current_state].terminal]:
        problem = f"workflow.status `{snapshot.status}` cannot occur in state `{snapshot.current_state}`"
    elif snapshot.repair_attempts and not workflow.states[snapshot.current_state].terminal:
        problem = (f"workflow.repairAttempts {snapshot.repair_attempts} before the output state "
                   f"`{snapshot.current_state}`")
    elif snapshot.repair_attempts not in _REPAIR_ATTEMPTS[snapshot.status]:
        problem = f"workflow.repairAttempts {snapshot.repair_attempts} cannot occur in status `{snapshot.status}`"
    elif state.status == "prepared" and snapshot != WorkflowRunner().initialize(workflow):
        problem = "status `prepared` but the workflow is not at its start"
    elif state.status not in ("prepared", snapshot.status):
        problem = f"status `{state.status}` disagrees with workflow.status `{snapshot.status}`"
    elif state.status == "completed" and "output" not in state.model_fields_set:
        problem = "status `completed` without the output that completed it"
    if problem:
        raise WorkflowError("EXECUTION_TAMPERED", f"{path}: tampered or inconsistent execution state: {problem}")


_REPAIR_ATTEMPTS: dict[str, range] = {
    "running": range(1),
    "awaiting-output": range(1),
    "repairing": range(1, MAX_OUTPUT_REPAIR_ATTEMPTS + 1),
    "failed": range(MAX_OUTPUT_REPAIR_ATTEMPTS, MAX_OUTPUT_REPAIR_ATTEMPTS + 1),
    "completed": range(MAX_OUTPUT_REPAIR_ATTEMPTS + 1),
    "cancelled": range(MAX_OUTPUT_REPAIR_ATTEMPTS + 1),
}
"""Repair attempts each status can carry: none before an output, one once a repair was spent."""


_STATUSES_IN: dict[bool, tuple[WorkflowRunStatus, ...]] = {
    False: ("running", "cancelled"),
    True: ("awaiting-output", "repairing", "completed", "failed", "cancelled"),
}
"""The statuses a snapshot can have in a non-terminal (False) or the terminal (True) state."""
