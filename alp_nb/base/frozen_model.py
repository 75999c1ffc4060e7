"""The pydantic base of definitions, contracts and policies: frozen, closed, camelCase-aliased models whose
mapping and JSON fields are deep-frozen (``frozen.freeze``), so a definition read twice can never disagree.

The runtime's records, read and written on every run, are ``frozen_struct.FrozenStruct`` instead: pydantic costs a
process some 100 ms to import, more than a whole 2,000-call run.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Self, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainSerializer, ValidationError
from pydantic.alias_generators import to_camel

from .frozen import freeze, thaw


class FrozenModel(BaseModel):
    """Base for every definition part: frozen, closed, snake_case with camelCase aliases."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        defer_build=True,
    )

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """Deep-frozen, so a deep copy is the value itself (read-only mappings cannot be copied)."""
        return self


V = TypeVar("V")

FrozenMapping = Annotated[
    Mapping[str, V],
    AfterValidator(lambda mapping: MappingProxyType(dict(mapping))),
    PlainSerializer(lambda mapping: dict(mapping)),
]
"""A mapping field that is read-only once validated and dumps as a plain dict."""

FrozenJson = Annotated[Any, AfterValidator(freeze), PlainSerializer(thaw)]
"""Arbitrary JSON (such as a JSON Schema), deep-frozen once validated."""


def validation_issues(error: ValidationError, whole: str, skip: int = 0) -> list[str]:
    """``<dotted.path>: <message>`` for each problem pydantic found; ``whole`` names an empty path.

    ``skip`` drops leading path parts that name no field (a union's tag).
    """
    return [
        f"{'.'.join(str(part) for part in issue['loc'][skip:]) or whole}: {issue['msg']}"
        for issue in error.errors()
    ]
