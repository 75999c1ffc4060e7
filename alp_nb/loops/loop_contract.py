"""The Loop Engineering Contract as a frozen model: the public schema's twelve keys, and alp_nb's one extension.

Field names are the schema's own keys (``cadence_or_event``, ``max_retries``...),
so a contract dumps back to the JSON it was read from. Validation is as strict
as the published Draft 2020-12 schema and no stricter: strings are never
coerced, objects are closed, ``3.0`` is an integer but ``true`` and ``"3"`` are
not. Every problem names its JSON path (``agents[0].role``). The one key beyond
the twelve is ``x_alp_nb`` (``extension.py``): absent, a contract is exactly a
public one; present, it validates only against the schema alp_nb ships.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.json_schema import SkipJsonSchema

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.frozen_model import FrozenModel
from alp_nb.base.safe_files import RefusedFile, read_regular
from alp_nb.base.strict_yaml import dump_strict_yaml, load_strict_yaml
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .errors import LoopContractError
from .extension import EXTENSION_KEY, Extension, present

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

SCHEMA_ID = "urn:awesome-loop-engineering:loop-contract"
TRIGGER_TYPES = ("scheduled", "event", "goal", "manual-bootstrap")
PHASES = (
    ("Set up", ("objective", "trigger", "intake", "workspace")),
    ("Run", ("context", "agents", "verification", "state")),
    ("Govern & close", ("budget", "escalation", "exit")),
)
"""The three phases of the contract's eleven operating parts; ``name`` only identifies the contract."""

MAX_CONTRACT_BYTES = 1 << 20
"""The largest contract file read (1 MiB; the published examples are a few KiB), refused before parsing."""

TEMPLATE_MARK = "TODO:"
"""How every unanswered string of ``LoopContract.template`` starts; lint rule LC004 refuses it."""

Text = Annotated[str, StringConstraints(strict=True, min_length=1)]
Texts = tuple[Text, ...]
NonEmptyTexts = Annotated[Texts, Field(min_length=1)]


def _integral_float(value: Any) -> Any:
    """JSON Schema counts ``3.0`` as an integer; pydantic's strict int would not."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Count = Annotated[int, Field(strict=True, ge=0), BeforeValidator(_integral_float)]
Minutes = Annotated[int, Field(strict=True, ge=1), BeforeValidator(_integral_float)]


class ContractPart(FrozenModel):
    """A closed, frozen object of the contract whose keys are exactly the schema's (no camelCase)."""

    model_config = ConfigDict(alias_generator=None)


class Trigger(ContractPart):
    type: Literal[TRIGGER_TYPES]  # type: ignore[valid-type]  # a Literal built from the tuple at run time
    cadence_or_event: Text


class Intake(ContractPart):
    sources: NonEmptyTexts
    selection_rule: Text


class Workspace(ContractPart):
    isolation: Text
    allowed_actions: Texts
    disallowed_actions: Texts


class Context(ContractPart):
    required_files: Texts
    runtime_sources: Texts


class AgentRole(ContractPart):
    role: Text
    responsibility: Text


class Verification(ContractPart):
    gates: NonEmptyTexts
    receipts: NonEmptyTexts


class State(ContractPart):
    artifacts: NonEmptyTexts
    update_rule: Text


class Budget(ContractPart):
    max_retries: Count
    max_runtime_minutes: Minutes


class Escalation(ContractPart):
    conditions: NonEmptyTexts
    destination: Text


class Exit(ContractPart):
    success: Text
    stop_without_success: Text


