"""AgentDefinition: an immutable role — who it is, what it may use, where it reads and
writes, whom it delegates to, and the workflow and output it must end with.

Fields are the snake_case forms of ALP's names; every part loads and dumps
ALP's camelCase JSON (``model_validate`` / ``model_dump(by_alias=True)``).
The models check structure only; the meaning of each grant is checked by
``create_agent_registry``, which reports ALP's codes and messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import PlainSerializer, PlainValidator, StrictFloat, StrictInt, ValidationError, WithJsonSchema

from alp_nb.base.frozen_model import FrozenModel, validation_issues

from .errors import AgentRegistryError
from .output_contract import OutputContract, coerce_contract
from .workflow_definition import WorkflowDefinition

OutputContractField = Annotated[
    OutputContract,
    PlainValidator(coerce_contract),
    PlainSerializer(lambda contract: contract.to_alp()),
    WithJsonSchema({
        "type": "object",
        "properties": {"name": {"type": "string"}, "schema": {"type": "object"}},
        "required": ["name"],
        "additionalProperties": False,
    }),
]
"""How a definition's ``output`` field validates, dumps and describes itself."""


class RuntimeModelMap(FrozenModel):
    """The fallback model on each runtime (what runs is decided by the mode)."""

    claude: str
    codex: str


class ReasoningEffortMap(FrozenModel):
    claude: str
    codex: str


class AutoCompactTokens(FrozenModel):
    """Per-runtime auto-compact thresholds; an absent side means 90 % of the model's window.

    Numbers only (strict): a string or a bool is refused, never coerced.
    """

    claude: StrictInt | StrictFloat | None = None
    codex: StrictInt | StrictFloat | None = None


class MemoryGrants(FrozenModel):
    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()


class WorkspaceGrants(FrozenModel):
    read_roots: tuple[str, ...] = ()
    write_roots: tuple[str, ...] = ()


class SkillBinding(FrozenModel):
    """A project skill bound to a role: where its directory really is."""

    name: str
    kind: Literal["directory", "symlink", "skillref"]
    path: str


class Capabilities(FrozenModel):
    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    skill_bindings: tuple[SkillBinding, ...] | None = None
    skill_roots: tuple[str, ...] | None = None
    subagents: tuple[str, ...] = ()
    mcp_servers: tuple[str, ...] = ()
    memory: MemoryGrants = MemoryGrants()
    workspace: WorkspaceGrants = WorkspaceGrants()


class InstructionSpec(FrozenModel):
    """The role's identity as data (never a function), so that it is hashed."""

    role: str
    purpose: str
    rules: tuple[str, ...] = ()
    audience: str | None = None


class AgentDefinition(FrozenModel):
    id: str
    display_name: str
    model: RuntimeModelMap
    reasoning_effort: ReasoningEffortMap
    reports_to: str
    delegates_to: tuple[str, ...] = ()
    capabilities: Capabilities
    auto_compact_tokens: AutoCompactTokens | None = None
    instructions: InstructionSpec
    workflow: WorkflowDefinition
    output: OutputContractField


def define_agent(definition: AgentDefinition | Mapping[str, Any]) -> AgentDefinition:
    """``definition`` deep-frozen: built from snake_case or camelCase data, or returned as is.

    Malformed data raises ``AgentRegistryError(INVALID_AGENT)`` naming the agent and field.
    """
    if isinstance(definition, AgentDefinition):
        return definition  # validation already deep-froze it; frozen data is shared, not copied
    try:
        return AgentDefinition.model_validate(definition)
    except ValidationError as error:
        agent_id = definition.get("id", "?") if isinstance(definition, Mapping) else "?"
        problems = "; ".join(validation_issues(error, "definition"))
        raise AgentRegistryError(
            "INVALID_AGENT", f"agent `{agent_id}` has a malformed definition: {problems}"
        ) from None
