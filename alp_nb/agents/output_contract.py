"""Output contracts: what a role's final output must be before its execution completes.

A contract is part of the agent definition (its name and JSON Schema are
hashed), so its shape lives here; the workflow layer re-exports it and adds
richer constructors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Self

from alp_nb.base.frozen import freeze, thaw
from alp_nb.base.json_schema import jsonschema_module
from alp_nb.base.schema_errors import error_location

from .errors import AgentError

if TYPE_CHECKING:
    import jsonschema

TEXT_OUTPUT_SCHEMA: Mapping[str, Any] = freeze({"type": "string", "minLength": 1})
JS_TRIMMED = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
"""What JavaScript's ``trim()`` removes (WhiteSpace and LineTerminator); Python's ``strip()`` differs
(it removes U+001F and U+0085, and keeps U+FEFF)."""


@dataclass(frozen=True)
class OutputValidation:
    """The verdict on one output: ``value`` when ok, ``issues`` (``<path>: <message>``) when not."""

    ok: bool
    value: Any = None
    issues: tuple[str, ...] = ()


@dataclass(frozen=True)
class OutputContract:
    """A named JSON Schema checked with a real validator (jsonschema)."""

    kind: ClassVar[str] = "json-schema"
    name: str
    schema: Mapping[str, Any] = field(default_factory=dict)
    _validator: Any = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", freeze(self.schema))
        object.__setattr__(self, "_validator", self._compile())

    @classmethod
    def deferred(cls, name: str, schema: Mapping[str, Any]) -> Self:
        """A contract of alp_nb's own (a schema its tests check) compiled on its first ``validate``, so that
        importing the module that holds it imports no JSON Schema machinery."""
        contract = cls.__new__(cls)
        object.__setattr__(contract, "name", name)
        object.__setattr__(contract, "schema", freeze(schema))
        object.__setattr__(contract, "_validator", None)
        return contract

    def _compile(self) -> Any:
        """Check the schema once and keep its validator (a bad schema is refused here)."""
        jsonschema = jsonschema_module()  # text contracts (every built-in role's) never need it

        plain = thaw(self.schema)
        validator_class = jsonschema.validators.validator_for(plain)
        try:
            validator_class.check_schema(plain)
        except jsonschema.SchemaError as error:
            raise AgentError(
                "INVALID_OUTPUT_SCHEMA",
                f"output contract `{self.name}` has an invalid JSON Schema: {error.message}",
            ) from None
        for reference in _references(plain):
            if not _resolves(plain, reference):
                raise AgentError("INVALID_OUTPUT_SCHEMA", f"output contract `{self.name}` has a `$ref` that "
                                 f"points nowhere in the schema: `{reference}` (only local `#/...` references)")
        return validator_class(plain)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """Deep-frozen, so a deep copy is the contract itself."""
        return self

    def validate(self, value: Any) -> OutputValidation:
        if self._validator is None:
            object.__setattr__(self, "_validator", self._compile())
        errors = sorted(self._validator.iter_errors(value), key=lambda error: list(error.absolute_path))
        if not errors:
            return OutputValidation(ok=True, value=value)
        return OutputValidation(ok=False, issues=tuple(_issue(error) for error in errors))

    def to_alp(self) -> dict[str, Any]:
        """ALP's serialisable form of a contract: its name and JSON Schema."""
        return {"name": self.name, "schema": thaw(self.schema)}


@dataclass(frozen=True, repr=False)  # keep the base's repr and notebook views
class TextOutputContract(OutputContract):
    """ALP's ``textOutput``: a string that is not blank once trimmed."""

    kind: ClassVar[str] = "text"

    def _compile(self) -> None:
        return None  # the schema is the fixed TEXT_OUTPUT_SCHEMA; validation trims instead

    def validate(self, value: Any) -> OutputValidation:
        if isinstance(value, str) and value.strip(JS_TRIMMED):
            return OutputValidation(ok=True, value=value)
        return OutputValidation(ok=False, issues=("output must be non-empty text",))


def text_output(name: str) -> TextOutputContract:
    """A prose output contract; every built-in role ends with one."""
    return TextOutputContract(name, TEXT_OUTPUT_SCHEMA)


def _references(schema: Any) -> list[str]:
    """Every ``$ref`` in a schema, however deep."""
    if isinstance(schema, dict):
        own = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
        return own + [reference for value in schema.values() for reference in _references(value)]
    if isinstance(schema, list):
        return [reference for value in schema for reference in _references(value)]
    return []


def _resolves(schema: Any, reference: str) -> bool:
    """A local reference (``#`` or ``#/$defs/x``) that names a part of ``schema``; a remote one would need the
    network, so it never resolves here."""
    if reference == "#":
        return True
    if not reference.startswith("#/"):
        return False
    target = schema
    for part in reference[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return False
    return True


def _issue(error: jsonschema.ValidationError) -> str:
    """``<dotted.path>: <message>``, or ``output: <message>`` for the value as a whole."""
    return f"{'.'.join(map(str, error_location(error))) or 'output'}: {error.message}"


def coerce_contract(value: Any) -> OutputContract:
    """Accept a contract, or ALP's ``{name, schema}`` JSON (the text schema means textOutput)."""
    if isinstance(value, OutputContract):
        return value
    if not isinstance(value, Mapping) or set(value) - {"name", "schema"} or "name" not in value:
        raise ValueError("an output contract is an OutputContract or {name, schema}")
    name, schema = value["name"], value.get("schema", {})
    if not isinstance(name, str):
        raise ValueError("output contract name must be a string")
    if not isinstance(schema, Mapping):
        raise ValueError("output contract schema must be a JSON object")
    if freeze(schema) == TEXT_OUTPUT_SCHEMA:
        return text_output(name)
    return OutputContract(name, schema)

