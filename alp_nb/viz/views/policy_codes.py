"""The rule behind each policy code, in one line: what a denied answer means to someone who has not read ALP.

A denial's ``reason`` says what happened (``Write`` is not granted to ``main``);
a newcomer also needs the rule it comes from, said once per code, so that the
widgets, the command line and the README explain a code the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

POLICY_RULES: Mapping[str, str] = MappingProxyType({
    "UNKNOWN_REQUEST": "policy answers only the eight request types, each with every field it needs, well formed",
    "UNKNOWN_ACTOR": "only a role in the registry may ask anything",
    "UNKNOWN_TARGET": "work is delegated only to a role in the registry",
    "DELEGATION_NOT_ALLOWED": "a role delegates only to the roles its `delegatesTo` names",
    "PRIVATE_MEMORY_DENIED": "a role's private memory (`private:<id>`) is its own: no other role reads or writes it",
    "MEMORY_NOT_GRANTED": "a role reads or writes only the memory scopes its read or write grants cover",
    "WORKSPACE_READ_ONLY": "nothing is written in an execution whose workspace is read-only",
    "PATH_RESOLUTION_FAILED": "a workspace path or launch scope that cannot be canonicalized is refused, never guessed",
    "WORKSPACE_SCOPE_MISMATCH": "a delegated execution stays inside its workspace, and a launch inside its grant or "
                                "the project",
    "WORKSPACE_NOT_GRANTED": "a role reads only under its read roots and writes only under its write roots",
    "POLICY_MUTATION_DENIED": "no role may change the policy source",
    "DEFINITION_MUTATION_DENIED": "no role may change an agent definition, not even its own",
    "RAW_RUNTIME_TOOL_DENIED": "raw runtime tools and binaries (`herdr`, `paseo`, `spawn_agent`, …) bypass "
                               "delegation: never allowed",
    "INDIRECT_TOOL_REQUEST": "a command that hides what it runs (`eval`, substitution, `bash -c`, …) cannot be "
                             "checked, so it is refused",
    "MCP_SERVER_NOT_GRANTED": "a role calls only the MCP servers it is granted, directly or as `mcp__<server>__<tool>`",
    "TOOL_NOT_GRANTED": "a role uses only the tools its definition grants",
    "SKILL_NOT_GRANTED": "a role invokes only the skills it is granted",
    "SUBAGENT_NOT_GRANTED": "a role starts only the subagents it is granted",
    "APPROVAL_UNAVAILABLE": "a launch outside the granted workspace but inside the project needs the principal's "
                            "yes, and no one could be asked",
    "APPROVAL_DENIED": "a launch outside the granted workspace needs the principal's yes, and the principal said no",
})
"""Each of ``POLICY_ERROR_CODES`` (in its order) and the rule a denial with that code enforces."""

ALLOWED_RULES: Mapping[str, str] = MappingProxyType({
    "tool": "the role's definition grants this tool (an MCP tool: its server), and it is no raw runtime tool or "
            "indirect command",
    "delegation": "the target is a role in the registry and among those the actor's `delegatesTo` names",
    "memory": "a read or write grant of the role (as the operation asks) covers this scope",
    "workspace": "the path lies under the role's read roots (a write: its write roots), inside the delegated "
                 "execution's workspace, in an execution that may write when it writes",
    "skill": "the role is granted this skill",
    "subagent": "the role is granted this subagent",
    "mcp": "the role is granted this MCP server",
})
"""The rule that allowed an answer, by request type: a yes names its rule as a no does (a ``configuration`` change
is never allowed, so it has none)."""
