"""``RegistryExplorer``: pick a role to see its card, its place in the delegation graph and its state machine,
and ask the policy engine what-if questions about it.

A newcomer learns the roles by looking at one at a time and by asking "may it
do that?"; so the answer comes from ``PolicyEngine.authorize`` itself (the form
only builds the request a user would write by hand), and a denial is shown with
the rule behind its code, not just the code. Ids and names may come from
someone else's agent files: every HTML value, the views it embeds included,
shows them escaped and with invisible direction or width characters made
visible (``viz.terminal.plain``), so a name cannot read as another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets
from pydantic import BaseModel

from alp_nb.agents.catalog import TOOL_CATALOG
from alp_nb.agents.policy import PolicyEngine
from alp_nb.agents.policy_requests import REQUEST_TYPES, Authorization
from alp_nb.agents.registry import AgentRegistry
from alp_nb.base.text import clip
from alp_nb.viz.html import block, esc
from alp_nb.viz.pictures.delegation import delegation_graph
from alp_nb.viz.pictures.picture import picture_html
from alp_nb.viz.pictures.state_machines import state_machine
from alp_nb.viz.rendering import render
from alp_nb.viz.terminal import plain, plain_line
from alp_nb.viz.views.policy_codes import ALLOWED_RULES, POLICY_RULES

from .shown_text import shown

POLICY_SOURCE = ""
"""The ``config_target`` value that names the policy source rather than an agent definition."""
FIELD_LAYOUT = {"width": "34em"}
"""Wide enough for the longest placeholder, which says what to type."""
VALUE_CHARS = 120
"""Characters of one request field shown in the answer's question line: a 10 KB id is cut, not shown whole."""


