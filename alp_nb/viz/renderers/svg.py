"""A ``Diagram`` as SVG, in pure Python: no Graphviz, no network, no script.

Text stays text (``<text>``, so a picture is small and searchable), every
string from the model is escaped, and colours are attributes rather than a
style sheet, so the picture survives pages that strip styles. The output is a
well-formed XML document: control and non-XML characters are shown as
``\\xNN`` / ``\\uNNNN`` rather than written.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

from alp_nb.viz.models.diagram import Diagram, Edge, Group, Node
from alp_nb.viz.models.geometry import (
    CAPTION_HEIGHT,
    CAPTION_SIZE,
    DETAIL_LINE,
    DETAIL_SIZE,
    EDGE_LABEL_SIZE,
    GROUP_PAD,
    LABEL_SIZE,
    LEGEND_HEIGHT,
    LEGEND_SIZE,
    LINE,
    MARGIN,
    PAD_Y,
    TITLE_HEIGHT,
    TITLE_SIZE,
    Geometry,
    arrowhead_corners,
    edge_label_at,
    edge_path,
    geometry,
)
from alp_nb.viz.models.palette import EDGE_COLOURS, FAINT_INK, INK, node_colours
from alp_nb.viz.terminal import plain_line

FONT = "system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif"
TOOLTIP_CHARS = 500
_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
_QUOTES = {'"': "&quot;", "'": "&#x27;"}


def xml_text(value: object) -> str:
    """Any string as XML character data or attribute text: escaped, and no character XML 1.0 forbids."""
    shown = _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", plain_line(value))
    return escape(shown, _QUOTES)


def diagram_svg(diagram: Diagram) -> str:
    """The whole picture as one ``<svg>`` element."""
    geo = geometry(diagram)
    width, height = round(geo.width), round(geo.height)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="{LABEL_SIZE:g}" role="img" '
        f'aria-label="{xml_text(diagram.title)}">',
        f"<title>{xml_text(diagram.title)}</title>",
        f'<text x="{MARGIN}" y="{MARGIN + 14}" font-size="{TITLE_SIZE:g}" font-weight="600" fill="{INK}">'
        f"{xml_text(diagram.title)}</text>",
        *(_group(group, geo) for group in diagram.groups),
        *(_edge(diagram, geo, edge) for edge in geo.edges),
        *(_node(node, geo) for node in diagram.nodes),
        _legend(geo),
    ]
    top = MARGIN + TITLE_HEIGHT
    parts += [f'<text x="{MARGIN}" y="{top + CAPTION_HEIGHT * (index + 1) - 6}" font-size="{CAPTION_SIZE:g}" '
              f'fill="{FAINT_INK}">{xml_text(line)}</text>' for index, line in enumerate(geo.caption)]
    parts.append("</svg>")
    return "".join(part for part in parts if part)


def arrowhead(before: tuple[float, float], tip: tuple[float, float], colour: str) -> str:
    """A filled triangle at ``tip``, pointing the way the line from ``before`` runs. Drawn as a shape of its own,
    not an SVG marker: marker ids are shared by every picture on a page, and a hidden first picture (in a closed
    ``<details>``) takes its markers with it."""
    corners = arrowhead_corners(before, tip)
    return f'<path d="M{"L".join(f"{round(x, 1)},{round(y, 1)}" for x, y in corners)}z" fill="{colour}"/>'


def _tooltip(lines: tuple[str, ...]) -> str:
    """A box's label and detail on lines of their own (``&#10;``), at most ``TOOLTIP_CHARS`` in all; a line break
    inside one of them still shows as ``\\x0a``, so no text can pass for another line."""
    shown, left = [], TOOLTIP_CHARS
    for line in lines:
        if left <= 0:
            break
        shown.append(xml_text(line[:left]))
        left -= len(line) + 1
    return "&#10;".join(shown)


def _node(node: Node, geo: Geometry) -> str:
    box = geo.boxes[node.id]
    fill, stroke, opacity = node_colours(node.style, node.marks)
    double = node.style == "terminal"
    width = 2.5 if "current" in node.marks or "alarm" in node.marks else 1.2
    dash = ' stroke-dasharray="5,3"' if node.style == "custom" else ""
    tooltip = _tooltip((node.label, *node.detail))
    x, y = round(box.x, 1), round(box.y, 1)
    shapes = [f'<rect x="{x}" y="{y}" width="{round(box.width, 1)}" height="{round(box.height, 1)}" rx="6" '
              f'fill="{fill}" stroke="{stroke}" stroke-width="{width}"{dash}/>']
    if double:
        shapes.append(f'<rect x="{x + 3}" y="{y + 3}" width="{round(box.width - 6, 1)}" '
                      f'height="{round(box.height - 6, 1)}" rx="4" fill="none" stroke="{stroke}"/>')
    centre = round(box.x + box.width / 2, 1)
    texts = [f'<text x="{centre}" y="{round(box.y + PAD_Y + 12, 1)}" text-anchor="middle" fill="{INK}" '
             f'font-weight="600">{xml_text(box.label)}</text>']
    texts += [f'<text x="{centre}" y="{round(box.y + PAD_Y + LINE + DETAIL_LINE * index + 9, 1)}" '
              f'text-anchor="middle" font-size="{DETAIL_SIZE:g}" fill="{FAINT_INK}">{xml_text(line)}</text>'
              for index, line in enumerate(box.detail)]
    faded = f' opacity="{opacity}"' if opacity < 1 else ""
    return f'<g data-node="{xml_text(node.id)}"{faded}><title>{tooltip}</title>{"".join(shapes + texts)}</g>'


def _group(group: Group, geo: Geometry) -> str:
    """A group's box, light and behind its members, its label (and how many) at its top left."""
    box = geo.boxes[group.id]
    return (f'<g data-group="{xml_text(group.label)}"><title>{xml_text(box.label)}</title>'
            f'<rect x="{round(box.x, 1)}" y="{round(box.y, 1)}" width="{round(box.width, 1)}" '
            f'height="{round(box.height, 1)}" rx="8" fill="#fafafa" stroke="#9e9e9e" stroke-dasharray="2,3"/>'
            f'<text x="{round(box.x + GROUP_PAD, 1)}" y="{round(box.y + GROUP_PAD + 12, 1)}" fill="{INK}" '
            f'font-weight="600">{xml_text(box.label)}</text></g>')


