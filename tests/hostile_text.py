"""Hostile strings, and the checks that they reached a page as text only: shared by the picture and widget tests.

The strings: markup, attribute breakouts, CDATA ends, direction and zero-width characters, terminal escapes,
lone surrogates, Mermaid syntax and 10 KB labels, mixed by hypothesis.
"""

from __future__ import annotations

from html.parser import HTMLParser
from xml.etree import ElementTree

from hypothesis import HealthCheck, settings, strategies as st
from loop_contract_samples import CLEAN

from alp_nb.loops import Expectations, LoopContract
from alp_nb.viz.pictures.gallery import sample_contract, sample_role, sample_timeline

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


hostile_agent = sample_role


def hostile_contract(text: str) -> LoopContract:
    """The lint-clean contract with every text a reviewer reads set to ``text``."""
    return sample_contract(text, LoopContract.from_document(CLEAN))


def hostile_review(contract: LoopContract, text: str) -> Expectations:
    """A review file of ``contract`` whose every text is ``text``: one expectation that disagrees, one that agrees."""
    return Expectations.from_document({"contract": contract.name, "expectations": {
        "timeout": {"outcome": "escalate", "owner": text, "signed_by": text, "why": text},
        "duplicate-item": {"outcome": "exit-noop", "signed_by": text}}})


hostile_timeline = sample_timeline
