"""RegistryExplorer: choosing a role redraws its card, its place in the delegation graph and its state machine; the
what-if form shows only the fields of the request type chosen and gets the policy engine's own answer, a denial
with its code, reason and the rule behind it; hostile ids and names never reach the page as markup."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import ipywidgets as widgets
import pytest
from agent_factory import make_agent
from widget_support import html_values

from alp_nb.agents import (
    PolicyEngine,
    WorkflowDefinition,
    builtin_registry,
    create_agent_registry,
    define_agent,
)
from alp_nb.agents.policy_requests import REQUEST_TYPES as MODEL_REQUEST_TYPES, ToolRequest
from alp_nb.viz.html import badge, esc
from alp_nb.viz.models.palette import CURRENT
from alp_nb.viz.pictures.delegation import role_node
from alp_nb.viz.rendering import render
from alp_nb.viz.views.policy_codes import ALLOWED_RULES, POLICY_RULES
from alp_nb.widgets import RegistryExplorer
from alp_nb.widgets.registry_explorer import REQUEST_TYPES

SVG = "{http://www.w3.org/2000/svg}"
ALLOWED = badge("allowed", "ok")
HOSTILE = ('<script>alert(1)</script>', '"><img onerror=x>', "right\u202eto-left", "zero\u200bwidth", "A" * 10_240)


def current_nodes(html: str) -> list[str]:
    """The ``data-node`` of every box an SVG picture in ``html`` fills in the highlight colour."""
    svg = html[html.index("<svg "):html.index("</svg>") + len("</svg>")]
    return [group.get("data-node") for group in ElementTree.fromstring(svg).iter(f"{SVG}g")
            if group.get("data-node") and group.find(f"{SVG}rect").get("fill") == CURRENT[0]]


def assert_no_markup_from_the_model(widget: widgets.Widget) -> None:
    """No tag the strings brought, and no invisible character that would make a name read as another."""
    for value in html_values(widget):
        assert "<script" not in value.lower() and "<img" not in value.lower()
        assert "\u202e" not in value and "\u200b" not in value


@pytest.fixture
def explorer():
    return RegistryExplorer(builtin_registry())


def test_choosing_a_role_redraws_its_card_its_highlight_in_the_delegation_graph_and_its_state_machine(explorer):
    assert [value for _, value in explorer.role.options] == list(builtin_registry().ids())
    assert current_nodes(explorer.graph.value) == [role_node("main")]
    explorer.role.value = "titling"
    titling = builtin_registry().get("titling")
    assert explorer.card.value == render(titling, "html")
    assert current_nodes(explorer.graph.value) == [role_node("titling")]
    assert 'data-node="state:TITLE"' in explorer.machine.value and "titling: workflow" in explorer.machine.value
    assert 'data-node="state:ASSESS"' not in explorer.machine.value
    assert explorer.actor.value == "titling"  # the what-if form asks as the role shown, until told otherwise


def test_only_the_fields_of_the_chosen_request_type_are_shown(explorer):
    assert sorted(REQUEST_TYPES) == sorted(MODEL_REQUEST_TYPES)
    assert explorer.fields.children == (explorer.tool, explorer.command)
    for request_type in REQUEST_TYPES:
        explorer.request_type.value = request_type
        assert explorer.fields.children == explorer.field_controls(request_type)
    explorer.request_type.value = "memory"
    assert explorer.fields.children == (explorer.memory_operation, explorer.scope)


FORM_QUESTIONS = [
    ("tool", {"actor": "main", "tool": "Write"}, {"tool": "Write"}, "TOOL_NOT_GRANTED"),
    ("tool", {"actor": "worker", "tool": "Write"}, {"tool": "Write"}, None),
    ("tool", {"actor": "worker", "tool": "Bash", "command": "eval $(cat x)"},
     {"tool": "Bash", "command": "eval $(cat x)"}, "INDIRECT_TOOL_REQUEST"),
    ("tool", {"actor": "main", "tool": "mcp__docs__search"}, {"tool": "mcp__docs__search"}, "MCP_SERVER_NOT_GRANTED"),
    ("delegation", {"actor": "main", "target": "worker"}, {"target": "worker"}, None),
    ("delegation", {"actor": "worker", "target": "main"}, {"target": "main"}, "DELEGATION_NOT_ALLOWED"),
    ("delegation", {"actor": "main", "target": "ghost"}, {"target": "ghost"}, "UNKNOWN_TARGET"),
    ("memory", {"actor": "worker", "memory_operation": "write", "scope": "private:worker"},
     {"operation": "write", "scope": "private:worker"}, None),
    ("memory", {"actor": "worker", "memory_operation": "read", "scope": "private:main"},
     {"operation": "read", "scope": "private:main"}, "PRIVATE_MEMORY_DENIED"),
    ("memory", {"actor": "worker", "memory_operation": "write", "scope": "shared"},
     {"operation": "write", "scope": "shared"}, "MEMORY_NOT_GRANTED"),
    ("workspace", {"actor": "worker", "workspace_operation": "write", "path": "src"},
     {"operation": "write", "path": "src",
      "execution": {"active_workspace": ".", "workspace_mode": "workspace-write", "delegated": False}}, None),
    ("workspace", {"actor": "worker", "workspace_operation": "write", "path": "src", "read_only": True},
     {"operation": "write", "path": "src",
      "execution": {"active_workspace": ".", "workspace_mode": "read-only", "delegated": False}},
     "WORKSPACE_READ_ONLY"),
    ("workspace", {"actor": "search", "workspace_operation": "write", "path": "src", "active_workspace": "/srv"},
     {"operation": "write", "path": "src",
      "execution": {"active_workspace": "/srv", "workspace_mode": "workspace-write", "delegated": False}},
     "WORKSPACE_NOT_GRANTED"),
    ("workspace", {"actor": "worker", "workspace_operation": "read", "path": "../elsewhere", "delegated": True},
     {"operation": "read", "path": "../elsewhere",
      "execution": {"active_workspace": ".", "workspace_mode": "workspace-write", "delegated": True}},
     "WORKSPACE_SCOPE_MISMATCH"),
    ("skill", {"actor": "main", "skill": "git"}, {"skill": "git"}, None),
    ("skill", {"actor": "main", "skill": "no-such-skill"}, {"skill": "no-such-skill"}, "SKILL_NOT_GRANTED"),
    ("subagent", {"actor": "main", "subagent": "helper"}, {"subagent": "helper"}, "SUBAGENT_NOT_GRANTED"),
    ("mcp", {"actor": "main", "server": "docs"}, {"server": "docs"}, "MCP_SERVER_NOT_GRANTED"),
    ("configuration", {"actor": "main", "config_target": ""},
     {"operation": "write", "target": {"kind": "policy-source"}}, "POLICY_MUTATION_DENIED"),
    ("configuration", {"actor": "worker", "config_target": "worker"},
     {"operation": "write", "target": {"kind": "agent-definition", "agent_id": "worker"}},
     "DEFINITION_MUTATION_DENIED"),
    ("tool", {"actor": "nobody", "tool": "Read"}, {"tool": "Read"}, "UNKNOWN_ACTOR"),
]


@pytest.mark.parametrize(("request_type", "controls", "fields", "code"), FORM_QUESTIONS,
                         ids=[f"{question[0]}-{question[3]}" for question in FORM_QUESTIONS])
def test_each_request_type_through_the_form_gets_the_same_answer_as_the_policy_engine(
        explorer, request_type, controls, fields, code):
    explorer.request_type.value = request_type
    for name, value in controls.items():
        getattr(explorer, name).value = value
    explorer.ask_button.click()
    request = {"type": request_type, "actor": controls["actor"], **fields}
    assert explorer.request() == request
    assert explorer.authorization == PolicyEngine(builtin_registry()).authorize(request)
    assert explorer.authorization.code == code
    assert (ALLOWED in explorer.answer.value) == (code is None)


def test_a_denied_answer_shows_its_code_its_reason_and_the_rule_behind_it(explorer):
    answer = explorer.ask({"type": "tool", "actor": "main", "tool": "Write"})
    assert (answer.code, answer.reason) == ("TOOL_NOT_GRANTED", "`Write` is not granted to `main`")
    shown = explorer.answer.value
    assert "<code>TOOL_NOT_GRANTED</code>" in shown and esc(answer.reason) in shown
    assert f"rule: {esc(POLICY_RULES['TOOL_NOT_GRANTED'])}" in shown
    assert "question: type <code>tool</code> · actor <code>main</code> · tool <code>Write</code>" in shown


@pytest.mark.parametrize(("request_type", "controls", "fields", "code"),
                         [question for question in FORM_QUESTIONS if question[3] is None],
                         ids=[question[0] for question in FORM_QUESTIONS if question[3] is None])
def test_an_allowed_answer_names_the_rule_that_allowed_it(explorer, request_type, controls, fields, code):
    explorer.ask({"type": request_type, "actor": controls["actor"], **fields})
    assert explorer.authorization.allowed and ALLOWED in explorer.answer.value
    assert f"rule: {esc(ALLOWED_RULES[request_type])}" in explorer.answer.value


@pytest.mark.parametrize(("request_type", "controls", "fields", "code"), FORM_QUESTIONS,
                         ids=[f"{question[0]}-{question[3]}" for question in FORM_QUESTIONS])
def test_a_question_asked_from_code_is_the_one_the_form_then_shows(explorer, request_type, controls, fields, code):
    asked = {"type": request_type, "actor": controls["actor"], **fields}
    explorer.ask({"type": "delegation", "actor": "worker", "target": "main"})  # the form held another question
    explorer.ask(asked)
    assert explorer.request() == asked and explorer.request_type.value == request_type
    assert "cannot hold this question" not in explorer.answer.value
    explorer.ask_button.click()  # asked again from the form: the same answer
    assert explorer.authorization == PolicyEngine(builtin_registry()).authorize(asked)


def test_a_question_the_form_cannot_hold_is_answered_and_says_the_form_shows_the_one_before(explorer):
    explorer.ask({"type": "tool", "actor": "main", "tool": "Edit"})
    explorer.ask({"type": "memory", "actor": "worker", "operation": "delete", "scope": "shared"})
    assert explorer.request() == {"type": "tool", "actor": "main", "tool": "Edit"}
    assert "cannot hold this question" in explorer.answer.value and "delete" in explorer.answer.value


def test_a_launch_that_needs_the_principal_is_denied_from_code_with_the_approval_rule(explorer, tmp_path):
    (tmp_path / "project" / "granted").mkdir(parents=True)
    answer = explorer.ask({"type": "workspace", "actor": "worker", "operation": "read", "path": ".",
                           "execution": {"active_workspace": str(tmp_path / "project"),
                                         "workspace_mode": "workspace-write", "delegated": False},
                           "launch": {"root": str(tmp_path / "project" / "granted"),
                                      "project": str(tmp_path / "project")}})
    assert answer.code == "APPROVAL_UNAVAILABLE"
    assert f"rule: {esc(POLICY_RULES['APPROVAL_UNAVAILABLE'])}" in explorer.answer.value


def test_ask_takes_a_typed_request_or_a_dict_and_returns_the_policy_engines_authorization(explorer):
    typed = explorer.ask(ToolRequest(actor="main", tool="Write"))
    assert typed == explorer.ask({"type": "tool", "actor": "main", "tool": "Write"}) == explorer.authorization
    assert explorer.ask(42).code == "UNKNOWN_REQUEST"
    assert "question: <code>42</code>" in explorer.answer.value


def test_an_empty_registry_shows_the_principal_alone_and_still_answers():
    explorer = RegistryExplorer(create_agent_registry([]))
    assert explorer.role.options == () and "no roles in this registry" in explorer.card.value
    assert 'data-node="principal"' in explorer.graph.value
    assert explorer.ask({"type": "tool", "actor": "main", "tool": "Read"}).code == "UNKNOWN_ACTOR"


def hostile_registry(text: str):
    workflow = WorkflowDefinition.linear(text, [(text, ["Read"]), ("DONE" + text, [])])
    hostile = make_agent(text, displayName=text, reportsTo="lead", workflow=workflow.model_dump(by_alias=True),
                         output={"name": text, "schema": {"type": "string", "minLength": 1}})
    lead = make_agent("lead", displayName=text + " lead", delegatesTo=[text])
    return create_agent_registry([define_agent(lead), define_agent(hostile)])


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_ids_names_and_states_never_reach_the_page_as_markup(text):
    explorer = RegistryExplorer(hostile_registry(text))
    assert_no_markup_from_the_model(explorer)
    explorer.role.value = text
    assert len(current_nodes(explorer.graph.value)) == 1
    assert not [label for label, _ in explorer.role.options if "\u202e" in label or len(label) > 120]
    assert_no_markup_from_the_model(explorer)
    for request_type in REQUEST_TYPES:
        explorer.request_type.value = request_type
        for control in explorer.field_controls(request_type):
            if isinstance(control, widgets.Text):
                control.value = text
        explorer.ask_button.click()
        assert_no_markup_from_the_model(explorer)
    explorer.ask({"type": text, "actor": text, text: text})
    assert_no_markup_from_the_model(explorer)


def test_ticking_focus_draws_only_the_chosen_roles_neighbourhood():
    explorer = RegistryExplorer(builtin_registry())
    explorer.role.value = "oracle"
    whole = set(re.findall(r'data-node="([^"]+)"', explorer.graph.value))
    explorer.focus.value = True
    around = set(re.findall(r'data-node="([^"]+)"', explorer.graph.value))
    assert around == {"principal", role_node("main"), role_node("oracle")} < whole
    explorer.role.value = "main"  # the focus follows the chosen role
    assert role_node("oracle") in set(re.findall(r'data-node="([^"]+)"', explorer.graph.value))
    assert current_nodes(explorer.graph.value) == [role_node("main")]
