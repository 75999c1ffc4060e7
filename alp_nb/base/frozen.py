"""Deep-frozen JSON, for every layer.

Data is deep-frozen, as ALP's ``defineAgent`` freezes a definition recursively: sequences become tuples and
mappings read-only ``MappingProxyType`` views over private copies. A snapshot, a contract or a journal entry read
twice can therefore never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any


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
