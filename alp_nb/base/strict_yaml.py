"""Strict YAML: YAML 1.2 core schema, with aliases, duplicate keys, extra documents and other tags refused.

Files people review (``agent.yaml``, loop contracts) must load as exactly
what the reviewer read: ``yes`` stays a string, an alias cannot smuggle in a
copy, a second document cannot hide below the first, and a tag such as
``!!set`` or ``!!binary`` cannot turn text into a type JSON does not have.
``dump_strict_yaml`` writes with the same rules, so its output reads back unchanged.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping

from ruamel.yaml import YAML
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    CollectionEndEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    Event,
    NodeEvent,
    ScalarEvent,
)
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.resolver import VersionedResolver

from .untrusted_json import MAX_DEPTH, MAX_INT_DIGITS

_YAML_TAG = "tag:yaml.org,2002:"
_BRACKETS = re.compile(r"[\[\]{}]")
_CORE_SCALARS = {  # tag: (the text it matches, the first characters ruamel looks it up by)
    "null": (r"~|null|Null|NULL|", ["~", "n", "N", ""]),
    "bool": (r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    "int": (r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    "float": (r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
              list("-+0123456789.")),
}
_CORE_PATTERNS = {f"{_YAML_TAG}{tag}": re.compile(f"^(?:{pattern})\\Z") for tag, (pattern, _) in _CORE_SCALARS.items()}
_CORE_TAGS = frozenset({*_CORE_PATTERNS, f"{_YAML_TAG}str", f"{_YAML_TAG}seq", f"{_YAML_TAG}map"})
"""The only explicit tags allowed: the core schema's, which add no type beyond JSON's."""


def _implicit_tags() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """The core schema's implicit tags keyed by first character, as ruamel looks them up."""
    table: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for tag, (_, firsts) in _CORE_SCALARS.items():
        for first in firsts:
            table.setdefault(first, []).append((f"{_YAML_TAG}{tag}", _CORE_PATTERNS[f"{_YAML_TAG}{tag}"]))
    return table


class _CoreSchemaResolver(VersionedResolver):
    """The YAML 1.2 core schema whatever the file declares: ruamel's own 1.2 rules also read
    timestamps, ``1_000``, ``0b1`` and ``<<`` merge keys, which ALP's yaml@2 keeps as strings."""

    _table = _implicit_tags()

    @property
    def versioned_resolver(self) -> dict[str, list[tuple[str, re.Pattern[str]]]]:
        return self._table


class _StrictRepresenter(SafeRepresenter):
    """Double-quotes text holding NEL or a Unicode line/paragraph separator, which a plain or
    single-quoted YAML scalar would turn into a line break on the way back in."""

    def represent_str(self, data: str) -> ScalarNode:
        style = '"' if any(char in data for char in "\x85\u2028\u2029") else None
        return self.represent_scalar(f"{_YAML_TAG}str", data, style=style)


_StrictRepresenter.add_representer(str, _StrictRepresenter.represent_str)


def load_strict_yaml(text: str) -> tuple[object, str | None]:
    """The document in ``text`` and None, or None and the problem (``yaml: ...``, with line and column).

    Nesting is bounded by ``MAX_DEPTH`` and integers by ``MAX_INT_DIGITS``, as for JSON: a flow collection
    nested thousands deep is refused before the parser (which slows down with depth) reads it.
    """
    if _bracket_depth(text) > MAX_DEPTH:
        return None, f"yaml: nested more than {MAX_DEPTH} levels deep"
    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _CoreSchemaResolver
    try:
        if problem := _stream_problem(yaml.parse(io.StringIO(text))):
            return None, f"yaml: {problem}"
        return yaml.load(text), None
    except DuplicateKeyError as error:
        return None, f"yaml: Map keys must be unique; {error.problem}{_where(error.problem_mark)}"
    except MarkedYAMLError as error:
        return None, f"yaml: {error.problem or error.context}{_where(error.problem_mark or error.context_mark)}"
    except YAMLError as error:
        return None, f"yaml: {error}"


def dump_strict_yaml(document: Mapping[str, object]) -> str:
    """``document`` as block YAML that ``load_strict_yaml`` reads back unchanged, keys in their order:
    text the core schema would read as a number, bool or null (``.5e3``, ``null``) is quoted."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Resolver = _CoreSchemaResolver
    yaml.Representer = _StrictRepresenter
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # ruamel types this flag as None
    stream = io.StringIO()
    yaml.dump(document, stream)
    return stream.getvalue()


def _stream_problem(events: Iterable[Event]) -> str | None:
    """The first refused event, with where it is: checked on the event stream, before anything is built."""
    documents = depth = 0
    for event in events:
        depth += isinstance(event, CollectionStartEvent) - isinstance(event, CollectionEndEvent)
        documents += isinstance(event, DocumentStartEvent)
        if problem := _count_problem(depth, documents) or _node_problem(event):
            return f"{problem}{_where(event.start_mark)}"
    return None


def _count_problem(depth: int, documents: int) -> str | None:
    """Too deep a nesting, or a second document that a reader of the first would never see."""
    if depth > MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} levels deep"
    if documents > 1:
        return "multiple documents are not allowed"
    return None


def _node_problem(event: Event) -> str | None:
    """Why one node is refused: an over-long integer, an alias, or a tag outside the core schema."""
    if isinstance(event, ScalarEvent) and (problem := _integer_problem(event)):
        return problem
    if isinstance(event, AliasEvent):
        return "Alias resolution is disabled"
    if isinstance(event, NodeEvent):
        return _tag_problem(event)
    return None


def _tag_problem(event: NodeEvent) -> str | None:
    """Why an explicitly tagged node is refused: a tag outside the core schema (``!!set``, ``!!binary``,
    ``!!timestamp``, the non-specific ``!``), or a core scalar tag on text that is not of its type."""
    tag = getattr(event, "tag", None)
    if tag is None:
        return None
    shown = tag.replace(_YAML_TAG, "!!", 1) if tag.startswith(_YAML_TAG) else tag
    if tag not in _CORE_TAGS:
        return (f"tag {shown} is not allowed "
                "(only the core schema's !!str, !!int, !!float, !!bool, !!null, !!seq, !!map)")
    if isinstance(event, ScalarEvent) and tag in _CORE_PATTERNS and not _CORE_PATTERNS[tag].match(event.value):
        return f"{event.value!r} is not a core-schema {shown[2:]}"
    return None


def _bracket_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in ``text``, quoted text included: an upper bound of the flow
    nesting, found without parsing."""
    depth = deepest = 0
    for bracket in _BRACKETS.finditer(text):
        depth += 1 if bracket.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _integer_problem(event: ScalarEvent) -> str | None:
    """An integer written with more digits than ``MAX_INT_DIGITS`` (Python would refuse it past 4,300 anyway,
    with a message that names nothing)."""
    value = event.value
    if event.style is None and len(value) > MAX_INT_DIGITS and _CORE_PATTERNS[f"{_YAML_TAG}int"].match(value):
        return f"an integer of {len(value)} digits, over the limit of {MAX_INT_DIGITS}"
    return None


def _where(mark: StreamMark | None) -> str:
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
