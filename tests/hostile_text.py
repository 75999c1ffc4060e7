"""Hostile strings, and the checks that they reached a page as text only: shared by the picture and widget tests.

The strings: markup, attribute breakouts, CDATA ends, direction and zero-width characters, terminal escapes,
lone surrogates, Mermaid syntax and 10 KB labels, mixed by hypothesis.
"""

from __future__ import annotations

from html.parser import HTMLParser
from xml.etree import ElementTree

from agent_factory import make_agent
from hypothesis import HealthCheck, settings, strategies as st
from loop_contract_samples import CLEAN

from alp_nb.agents import AgentDefinition, WorkflowDefinition, define_agent
from alp_nb.loops import Expectations, LoopContract
from alp_nb.replay.timeline import CallSpan, PhaseTokens, Timeline

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
    "paint-order", "font-style", "class", "data-call", "data-seq", "aria-hidden", "style", "stroke-opacity",
    "pointer-events",
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


def hostile_agent(text: str, suffix: str = "") -> AgentDefinition:
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
    document["x_alp_nb"] = {"version": 1, "owner": text, "budget": {"max_tokens": 1000, "max_concurrency": 2}}
    return LoopContract.from_document(document)


def hostile_review(contract: LoopContract, text: str) -> Expectations:
    """A review file of ``contract`` whose every text is ``text``: one expectation that disagrees, one that agrees."""
    return Expectations.from_document({"contract": contract.name, "expectations": {
        "timeout": {"outcome": "escalate", "owner": text, "signed_by": text, "why": text},
        "duplicate-item": {"outcome": "exit-noop", "signed_by": text}}})


def hostile_timeline(text: str) -> Timeline:
    spans = tuple(CallSpan(key=f"agent-{index}", label=text, phase=text, start=float(index), end=index + 0.5,
                           outcome=outcome, tokens=10)
                  for index, outcome in enumerate(("live", "cached", "retried", "failed", "cancelled")))
    return Timeline(title=text, spans=spans, tokens=(PhaseTokens(phase=text, attempt=10, cumulative=50),), note=text)
