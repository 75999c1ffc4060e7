"""The runtime's records: frozen msgspec structs (``FrozenStruct``), snake_case in Python and camelCase on disk.

A run writes its snapshot, journal and events on every launch and resume, and reads them back on every resume
and view, often in a process that does nothing else (``alp-nb workflow run``). pydantic costs such a process about
100 ms to import, more than the 2,000-call run itself; msgspec a few. So the records that go to disk are
``FrozenStruct`` structs: frozen, keyword-only and closed (a field the record does not name is refused, unless the
record's class says ``forbid_unknown_fields=False``). msgspec makes keyword-only only the fields a class itself
declares, and type checkers do not see ``frozen`` inherited, so each record's class says ``frozen=True,
kw_only=True`` again. ``FROZEN`` names the fields holding JSON or a mapping,
deep-frozen (``frozen.freeze``) as the record is made, as a definition's are.

Definitions, contracts and policies stay pydantic models (``frozen_model``): their many validators and JSON
Schemas are what pydantic is for, and the processes that load them load little else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Self, get_args, get_origin

import msgspec
import msgspec.inspect
from msgspec.structs import force_setattr

from .frozen import freeze, thaw

StructInvalid = msgspec.ValidationError
"""What ``FrozenStruct.from_json`` raises; ``refusal`` says why, naming the field."""


class FrozenStruct(msgspec.Struct, frozen=True, kw_only=True, rename="camel", forbid_unknown_fields=True):
    """Base of every record the runtime writes to disk."""

    FROZEN: ClassVar[tuple[str, ...]] = ()
    """The fields that hold JSON or a mapping: deep-frozen as the record is made."""

    def __post_init__(self) -> None:
        for name in self.FROZEN:
            force_setattr(self, name, freeze(getattr(self, name)))

    @classmethod
    def from_json(cls, data: Any) -> Self:
        """The record that parsed JSON ``data`` holds; StructInvalid names the first field that is wrong."""
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


def refusal(kind: Any, data: Any) -> str:
    """Why parsed JSON ``data`` is not a ``kind`` (a record class, or any type msgspec converts to), in one phrase
    naming the first field that is wrong by its name on disk, in backquotes: "attempts.0.usage.agents must be a
    non-negative integer", "unknown field x", "value is missing", "it must be an object"; "" when it is one.

    Every refusal of a record is worded here, from its type (``msgspec.inspect``) and the ``description`` of a
    constraint where the type gives one, never from msgspec's own error text."""
    found = _problem(kind, data, ())
    if found is None:
        return ""
    path, problem = found
    named = ".".join(path)
    if problem == UNKNOWN:
        return f"{UNKNOWN} `{named}`"
    return f"`{named}` {problem}" if named else f"it {problem}"


UNKNOWN = "unknown field"
Problem = tuple[tuple[str, ...], str]
"""Where a value fails its type (the path of field names and indexes) and how: ``must be ...``, ``is missing``, or
``UNKNOWN``."""


def _problem(kind: Any, data: Any, path: tuple[str, ...]) -> Problem | None:
    """Where ``data`` first fails ``kind``, and how; None where it does not."""
    try:
        msgspec.convert(data, kind)
        return None
    except msgspec.ValidationError:
        pass
    described = msgspec.inspect.type_info(kind)
    info = _bare(described)
    inside = _inside(kind)
    found: Problem | None = None
    if isinstance(info, msgspec.inspect.UnionType):
        found = _member_problem(inside, data, path)
    elif isinstance(info, msgspec.inspect.StructType):
        found = _struct_problem(info, data, path)
    elif isinstance(info, _LISTS) and isinstance(data, list) and inside:
        found = next(filter(None, (_problem(inside[0], item, (*path, str(index)))
                                   for index, item in enumerate(data))), None)
    elif isinstance(info, msgspec.inspect.DictType) and isinstance(data, dict) and len(inside) == 2:
        found = next(filter(None, (_problem(inside[1], item, (*path, str(name))) for name, item in data.items())),
                     None)
    return found or (path, "must be " + phrase(described))


