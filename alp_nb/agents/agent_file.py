"""Parsing ``.alp/agents/<id>/agent.yaml``: size cap first, then safe YAML, then a closed schema.

The YAML is read as YAML 1.2 (``yes`` stays a string) with aliases, duplicate
keys and multiple documents refused, so that what the principal reviews is
exactly what loads. Every problem comes back as an issue string naming the
line or the dotted field path.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.alias_generators import to_camel
from ruamel.yaml import YAML
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, DocumentStartEvent
from ruamel.yaml.resolver import VersionedResolver

from .catalog import REASONING_EFFORTS, TOOL_CATALOG
from .frozen import validation_issues

AGENT_FILE_NAME = "agent.yaml"
AGENT_FILE_MAX_BYTES = 32 * 1024
AGENT_FILE_SCHEMA_VERSION = 1
MAX_WORKFLOW_STATES = 12

HouseRules = Literal["none", "code-native", "code-native+craft"]
Effort = Literal[REASONING_EFFORTS]  # type: ignore[valid-type]
Tool = Literal[TOOL_CATALOG]  # type: ignore[valid-type]


def _text(max_length: int):
    return Annotated[str, StringConstraints(min_length=1, max_length=max_length)]


class _FileModel(BaseModel):
    """Every object in an agent file is closed and strict: no coercion, no unknown keys."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, alias_generator=to_camel, validate_by_alias=True,
        validate_by_name=False,
    )


class FileModels(_FileModel):
    claude: _text(200)
    codex: _text(200)


class FileEfforts(_FileModel):
    claude: Effort
    codex: Effort


class FileAutoCompact(_FileModel):
    claude: int | None = None
    codex: int | None = None


class FileInstructions(_FileModel):
    role: _text(240)
    purpose: _text(1000)
    house_rules: HouseRules = "code-native"
    rules: list[Annotated[str, StringConstraints(min_length=1)]] = []


class FileMemory(_FileModel):
    read: list[str] = []
    write: list[str] = []


class FileWorkspace(_FileModel):
    read_roots: list[_text(4096)] = []
    write_roots: list[_text(4096)] = []


class FileCapabilities(_FileModel):
    tools: list[Tool]
    skills: list[str] = []
    subagents: list[str] = []
    mcp_servers: list[str] = []
    memory: FileMemory = FileMemory()
    workspace: FileWorkspace = FileWorkspace()


class FileState(_FileModel):
    id: _text(64)
    allowed_tools: list[Tool] = []


class FileOutput(_FileModel):
    kind: Literal["text"]


class AgentFile(_FileModel):
    """The closed schema of ``agent.yaml``, schemaVersion 1."""

    schema_version: Literal[1]
    id: _text(64)
    display_name: _text(64)
    model: FileModels
    reasoning_effort: FileEfforts
    auto_compact_tokens: FileAutoCompact | None = None
    instructions: FileInstructions
    capabilities: FileCapabilities
    workflow: Annotated[list[FileState], Field(min_length=1, max_length=MAX_WORKFLOW_STATES)]
    output: FileOutput


def _core_schema() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """Implicit tags of the YAML 1.2 core schema, keyed by first character as ruamel looks them up."""
    table: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for tag, pattern, first in (
        ("null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),
        ("bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
        ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
        ("float", r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
                  r"|\.(?:nan|NaN|NAN)", list("-+0123456789.")),
    ):
        for char in first:
            table.setdefault(char, []).append((f"tag:yaml.org,2002:{tag}", re.compile(f"^(?:{pattern})$")))
    return table


class _CoreSchemaResolver(VersionedResolver):
    """The YAML 1.2 core schema whatever the file declares: ruamel's own 1.2 rules also read
    timestamps, ``1_000``, ``0b1`` and ``<<`` merge keys, which ALP's yaml@2 keeps as strings."""

    _table = _core_schema()

    @property
    def versioned_resolver(self):
        return self._table


def read_agent_file(path: Path) -> tuple[AgentFile | None, tuple[str, ...]]:
    """Read and parse ``path``; an oversized file is refused before it is read."""
    size = path.stat().st_size
    if size > AGENT_FILE_MAX_BYTES:
        return None, (_oversize(size),)
    return parse_agent_file(path.read_bytes())


def parse_agent_file(raw: bytes) -> tuple[AgentFile | None, tuple[str, ...]]:
    """The parsed file, or None and the issues that stopped it."""
    if len(raw) > AGENT_FILE_MAX_BYTES:
        return None, (_oversize(len(raw)),)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, (f"agent file is not UTF-8 text (byte {error.start})",)
    data, problem = _load_yaml(text)
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


def _load_yaml(text: str) -> tuple[object, str | None]:
    """YAML 1.2, core schema; aliases, duplicate keys and extra documents refused."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _CoreSchemaResolver
    try:
        documents = 0
        for event in yaml.parse(io.StringIO(text)):
            if isinstance(event, AliasEvent):
                return None, f"yaml: Alias resolution is disabled{_where(event.start_mark)}"
            if isinstance(event, DocumentStartEvent):
                documents += 1
                if documents > 1:
                    return None, f"yaml: multiple documents are not allowed{_where(event.start_mark)}"
        return yaml.load(text), None
    except DuplicateKeyError as error:
        return None, f"yaml: Map keys must be unique; {error.problem}{_where(error.problem_mark)}"
    except MarkedYAMLError as error:
        return None, f"yaml: {error.problem or error.context}{_where(error.problem_mark or error.context_mark)}"
    except YAMLError as error:
        return None, f"yaml: {error}"


def _where(mark) -> str:
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
