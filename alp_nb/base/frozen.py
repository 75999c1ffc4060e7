"""Immutability helpers: a frozen camelCase-aliased model base and deep-frozen JSON, for every layer.

Data is deep-frozen, as ALP's ``defineAgent`` freezes a definition recursively:
sequences become tuples, mappings become read-only ``MappingProxyType`` views
over private copies, and models refuse attribute assignment. A snapshot, a
contract or a journal entry read twice can therefore never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Annotated, Any, Self, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainSerializer, ValidationError
from pydantic.alias_generators import to_camel


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


def freeze(value: Any) -> Any:
    """Deep-freeze JSON-like data: dicts to read-only mappings, lists to tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """The plain ``dict``/``list`` form of frozen JSON-like data, for dumping and validators."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(item) for item in value]
    return value


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
