"""WorkflowStepper: its buttons drive a ``WorkflowSession`` and the state machine is redrawn after every move; a
refused move shows the runner's code and message instead of raising, and a submit the contract's verdict; buttons
that can do nothing now are disabled, yet the same moves from code still reach the runner; the tool box answers for
the current state; hostile ids, states and outputs never reach the page as markup."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from agent_factory import make_agent
from widget_support import html_values

from alp_nb.agents import TOOL_CATALOG, WorkflowDefinition, builtin_registry, define_agent
from alp_nb.viz.models.palette import CURRENT
from alp_nb.widgets import WorkflowStepper
from alp_nb.workflow import WorkflowError, WorkflowSession, define_output_contract, effective_tools

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ('<script>alert(1)</script>', '"><img onerror=x>', "right\u202eto-left", "zero\u200bwidth", "A" * 10_240)


def worker():
    return builtin_registry().get("worker")


def current_nodes(stepper: WorkflowStepper) -> list[str]:
    """The ``data-node`` of every box the picture fills in the highlight colour."""
    html = stepper.picture.value
    svg = ElementTree.fromstring(html[html.index("<svg "):html.index("</svg>") + len("</svg>")])
    return [group.get("data-node") for group in svg.iter(f"{SVG}g")
            if group.get("data-node") and group.find(f"{SVG}rect").get("fill") == CURRENT[0]]


def enabled(stepper: WorkflowStepper) -> set[str]:
    buttons = {"transition": stepper.transition_button, "submit": stepper.submit_button,
               "cancel": stepper.cancel_button, "back": stepper.back_button}
    return {name for name, button in buttons.items() if not button.disabled}


def history_items(stepper: WorkflowStepper) -> list[str]:
    """Each ``<li ...>line`` of the history, its start tag's attributes included."""
    return [item.split("</li>")[0] for item in stepper.history.value.split("<li")[1:]]


def test_the_stepper_walks_worker_from_assess_to_completed_redrawing_the_current_state():
    stepper = WorkflowStepper(worker())
    assert current_nodes(stepper) == ["state:ASSESS"] and enabled(stepper) == {"transition", "cancel"}
    for expected in ("IMPLEMENT", "VERIFY", "REPORT"):
        assert stepper.next_state.value == expected
        stepper.transition_button.click()
        assert stepper.session.state.current_state == expected
        assert current_nodes(stepper) == [f"state:{expected}"]
        assert f"transition → {expected}" in stepper.message.value
    assert stepper.session.state.status == "awaiting-output"
    assert enabled(stepper) == {"submit", "cancel", "back"}
    stepper.output_text.value = "The patch is in and the tests pass."
    stepper.submit_button.click()
    assert stepper.session.state.status == "completed"
    assert current_nodes(stepper) == ["completed"]
    assert ">valid<" in stepper.message.value and ">completed<" in stepper.status.value
    assert enabled(stepper) == {"back"}
    assert len(history_items(stepper)) == 5


def test_a_transition_in_awaiting_output_is_disabled_and_from_code_shows_the_runners_refusal():
    stepper = WorkflowStepper(worker())
    for _ in range(3):
        stepper.transition()
    assert stepper.transition_button.disabled and stepper.next_state.layout.visibility == "hidden"
    before = stepper.session.state
    stepper.transition()  # the button is disabled; the same move from code reaches the runner
    assert stepper.session.state == before
    assert "<code>TRANSITION_REFUSED</code> cannot transition workflow in `awaiting-output` status" in (
        stepper.message.value)
    assert history_items(stepper)[-1] == (' style="color:#c62828">transition: REPORT awaiting-output (refused: cannot '
                                          "transition workflow in `awaiting-output` status)")
    assert current_nodes(stepper) == ["state:REPORT"]


def test_an_undeclared_transition_from_code_is_refused_with_the_runners_message():
    stepper = WorkflowStepper(worker())
    stepper.transition("VERIFY")
    assert stepper.session.state.current_state == "ASSESS"
    assert "<code>TRANSITION_REFUSED</code> transition `ASSESS` -&gt; `VERIFY` is not declared" in stepper.message.value


def test_a_move_made_on_the_session_by_hand_is_shown_after_refresh():
    stepper = WorkflowStepper(worker())
    stepper.session.transition()
    with pytest.raises(WorkflowError):
        stepper.session.submit("too early")
    stepper.refresh()
    assert current_nodes(stepper) == ["state:IMPLEMENT"]
    assert "cannot submit output in `running` status" in stepper.message.value
    assert "submit: IMPLEMENT running (refused: cannot submit output in `running` status)" in stepper.history.value


def test_an_invalid_output_is_repaired_once_then_fails():
    stepper = WorkflowStepper(worker())
    for _ in range(3):
        stepper.transition_button.click()
    stepper.output_text.value = "   "
    stepper.submit_button.click()
    assert (stepper.session.state.status, stepper.session.state.repair_attempts) == ("repairing", 1)
    assert ">invalid<" in stepper.message.value and "output must be non-empty text" in stepper.message.value
    assert current_nodes(stepper) == ["repairing"]
    assert enabled(stepper) == {"submit", "cancel", "back"}
    stepper.output_text.value = ""
    stepper.submit_button.click()
    assert stepper.session.state.status == "failed"
    assert current_nodes(stepper) == ["failed"] and enabled(stepper) == {"back"}
    stepper.submit("The patch is in.")
    assert "<code>SUBMIT_REFUSED</code> cannot submit output in `failed` status" in stepper.message.value
    assert stepper.session.state.status == "failed"


