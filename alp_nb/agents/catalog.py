"""The closed capability vocabulary: tools, runtimes, skills, subagents and MCP servers.

Subagents and MCP servers are granted by name and resolved against a
``CapabilityCatalog``; the shipped catalogs for both are empty, so every such
grant is refused until a caller supplies a catalog that names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TOOL_CATALOG: tuple[str, ...] = (
    "Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill",
)
RUNTIME_IDS: tuple[str, ...] = ("claude", "codex")
REASONING_EFFORTS: tuple[str, ...] = ("low", "medium", "high", "xhigh", "max", "ultra")

SKILL_CATALOG: tuple[str, ...] = (
    "agent-memory", "alp-debug", "alp-plan", "alp-predict", "alp-scenario", "code-review",
    "delegation", "docs-seeker", "git", "gkg", "problem-solving", "repomix", "research",
    "security-scan", "test-quality-guard",
)


class SubagentCatalogEntry(BaseModel):
    """A subagent a role may be granted; its tools must be a subset of the role's."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    description: str
    prompt: str
    tools: tuple[str, ...] = ()
    model: str | None = None


class McpServerCatalogEntry(BaseModel):
    """An MCP server a role may be granted; ``egress`` says whether it reaches the network."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    description: str
    egress: Literal["none", "network"]
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None

    @field_validator("env", mode="after")
    @classmethod
    def _freeze_env(cls, env: Mapping[str, str] | None) -> Mapping[str, str] | None:
        return None if env is None else MappingProxyType(dict(env))


class CapabilityCatalog(BaseModel):
    """What may be named in a grant. Extend it by building a new one: it is frozen."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    skills: tuple[str, ...] = SKILL_CATALOG
    subagents: Mapping[str, SubagentCatalogEntry] = Field(default_factory=dict)
    mcp_servers: Mapping[str, McpServerCatalogEntry] = Field(default_factory=dict)

    @field_validator("subagents", "mcp_servers", mode="after")
    @classmethod
    def _freeze(cls, entries: Mapping[str, BaseModel]) -> Mapping[str, BaseModel]:
        return MappingProxyType(dict(entries))


SUBAGENT_CATALOG: Mapping[str, SubagentCatalogEntry] = MappingProxyType({})
MCP_SERVER_CATALOG: Mapping[str, McpServerCatalogEntry] = MappingProxyType({})
DEFAULT_CATALOG = CapabilityCatalog()
