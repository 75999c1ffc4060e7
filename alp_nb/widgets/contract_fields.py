"""The loop contract as a form sees it: one field per control, what its control shows, what typing into it means,
and where a JSON path (a lint finding's, a schema issue's, ``set``'s) is shown.

A field is what a person edits whole: a text, a list of texts (one item a line), a count, the trigger type, or
the agents (one ``role: responsibility`` a line). Typing into a control and ``ContractEditor.set`` meet in
``with_value``: both put a JSON value at a JSON path of the contract's document, and the schema decides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from alp_nb.loops.loop_contract import PARTS, TEMPLATE_MARK, TRIGGER_TYPES, LoopContract

FieldKind = Literal["text", "lines", "count", "choice", "agents"]
WHOLE = "$"
"""The place of what concerns the whole document (and of a path that names no part)."""


@dataclass(frozen=True)
class FormField:
    """One control's share of the contract: ``path`` is its JSON path (``budget.max_retries``)."""

    path: str
    kind: FieldKind

    @property
    def part(self) -> str:
        return self.path.split(".")[0]

    @property
    def key(self) -> str:
        """Its name within its part (``max_retries``), or the part's own for a part edited whole (``agents``)."""
        return self.path.split(".")[-1]


def _kind(path: str, value: Any) -> FieldKind:
    if path == "trigger.type":
        return "choice"
    if isinstance(value, list):
        return "agents" if value and isinstance(value[0], dict) else "lines"
    return "count" if isinstance(value, int) else "text"


def _fields() -> tuple[FormField, ...]:
    """Every field in the schema's order, read off a template: the shape of its document gives each field's kind,
    so the form follows the schema wherever it goes."""
    fields = []
    for part, value in LoopContract.template("form").to_document().items():
        leaves = value.items() if isinstance(value, dict) else [("", value)]
        fields += [FormField(f"{part}.{key}" if key else part, _kind(f"{part}.{key}", leaf)) for key, leaf in leaves]
    return tuple(fields)


FORM_FIELDS = _fields()
FIELDS: Mapping[str, FormField] = {field.path: field for field in FORM_FIELDS}
SHARED_PARTS = tuple(part for part in PARTS if part not in FIELDS)
"""The parts edited through several fields (``trigger``, ``budget``...): a finding about one of them as a whole
(``context``) is shown beside the part."""

_STEP = re.compile(r"(?:\A|\.)([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def path_steps(path: str) -> tuple[str | int, ...] | None:
    """``agents[0].role`` → ``("agents", 0, "role")``; None for text that is no such path."""
    steps: list[str | int] = []
    at = 0
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None or match.end() == at:
            return None
        steps.append(match[1] if match[1] is not None else int(match[2]))
        at = match.end()
    return tuple(steps) or None


def place_of(path: str) -> str:
    """Where the form shows something about ``path``: its field (``agents[1].role`` → ``agents``), else its part
    (``context``), else ``WHOLE``."""
    steps = path_steps(path) or (WHOLE,)
    if len(steps) > 1 and f"{steps[0]}.{steps[1]}" in FIELDS:
        return f"{steps[0]}.{steps[1]}"
    return str(steps[0]) if steps[0] in PARTS else WHOLE


def fields_at(path: str) -> tuple[FormField, ...]:
    """The fields an edit at ``path`` changes: the one it falls in, or all of a part's."""
    place = place_of(path)
    return tuple(field for field in FORM_FIELDS if field.path == place or field.path.startswith(place + "."))


def with_value(document: dict[str, Any], path: str, value: Any) -> str:
    """Put ``value`` at ``path`` in ``document`` (changed in place) and return ""; or, when ``path`` names no
    place in it, say why. A new key is put all the same, so that the schema names it if it has no such key."""
    steps = path_steps(path)
    if steps is None:
        return "not a JSON path like budget.max_retries or agents[0].role"
    holder: Any = document
    for step in steps[:-1]:
        if not _holds(holder, step):
            return "the contract has no such place"
        holder = holder[step]
    last = steps[-1]
    if not (_holds(holder, last) if isinstance(last, int) else isinstance(holder, dict)):
        return "the contract has no such place"
    holder[last] = value
    return ""


def _holds(holder: Any, step: str | int) -> bool:
    if isinstance(step, int):
        return isinstance(holder, list) and step < len(holder)
    return isinstance(holder, dict) and step in holder


def typed_value(field: FormField, typed: Any) -> tuple[Any, str]:
    """What typing ``typed`` into ``field``'s control means as JSON, and ""; or None, and why it cannot be read.
    Blank lines of a list are skipped; an agent line splits at its first colon after the role's own ``TODO:``
    (a template's roles are questions: ``TODO: who acts?: TODO: what the actor does``)."""
    if field.kind == "lines":
        return [line for line in typed.split("\n") if line.strip()], ""
    if field.kind != "agents":
        return typed, ""
    agents = []
    for number, line in enumerate(typed.split("\n"), 1):
        if line.strip():
            mark = line.find(TEMPLATE_MARK)
            colon = line.find(":", mark + len(TEMPLATE_MARK) if mark >= 0 and not line[:mark].strip() else 0)
            if colon < 0:
                return None, f"line {number}: write each agent as `role: responsibility`"
            agents.append({"role": line[:colon].strip(), "responsibility": line[colon + 1:].strip()})
    return agents, ""


def control_value(field: FormField, value: Any) -> Any:
    """What ``field``'s control shows for the JSON ``value``; None when a control of its kind cannot show it (a
    string set where a count goes: the schema's message says what is wrong)."""
    kind = field.kind
    if kind == "count":
        return value if type(value) is int else None
    if kind == "choice":
        return value if value in TRIGGER_TYPES else None
    if kind == "text":
        return value if isinstance(value, str) else None
    if not isinstance(value, list | tuple):
        return None
    if kind == "lines":
        return "\n".join(value) if all(isinstance(item, str) for item in value) else None
    shown = [f"{agent['role']}: {agent['responsibility']}" for agent in value if isinstance(agent, dict)
             and isinstance(agent.get("role"), str) and isinstance(agent.get("responsibility"), str)]
    return "\n".join(shown) if len(shown) == len(value) else None
