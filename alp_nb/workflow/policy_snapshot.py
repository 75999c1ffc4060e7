"""The execution policy snapshot: what one execution was authorised with, hashed.

``policy.json`` records it at prepare; the Stop hook re-derives it from the
same inputs and compares byte for byte, so a changed definition, loadout or
catalog since prepare makes the execution stale rather than silently different.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from alp_nb.agents.catalog import RUNTIME_IDS
from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.hashing import canonical_json, definition_hash
from alp_nb.agents.modes import runtime_for_mode, seat_for_mode
from alp_nb.agents.paths import resolve_lexically
from alp_nb.agents.registry import AgentRegistry

WorkspaceMode = Literal["read-only", "workspace-write"]


def execution_policy(
    registry: AgentRegistry,
    definition: AgentDefinition,
    *,
    execution_id: str,
    workspace: str,
    workspace_mode: WorkspaceMode,
    mode: str,
    created_at: str,
) -> dict[str, Any]:
    """ALP's ExecutionPolicy snapshot, ``policyHash`` included (computed over every other field).

    Not modelled: ``thread`` is always null, ``approvals`` empty and the runtime
    ``enforcement`` row is left out: alp_nb launches no runtime.
    """
    seat = seat_for_mode(definition, mode)
    capabilities = definition.capabilities
    declared = definition.auto_compact_tokens
    snapshot = {
        "executionId": execution_id,
        "thread": None,
        "role": definition.id,
        "workspace": workspace,
        "workspaceMode": workspace_mode,
        "mode": mode,
        "model": seat.model,
        "reasoningEffort": seat.reasoning_effort,
        "runtime": runtime_for_mode(definition, mode),
        "approvals": [],
        "writeScope": _write_scope(definition, workspace, workspace_mode),
        "toolchainWritePaths": [],
        "workspaceAccess": "granted" if capabilities.workspace.read_roots else "none",
        "allowedTools": list(capabilities.tools),
        "skills": list(capabilities.skills),
        "skillRoots": list(capabilities.skill_roots or ()),
        "subagents": [
            {"name": name, **registry.catalog.subagents[name].model_dump(mode="json")}
            for name in capabilities.subagents
        ],
        "mcpServers": [
            {"name": name, **registry.catalog.mcp_servers[name].model_dump(mode="json")}
            for name in capabilities.mcp_servers
        ],
        "autoCompactTokens": {runtime: getattr(declared, runtime) if declared else None for runtime in RUNTIME_IDS},
        "memory": {"read": list(capabilities.memory.read), "write": list(capabilities.memory.write)},
        "delegatesTo": list(definition.delegates_to),
        "createdAt": created_at,
        "definitionHash": definition_hash(definition),
    }
    return {**snapshot, "policyHash": policy_hash(snapshot)}


def policy_hash(snapshot: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field but ``policyHash`` itself."""
    fields = {key: value for key, value in snapshot.items() if key != "policyHash"}
    return hashlib.sha256(canonical_json(fields).encode("utf-8")).hexdigest()


def _write_scope(definition: AgentDefinition, workspace: str, workspace_mode: WorkspaceMode) -> list[str] | None:
    """Nothing in a read-only execution; otherwise the write roots under the workspace, sorted,
    or ``None`` when one of them is the workspace itself (the whole workspace)."""
    if workspace_mode == "read-only":
        return []
    roots = sorted({resolve_lexically(root, workspace) for root in definition.capabilities.workspace.write_roots})
    return None if resolve_lexically(".", workspace) in roots else roots
