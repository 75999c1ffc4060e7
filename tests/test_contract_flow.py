"""The flow of one run of a loop contract: trigger → intake → attempt → verify → decide → the five outcomes, in
the contract's own words, with its budget and the owner escalate and stop hand the item to; drawn as SVG,
Mermaid, matplotlib, text and in the contract's notebook view, however hostile the contract's text."""

from __future__ import annotations

from xml.etree import ElementTree

import matplotlib
import pytest
from loop_contract_samples import CLEAN, edit

from alp_nb.loops import OUTCOMES, LoopContract
from alp_nb.loops.review_packet import outcome_owner
from alp_nb.viz.models.diagram import Edge, Node, diagram
from alp_nb.viz.models.geometry import EDGE_LABEL_SIZE, edge_path, geometry
from alp_nb.viz.models.text_width import text_width
from alp_nb.viz.pictures.contract_picture import contract_flow, flow_diagram
from alp_nb.viz.pictures.picture import Picture
from alp_nb.viz.rendering import render
from alp_nb.viz.views.packet_documents import review_packet

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"
STEPS = ("trigger", "intake", "attempt", "verify", "decide")
HOSTILE = ['<script>alert(1)</script>', '"><img onerror=x>', "</svg>", "]]>", "right\u202eto-left", "zero\u200bwidth"]


def contract(**changes):
    return LoopContract.from_document(edit(CLEAN, changes))


def edges_of(flow):
    return {(edge.source, edge.target): edge for edge in flow.edges}


# --- the model --------------------------------------------------------------------------------------------------


def test_one_run_goes_trigger_intake_attempt_verify_decide_then_to_each_of_the_five_outcomes():
    flow = flow_diagram(contract())
    edges = edges_of(flow)
    assert {("trigger", "intake"), ("intake", "attempt"), ("attempt", "verify"), ("verify", "decide")} <= set(edges)
    assert [flow.node(outcome).label for outcome in OUTCOMES] == list(OUTCOMES)
    assert [edges["decide", outcome].label for outcome in OUTCOMES] == ["1", "2", "3", "4", "5"]
    assert [flow.slots[step][0] for step in STEPS] == [0, 1, 2, 3, 4]
    assert {flow.slots[outcome][0] for outcome in OUTCOMES} == {5}


def test_the_retry_leads_back_to_the_attempt():
    retry = edges_of(flow_diagram(contract()))["retry-with-new-evidence", "attempt"]
    assert (retry.label, retry.style) == ("try again", "dashed")


def test_each_step_is_labelled_with_the_contracts_own_words():
    flow = flow_diagram(contract())
    assert flow.node("trigger").label == "Trigger: scheduled"
    assert flow.node("trigger").detail == ("Nightly at 02:00 UTC",)
    assert flow.node("intake").detail == ("Take the highest-severity advisory whose id is not already in the ledger.",)
    assert flow.node("attempt").detail == ("may edit requirements files", "may run the test suite",
                                           "may open one pull request per night")
    assert flow.node("verify").detail == ("the full test suite passes", "the diff touches only requirements files")
    decide = flow.node("decide").detail
    assert [line.split(":")[0] for line in decide] == ["1 success", "2 noop", "3 escalate", "4 stop", "5 retry"]
    assert decide[0] == "1 success: The pull request is open and its checks pass."


def test_prose_is_cut_at_its_clauses_and_long_lists_say_how_many_more():
    flow = flow_diagram(contract(**{
        "intake.selection_rule": "Take the oldest item; skip duplicates. Then stop!",
        "workspace.allowed_actions": ["a", "b", "c", "d", "e"]}))
    assert flow.node("intake").detail == ("Take the oldest item", "skip duplicates.", "Then stop!")
    assert flow.node("attempt").detail == ("may a", "may b", "may c", "+2 more")


def test_the_budget_sits_between_the_attempt_and_the_decision_it_bounds():
    flow = flow_diagram(contract(**{"budget.max_retries": 1, "budget.max_runtime_minutes": 45}))
    assert flow.node("budget").detail == ("at most 1 retry", "45 minutes of runtime a run")
    assert flow.node("budget").style == "note"
    edges = edges_of(flow)
    assert edges["attempt", "budget"].label == "spends" and edges["budget", "decide"].label == "what is left"
    assert flow.node("decide").detail[4] == "5 retry: a new failure, within 1 retry"


def test_escalate_and_stop_hand_the_item_to_the_escalation_destination():
    subject = contract()
    flow = flow_diagram(subject)
    destination = subject.escalation.destination
    assert outcome_owner("escalate", subject) == outcome_owner("stop-with-receipt", subject) == destination
    edges = edges_of(flow)
    owner = flow.node("owner-0")
    assert {("escalate", "owner-0"), ("stop-with-receipt", "owner-0")} <= set(edges)
    assert (owner.label, owner.detail[0], owner.style) == ("Handed to", destination, "note")
    assert owner.detail[1:] == ("when retry budget exhausted", "when a major version bump is needed")
    assert [flow.node(outcome).detail for outcome in OUTCOMES] == [
        ("the loop (run closed)",), ("the loop (run closed)",), ("to the owner below",), ("to the owner below",),
        ("the loop (next attempt)",)]