class LoopContract(ContractPart):
    """One recurring agent job's operating spec: what starts a run, what it may do, prove,
    remember and spend, and who owns it when it cannot finish."""

    name: Text
    objective: Text
    trigger: Trigger
    intake: Intake
    workspace: Workspace
    context: Context
    agents: Annotated[tuple[AgentRole, ...], Field(min_length=1)]
    verification: Verification
    state: State
    budget: Budget
    escalation: Escalation
    exit: Exit
    x_alp_nb: Annotated[Extension | None, BeforeValidator(present), SkipJsonSchema()] = None
    """alp_nb's extension (owner, review cadence, the firing's budget); None for a public contract."""

    @classmethod
    def from_document(cls, document: Any, source: str = "contract") -> LoopContract:
        """The contract in a parsed JSON/YAML document; ``LoopContractError(CONTRACT_INVALID)`` lists
        every path the schema would reject."""
        try:
            return cls.model_validate(document)
        except ValidationError as error:
            raise LoopContractError(
                "CONTRACT_INVALID", f"{source}: not a valid loop contract", pydantic_issues(error)
            ) from None

    @classmethod
    def load(cls, path: str | Path) -> LoopContract:
        """Read a contract from a ``.json``, ``.yaml`` or ``.yml`` file."""
        return cls.from_document(read_contract_document(path), source=str(path))

    def replace(self, **parts: Any) -> LoopContract:
        """A copy with whole parts replaced (as models or plain JSON), validated as a loaded document
        would be; pydantic's ``model_copy(update=...)`` would store anything unchecked. ``x_alp_nb=None``
        drops the extension."""
        try:
            return type(self).model_validate({key: value for key, value in {**dict(self), **parts}.items()
                                              if value is not None})
        except ValidationError as error:
            raise LoopContractError("CONTRACT_INVALID", f"{self.name}: not a valid loop contract",
                                    pydantic_issues(error)) from None

    def to_document(self) -> dict[str, Any]:
        """The plain JSON form, keys in the schema's order; the extension only when the contract has one, and only
        the keys it was written with."""
        return self.model_dump(mode="json", exclude_none=True)

    @property
    def extended(self) -> bool:
        """Whether the contract uses alp_nb's extension, and so validates only against the schema alp_nb ships."""
        return self.x_alp_nb is not None

    def to_public(self) -> tuple[LoopContract, tuple[tuple[str, Any], ...]]:
        """The contract as the public schema holds it, and every ``(json path, value)`` that export drops: nothing
        for a public contract, else each field of ``x_alp_nb``."""
        dropped = self.x_alp_nb.fields() if self.x_alp_nb is not None else ()
        return self.model_copy(update={EXTENSION_KEY: None}), dropped

    def dumps(self, fmt: Literal["json", "yaml"] = "json") -> str:
        document = self.to_document()
        if fmt == "json":
            return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        if fmt == "yaml":
            return dump_strict_yaml(document)
        raise LoopContractError("CONTRACT_FORMAT", f"unknown contract format `{fmt}` (json or yaml)")

    def dump(self, path: str | Path) -> None:
        """Write the contract atomically into an existing folder, as JSON or YAML after the file's suffix."""
        write_contract_file(path, self.dumps(_format_of(path)))

    @classmethod
    def template(cls, name: str) -> LoopContract:
        """A schema-valid draft whose every text is a ``TODO:`` question, so it can be edited
        part by part (``replace(objective=...)``) yet fails lint (LC004) until each is answered.

        The numbers and the trigger type are conservative defaults to revisit, not blanks:
        a manual bootstrap, two retries, thirty minutes.
        """
        try:
            return cls._template(name)
        except ValidationError as error:
            raise LoopContractError("CONTRACT_INVALID", "cannot draft a contract template",
                                    pydantic_issues(error)) from None

    @classmethod
    def _template(cls, name: str) -> LoopContract:
        todo = TEMPLATE_MARK + " "
        return cls(
            name=name,
            objective=todo + "which one measurable outcome is worth repeating toward?",
            trigger=Trigger(type="manual-bootstrap",
                            cadence_or_event=todo + "which schedule, event or goal starts a run?"),
            intake=Intake(
                sources=(todo + "where do items come from?",),
                selection_rule=todo + "which items qualify, and how are duplicates and stale items skipped?",
            ),
            workspace=Workspace(
                isolation=todo + "where does the agent act (worktree, sandbox, read-only)?",
                allowed_actions=(todo + "an action the agent may take",),
                disallowed_actions=(todo + "an action the agent must never take",),
            ),
            context=Context(
                required_files=(todo + "instructions loaded fresh every run",),
                runtime_sources=(todo + "current evidence read at run time",),
            ),
            agents=(
                AgentRole(role=todo + "who acts?", responsibility=todo + "what the actor does"),
                AgentRole(role=todo + "who checks?", responsibility=todo + "what the checker verifies"),
            ),
            verification=Verification(
                gates=(todo + "which external evidence must pass before progress counts?",),
                receipts=(todo + "what each run leaves behind as proof",),
            ),
            state=State(
                artifacts=(todo + "which checkpoint or ledger survives between runs?",),
                update_rule=todo + "when is state written (after each attempt, before each side effect)?",
            ),
            budget=Budget(max_retries=2, max_runtime_minutes=30),
            escalation=Escalation(
                conditions=(todo + "which conditions hand the item to a human?",),
                destination=todo + "which named owner or channel receives it?",
            ),
            exit=Exit(
                success=todo + "what observation proves success?",
                stop_without_success=todo + "what stops the loop without success (budget, repeats, blocked)?",
            ),
        )

    def phases(self) -> dict[str, dict[str, Any]]:
        """The eleven operating parts grouped by phase, for rendering: ``{"Set up": {"objective": ...}, ...}``."""
        return {title: {part: getattr(self, part) for part in parts} for title, parts in PHASES}

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """This model as a Draft 2020-12 JSON Schema; it accepts exactly what the published schema accepts."""
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": SCHEMA_ID,
            **cls.model_json_schema(),
            "title": "Loop Engineering Contract",
            "description": "A portable contract for recurring AI-agent loops.",
        }