class RegistryExplorer(widgets.VBox):
    """``role`` selects a role: ``card``, ``graph`` (the delegation graph with the role highlighted; with
    ``focus`` ticked, the role's neighbourhood only: a team of forty is otherwise a wall of boxes) and
    ``machine`` redraw, and the role becomes the form's ``actor`` (type another to ask for it). The what-if form
    (``request_type``, ``actor`` and the fields of that type, in ``fields``) is asked with ``ask_button``, or from
    code with ``ask(request)``; ``answer`` shows the last ``Authorization``, which is kept in ``authorization``
    (None before the first question)."""

    def __init__(self, registry: AgentRegistry) -> None:
        self.registry = registry
        self.policy = PolicyEngine(registry)
        ids = registry.ids()
        self.role = widgets.Dropdown(options=[(_label(each), each) for each in ids], description="role")
        self.card, self.graph, self.machine = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.focus = widgets.Checkbox(description="only this role, the roles above it and those under it",
                                      layout=FIELD_LAYOUT)
        self.views = widgets.Tab(children=[self.card, widgets.VBox([self.focus, self.graph]), self.machine],
                                 titles=("card", "delegation", "state machine"))
        self.request_type = widgets.Dropdown(options=REQUEST_TYPES, description="request")
        self.actor = _combo("actor", ids, "a role id")
        self.tool = _combo("tool", TOOL_CATALOG, "a tool, or mcp__<server>__<tool>", "Write")
        self.command = _text("command", "optional: the shell command it runs, e.g. git status")
        self.target = _combo("target", ids, "the role to delegate to")
        self.memory_operation = widgets.Dropdown(options=("read", "write"), description="operation")
        self.scope = _text("scope", "shared, project:*, private:<role>", "shared")
        self.workspace_operation = widgets.Dropdown(options=("read", "write"), description="operation")
        self.path = _text("path", "relative to the active workspace", "src")
        self.active_workspace = _text("workspace", "the execution's active workspace", ".")
        self.read_only = widgets.Checkbox(description="read-only execution", layout=FIELD_LAYOUT)
        self.delegated = widgets.Checkbox(description="delegated (scoped to the active workspace)", layout=FIELD_LAYOUT)
        self.skill = _combo("skill", registry.catalog.skills, "a skill")
        self.subagent = _combo("subagent", tuple(registry.catalog.subagents), "a subagent")
        self.server = _combo("server", tuple(registry.catalog.mcp_servers), "an MCP server")
        definitions = [(f"the definition of {_label(each)}", each) for each in ids]
        self.config_target = widgets.Dropdown(options=[("the policy source", POLICY_SOURCE), *definitions],
                                              description="change")
        self.fields = widgets.VBox()
        self.ask_button = widgets.Button(description="ask policy", button_style="primary", icon="question")
        self.answer = widgets.HTML()
        self.authorization: Authorization | None = None
        heading = widgets.HTML(block("<b>What if?</b> Ask the policy engine whether a role may do something."))
        super().__init__([self.role, self.views, heading, self.request_type, self.actor, self.fields,
                          self.ask_button, self.answer])
        self.add_class("alp-registry-explorer")
        self.role.observe(self._show_role, names="value")
        self.focus.observe(self._show_role, names="value")
        self.request_type.observe(self._show_fields, names="value")
        self.ask_button.on_click(self._ask_form)
        self._show_role()
        self._show_fields()

    def __repr__(self) -> str:
        """What a page without the widget shows (GitHub, nbviewer): the registry and the chosen role in words."""
        return plain_line(f"RegistryExplorer: {len(tuple(self.registry))} roles, showing {self.role.value}")

    def field_controls(self, request_type: str) -> tuple[widgets.Widget, ...]:
        """The controls a request of ``request_type`` needs besides its actor."""
        return {
            "tool": (self.tool, self.command),
            "delegation": (self.target,),
            "memory": (self.memory_operation, self.scope),
            "workspace": (self.workspace_operation, self.path, self.active_workspace, self.read_only, self.delegated),
            "skill": (self.skill,),
            "subagent": (self.subagent,),
            "mcp": (self.server,),
            "configuration": (self.config_target,),
        }[request_type]

    def request(self) -> dict[str, Any]:
        """The question the form asks, as the plain dict a user would pass to ``PolicyEngine.authorize``."""
        kind, actor = self.request_type.value, self.actor.value
        if kind == "tool":
            command = {"command": self.command.value} if self.command.value else {}
            return {"type": kind, "actor": actor, "tool": self.tool.value, **command}
        if kind == "delegation":
            return {"type": kind, "actor": actor, "target": self.target.value}
        if kind == "memory":
            return {"type": kind, "actor": actor, "operation": self.memory_operation.value, "scope": self.scope.value}
        if kind == "workspace":
            return {"type": kind, "actor": actor, "operation": self.workspace_operation.value, "path": self.path.value,
                    "execution": {"active_workspace": self.active_workspace.value,
                                  "workspace_mode": "read-only" if self.read_only.value else "workspace-write",
                                  "delegated": self.delegated.value}}
        if kind == "configuration":
            target = ({"kind": "policy-source"} if self.config_target.value == POLICY_SOURCE
                      else {"kind": "agent-definition", "agent_id": self.config_target.value})
            return {"type": kind, "actor": actor, "operation": "write", "target": target}
        name, control = {"skill": ("skill", self.skill), "subagent": ("subagent", self.subagent),
                         "mcp": ("server", self.server)}[kind]
        return {"type": kind, "actor": actor, name: control.value}

    def ask(self, request: Any) -> Authorization:
        """The policy engine's answer to ``request`` (a typed request or a dict with ALP's keys), shown in
        ``answer`` with the question it answers and, when denied, the rule behind its code."""
        authorization = self.authorization = self.policy.authorize(request)
        data = request.model_dump() if isinstance(request, BaseModel) else request
        kind = data.get("type") if isinstance(data, Mapping) else None
        rule = POLICY_RULES.get(authorization.code or "") if not authorization.allowed else ALLOWED_RULES.get(
            kind if isinstance(kind, str) else "")
        because = block(f'<span class="muted">rule: {esc(rule)}</span>') if rule else ""
        shown_in_form = isinstance(data, Mapping) and self._fill(data)
        elsewhere = "" if shown_in_form else block(
            '<span class="muted">asked from code: the form above cannot hold this question, so it shows the one '
            "before</span>")
        self.answer.value = (f'<div style="overflow-wrap:anywhere">{block(_question(request))}'
                             f"{plain(render(authorization, 'html'))}{because}{elsewhere}</div>")
        return authorization

    def _fill(self, data: Mapping[str, Any]) -> bool:
        """The form set to the question ``data`` asks, so that the form and the answer under it always agree;
        False (the form left as it was) when a control cannot hold one of its values."""
        kind, actor = data.get("type"), data.get("actor")
        if kind not in REQUEST_TYPES or not isinstance(actor, str):
            return False
        execution = _field(data, "execution") or {}
        target = _field(data, "target")
        if data.get("launch") is not None:
            return False  # a launch scope has no control in the form
        controls: dict[str, Callable[[], dict[widgets.ValueWidget, Any]]] = {
            "tool": lambda: {self.tool: data.get("tool"), self.command: data.get("command") or ""},
            "delegation": lambda: {self.target: target},
            "memory": lambda: {self.memory_operation: data.get("operation"), self.scope: data.get("scope")},
            "workspace": lambda: {
                self.workspace_operation: data.get("operation"), self.path: data.get("path"),
                self.active_workspace: _field(execution, "active_workspace"),
                self.read_only: _field(execution, "workspace_mode") == "read-only",
                self.delegated: _field(execution, "delegated")},
            "skill": lambda: {self.skill: data.get("skill")},
            "subagent": lambda: {self.subagent: data.get("subagent")},
            "mcp": lambda: {self.server: data.get("server")},
            "configuration": lambda: {self.config_target: POLICY_SOURCE if isinstance(target, Mapping) and target.get(
                "kind") == "policy-source" else _field(target, "agent_id") if isinstance(target, Mapping) else None},
        }
        values = controls[kind]()
        if not all(_holds(control, value) for control, value in values.items()):
            return False
        self.request_type.value, self.actor.value = kind, actor
        for control, value in values.items():
            control.value = value
        return True

    def _show_role(self, _change: object = None) -> None:
        if self.role.value is None:  # an empty registry: the principal alone, and nothing to select
            self.card.value = block('<span class="muted">no roles in this registry</span>')
            self.graph.value = picture_html(delegation_graph(self.registry))
            return
        definition = self.registry.get(self.role.value)
        self.card.value = plain(render(definition, "html"))
        focus = definition.id if self.focus.value else None
        self.graph.value = picture_html(delegation_graph(self.registry, highlight=definition.id, focus=focus))
        self.machine.value = picture_html(state_machine(definition))
        self.actor.value = definition.id

    def _show_fields(self, _change: object = None) -> None:
        self.fields.children = self.field_controls(self.request_type.value)

    def _ask_form(self, _button: object) -> None:
        self.ask(self.request())


