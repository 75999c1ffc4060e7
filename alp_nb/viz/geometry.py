"""Where each box of a ``Diagram`` goes on the page, and how big it is: shared by the SVG and matplotlib renderers.

Sizes come from the text (a box is as wide as its longest line), so no font
needs measuring: a character of a 12 px label is taken as 7 px wide, which
fits the common sans-serif fonts. Text longer than a box should hold is cut
with an ellipsis; the whole text stays available to the renderer (a tooltip).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import pairwise, product

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
CAPTION_HEIGHT, CAPTION_CHAR_WIDTH = 16.0, 6.0
"""The caption's line under the title (only when there is one), and its text's width per character."""
MIN_WIDTH = 64.0
LEGEND_SWATCH, LEGEND_CHAR_WIDTH = 19.0, 6.0
Point = tuple[float, float]
EDGE_LABEL_CHAR_WIDTH = 6.0
ARROW_LENGTH, ARROW_HALF_WIDTH = 8.0, 3.5


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


Span = tuple[float, float, float, float]
"""A box as (start, end) along the flow, then (start, end) across it."""


@dataclass(frozen=True)
class Geometry:
    """The page: its size, a box per node, the top of the legend row (if there is a legend), and the boxes'
    spans layer by layer (computed once: every arrow routed round the boxes reads them)."""

    width: float
    height: float
    boxes: Mapping[str, Box]
    legend_y: float
    layer_spans: Mapping[int, list[Span]]


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
    top = content_top(diagram)
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
    layer_spans: dict[int, list[Span]] = {}
    for node_id, (layer, _) in diagram.slots.items():
        layer_spans.setdefault(layer, []).append(_span(boxes[node_id], down))
    right, bottom = _bowed_reach(diagram, Geometry(width, height, boxes, height, layer_spans))
    height = max(height, bottom + MARGIN)
    width = max(width, right + MARGIN, len(diagram.title) * CHAR_WIDTH + 2 * MARGIN,
                len(diagram.caption) * CAPTION_CHAR_WIDTH + 2 * MARGIN,
                *(x + LEGEND_SWATCH + len(meaning) * LEGEND_CHAR_WIDTH + MARGIN
                  for x, _, meaning in legend_entries(diagram)))
    legend_y = height
    if diagram.legend:
        height += LEGEND_HEIGHT
    return Geometry(width, height, boxes, legend_y, layer_spans)


def content_top(diagram: Diagram) -> float:
    """Where the boxes may start: below the title, and below the caption when there is one."""
    return MARGIN + TITLE_HEIGHT + (CAPTION_HEIGHT if diagram.caption else 0.0)


def legend_entries(diagram: Diagram) -> list[tuple[float, tuple[str, str, float], str]]:
    """Each legend entry's left edge, swatch colours (fill, stroke, opacity) and meaning, left to right."""
    entries, x = [], MARGIN
    for key, meaning in diagram.legend:
        marks = frozenset({key}) & frozenset(MARKS)
        entries.append((x, node_colours("plain" if marks else key, marks), meaning))
        x += LEGEND_SWATCH + len(meaning) * LEGEND_CHAR_WIDTH + 2 * PAD_X
    return entries


