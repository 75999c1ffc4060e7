"""Where each box of a ``Diagram`` goes on the page, and how big it is: shared by the SVG and matplotlib renderers.

Sizes come from the text (a box is as wide as its longest line), so no font
needs measuring: a character of a 12 px label is taken as 7 px wide, which
fits the common sans-serif fonts. Text longer than a box should hold is cut
with an ellipsis; the whole text stays available to the renderer (a tooltip).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .diagram import MARKS, Diagram, Edge
from .palette import node_colours

LABEL_CHARS = 40
DETAIL_CHARS = 56
DETAIL_LINES = 5
CHAR_WIDTH, DETAIL_CHAR_WIDTH = 7.0, 6.0
LINE, DETAIL_LINE = 16.0, 13.0
PAD_X, PAD_Y = 10.0, 6.0
GAP_ACROSS, GAP_ALONG = 26.0, 46.0
"""Space between neighbours in a layer, and between layers."""
MARGIN, TITLE_HEIGHT, LEGEND_HEIGHT = 14.0, 26.0, 24.0
MIN_WIDTH = 64.0
LEGEND_SWATCH, LEGEND_CHAR_WIDTH = 19.0, 6.0


def clip(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, an ellipsis where it was cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@dataclass(frozen=True)
class Box:
    """A node's rectangle (top-left corner and size) and the lines it shows, already cut to fit."""

    x: float
    y: float
    width: float
    height: float
    label: str
    detail: tuple[str, ...]

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class Geometry:
    """The page: its size, a box per node, and the top of the legend row (if there is a legend)."""

    width: float
    height: float
    boxes: Mapping[str, Box]
    legend_y: float


def box_size(label: str, detail: tuple[str, ...]) -> tuple[float, float]:
    lines = detail[:DETAIL_LINES]
    width = max(len(label) * CHAR_WIDTH, *(len(line) * DETAIL_CHAR_WIDTH for line in lines), MIN_WIDTH - 2 * PAD_X)
    return width + 2 * PAD_X, LINE + len(lines) * DETAIL_LINE + 2 * PAD_Y


def geometry(diagram: Diagram) -> Geometry:
    """Boxes in layers: rows going down, or columns going right, each row (column) centred on the widest."""
    down = diagram.direction == "down"
    sized = {}
    for node in diagram.nodes:
        label = clip(node.label, LABEL_CHARS)
        detail = tuple(clip(line, DETAIL_CHARS) for line in node.detail[:DETAIL_LINES])
        sized[node.id] = Box(0.0, 0.0, *box_size(label, detail), label, detail)
    layers = [[sized[node.id] for node in layer] for layer in diagram.layers()]
    ids = [[node.id for node in layer] for layer in diagram.layers()]

    def across(box: Box) -> float:  # a box's extent along its layer
        return box.width if down else box.height

    def along(box: Box) -> float:  # and in the direction of the flow
        return box.height if down else box.width

    lengths = [sum(map(across, row)) + GAP_ACROSS * (len(row) - 1) for row in layers]
    widest = max(lengths, default=0.0)
    top = MARGIN + TITLE_HEIGHT
    boxes: dict[str, Box] = {}
    flow = top if down else MARGIN
    for row, row_ids, length in zip(layers, ids, lengths, strict=True):
        thick = max(map(along, row), default=0.0)
        offset = (MARGIN if down else top) + (widest - length) / 2
        for node_id, box in zip(row_ids, row, strict=True):
            if down:
                boxes[node_id] = replace(box, x=offset, y=flow + (thick - box.height) / 2)
            else:
                boxes[node_id] = replace(box, x=flow + (thick - box.width) / 2, y=offset)
            offset += across(box) + GAP_ACROSS
        flow += thick + GAP_ALONG
    flow_end = flow - GAP_ALONG if layers else flow
    width, height = (widest + 2 * MARGIN, flow_end + MARGIN) if down else (flow_end + MARGIN, top + widest + MARGIN)
    width = max(width, len(diagram.title) * CHAR_WIDTH + 2 * MARGIN,
                *(x + LEGEND_SWATCH + len(meaning) * LEGEND_CHAR_WIDTH + MARGIN
                  for x, _, meaning in legend_entries(diagram)))
    legend_y = height
    if diagram.legend:
        height += LEGEND_HEIGHT
    return Geometry(width=width, height=height, boxes=boxes, legend_y=legend_y)


def legend_entries(diagram: Diagram) -> list[tuple[float, tuple[str, str, float], str]]:
    """Each legend entry's left edge, swatch colours (fill, stroke, opacity) and meaning, left to right."""
    entries, x = [], MARGIN
    for key, meaning in diagram.legend:
        marks = frozenset({key}) & frozenset(MARKS)
        entries.append((x, node_colours("plain" if marks else key, marks), meaning))
        x += LEGEND_SWATCH + len(meaning) * LEGEND_CHAR_WIDTH + 2 * PAD_X
    return entries


def edge_path(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[tuple[float, float], ...]:
    """The points of an arrow: straight from one layer to a later one; bowed out to the side for an edge that
    runs back (closing a cycle), stays within its layer, or loops on one node."""
    source, target = geo.boxes[edge.source], geo.boxes[edge.target]
    forward = diagram.slots[edge.target][0] > diagram.slots[edge.source][0]
    if diagram.direction == "down":
        if forward:
            return ((source.x + source.width / 2, source.y + source.height),
                    (target.x + target.width / 2, target.y))
        start = (source.x + source.width, source.y + source.height / 2)
        end = (target.x + target.width, target.y + target.height / 2)
        bow = max(start[0], end[0]) + GAP_ACROSS + abs(start[1] - end[1]) / 8
        return start, (bow, start[1]), (bow, end[1]), end
    if forward:
        return ((source.x + source.width, source.y + source.height / 2),
                (target.x, target.y + target.height / 2))
    start = (source.x + source.width / 2, source.y + source.height)
    end = (target.x + target.width / 2, target.y + target.height)
    bow = max(start[1], end[1]) + GAP_ACROSS / 2 + abs(start[0] - end[0]) / 12
    return start, (start[0], bow), (end[0], bow), end
