"""Strict YAML: YAML 1.2 core schema, with aliases, duplicate keys and extra documents refused.

Files people review (``agent.yaml``, loop contracts) must load as exactly
what the reviewer read: ``yes`` stays a string, an alias cannot smuggle in a
copy, and a second document cannot hide below the first.
"""

from __future__ import annotations

import io
import re

from ruamel.yaml import YAML
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, DocumentStartEvent
from ruamel.yaml.resolver import VersionedResolver


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


def load_strict_yaml(text: str) -> tuple[object, str | None]:
    """The document in ``text`` and None, or None and the problem (``yaml: ...``, with line and column)."""
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
