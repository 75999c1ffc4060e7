"""Every picture built from hostile strings: markup, attribute breakouts, CDATA ends, direction and zero-width
characters, huge labels. Hypothesis mixes them into every text a picture draws, and for each format: the SVG is
one well-formed XML document of known elements and attributes only, the HTML around it holds no tag or attribute
the strings brought, and the Mermaid text gives them no syntax."""

from __future__ import annotations

from html.parser import HTMLParser
from xml.etree import ElementTree

from agent_factory import make_agent
from hypothesis import HealthCheck, given, settings, strategies as st
from loop_contract_samples import CLEAN

from alp_nb.agents import WorkflowDefinition, define_agent
from alp_nb.loops import LoopContract
from alp_nb.viz import (
    CallSpan,
    PhaseTokens,
    Timeline,
    capability_matrix,
    contract_flow,
    mimebundle,
    delegation_graph,
    render,
    run_timeline,
    state_machine,
)
from alp_nb.workflow import WorkflowSession

FRAGMENTS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "</svg>", "]]>", "<![CDATA[", "&amp;",
             "' onload='x", "\u202eevil", "zero\u200bwidth", "\x1b[2J", "\ud800", "--> x", '"]', "|x|", "#quot;"]
HOSTILE = st.one_of(
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), min_size=1, max_size=5).map("".join),
    st.sampled_from(FRAGMENTS).map(lambda fragment: fragment * (10_240 // len(fragment))),
).filter(str.strip)
CHECK = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SVG_NS = "{http://www.w3.org/2000/svg}"
SVG_ELEMENTS = {"svg", "title", "desc", "g", "rect", "path", "line", "polyline", "polygon", "circle", "text", "tspan"}
SVG_ATTRIBUTES = {
    "xmlns", "width", "height", "viewBox", "font-family", "font-size", "font-weight", "role", "aria-label", "x", "y",
    "x1", "x2", "y1", "y2", "rx", "ry", "r", "cx", "cy", "d", "points", "fill", "stroke", "stroke-width",
    "stroke-dasharray", "opacity", "fill-opacity", "text-anchor", "dominant-baseline", "transform", "data-node",
    "paint-order", "font-style", "class", "data-call", "data-seq",
}


def assert_safe_svg(svg: str) -> None:
    root = ElementTree.fromstring(svg)
    for element in root.iter():
        tag = element.tag.removeprefix(SVG_NS)
        assert tag in SVG_ELEMENTS, tag
        assert set(element.attrib) <= SVG_ATTRIBUTES, sorted(set(element.attrib) - SVG_ATTRIBUTES)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, [name for name, _ in attrs]))


def assert_safe_html(html: str) -> None:
    parser = _Tags()
    parser.feed(html)
    for tag, attributes in parser.found:
        assert tag not in ("script", "img", "iframe", "object", "embed"), tag
        assert not [name for name in attributes if name.startswith("on") or name in ("src", "href")], (tag, attributes)


def assert_inert_mermaid(mermaid: str) -> None:
    for line in mermaid.splitlines():
        assert '<script' not in line and "<img" not in line and "\u202e" not in line


def hostile_agent(text: str, suffix: str = ""):
    workflow = WorkflowDefinition.linear(text + suffix, [(text, ["Read", text]), ("DONE", [])])
    data = make_agent("probe", displayName=text, delegatesTo=[text + suffix], workflow=None,
                      capabilities={"tools": ["Read", text], "memory": {"read": [text], "write": [text]},
                                    "workspace": {"readRoots": [text], "writeRoots": [text]}})
    data.update(id=text + suffix, workflow=workflow.model_dump(by_alias=True))
    return define_agent(data)


def hostile_contract(text: str) -> LoopContract:
    document = LoopContract.from_document(CLEAN).to_document()
    document["name"] = document["objective"] = text
    document["trigger"]["cadence_or_event"] = document["intake"]["selection_rule"] = text
    document["workspace"]["allowed_actions"] = [text]
    document["verification"]["gates"] = [text]
    document["agents"][0]["role"] = text
    document["escalation"]["destination"] = document["exit"]["success"] = text
    return LoopContract.from_document(document)


def hostile_timeline(text: str) -> Timeline:
    spans = tuple(CallSpan(key=f"agent-{index}", label=text, phase=text, start=float(index), end=index + 0.5,
                           outcome=outcome, tokens=10)
                  for index, outcome in enumerate(("live", "cached", "retried", "failed", "cancelled")))
    return Timeline(title=text, spans=spans, tokens=(PhaseTokens(phase=text, attempt=10, cumulative=50),), note=text)


def assert_every_format_is_safe(picture: object) -> None:
    assert_safe_svg(picture.to_svg())  # type: ignore[attr-defined]  # every picture has to_svg
    assert_safe_html(render(picture, "html"))
    to_mermaid = getattr(picture, "to_mermaid", None)
    if to_mermaid is not None:
        assert_inert_mermaid(to_mermaid())
    assert not [char for char in "\x1b\u202e" if char in mimebundle(picture)["text/plain"]]


@CHECK
@given(text=HOSTILE)
def test_a_delegation_graph_of_hostile_roles_is_safe_in_every_format(text):
    assert_every_format_is_safe(delegation_graph([hostile_agent(text), hostile_agent(text, "2")]))


@CHECK
@given(text=HOSTILE)
def test_a_state_machine_of_a_hostile_role_is_safe_in_every_format(text):
    agent = hostile_agent(text)
    assert_every_format_is_safe(state_machine(agent))
    assert_every_format_is_safe(state_machine(WorkflowSession(agent)))


@CHECK
@given(text=HOSTILE)
def test_a_capability_matrix_of_hostile_roles_is_safe_in_every_format(text):
    roles = [hostile_agent(text), hostile_agent(text, "2")]
    assert_every_format_is_safe(capability_matrix(roles))
    assert_every_format_is_safe(capability_matrix(roles, by_state=True))


@CHECK
@given(text=HOSTILE)
def test_the_flow_of_a_hostile_contract_is_safe_in_every_format(text):
    text = text.encode("utf-8", "replace").decode()  # a contract is JSON or YAML text: no lone surrogates
    assert_every_format_is_safe(contract_flow(hostile_contract(text)))


@CHECK
@given(text=HOSTILE)
def test_the_timeline_of_a_run_with_hostile_labels_and_phases_is_safe_in_every_format(text):
    assert_every_format_is_safe(run_timeline(hostile_timeline(text)))
