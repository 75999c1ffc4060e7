"""Structured output contracts: ALP's ``defineOutputContract`` for pydantic models and JSON Schema.

A JSON Schema dict is checked by jsonschema (``OutputContract``); a pydantic
model class is checked by pydantic itself, and publishes its JSON Schema.
Either way issues read ``<dotted.path>: <message>``, or ``output: ...`` for
the value as a whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from alp_nb.agents.output_contract import OutputContract, OutputValidation


@dataclass(frozen=True, repr=False)  # keep the base's repr and notebook views
class PydanticOutputContract(OutputContract):
    """A contract whose validator is a pydantic model; ``value`` of a valid output is the parsed model."""

    kind: ClassVar[str] = "pydantic"
    model: type[BaseModel] = field(kw_only=True, repr=False)

    def _compile(self) -> None:
        return None  # pydantic validates; the JSON Schema is published for readers and hashing

    def validate(self, value: Any) -> OutputValidation:
        try:
            parsed = self.model.model_validate(value)
        except ValidationError as error:
            return OutputValidation(ok=False, issues=tuple(
                f"{_path_in(value, issue['loc']) or 'output'}: {issue['msg']}" for issue in error.errors()
            ))
        return OutputValidation(ok=True, value=parsed)


def _path_in(value: Any, loc: tuple[Any, ...]) -> str:
    """The dotted path of ``loc`` that exists in ``value`` (plus a missing last key).

    Pydantic's locations also name union members and validators (``x.int``, ``u.A.n``); those
    parts say nothing about where the problem is in the output, so they are dropped.
    """
    kept = []
    for index, part in enumerate(loc):
        in_mapping = isinstance(value, Mapping) and part in value
        in_sequence = isinstance(value, list | tuple) and isinstance(part, int) and 0 <= part < len(value)
        if in_mapping or in_sequence:
            value = value[part]
        elif not (index == len(loc) - 1 and isinstance(value, Mapping)):
            continue
        kept.append(str(part))
    return ".".join(kept)


def define_output_contract(name: str, schema: type[BaseModel] | Mapping[str, Any]) -> OutputContract:
    """A frozen contract named ``name``; ``schema`` is a pydantic model class or a JSON Schema dict
    (an invalid JSON Schema is refused here, not at the first output)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return PydanticOutputContract(name, schema.model_json_schema(), model=schema)
    if isinstance(schema, Mapping):
        return OutputContract(name, schema)
    raise TypeError(f"output contract `{name}`: schema must be a pydantic model class or a JSON Schema dict, "
                    f"not {type(schema).__name__}")