def _bowed_reach(diagram: Diagram, geo: Geometry) -> tuple[float, float]:
    """How far right and down the arrows bowed out beside the boxes reach, with their labels: the page holds them."""
    right = bottom = 0.0
    for edge in diagram.edges:
        points = edge_path(diagram, geo, edge)
        if len(points) > 2:
            (x1, _), (x2, _) = points[len(points) // 2 - 1], points[len(points) // 2]
            label_end = (x1 + x2) / 2 + 4 + len(edge.label) * EDGE_LABEL_CHAR_WIDTH if edge.label else 0.0
            right = max(right, label_end, *(x for x, _ in points))
            bottom = max(bottom, *(y for _, y in points))
    return right, bottom


def edge_path(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[tuple[float, float], ...]:
    """The points of an arrow, never through a box: straight from one layer to the next; around the boxes in
    between for one that skips layers or runs back (closing a cycle); under its layer for one that stays in it or
    loops on one node."""
    source, target = geo.boxes[edge.source], geo.boxes[edge.target]
    first, last = diagram.slots[edge.source][0], diagram.slots[edge.target][0]
    if last == first:
        return _under(diagram, geo, edge)
    if last != first + 1:
        return _around(diagram, geo, edge)
    if diagram.direction == "down":
        return ((source.x + source.width / 2, source.y + source.height),
                (target.x + target.width / 2, target.y))
    return ((source.x + source.width, source.y + source.height / 2),
            (target.x, target.y + target.height / 2))


def _span(box: Box, down: bool) -> Span:
    if down:
        return box.y, box.y + box.height, box.x, box.x + box.width
    return box.x, box.x + box.width, box.y, box.y + box.height


def _spans(diagram: Diagram, geo: Geometry) -> tuple[Callable[[str], Span], Callable[[float, float], Point],
                                                     Mapping[int, list[Span]]]:
    """A box's span and a point from (along, across), in this diagram's direction; and the spans layer by layer."""
    down = diagram.direction == "down"

    def span(node_id: str) -> Span:
        return _span(geo.boxes[node_id], down)

    def point(along: float, across: float) -> Point:
        return (across, along) if down else (along, across)

    return span, point, geo.layer_spans


def _under(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[Point, ...]:
    """An arrow within one layer (or a loop on one node): out of the source's far side, along the gap after the
    layer, and back into the target's far side; a loop leaves and returns a third of the box apart."""
    span, point, layers = _spans(diagram, geo)
    source, target = span(edge.source), span(edge.target)
    gap = max(each[1] for each in layers[diagram.slots[edge.source][0]]) + GAP_ALONG / 2
    loop = (source[3] - source[2]) / 6 if edge.source == edge.target else 0.0
    leave, join = (source[2] + source[3]) / 2 - loop, (target[2] + target[3]) / 2 + loop
    return point(source[1], leave), point(gap, leave), point(gap, join), point(target[1], join)


def _around(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[Point, ...]:
    """An arrow that skips layers or runs back, kept off every box: out of the source's side (or, when a
    neighbour is in the way, through the gap on its way), along a lane beside the boxes of the layers it passes,
    and into the target's side (or through the gap before it), on whichever side of the picture is shorter. A
    labelled arrow keeps to the right (or bottom) side, where its label has room."""
    span, point, layers = _spans(diagram, geo)
    first, last = diagram.slots[edge.source][0], diagram.slots[edge.target][0]
    onward = last > first
    between = [each for layer in range(min(first, last) + 1, max(first, last)) for each in layers[layer]]
    source, target = span(edge.source), span(edge.target)
    if onward:  # leave by the far side into the gap after the source's layer, enter the target's near side
        leaving, out_gap = source[1], max(each[1] for each in layers[first]) + GAP_ALONG / 2
        joining, in_gap = target[0], min(each[0] for each in layers[last]) - GAP_ALONG / 2
    else:  # running back: leave by the near side, enter the target's far side
        leaving, out_gap = source[0], min(each[0] for each in layers[first]) - GAP_ALONG / 2
        joining, in_gap = target[1], max(each[1] for each in layers[last]) + GAP_ALONG / 2
    lowest_lane = (MARGIN if diagram.direction == "down" else content_top(diagram)) - MARGIN / 2
    middle = (source[2] + source[3]) / 2, (target[2] + target[3]) / 2
    routes = []
    for side, sideways_out, sideways_in in product((1, -1) if not edge.label else (1,), (True, False), (True, False)):
        def outer(each: Span, side: int = side) -> float:  # its edge on this side: right (bottom) or left (top)
            return each[3] if side > 0 else each[2]

        if (sideways_out and not _outermost(source, layers[first], side)) or (
                sideways_in and not _outermost(target, layers[last], side)):
            continue  # a neighbour in the same layer is in the way
        passed = between + [source] * sideways_out + [target] * sideways_in
        if passed:
            lane = side * (max(side * outer(each) for each in passed) + GAP_ACROSS / 2)
            if lane < lowest_lane:
                continue
        else:  # back to the layer just before, through the one gap between them: nothing to go round
            lane = middle[0]
        start = ([point((source[0] + source[1]) / 2, outer(source))] if sideways_out
                 else [point(leaving, middle[0]), point(out_gap, middle[0])])
        end = ([point((target[0] + target[1]) / 2, outer(target))] if sideways_in
               else [point(in_gap, middle[1]), point(joining, middle[1])])
        routes.append((*start, *_lane(start[-1], end[0], lane, diagram.direction == "down"), *end))
    return min(routes, key=_length)


def _outermost(each: Span, layer: list[Span], side: int) -> bool:
    """Whether no other box of its layer lies beyond ``each`` on ``side``."""
    return all(side * (other[2] - each[2]) <= 0 for other in layer)


def _lane(leaving: Point, joining: Point, lane: float, down: bool) -> tuple[Point, Point]:
    """The two corners of a lane at ``lane`` across the flow, between the point it leaves and the one it joins."""
    if down:
        return (lane, leaving[1]), (lane, joining[1])
    return (leaving[0], lane), (joining[0], lane)


def _length(points: tuple[Point, ...]) -> float:
    return sum(abs(x2 - x1) + abs(y2 - y1) for (x1, y1), (x2, y2) in pairwise(points))


def arrowhead_corners(before: Point, tip: Point) -> tuple[Point, Point, Point]:
    """The three corners of an arrowhead at ``tip``, pointing the way the line from ``before`` runs."""
    (x0, y0), (x1, y1) = before, tip
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    back = (x1 - ux * ARROW_LENGTH, y1 - uy * ARROW_LENGTH)
    return (tip, (back[0] - uy * ARROW_HALF_WIDTH, back[1] + ux * ARROW_HALF_WIDTH),
            (back[0] + uy * ARROW_HALF_WIDTH, back[1] - ux * ARROW_HALF_WIDTH))
