"""A ``Diagram`` as Mermaid flowchart text, for design docs and GitHub, which draw it where a notebook's SVG
does not travel.

Node ids are generated (``n0``, ``n1``...), never taken from the model, and
every character of a label outside a small safe set is written as a Mermaid
entity code (``#60;``), so no label can close its quotes, start a link, or
smuggle in a tag: Mermaid's own syntax characters included.
"""

from __future__ import annotations

import re

from alp_nb.viz.models.diagram import MARKS, Diagram
from alp_nb.viz.models.palette import ALARM_STROKE, CURRENT, EDGE_COLOURS, MUTED_OPACITY, STYLE_COLOURS
from alp_nb.viz.terminal import plain_line

_UNSAFE = re.compile(r"[^A-Za-z0-9 ,.:_/+-]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ARROWS = {"solid": "-->", "dashed": "-.->", "alarm": "==>"}


def mermaid_text(value: object) -> str:
    """Label text as Mermaid reads it literally: control characters shown as ``\\xNN``, then every character
    outside letters, digits, space and ``,.:_/+-`` as an entity code."""
    shown = _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", plain_line(value))
    return _UNSAFE.sub(lambda match: f"#{ord(match.group())};", shown)


def diagram_mermaid(diagram: Diagram) -> str:
    """The picture as a ``flowchart``: a node per box (label, then its detail lines), an arrow per edge, and a
    class per style and mark."""
    ids = {node.id: f"n{index}" for index, node in enumerate(diagram.nodes)}
    lines = [f"%% {mermaid_text(diagram.title)}", f"flowchart {'TD' if diagram.direction == 'down' else 'LR'}"]
    for node in diagram.nodes:
        text = "<br/>".join([mermaid_text(node.label), *(mermaid_text(line) for line in node.detail)])
        classes = ",".join((_class(node.style), *sorted(node.marks)))
        lines.append(f'    {ids[node.id]}["{text}"]:::{classes}')
    for edge in diagram.edges:
        label = f'|"{mermaid_text(edge.label)}"|' if edge.label else ""
        lines.append(f"    {ids[edge.source]} {_ARROWS[edge.style]}{label} {ids[edge.target]}")
    alarms = [str(index) for index, edge in enumerate(diagram.edges) if edge.style == "alarm"]
    if alarms:
        lines.append(f"    linkStyle {','.join(alarms)} stroke:{EDGE_COLOURS['alarm']},stroke-width:2px")
    used = {node.style for node in diagram.nodes}
    lines += [f"    classDef {_class(style)} fill:{fill},stroke:{stroke}"
              for style, (fill, stroke) in STYLE_COLOURS.items() if style in used]
    marks = {mark for node in diagram.nodes for mark in node.marks}
    mark_styles = {"current": f"fill:{CURRENT[0]},stroke:{CURRENT[1]},stroke-width:3px",
                   "muted": f"opacity:{MUTED_OPACITY}", "alarm": f"stroke:{ALARM_STROKE},stroke-width:3px"}
    lines += [f"    classDef {mark} {mark_styles[mark]}" for mark in MARKS if mark in marks]
    return "\n".join(lines) + "\n"


def _class(style: str) -> str:
    return "style_" + style.replace("-", "_")
