"""Parsing ``.alp/agents/<id>/agent.yaml``: a regular file under the size cap, then safe YAML, then a closed schema.

The YAML is read as YAML 1.2 (``yes`` stays a string) with aliases, duplicate
keys and multiple documents refused, so that what the principal reviews is
exactly what loads. Every problem comes back as an issue string naming the
line or the dotted field path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.alias_generators import to_camel

from alp_nb.base.frozen_model import validation_issues
from alp_nb.base.safe_files import RefusedFile, read_regular
from alp_nb.base.strict_yaml import load_strict_yaml

from .catalog import REASONING_EFFORTS, TOOL_CATALOG

AGENT_FILE_NAME = "agent.yaml"
AGENT_FILE_MAX_BYTES = 32 * 1024
MAX_WORKFLOW_STATES = 12

HouseRules = Literal["none", "code-native", "code-native+craft"]
Effort = Literal[REASONING_EFFORTS]  # type: ignore[valid-type]  # a Literal built from the catalog at run time
Tool = Literal[TOOL_CATALOG]  # type: ignore[valid-type]  # a Literal built from the catalog at run time
Name = Annotated[str, StringConstraints(min_length=1, max_length=64)]
ModelName = Annotated[str, StringConstraints(min_length=1, max_length=200)]
RoleText = Annotated[str, StringConstraints(min_length=1, max_length=240)]
PurposeText = Annotated[str, StringConstraints(min_length=1, max_length=1000)]
RootPath = Annotated[str, StringConstraints(min_length=1, max_length=4096)]


class _FileModel(BaseModel):
    """Every object in an agent file is closed and strict: no coercion, no unknown keys."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, alias_generator=to_camel, validate_by_alias=True,
        validate_by_name=False,
    )


class FileModels(_FileModel):
    claude: ModelName
    codex: ModelName


class FileEfforts(_FileModel):
    claude: Effort
    codex: Effort


class FileAutoCompact(_FileModel):
    claude: int | None = None
    codex: int | None = None


class FileInstructions(_FileModel):
    role: RoleText
    purpose: PurposeText
    house_rules: HouseRules = "code-native"
    rules: list[Annotated[str, StringConstraints(min_length=1)]] = []


class FileMemory(_FileModel):
    read: list[str] = []
    write: list[str] = []


class FileWorkspace(_FileModel):
    read_roots: list[RootPath] = []
    write_roots: list[RootPath] = []


class FileCapabilities(_FileModel):
    tools: list[Tool]
    skills: list[str] = []
    subagents: list[str] = []
    mcp_servers: list[str] = []
    memory: FileMemory = FileMemory()
    workspace: FileWorkspace = FileWorkspace()


class FileState(_FileModel):
    id: Name
    allowed_tools: list[Tool] = []


class FileOutput(_FileModel):
    kind: Literal["text"]


class AgentFile(_FileModel):
    """The closed schema of ``agent.yaml``, schemaVersion 1."""

    schema_version: Literal[1]
    id: Name
    display_name: Name
    model: FileModels
    reasoning_effort: FileEfforts
    auto_compact_tokens: FileAutoCompact | None = None
    instructions: FileInstructions
    capabilities: FileCapabilities
    workflow: Annotated[list[FileState], Field(min_length=1, max_length=MAX_WORKFLOW_STATES)]
    output: FileOutput


def read_agent_file(path: Path) -> tuple[AgentFile | None, tuple[str, ...]]:
    """Read and parse ``path``. The project may be a cloned repository, so a link (to ``/proc/self/mem``,
    say), a FIFO or a device is refused unread, and so is a file over the size cap."""
    try:
        raw = read_regular(path, limit=AGENT_FILE_MAX_BYTES)
    except RefusedFile as refused:
        return None, (f"{path.name} {refused.problem}",)
    except OSError as error:
        return None, (f"{path.name} cannot be read: {error.strerror or error}",)
    return parse_agent_file(raw)


def parse_agent_file(raw: bytes) -> tuple[AgentFile | None, tuple[str, ...]]:
    """The parsed file, or None and the issues that stopped it."""
    if len(raw) > AGENT_FILE_MAX_BYTES:
        return None, (_oversize(len(raw)),)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, (f"agent file is not UTF-8 text (byte {error.start})",)
    data, problem = load_strict_yaml(text)
    if problem:
        return None, (problem,)
    if not isinstance(data, dict):
        return None, ("agent file must be a YAML mapping at the top level",)
    try:
        return AgentFile.model_validate(data), ()
    except ValidationError as error:
        return None, tuple(validation_issues(error, "agent file"))


def _oversize(size: int) -> str:
    return f"agent file is {size} bytes, over the {AGENT_FILE_MAX_BYTES} byte limit"