def test_back_returns_to_the_snapshot_before_the_last_move_and_is_refused_at_the_start():
    stepper = WorkflowStepper(worker())
    assert stepper.back_button.disabled
    stepper.back()
    assert "<code>NOTHING_TO_UNDO</code>" in stepper.message.value
    stepper.transition_button.click()
    assert not stepper.back_button.disabled
    stepper.back_button.click()
    assert stepper.session.state.current_state == "ASSESS" and current_nodes(stepper) == ["state:ASSESS"]
    assert stepper.back_button.disabled and "back" in stepper.message.value


def test_cancel_ends_a_live_execution_and_nothing_can_be_cancelled_after_it():
    stepper = WorkflowStepper(worker())
    stepper.transition_button.click()
    stepper.cancel_button.click()
    assert stepper.session.state.status == "cancelled"
    assert current_nodes(stepper) == ["cancelled"] and enabled(stepper) == {"back"}
    stepper.cancel()
    assert "<code>CANCEL_REFUSED</code> cannot cancel workflow in `cancelled` status" in stepper.message.value


def test_titling_starts_in_awaiting_output_with_no_transition_and_no_tool():
    stepper = WorkflowStepper(builtin_registry().get("titling"))
    assert (stepper.session.state.current_state, stepper.session.state.status) == ("TITLE", "awaiting-output")
    assert current_nodes(stepper) == ["state:TITLE"] and enabled(stepper) == {"submit", "cancel"}
    assert stepper.next_state.options == ()
    for tool in TOOL_CATALOG:
        stepper.tool.value = tool
        assert "is not open while awaiting-output; open now: none" in stepper.tool_answer.value


def test_the_tool_box_says_yes_exactly_for_the_tools_open_in_each_state():
    stepper = WorkflowStepper(worker())
    stepper.tool.value = "Write"
    for _ in range(4):
        state = stepper.session.state
        assert ("is open in" in stepper.tool_answer.value) == ("Write" in effective_tools(worker(), state))
        for tool in TOOL_CATALOG:
            stepper.tool.value = tool
            said_yes = ">yes<" in stepper.tool_answer.value
            assert said_yes == (tool in effective_tools(worker(), state)) == stepper.session.is_tool_allowed(tool)
        stepper.tool.value = "Write"
        stepper.transition()  # the answer follows the move, without touching the tool box
    stepper.tool.value = ""
    assert "type a tool name" in stepper.tool_answer.value


def test_a_text_contract_takes_the_text_as_typed_and_says_so():
    stepper = WorkflowStepper(builtin_registry().get("titling"))
    assert "text contract <code>thread-title</code>; the text below is submitted as typed" in stepper.output_note.value
    stepper.output_text.value = '{"title": 1}'
    stepper.submit_button.click()
    assert stepper.session.history[-1].validation.value == '{"title": 1}'


def test_a_structured_contract_parses_the_text_as_json_and_says_so():
    contract = define_output_contract("report", {"type": "object", "required": ["risk"],
                                                 "properties": {"risk": {"type": "integer"}}})
    stepper = WorkflowStepper(WorkflowSession(builtin_registry().get("titling"), contract))
    assert "json-schema contract <code>report</code>; the text below is parsed as JSON" in stepper.output_note.value
    stepper.output_text.value = "risk: high"
    stepper.submit_button.click()
    assert "not submitted" in stepper.message.value and "not JSON" in stepper.message.value
    assert len(stepper.session.history) == 1  # nothing reached the runner
    stepper.output_text.value = '{"risk": "high"}'
    stepper.submit_button.click()
    assert stepper.session.state.status == "repairing" and "risk: &#x27;high&#x27; is not of type" in (
        stepper.message.value)
    stepper.output_text.value = '{"risk": 3}'
    stepper.submit_button.click()
    assert stepper.session.state.status == "completed" and stepper.session.history[-1].validation.value == {"risk": 3}


@pytest.mark.parametrize("subject", ["agent", "workflow", "session"])
def test_the_stepper_takes_an_agent_a_bare_workflow_or_a_session(subject):
    agent = worker()
    given = {"agent": agent, "workflow": agent.workflow, "session": WorkflowSession(agent)}[subject]
    stepper = WorkflowStepper(given)
    assert stepper.session is given if subject == "session" else stepper.session.definition == agent.workflow
    assert current_nodes(stepper) == ["state:ASSESS"]


def hostile_agent(text: str):
    workflow = WorkflowDefinition.linear(text, [(text, ["Read", "Write"]), (text + "2", [])])
    return define_agent(make_agent("probe", id=text, displayName=text, workflow=workflow.model_dump(by_alias=True),
                                   output={"name": text, "schema": {"type": "string", "minLength": 1}}))


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_ids_states_and_outputs_never_reach_the_page_as_markup(text):
    shown = []
    for subject in (hostile_agent(text), hostile_agent(text).workflow):
        stepper = WorkflowStepper(subject)
        stepper.tool.value = text
        shown += html_values(stepper)
        assert not [label for label, _ in stepper.next_state.options if "\u202e" in label or len(label) > 120]
        stepper.transition(text)  # refused: names no declared state
        shown += html_values(stepper)
        stepper.transition_button.click()
        stepper.output_text.value = text
        stepper.submit_button.click()
        assert stepper.session.state.status == "completed"
        shown += html_values(stepper)
        own = [stepper.status.value, stepper.history.value, stepper.tool_answer.value, stepper.output_note.value]
        assert max(len(value) for value in own) < 5_000  # a 10 KB id is cut, not shown whole
    for value in shown:
        assert "<script" not in value.lower() and "<img" not in value.lower()
        assert "\u202e" not in value and "\u200b" not in value