PARTS = tuple(name for name in LoopContract.model_fields if name != EXTENSION_KEY)
"""The twelve keys of a public contract, in the schema's order."""


def read_contract_document(path: str | Path) -> Any:
    """The parsed JSON or YAML of a contract file, not yet validated (lint reads it as written).

    A contract may come from anyone, so it is read as untrusted input: only a regular file (a FIFO or a device
    is refused at once, not waited on), at most ``MAX_CONTRACT_BYTES``, refused before it is parsed. The path
    is the one the user named, so a link in it is followed, to a file that must be regular itself. JSON with
    ``NaN``, a repeated key, more than 100 levels of nesting or a 100-digit integer is refused, as strict YAML
    bounds the same. Every refusal is ``CONTRACT_UNREADABLE`` naming the file.
    """
    document, problem = read_document(path, _format_of(path), "contract")
    if problem:
        raise LoopContractError("CONTRACT_UNREADABLE", problem)
    return document


def read_document(path: str | Path, fmt: Literal["json", "yaml"], what: str) -> tuple[Any, str]:
    """A file the user named (a contract, a review file) parsed as ``fmt``, read as ``read_contract_document``
    reads a contract: the document and ``""``, or None and why it was refused, naming the file (and the line,
    for YAML), for the caller to raise with its own code."""
    try:
        text = read_regular(os.path.realpath(path), MAX_CONTRACT_BYTES).decode("utf-8")
    except RefusedFile as refused:
        return None, f"{path}: cannot read {what}: it {refused.problem}"
    except OSError as error:
        return None, f"{path}: cannot read {what} ({error.strerror or error})"
    except UnicodeDecodeError as error:
        return None, f"{path}: not UTF-8 text (byte {error.start})"
    if fmt == "json":
        try:
            return loads_untrusted(text), ""
        except UntrustedJson as error:
            return None, f"{path}: {error.message}"
    document, problem = load_strict_yaml(text)
    return (None, f"{path}: {problem}") if problem else (document, "")


def document_format(path: str | Path) -> Literal["json", "yaml"] | None:
    """The format a file's suffix names (``.json``; ``.yaml`` or ``.yml``), or None."""
    suffix = Path(path).suffix.lower()
    return "json" if suffix == ".json" else "yaml" if suffix in (".yaml", ".yml") else None


def write_contract_file(path: str | Path, text: str) -> None:
    """Write a contract (or a document made from one) atomically; ``CONTRACT_UNWRITABLE`` names the path.

    The folder must exist: a typo in an output path is refused rather than quietly made into folders.
    """
    folder = Path(path).parent
    if not folder.exists():
        raise LoopContractError("CONTRACT_UNWRITABLE", f"{path}: cannot write: no such directory {folder}")
    try:
        write_atomic(path, text, mode=0o644)
    except OSError as error:
        raise LoopContractError("CONTRACT_UNWRITABLE", f"{path}: cannot write ({error.strerror or error})") from None


def normalized(text: str) -> str:
    """A contract's text as two of its texts are compared: case, spacing and surrounding punctuation ignored
    (``" Delete tests."`` is ``"delete tests"``)."""
    return " ".join(text.casefold().split()).strip(" .;:!,")


def json_path(location: tuple[str | int, ...]) -> str:
    """``("agents", 0, "role")`` → ``agents[0].role``; the document itself is ``$``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            text += f".{part}" if text else part
        else:
            key = f"[{json.dumps(part, ensure_ascii=False)}]"
            text += key if text else "$" + key
    return text or "$"


def pydantic_issues(error: ValidationError) -> tuple[str, ...]:
    """One ``<json path>: <message>`` line per problem.

    pydantic also calls an array "too short" when only its items were invalid; that echo is dropped.
    """
    errors = error.errors()

    def echo(issue: ErrorDetails) -> bool:
        loc = issue["loc"]
        return issue["type"] == "too_short" and any(
            len(other["loc"]) > len(loc) and other["loc"][: len(loc)] == loc for other in errors
        )

    return tuple(f"{json_path(issue['loc'])}: {issue['msg']}" for issue in errors if not echo(issue))


def _format_of(path: str | Path) -> Literal["json", "yaml"]:
    fmt = document_format(path)
    if fmt is None:
        raise LoopContractError("CONTRACT_FORMAT", f"{path}: a contract file ends in .json, .yaml or .yml")
    return fmt
