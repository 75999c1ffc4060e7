"""Pictures of definitions someone else wrote: ids, display names, state ids, tools and grants holding markup,
CDATA ends, direction and zero-width characters or 10 KB of text. No raw tag survives in SVG, HTML or Mermaid,
the SVG stays one well-formed XML document, and a huge label is cut rather than drawn."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from agent_factory import make_agent

from alp_nb.agents import WorkflowDefinition, define_agent
from alp_nb.viz.pictures.capabilities import capability_matrix
from alp_nb.viz.pictures.delegation import delegation_graph
from alp_nb.viz.pictures.state_machines import state_machine
from alp_nb.viz.rendering import render
from alp_nb.workflow import WorkflowSession

HOSTILE = ('<script>alert(1)</script>', '"><img onerror=x>', "</svg>", "]]>", "right\u202eto-left",
           "zero\u200bwidth", "A" * 10_240)
RAW = ("<script", "<img", "]]>")
INVISIBLE = ("\u202e", "\u200b")


def hostile_agent(text: str):
    """A role whose id, name, workflow, state, tool and grants are all ``text``, delegating to itself."""
    workflow = WorkflowDefinition.linear(text, [(text, ["Read", text]), ("DONE", [])])
    data = make_agent("probe", displayName=text, delegatesTo=[text], workflow=None,
                      capabilities={"tools": ["Read", text], "memory": {"read": [text], "write": [text]},
                                    "workspace": {"readRoots": [text], "writeRoots": [text]}})
    data.update(id=text, workflow=workflow.model_dump(by_alias=True))
    return define_agent(data)


def pictures(text: str):
    agent = hostile_agent(text)
    definitions = [agent, hostile_agent(text + "2")]
    return {
        "delegation": delegation_graph(definitions),
        "state machine": state_machine(agent),
        "bare workflow": state_machine(agent.workflow),
        "session": state_machine(WorkflowSession(agent)),
        "matrix": capability_matrix(definitions),
        "matrix by state": capability_matrix(definitions, by_state=True),
    }


def assert_no_raw_tag(markup: str) -> None:
    assert not [raw for raw in RAW if raw in markup]
    assert markup.count("</svg>") == markup.count("<svg ")


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_every_svg_is_well_formed_escaped_and_small(text):
    for name, picture in pictures(text).items():
        svg = picture.to_svg()
        ElementTree.fromstring(svg)
        assert_no_raw_tag(svg)
        assert not [char for char in INVISIBLE if char in svg], name
        assert len(svg.encode()) < 100_000, name


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_mermaid_labels_are_inert(text):
    for name, picture in pictures(text).items():
        if name.startswith("matrix"):
            continue  # a table has no Mermaid form
        mermaid = picture.to_mermaid()
        assert_no_raw_tag(mermaid.replace("<br/>", ""))
        assert not [char for char in (*INVISIBLE, '"><') if char in mermaid.replace('"]:::', "")], name


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_html_views_and_the_matrix_table_hold_no_raw_tag(text):
    agent = hostile_agent(text)
    for markup in (render(agent, "html"), render(agent.workflow, "html"), render(WorkflowSession(agent), "html"),
                   capability_matrix([agent]).to_html(), capability_matrix([agent], by_state=True).to_html()):
        assert_no_raw_tag(markup)
        svg = markup[markup.find("<svg "):markup.find("</svg>") + len("</svg>")]
        if svg:
            ElementTree.fromstring(svg)


def test_a_ten_kilobyte_label_is_cut_and_a_caption_names_the_cycle_cut_too():
    text = HOSTILE[-1]
    picture = delegation_graph([hostile_agent(text)])
    assert picture.diagram.caption == f"INVALID_DELEGATION: delegation cycle: {'A' * 39}… -> {'A' * 39}…"
    assert len(picture.to_svg().encode()) < 30_000  # the id is kept whole once, in the node's data-node attribute


def test_matplotlib_draws_dollar_signs_as_written():
    import matplotlib

    matplotlib.use("Agg")
    text = "cost $x^2$ and a lone $ \\frac{"
    agent = hostile_agent(text)
    for picture in (capability_matrix([agent]), capability_matrix([agent], by_state=True), state_machine(agent),
                    delegation_graph([agent])):
        ax = picture.draw()
        ax.figure.canvas.draw()
        assert any(text[:20] in each.get_text() for each in ax.texts)
