"""The policy engine: pure, fail-closed answers to "may this role do this?".

``decide`` runs the identity checks first (a deny from identity is never
turned into a question), then the one approval rule, which only a workspace
request carrying ``launch`` can reach. ``authorize`` folds a question into a
denial unless an approver is given and says yes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from alp_nb.base.frozen_model import validation_issues

from .definition import AgentDefinition
from .errors import AgentError
from .memory import memory_grant_covers, private_owner
from .paths import canonicalize_path, is_within
from .policy_requests import (
    POLICY_REQUEST,
    REQUEST_MODELS,
    REQUEST_TYPES,
    Allow,
    Authorization,
    ConfigurationRequest,
    DelegationRequest,
    Deny,
    LaunchScope,
    McpRequest,
    MemoryRequest,
    PolicyDecision,
    PolicyRequest,
    PolicySourceTarget,
    RequireApproval,
    SkillRequest,
    SubagentRequest,
    ToolRequest,
    WorkspaceRequest,
)
from .registry import AgentRegistry

POLICY_ERROR_CODES: tuple[str, ...] = (
    "UNKNOWN_REQUEST", "UNKNOWN_ACTOR", "UNKNOWN_TARGET", "DELEGATION_NOT_ALLOWED",
    "PRIVATE_MEMORY_DENIED", "MEMORY_NOT_GRANTED", "WORKSPACE_READ_ONLY", "PATH_RESOLUTION_FAILED",
    "WORKSPACE_SCOPE_MISMATCH", "WORKSPACE_NOT_GRANTED", "POLICY_MUTATION_DENIED",
    "DEFINITION_MUTATION_DENIED", "RAW_RUNTIME_TOOL_DENIED", "INDIRECT_TOOL_REQUEST",
    "MCP_SERVER_NOT_GRANTED", "TOOL_NOT_GRANTED", "SKILL_NOT_GRANTED", "SUBAGENT_NOT_GRANTED",
    "APPROVAL_UNAVAILABLE", "APPROVAL_DENIED",
)

LAUNCH_APPROVAL_RULE = "workspace-outside-grant-inside-project"
UNRECOGNIZED = "unrecognized policy request"

RAW_RUNTIME_TOOL = re.compile(r"(?:^|__)(?:herdr|paseo|create_agent|spawn_agent)(?:__|$)", re.IGNORECASE)
RAW_RUNTIME_BINARIES = frozenset({"herdr", "paseo"})
COMMAND_SEPARATORS = re.compile(r"&&|\|\||[;\n|]")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
COMMAND_PREFIXES = frozenset({"env", "command", "sudo"})
INDIRECT_COMMAND = re.compile(
    r"""
      \beval\b | ` | \$\( | \$\{ | \$[A-Za-z_] | [<>]\(
    | \bbase64\b | \bxxd\b | \bxargs\b
    | \b(?:sh|bash|zsh|python3?)\s+-[A-Za-z]*c\b
    | \bnode\s+-[A-Za-z]*[cep]\b
    | \b(?:perl|ruby)\s+-[A-Za-z]*e\b
    """,
    re.VERBOSE,
)
MCP_TOOL = re.compile(r"\Amcp__(.+?)__(.+)\Z")

Canonicalizer = Callable[[str], str]
Approver = Callable[[RequireApproval], bool]


def raw_runtime_binary(command: str) -> str | None:
    """The raw runtime (``herdr``/``paseo``) a shell command would run, if any."""
    for segment in COMMAND_SEPARATORS.split(command):
        words = [word.strip("'\"") for word in segment.split()]
        while words and (ENV_ASSIGNMENT.match(words[0]) or words[0] in COMMAND_PREFIXES):
            words.pop(0)
        if words:
            binary = re.split(r"[\\/]", words[0])[-1].lower().removesuffix(".exe")
            if binary in RAW_RUNTIME_BINARIES:
                return binary
    return None


def is_indirect_command(command: str) -> bool:
    """True when a command hides what it runs (eval, substitution, encoders, ``-c`` interpreters)."""
    return INDIRECT_COMMAND.search(command) is not None


class PolicyEngine:
    """Answers requests against one registry; never reads or writes anything else."""

    def __init__(self, registry: AgentRegistry, canonicalize_path: Canonicalizer = canonicalize_path) -> None:
        self.registry = registry
        self._canonicalize = canonicalize_path

    def decide(self, request: Any) -> PolicyDecision:
        """allow, deny (code + reason) or require_approval (the launch rule)."""
        parsed = self._parse(request)
        if isinstance(parsed, Deny):
            return parsed
        decision = self._identity(parsed)
        if isinstance(decision, Deny) or not isinstance(parsed, WorkspaceRequest) or parsed.launch is None:
            return decision
        return self._launch(parsed, parsed.launch)

    def authorize(self, request: Any, approve: Approver | None = None) -> Authorization:
        """decide, with a question answered by ``approve`` or, with no approver, refused."""
        decision = self.decide(request)
        if isinstance(decision, Allow):
            return Authorization(allowed=True)
        if isinstance(decision, Deny):
            return Authorization(allowed=False, code=decision.code, reason=decision.reason)
        if approve is None:
            return Authorization(
                allowed=False, code="APPROVAL_UNAVAILABLE",
                reason=f"approval required ({decision.rule}) and no principal can be asked: {decision.prompt}",
            )
        if approve(decision):
            return Authorization(allowed=True)
        return Authorization(
            allowed=False, code="APPROVAL_DENIED",
            reason=f"approval required ({decision.rule}) and the principal declined: {decision.prompt}",
        )

    def _parse(self, request: Any) -> PolicyRequest | Deny:
        typed = isinstance(request, REQUEST_MODELS)
        data = request.model_dump() if typed else request
        if not isinstance(data, Mapping) or not isinstance(data.get("actor"), str) or not data["actor"]:
            return Deny(code="UNKNOWN_REQUEST", reason=UNRECOGNIZED)
        if not self.registry.has(data["actor"]):
            return Deny(code="UNKNOWN_ACTOR", reason=f"unknown actor `{data['actor']}`")
        if typed:
            return request
        request = data
        if request.get("type") not in REQUEST_TYPES:
            return Deny(code="UNKNOWN_REQUEST", reason=UNRECOGNIZED)
        try:
            return POLICY_REQUEST.validate_python(request)
        except ValidationError as error:
            problems = "; ".join(validation_issues(error, "request", skip=1))
            return Deny(code="UNKNOWN_REQUEST", reason=f"{UNRECOGNIZED}: {request['type']} request {problems}")

    def _identity(self, request: PolicyRequest) -> Allow | Deny:
        actor = self.registry.get(request.actor)
        if isinstance(request, DelegationRequest):
            return self._delegation(actor, request)
        if isinstance(request, MemoryRequest):
            return self._memory(actor, request)
        if isinstance(request, WorkspaceRequest):
            return self._workspace(actor, request)
        if isinstance(request, ConfigurationRequest):
            return self._configuration(actor, request)
        if isinstance(request, ToolRequest):
            return self._tool(actor, request)
        if isinstance(request, SkillRequest):
            return _granted(request.skill in actor.capabilities.skills, "SKILL_NOT_GRANTED",
                            f"skill `{request.skill}` is not granted to `{actor.id}`")
        if isinstance(request, SubagentRequest):
            return _granted(request.subagent in actor.capabilities.subagents, "SUBAGENT_NOT_GRANTED",
                            f"subagent `{request.subagent}` is not granted to `{actor.id}`")
        assert isinstance(request, McpRequest)
        return _mcp(actor, request.server)

    def _delegation(self, actor: AgentDefinition, request: DelegationRequest) -> Allow | Deny:
        if not self.registry.has(request.target):
            return Deny(code="UNKNOWN_TARGET", reason=f"unknown delegation target `{request.target}`")
        return _granted(request.target in actor.delegates_to, "DELEGATION_NOT_ALLOWED",
                        f"`{actor.id}` cannot delegate to `{request.target}`")

    @staticmethod
    def _memory(actor: AgentDefinition, request: MemoryRequest) -> Allow | Deny:
        owner = private_owner(request.scope)
        if owner is not None and owner != actor.id:
            return Deny(code="PRIVATE_MEMORY_DENIED",
                        reason=f"`{actor.id}` cannot {request.operation} private memory for `{owner}`")
        grants = getattr(actor.capabilities.memory, request.operation)
        return _granted(any(memory_grant_covers(grant, request.scope) for grant in grants),
                        "MEMORY_NOT_GRANTED", f"`{actor.id}` has no {request.operation} grant for `{request.scope}`")

    def _workspace(self, actor: AgentDefinition, request: WorkspaceRequest) -> Allow | Deny:
        execution = request.execution
        if request.operation == "write" and execution.workspace_mode == "read-only":
            return Deny(code="WORKSPACE_READ_ONLY",
                        reason=f"execution workspace `{execution.active_workspace}` is read-only")
        try:
            active, target = self._active_and_target(request)
        except Exception as error:  # the canonicalizer is injectable: any failure denies
            return Deny(code="PATH_RESOLUTION_FAILED", reason=f"cannot canonicalize workspace path: {error}")
        read_roots, write_roots = self._roots(actor, active)
        if execution.delegated and not is_within(target, active):
            return Deny(code="WORKSPACE_SCOPE_MISMATCH",
                        reason=f"delegated execution is scoped to `{active}`, not `{target}`")
        if not any(is_within(target, root) for root in read_roots):
            return Deny(code="WORKSPACE_NOT_GRANTED", reason=f"`{actor.id}` cannot read workspace path `{target}`")
        if request.operation == "write" and not any(is_within(target, root) for root in write_roots):
            return Deny(code="WORKSPACE_NOT_GRANTED", reason=f"`{actor.id}` cannot write workspace path `{target}`")
        return Allow()

    def _active_and_target(self, request: WorkspaceRequest) -> tuple[str, str]:
        """The canonical active workspace, and the target joined to it when relative."""
        active = self._canonicalize(request.execution.active_workspace)
        return active, self._canonicalize(os.path.join(active, request.path))

    def _roots(self, actor: AgentDefinition, active: str) -> tuple[list[str], list[str]]:
        """The actor's roots joined to the active workspace (not the launcher's cwd)."""
        workspace = actor.capabilities.workspace
        try:
            return (
                [self._canonicalize(os.path.join(active, root)) for root in workspace.read_roots],
                [self._canonicalize(os.path.join(active, root)) for root in workspace.write_roots],
            )
        except Exception as error:
            raise AgentError(
                "INVALID_POLICY_STATE", f"cannot canonicalize a workspace root of `{actor.id}`: {error}"
            ) from error

    @staticmethod
    def _configuration(actor: AgentDefinition, request: ConfigurationRequest) -> Deny:
        if isinstance(request.target, PolicySourceTarget):
            return Deny(code="POLICY_MUTATION_DENIED", reason=f"`{actor.id}` cannot change the policy source")
        return Deny(code="DEFINITION_MUTATION_DENIED",
                    reason=f"`{actor.id}` cannot change the definition of `{request.target.agent_id}`")

    @staticmethod
    def _tool(actor: AgentDefinition, request: ToolRequest) -> Allow | Deny:
        if RAW_RUNTIME_TOOL.search(request.tool) or (
            request.command is not None and raw_runtime_binary(request.command) is not None
        ):
            return Deny(code="RAW_RUNTIME_TOOL_DENIED",
                        reason=f"raw runtime tool `{request.tool}` is not part of the ALP delegation API")
        if request.command is not None and is_indirect_command(request.command):
            return Deny(code="INDIRECT_TOOL_REQUEST", reason="indirect command cannot be authorized safely")
        routed = MCP_TOOL.fullmatch(request.tool)
        if routed:
            return _mcp(actor, routed.group(1))
        return _granted(request.tool in actor.capabilities.tools, "TOOL_NOT_GRANTED",
                        f"`{request.tool}` is not granted to `{actor.id}`")

    def _launch(self, request: WorkspaceRequest, launch: LaunchScope) -> Allow | Deny | RequireApproval:
        try:
            root = self._canonicalize(launch.root)
            project = self._canonicalize(launch.project)
        except Exception as error:
            return Deny(code="PATH_RESOLUTION_FAILED", reason=f"cannot resolve launch scope: {error}")
        _, target = self._active_and_target(request)
        if is_within(target, root):
            return Allow()
        if not is_within(target, project):
            return Deny(
                code="WORKSPACE_SCOPE_MISMATCH",
                reason=f"`{request.actor}` cannot be launched at `{target}`: outside the granted workspace "
                       f"`{root}` and outside the project `{project}`",
            )
        return RequireApproval(
            rule=LAUNCH_APPROVAL_RULE, scope="session", subject=target,
            prompt=f"Launch `{request.actor}` at `{target}`? It is outside the granted workspace `{root}` "
                   f"but inside the project `{project}`.",
        )


def _granted(condition: bool, code: str, reason: str) -> Allow | Deny:
    return Allow() if condition else Deny(code=code, reason=reason)


def _mcp(actor: AgentDefinition, server: str) -> Allow | Deny:
    return _granted(server in actor.capabilities.mcp_servers, "MCP_SERVER_NOT_GRANTED",
                    f"mcp server `{server}` is not granted to `{actor.id}`")