def test_each_outcome_has_a_style_that_says_how_it_ends():
    flow = flow_diagram(contract())
    assert [flow.node(outcome).style for outcome in OUTCOMES] == ["success", "outcome", "failure", "failure",
                                                                 "outcome"]
    assert {flow.node(step).style for step in STEPS} == {"step"}
    assert {key for key, _ in flow.legend} == {"step", "note", "success", "outcome", "failure"}


def test_a_contract_with_no_allowed_action_says_so():
    assert flow_diagram(contract(**{"workspace.allowed_actions": []})).node("attempt").detail == (
        "no action allowed",)


# --- the formats ------------------------------------------------------------------------------------------------


def test_the_flow_renders_as_well_formed_svg_with_every_step_and_outcome():
    root = ElementTree.fromstring(contract_flow(contract()).to_svg())
    texts = {element.text for element in root.iter(f"{SVG}text")}
    assert {"Trigger: scheduled", "Intake", "Attempt", "Verify", "Budget", "Decide: the first that holds",
            "Handed to", *OUTCOMES, "try again"} <= texts


def test_the_flow_renders_as_mermaid_with_an_arrow_per_edge():
    picture = contract_flow(contract())
    mermaid = picture.to_mermaid()
    assert mermaid.splitlines()[:2] == ["%% One run of Nightly vulnerable-dependency bump", "flowchart TD"]
    assert sum("-->" in line or "-.->" in line for line in mermaid.splitlines()) == len(picture.diagram.edges)


def test_the_flow_renders_as_text_step_by_step():
    lines = contract_flow(contract()).to_text().splitlines()
    assert lines[0] == "One run of Nightly vulnerable-dependency bump"
    assert "  Trigger: scheduled  (Nightly at 02:00 UTC)" in lines
    assert "      → Attempt  (try again)" in lines


def test_the_flow_draws_on_matplotlib_axes_with_the_same_labels():
    ax = contract_flow(contract()).draw()
    assert {"Trigger: scheduled", "Decide: the first that holds", *OUTCOMES} <= {text.get_text() for text in ax.texts}


def test_the_contracts_notebook_view_and_the_packet_show_the_flow_above_the_phase_tables_once():
    subject = contract()
    html = render(subject, "html")
    assert html.index("<svg") < html.index("Set up") and html.count("<svg") == 1
    packet = review_packet(subject, simulations=())
    assert packet.index("<svg") < packet.index("Set up") and packet.count("<svg") == 1


def test_a_contract_with_lint_errors_draws_its_success_as_provisional_not_green():
    nodes = {node.id: node for node in flow_diagram(LoopContract.template("draft")).nodes}
    assert nodes["exit-success"].style == "outcome" and nodes["exit-success"].detail[-1].startswith("provisional: ")
    assert {node.id: node for node in flow_diagram(contract()).nodes}["exit-success"].style == "success"


def test_the_flow_shows_through_the_one_rendering_path_as_a_picture():
    picture = contract_flow(contract())
    assert isinstance(picture, Picture)
    assert render(picture, "mermaid") == picture.to_mermaid()


# --- hostile text -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [*HOSTILE, "L" * 10_000])
def test_hostile_contract_text_never_reaches_svg_html_or_mermaid_as_markup(text):
    subject = contract(**{
        "name": text, "trigger.cadence_or_event": text, "intake.selection_rule": text,
        "workspace.allowed_actions": [text], "verification.gates": [text], "escalation.destination": text,
        "escalation.conditions": [text], "exit.success": text, "exit.stop_without_success": text})
    picture = contract_flow(subject)
    svg, mermaid, html = picture.to_svg(), picture.to_mermaid(), render(subject, "html")
    ElementTree.fromstring(svg)
    for document in (svg, html, mermaid):
        assert "<script" not in document and "<img" not in document and "]]>" not in document
    assert svg.count("</svg>") == 1 and html.count("</svg>") == 1
    assert "</svg>" not in mermaid
    for document in (svg, mermaid):
        assert "\u202e" not in document and "\u200b" not in document
    assert len(svg) < 30_000 and max(map(len, mermaid.splitlines())) < 1_000  # the 10 KB text is shortened


def test_a_dollar_sign_in_contract_text_is_drawn_as_written_not_as_mathtext():
    ax = contract_flow(contract(**{"trigger.cadence_or_event": "costs $\\frac{ and $x^"})).draw()
    ax.figure.canvas.draw()  # mathtext would refuse the unbalanced \frac here
    assert "costs $\\frac{ and $x^" in {text.get_text() for text in ax.texts}


# --- the page holds every arrow ---------------------------------------------------------------------------------


@pytest.mark.parametrize("direction", ["down", "right"])
def test_an_arrow_bowed_back_and_its_label_stay_on_the_page(direction):
    """An edge that closes a cycle bows out beside the boxes; the page is wide (or tall) enough for it."""
    loop = diagram("Loop", [Node("a", "A"), Node("b", "B"), Node("c", "C")],
                   [Edge("a", "b"), Edge("b", "c"), Edge("c", "a", "back to the start")], direction=direction)
    geo = geometry(loop)
    points = edge_path(loop, geo, loop.edges[-1])
    assert all(0 <= x <= geo.width and 0 <= y <= geo.height for x, y in points)
    if direction == "down":
        assert points[1][0] + 4 + text_width("back to the start", EDGE_LABEL_SIZE) <= geo.width
