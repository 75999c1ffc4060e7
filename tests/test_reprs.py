"""Rich displays: every core object renders as escaped HTML and as plain text."""

import pytest

import alp_nb as alp
from alp_nb.agents import Authorization
from alp_nb.viz.rendering import render
from alp_nb.workflow import define_linear_workflow

HOSTILE = '<script>alert("x")</script>'


def hostile_agent():
    worker = alp.builtin_registry().get("worker")
    data = worker.model_dump(by_alias=True)
    data.update(
        id="intruder",
        displayName=HOSTILE,
        reportsTo="principal",
        instructions={**data["instructions"], "role": HOSTILE, "rules": [HOSTILE]},
        workflow=define_linear_workflow("flow-" + HOSTILE, [(HOSTILE, ["Read"]), ("DONE", [])]),
    )
    data["capabilities"]["memory"] = {"read": ["private:intruder"], "write": ["private:intruder"]}
    return alp.define_agent(data)


@pytest.mark.parametrize(
    "subject",
    [
        hostile_agent,
        lambda: alp.create_agent_registry([hostile_agent()]),
        lambda: hostile_agent().workflow,
        lambda: Authorization(allowed=False, code="TOOL_NOT_GRANTED", reason=HOSTILE),
    ],
    ids=["agent", "registry", "workflow", "authorization"],
)
def test_untrusted_text_is_escaped_in_html(subject):
    html = render(subject(), "html")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_agent_card_shows_identity_authority_workflow_and_short_hash():
    worker = alp.builtin_registry().get("worker")
    html = render(worker, "html")
    for expected in ("Worker", "IMPLEMENT", "Workspace write", alp.definition_hash(worker)[:12]):
        assert expected in html
    text = render(worker, "text")
    assert text.startswith("Worker 🛠️ — `worker`")
    assert "workspace write ." in text
    assert "REPORT     —  (terminal)" in text


def test_registry_table_lists_every_role_and_the_delegation_summary():
    registry = alp.builtin_registry()
    html = render(registry, "html")
    text = render(registry, "text")
    for definition in registry:
        assert definition.id in html and definition.id in text
    assert "principal → main" in text
    assert "workspace writers: worker" in text


def test_authorization_shows_code_and_reason_when_denied_and_only_allowed_otherwise():
    denied = alp.PolicyEngine(alp.builtin_registry()).authorize({"type": "tool", "actor": "main", "tool": "Write"})
    assert render(denied, "text") == "DENIED  TOOL_NOT_GRANTED: `Write` is not granted to `main`"
    assert "TOOL_NOT_GRANTED" in render(denied, "html")
    allowed = Authorization(allowed=True)
    assert render(allowed, "text") == "ALLOWED"
    assert "allowed" in render(allowed, "html")


def test_workflow_renders_its_state_machine_with_tools_and_terminal_state():
    workflow = alp.builtin_registry().get("search").workflow
    text = render(workflow, "text")
    assert text.splitlines()[0] == "workflow retrieve-code"
    assert "RETRIEVE" in text and "(terminal)" in text
    assert render(workflow, "html").count('data-node="state:') == 4


def test_a_registry_shows_its_delegation_graph_above_its_table():
    html = render(alp.builtin_registry(), "html")
    assert html.count("<svg ") == 1 and html.index("<svg ") < html.index("<table>")
    assert 'data-node="role:worker"' in html and "the workspace writer" in html


def test_a_role_card_shows_its_state_machine_with_the_tools_the_role_holds():
    html = render(alp.builtin_registry().get("main"), "html")
    assert html.count("<svg ") == 1
    assert ">main: workflow coordinate-principal-task</text>" in html
    assert ">output: principal-response</text>" in html