def _edge(diagram: Diagram, geo: Geometry, edge: Edge) -> str:
    points = edge_path(diagram, geo, edge)
    colour = EDGE_COLOURS[edge.style]
    dash = ' stroke-dasharray="5,4"' if edge.style == "dashed" else ""
    width = "2" if edge.style == "alarm" else "1.3"
    path = "M" + "L".join(f"{round(x, 1)},{round(y, 1)}" for x, y in points)
    shape = (f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>'
             + arrowhead(points[-2], points[-1], colour))
    if not edge.label:
        return shape
    x, y, leftwards = edge_label_at(points, edge.label)
    anchor = ' text-anchor="end"' if leftwards else ""
    label = (f'<text x="{round(x, 1)}" y="{round(y, 1)}"{anchor} font-size="{EDGE_LABEL_SIZE:g}" '
             f'fill="{colour}" stroke="#ffffff" stroke-width="3" paint-order="stroke">{xml_text(edge.label)}</text>')
    return shape + label


def _legend(geo: Geometry) -> str:
    parts = []
    for x, line, (fill, stroke, opacity), meaning in geo.legend:
        faded = f' opacity="{opacity}"' if opacity < 1 else ""
        y = geo.legend_y + LEGEND_HEIGHT * line + 4
        parts.append(f'<rect x="{round(x, 1)}" y="{round(y, 1)}" width="14" height="12" rx="3" fill="{fill}" '
                     f'stroke="{stroke}"{faded}/><text x="{round(x + 19, 1)}" y="{round(y + 10, 1)}" '
                     f'font-size="{LEGEND_SIZE:g}" fill="{FAINT_INK}">{xml_text(meaning)}</text>')
    return "".join(parts)