def _field(data: Any, name: str) -> Any:
    """``data[name]``, or its camelCase form (``activeWorkspace``), as a request written by hand may spell it."""
    if not isinstance(data, Mapping):
        return None
    camel = name.split("_")[0] + "".join(part.title() for part in name.split("_")[1:])
    return data.get(name, data.get(camel))


def _holds(control: widgets.ValueWidget, value: Any) -> bool:
    """Whether ``control`` can show ``value``: a dropdown one of its options, a check box a bool, a text a str."""
    if isinstance(control, widgets.Dropdown):
        return any(value == (option[1] if isinstance(option, tuple) else option) for option in control.options)
    if isinstance(control, widgets.Checkbox):
        return isinstance(value, bool)
    return isinstance(value, str)


def _combo(description: str, options: tuple[str, ...], placeholder: str, value: str = "") -> widgets.Combobox:
    """A text box that suggests ``options`` and still takes anything, so a what-if can name what does not exist."""
    return widgets.Combobox(options=options, value=value, placeholder=placeholder, description=description,
                            ensure_option=False, layout=FIELD_LAYOUT)


def _text(description: str, placeholder: str, value: str = "") -> widgets.Text:
    return widgets.Text(value=value, placeholder=placeholder, description=description, layout=FIELD_LAYOUT)


def _question(request: Any) -> str:
    """The request as one line of HTML, each field and its value (``execution.delegated`` for a nested one)."""
    data = request.model_dump() if isinstance(request, BaseModel) else request
    if not isinstance(data, Mapping):
        return f"question: <code>{shown(repr(request))}</code>"
    fields = " · ".join(f"{shown(name)} <code>{shown(value)}</code>" for name, value in _flat(data)
                        if value is not None)
    return f"question: {fields}"


def _label(agent_id: str) -> str:
    """A role id as a dropdown shows it: one line, cut, its invisible characters visible."""
    return plain_line(clip(agent_id, VALUE_CHARS))



def _flat(data: Mapping[Any, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(dotted name, value) of every leaf of a nested request."""
    leaves: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, Mapping):
            leaves += _flat(value, f"{prefix}{name}.")
        else:
            leaves.append((f"{prefix}{name}", value))
    return leaves
