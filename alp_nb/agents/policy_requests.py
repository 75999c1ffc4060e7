"""The questions policy answers, and its answers.

A request is one of eight typed models, or the same thing as a plain dict
with ALP's camelCase (or snake_case) keys, discriminated by ``type``.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field, TypeAdapter

from alp_nb.base.frozen_model import FrozenModel


class DelegationRequest(FrozenModel):
    type: Literal["delegation"] = "delegation"
    actor: str
    target: str


class MemoryRequest(FrozenModel):
    type: Literal["memory"] = "memory"
    actor: str
    operation: Literal["read", "write"]
    scope: str


class ExecutionScope(FrozenModel):
    """The execution a workspace request comes from."""

    active_workspace: str
    workspace_mode: Literal["read-only", "workspace-write"]
    delegated: bool


class LaunchScope(FrozenModel):
    """Where a launch was granted (``root``) inside which project."""

    root: str
    project: str


class WorkspaceRequest(FrozenModel):
    type: Literal["workspace"] = "workspace"
    actor: str
    operation: Literal["read", "write"]
    path: str
    execution: ExecutionScope
    launch: LaunchScope | None = None


class PolicySourceTarget(FrozenModel):
    kind: Literal["policy-source"] = "policy-source"


class AgentDefinitionTarget(FrozenModel):
    kind: Literal["agent-definition"] = "agent-definition"
    agent_id: str


class ConfigurationRequest(FrozenModel):
    type: Literal["configuration"] = "configuration"
    actor: str
    operation: Literal["write"] = "write"
    target: Annotated[PolicySourceTarget | AgentDefinitionTarget, Field(discriminator="kind")]


class ToolRequest(FrozenModel):
    type: Literal["tool"] = "tool"
    actor: str
    tool: str
    command: str | None = None


class SkillRequest(FrozenModel):
    type: Literal["skill"] = "skill"
    actor: str
    skill: str


class SubagentRequest(FrozenModel):
    type: Literal["subagent"] = "subagent"
    actor: str
    subagent: str


class McpRequest(FrozenModel):
    type: Literal["mcp"] = "mcp"
    actor: str
    server: str


PolicyRequest = Annotated[
    DelegationRequest | MemoryRequest | WorkspaceRequest | ConfigurationRequest | ToolRequest | SkillRequest
    | SubagentRequest | McpRequest,
    Field(discriminator="type"),
]
REQUEST_MODELS: tuple[type[FrozenModel], ...] = get_args(get_args(PolicyRequest)[0])
POLICY_REQUEST = TypeAdapter(PolicyRequest)
REQUEST_TYPES = ("tool", "delegation", "memory", "workspace", "skill", "subagent", "mcp", "configuration")
"""Every kind of request the policy answers, the one asked most first (the order the registry explorer offers)."""


class Allow(FrozenModel):
    outcome: Literal["allow"] = "allow"


class Deny(FrozenModel):
    outcome: Literal["deny"] = "deny"
    code: str
    reason: str


class RequireApproval(FrozenModel):
    """Identity allowed it, but the principal must be asked first."""

    outcome: Literal["require_approval"] = "require_approval"
    rule: str
    scope: Literal["once", "execution", "session"]
    subject: str
    prompt: str


PolicyDecision = Allow | Deny | RequireApproval


class Authorization(FrozenModel):
    """A yes or no: ``code`` and ``reason`` say why not."""

    allowed: bool
    code: str | None = None
    reason: str | None = None