def _member_problem(members: tuple[Any, ...], data: Any, path: tuple[str, ...]) -> Problem | None:
    """In a union, the problem of the one member ``data`` was meant to be: the only one that is not null, or the
    record whose tag it carries."""
    kinds = [member for member in members if _bare(msgspec.inspect.type_info(member)) != _NONE]
    if data is not None and len(kinds) == 1:
        return _problem(kinds[0], data, path)
    records = [(member, info) for member in kinds
               if isinstance(info := _bare(msgspec.inspect.type_info(member)), msgspec.inspect.StructType)
               and info.tag_field is not None]
    if isinstance(data, dict) and records:
        tag_field = records[0][1].tag_field
        tagged = [member for member, info in records if info.tag == data.get(tag_field)]
        if tagged:
            return _problem(tagged[0], data, path)
        tags = ", ".join(json.dumps(info.tag) for _member, info in records)
        return (*path, str(tag_field)), f"must be one of {tags}"
    return None


def _struct_problem(info: msgspec.inspect.StructType, data: Any, path: tuple[str, ...]) -> Problem | None:
    if not isinstance(data, dict):
        return None
    names = {field.encode_name for field in info.fields}
    if info.tag_field is not None:
        names.add(info.tag_field)
        if data.get(info.tag_field) != info.tag:
            return (*path, info.tag_field), f"must be {json.dumps(info.tag)}"
    unknown = sorted(name for name in data if name not in names) if info.forbid_unknown_fields else []
    if unknown:
        return (*path, unknown[0]), UNKNOWN
    missing = [field.encode_name for field in info.fields if field.required and field.encode_name not in data]
    if missing:
        return (*path, missing[0]), "is missing"
    types = {field.encode_name: field.type for field in msgspec.structs.fields(info.cls)}
    return next(filter(None, (_problem(types[name], value, (*path, name)) for name, value in data.items()
                              if name in types)), None)


def phrase(info: Any) -> str:
    """What a value of the type ``info`` (``msgspec.inspect``) is, in words: ``a non-negative integer``; a
    constraint's ``description`` where it has one. A union says what its members other than null are."""
    if isinstance(info, msgspec.inspect.Metadata):
        described = (info.extra_json_schema or {}).get("description")
        return described if isinstance(described, str) else phrase(info.type)
    if isinstance(info, msgspec.inspect.UnionType):
        return " or ".join(phrase(member) for member in info.types if _bare(member) != _NONE) or "null"
    if isinstance(info, msgspec.inspect.IntType | msgspec.inspect.FloatType):
        return _number(info)
    if isinstance(info, msgspec.inspect.StrType):
        return "a string" if info.pattern is None else f"a string matching `{info.pattern}`"
    if isinstance(info, msgspec.inspect.LiteralType):
        return "one of " + ", ".join(json.dumps(value) for value in info.values)
    return _WORDS.get(type(info), "something else")


def _number(info: msgspec.inspect.IntType | msgspec.inspect.FloatType) -> str:
    noun = "integer" if isinstance(info, msgspec.inspect.IntType) else "number"
    if (info.ge is not None and info.ge > 0) or (info.gt is not None and info.gt >= 0):
        words = f"a positive {noun}"
    elif info.ge == 0:
        words = f"a non-negative {noun}"
    else:
        words = f"an {noun}" if noun == "integer" else f"a {noun}"
    most = info.le if info.le is not None else info.lt
    return words if most is None else f"{words} of at most {most:,}"


_NONE = msgspec.inspect.NoneType()
_LISTS = (msgspec.inspect.ListType, msgspec.inspect.VarTupleType, msgspec.inspect.SetType,
          msgspec.inspect.FrozenSetType)
_WORDS: dict[type, str] = {
    msgspec.inspect.BoolType: "true or false", msgspec.inspect.NoneType: "null", msgspec.inspect.AnyType: "any JSON",
    msgspec.inspect.StructType: "an object", msgspec.inspect.DictType: "an object",
    msgspec.inspect.ListType: "a list", msgspec.inspect.VarTupleType: "a list", msgspec.inspect.TupleType: "a list",
}


def _bare(info: Any) -> Any:
    """A type as ``msgspec.inspect`` gives it, its constraint's description taken off."""
    return info.type if isinstance(info, msgspec.inspect.Metadata) else info


def _inside(kind: Any) -> tuple[Any, ...]:
    """The types inside ``kind`` (a union's members, a list's item, a dict's key and value), Annotated taken off."""
    while get_origin(kind) is Annotated:
        kind = get_args(kind)[0]
    return get_args(kind)
