"""The agents layer's exceptions and the codes they carry.

``AgentRegistryError`` carries ALP's registry codes (reference §4) with ALP's
messages; ``AgentError`` carries the rest of the layer's refusals.
"""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

REGISTRY_ERROR_CODES: tuple[str, ...] = (
    "DUPLICATE_AGENT", "INVALID_AGENT", "UNKNOWN_AGENT", "UNKNOWN_RELATION", "INVALID_DELEGATION",
    "INVALID_MEMORY_GRANT", "INVALID_WORKSPACE_GRANT", "UNKNOWN_TOOL", "UNKNOWN_SKILL", "UNKNOWN_SUBAGENT",
    "UNKNOWN_MCP_SERVER", "INVALID_SKILL_GRANT", "DUPLICATE_GRANT", "INVALID_AUTO_COMPACT_LIMIT",
)
"""ALP's fourteen ``AgentRegistryError`` codes, in the reference's order."""

AGENT_ERROR_CODES: tuple[str, ...] = (
    "INVALID_WORKFLOW", "INVALID_OUTPUT_SCHEMA", "UNKNOWN_MODEL", "INVALID_MODE", "INVALID_POLICY_STATE",
    "UNKNOWN_PROJECT", "UNREADABLE_AGENTS_DIRECTORY", "CORRUPT_TRUST_STORE",
)
"""The other codes of the agents layer (``AgentError``)."""


class AgentError(AlpError):
    """An error of the agents layer; ``code`` is stable, the message is ALP's text where ALP has one."""

    codes: ClassVar[tuple[str, ...]] = AGENT_ERROR_CODES


class AgentRegistryError(AgentError):
    """A definition or relation the registry refuses (ALP's ``AgentRegistryError``)."""

    codes: ClassVar[tuple[str, ...]] = REGISTRY_ERROR_CODES
