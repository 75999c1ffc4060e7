"""The runtime's records: frozen msgspec structs, snake_case in Python and camelCase on disk.

A run writes its snapshot, journal and events on every launch and resume, and reads them back on every resume
and view, often in a process that does nothing else (``alp-nb workflow run``). pydantic costs such a process about
100 ms to import, more than the 2,000-call run itself; msgspec a few. So the records that go to disk are
``Record`` structs: frozen, keyword-only and closed (a field the record does not name is refused, unless the
record's class says ``forbid_unknown_fields=False``). msgspec makes keyword-only only the fields a class itself
declares, and type checkers do not see ``frozen`` inherited, so each record's class says ``frozen=True,
kw_only=True`` again. ``FROZEN`` names the fields holding JSON or a mapping,
deep-frozen (``frozen.freeze``) as the record is made, as a definition's are.

Definitions, contracts and policies stay pydantic models (``frozen_model``): their many validators and JSON
Schemas are what pydantic is for, and the processes that load them load little else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar, Self

import msgspec
from msgspec.structs import force_setattr

from .frozen import freeze, thaw

RecordInvalid = msgspec.ValidationError
"""What ``Record.from_json`` raises; ``record_issue`` words it."""
_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")


class Record(msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """Base of every record the runtime writes to disk."""

    FROZEN: ClassVar[tuple[str, ...]] = ()
    """The fields that hold JSON or a mapping: deep-frozen as the record is made."""

    def __post_init__(self) -> None:
        for name in self.FROZEN:
            force_setattr(self, name, freeze(getattr(self, name)))

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """The record that parsed JSON ``data`` holds; RecordInvalid names the first field that is wrong."""
        return msgspec.convert(data, cls)

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON (camelCase keys, lists, dicts), as it is written."""
        data: dict[str, Any] = thaw(msgspec.to_builtins(self, enc_hook=_plain))
        return data

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (records are frozen)."""
        return msgspec.structs.replace(self, **changes)


def _plain(value: Any) -> Any:
    """A deep-frozen mapping as the dict it stands for; anything else that is not JSON is refused by name."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"a record cannot hold a {type(value).__name__}: it is not JSON")


def record_issue(error: RecordInvalid, whole: str) -> str:
    """``<dotted.path>: <message>`` for what ``from_json`` refused (``whole`` names the record itself), in the
    words the other layers' validation messages use: ``attempts.0.usage.agents: Expected `int`, got `str```."""
    message = str(error)
    found = _AT.search(message)
    if found is None:
        return f"{whole}: {message}"
    path = re.sub(r"\[(\d+)\]", r".\1", found["path"]).lstrip(".")
    return f"{path or whole}: {message[:found.start()]}"
