"""Rich displays of a workflow in motion: snapshots, sessions, executions on disk and output verdicts
render as HTML with the current state highlighted and the status as a badge, and as plain text;
state ids, outputs and issues are untrusted and always escaped."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from custom_agent_files import write_agent

from alp_nb.agents import builtin_registry, project_registry
from alp_nb.viz.models.palette import CURRENT
from alp_nb.viz.rendering import render
from alp_nb.workflow import (
    RUN_STATUSES,
    ExecutionStore,
    WorkflowError,
    WorkflowExecutionState,
    WorkflowRunner,
    WorkflowSession,
    define_linear_workflow,
    define_output_contract,
    text_output,
)

HOSTILE = '<script>alert("x")</script>'
WORKER_STATES = ("ASSESS", "IMPLEMENT", "VERIFY", "REPORT")
SVG = "{http://www.w3.org/2000/svg}"
BADGE = re.compile(r'<span class="badge (ok|bad|warn|info)"[^>]*>([^<]*)</span>')


def state_boxes(html: str) -> dict[str, set[str]]:
    """Each state the state machine's SVG draws, in order, and how: ``current`` (amber) and ``terminal`` (a double
    border). The SVG must parse as XML, and ids come back unescaped."""
    svg = ElementTree.fromstring(html[html.index("<svg"):html.index("</svg>") + len("</svg>")])
    boxes = {}
    for group in svg.iter(f"{SVG}g"):
        node = group.get("data-node", "")
        if node.startswith("state:"):
            rects = group.findall(f"{SVG}rect")
            looks = {"current"} if rects[0].get("fill") == CURRENT[0] else set()
            boxes[node.removeprefix("state:")] = looks | ({"terminal"} if len(rects) == 2 else set())
    return boxes


def highlighted(html: str) -> list[str]:
    return [state_id for state_id, classes in state_boxes(html).items() if "current" in classes]


def badges(html: str) -> list[tuple[str, str]]:
    return [(text, tone) for tone, text in BADGE.findall(html)]


def assert_escaped(html: str) -> None:
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def worker_at(state: str, status: str = "running", repair_attempts: int = 0) -> WorkflowExecutionState:
    return WorkflowExecutionState(workflow_id="execute-delegated-task", current_state=state, status=status,
                                  repair_attempts=repair_attempts)


# --- WorkflowExecutionState -----------------------------------------------------------------------


@pytest.mark.parametrize("current", WORKER_STATES)
def test_snapshot_html_draws_the_state_machine_and_highlights_only_the_current_state(current):
    html = render(worker_at(current, "running" if current != "REPORT" else "awaiting-output"), "html")
    assert list(state_boxes(html)) == list(WORKER_STATES)
    assert highlighted(html) == [current]
    assert "terminal" in state_boxes(html)["REPORT"]


@pytest.mark.parametrize("status", RUN_STATUSES)
def test_snapshot_html_shows_the_status_as_a_badge(status):
    attempts = 1 if status in ("repairing", "failed") else 0
    html = render(worker_at("REPORT" if status != "running" else "VERIFY", status, attempts), "html")
    assert [text for text, _ in badges(html)] == [status]


def test_finished_statuses_have_their_own_tones():
    tones = {status: badges(render(worker_at("REPORT", status, 1), "html"))[0][1]
             for status in ("completed", "failed")}
    assert tones == {"completed": "ok", "failed": "bad"}


def test_snapshot_text_marks_the_current_state():
    text = render(worker_at("IMPLEMENT"), "text")
    lines = text.splitlines()
    assert lines[0] == "running at IMPLEMENT · repair attempts 0"
    assert lines[1] == "workflow execute-delegated-task"
    current_line = " ▶ IMPLEMENT  Read, Write, Edit, Glob, Grep, Bash, WebSearch, WebFetch, Skill"
    assert [line for line in lines if "▶" in line] == [current_line]


def test_snapshot_of_an_unknown_workflow_names_its_state_and_workflow():
    snapshot = WorkflowExecutionState(workflow_id="never-started-flow", current_state="SCOPE", status="repairing",
                                      repair_attempts=1)
    html = render(snapshot, "html")
    assert badges(html) == [("repairing", "warn")]
    assert "<code>SCOPE</code>" in html and "<code>never-started-flow</code>" in html
    assert render(snapshot, "text") == "repairing at SCOPE · repair attempts 1\nworkflow never-started-flow"


def test_snapshot_html_escapes_a_hostile_state_and_workflow_id():
    snapshot = WorkflowExecutionState(workflow_id=HOSTILE, current_state=HOSTILE, status="running")
    assert_escaped(render(snapshot, "html"))


# --- WorkflowSession ------------------------------------------------------------------------------


def test_session_html_highlights_the_current_state_and_lists_the_history():
    session = WorkflowSession(builtin_registry().get("worker"))
    session.transition()
    with pytest.raises(WorkflowError):
        session.transition("REPORT")
    html = render(session, "html")
    assert highlighted(html) == ["IMPLEMENT"]
    assert badges(html)[0] == ("running", "info")
    assert "<code>Write</code>" in html
    assert "history (3 steps)" in html
    assert "refused: transition `IMPLEMENT` -&gt; `REPORT` is not declared" in html


def test_session_text_shows_tools_now_and_every_step():
    session = WorkflowSession(builtin_registry().get("worker"))
    while session.state.status == "running":
        session.transition()
    session.submit("")
    text = render(session, "text")
    assert text.splitlines()[0] == "repairing at REPORT · repair attempts 1"
    assert " ▶ REPORT     —  (terminal)" in text.splitlines()
    assert "tools now: none" in text.splitlines()
    history = text[text.index("history:"):].splitlines()[1:]
    assert len(history) == 5
    assert history[-1].split() == ["4", "submit", "REPORT", "repairing", "invalid:", "output", "must", "be",
                                   "non-empty", "text"]


def test_session_repr_names_workflow_state_and_status():
    session = WorkflowSession(builtin_registry().get("titling"))
    assert repr(session) == "<WorkflowSession title-thread at TITLE (awaiting-output)>"


def test_session_html_escapes_hostile_state_ids_outputs_and_refusals():
    contract = define_output_contract("strict", {"type": "integer"})
    session = WorkflowSession(define_linear_workflow("flow", [(HOSTILE, ["Read"]), ("DONE", [])]), contract)
    with pytest.raises(WorkflowError):
        session.transition(HOSTILE)
    html = render(session, "html")
    assert_escaped(html)
    assert highlighted(html) == [HOSTILE]
    session.transition()
    session.submit(HOSTILE)
    assert_escaped(render(session, "html"))


# --- ExecutionStatus ------------------------------------------------------------------------------


@pytest.fixture
def store(tmp_path) -> ExecutionStore:
    return ExecutionStore(tmp_path / "executions")


def test_execution_status_html_highlights_only_the_status_it_reached_and_badges_it(store, tmp_path):
    store.prepare(builtin_registry(), "search", workspace=tmp_path, execution_id="exec_view")
    store.finalize("exec_view", None)
    status = store.status("exec_view")
    html = render(status, "html")
    svg = ElementTree.fromstring(html[html.index("<svg"):html.index("</svg>") + len("</svg>")])
    current = [group.get("data-node") for group in svg.iter(f"{SVG}g") if group.get("data-node")
               and group.find(f"{SVG}rect").get("fill") == CURRENT[0]]
    assert highlighted(html) == [] and current == ["repairing"]  # one highlight: where the execution is
    assert ("repairing", "warn") in badges(html)
    assert "<code>exec_view</code>" in html and "<code>search</code>" in html


def test_execution_status_html_highlights_the_state_of_a_project_agent(store, tmp_path):
    project = tmp_path / "project"
    write_agent(project, "migrator")
    registry = project_registry(project, candidates=True).registry
    store.prepare(registry, "migrator", workspace=project, execution_id="exec_custom")
    html = render(store.status("exec_custom", registry), "html")
    assert highlighted(html) == ["SCOPE"]


def test_execution_status_text_is_the_cli_layout(store, tmp_path):
    store.prepare(builtin_registry(), "search", workspace=tmp_path, execution_id="exec_view")
    text = render(store.status("exec_view"), "text")
    assert text.splitlines()[0] == "EXECUTION  exec_view"
    assert "STATUS     prepared" in text.splitlines()
    assert "TOOLS      Read, Glob" in text.splitlines()


# --- OutputValidation -----------------------------------------------------------------------------


def test_valid_output_html_shows_a_valid_badge_and_the_escaped_value():
    html = render(text_output("t").validate(HOSTILE), "html")
    assert badges(html) == [("valid", "ok")]
    assert_escaped(html)


def test_invalid_output_html_lists_every_issue_escaped():
    contract = define_output_contract("strict", {"type": "object", "properties": {"a": {"type": "integer"},
                                                                                  "b": {"type": "integer"}}})
    html = render(contract.validate({"a": HOSTILE, "b": "x"}), "html")
    assert badges(html) == [("invalid", "bad")]
    assert html.count("<li>") == 2
    assert_escaped(html)


def test_output_validation_text_lists_issues():
    assert render(text_output("t").validate("  "), "text") == "invalid:\n  - output must be non-empty text"
    assert render(text_output("t").validate("done"), "text") == "valid: 'done'"


def test_submit_result_validation_renders_like_any_validation():
    runner = WorkflowRunner()
    workflow = define_linear_workflow("w", [("ONLY", [])])
    result = runner.submit_output(runner.initialize(workflow), text_output("t"), "")
    assert badges(render(result.validation, "html")) == [("invalid", "bad")]
