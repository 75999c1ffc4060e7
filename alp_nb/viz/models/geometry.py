"""Where each box of a ``Diagram`` goes on the page, and how big it is: shared by the SVG and matplotlib renderers.

Sizes come from the text (a box is as wide as its longest line, by ``text_width``), so no font needs measuring.
Text longer than a box should hold is cut with an ellipsis; the whole text stays available to the renderer (a
tooltip).

A picture is laid out to fit ``MAX_WIDTH``, the width a notebook column gives it at its own size: a group's
members sit in a grid inside the group's box, a layer wider than the page wraps into rows, and the legend into
lines. Each row is a step of the flow for the arrows: one from a row to the next is straight, one that passes a
row goes round it. An arrow from one box to every member of a group (or from every member to one box) is drawn
once, to the group's box.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import pairwise, product

from alp_nb.base.text import clip
from alp_nb.viz.models.diagram import MARKS, Diagram, Edge, Group
from alp_nb.viz.models.palette import node_colours
from alp_nb.viz.models.text_width import text_width

LABEL_CHARS = 40
DETAIL_CHARS = 56
DETAIL_LINES = 5
LABEL_SIZE, DETAIL_SIZE, EDGE_LABEL_SIZE, LEGEND_SIZE, TITLE_SIZE, CAPTION_SIZE = 12.0, 10.5, 10.5, 10.5, 14.0, 11.0
"""Font sizes in pixels: a box's label (bold) and detail, an arrow's label, the legend, the title (bold), the
caption."""
LINE, DETAIL_LINE = 16.0, 13.0
PAD_X, PAD_Y = 10.0, 6.0
GAP_ACROSS, GAP_ALONG = 26.0, 46.0
"""Space between neighbours in a row, and between rows."""
MARGIN, TITLE_HEIGHT, LEGEND_HEIGHT = 14.0, 26.0, 24.0
CAPTION_HEIGHT = 16.0
"""Each line of the caption under the title (only when there is one)."""
MIN_WIDTH = 64.0
LEGEND_SWATCH = 19.0
MAX_WIDTH = 900.0
"""The widest a picture is laid out to be: a 1,000 px window gives a notebook 800 px of column, which shows it at
0.89 of its size, its smallest text (10.5 px) still above 9 px."""
LANE_ROOM = 110.0
"""What a wrapped layer leaves free at its right: the arrows going round its rows and their labels run there."""
GROUP_PAD, GROUP_HEADER, GROUP_GAP = 8.0, 20.0, 12.0
"""Inside a group's box: the padding, the line of its label, and the space between its members."""
Point = tuple[float, float]
ARROW_LENGTH, ARROW_HALF_WIDTH = 8.0, 3.5


@dataclass(frozen=True)
class Box:
    """A node's rectangle (top-left corner and size) and the lines it shows, already cut to fit."""

    x: float
    y: float
    width: float
    height: float
    label: str
    detail: tuple[str, ...]


Span = tuple[float, float, float, float]
"""A box as (start, end) along the flow, then (start, end) across it."""
LegendEntry = tuple[float, int, tuple[str, str, float], str]
"""A legend entry as laid out: its left edge, its line (from 0), its swatch's colours and its meaning."""


@dataclass(frozen=True)
class Geometry:
    """The page: its size, a box per node and per group, each one's row, the arrows as drawn (a group's bundled),
    the caption's lines, the legend's entries and the top of the legend (if there is one), and the boxes' spans row
    by row (computed once: every arrow routed round the boxes reads them). Renderers draw these as they are, so no
    renderer wraps a line the page was not sized for."""

    width: float
    height: float
    boxes: Mapping[str, Box]
    legend_y: float
    layer_spans: Mapping[int, list[Span]]
    row_of: Mapping[str, int]
    edges: tuple[Edge, ...]
    caption: tuple[str, ...] = ()
    legend: tuple[LegendEntry, ...] = ()


def box_size(label: str, detail: tuple[str, ...]) -> tuple[float, float]:
    lines = detail[:DETAIL_LINES]
    width = max(text_width(label, LABEL_SIZE, bold=True), *(text_width(line, DETAIL_SIZE) for line in lines),
                MIN_WIDTH - 2 * PAD_X)
    return math.ceil(width + 2 * PAD_X), LINE + len(lines) * DETAIL_LINE + 2 * PAD_Y


def geometry(diagram: Diagram) -> Geometry:
    """Boxes in rows going down (columns going right), each row centred on the widest; a group's members in a
    grid in its box; a layer going down wraps into as many rows as ``MAX_WIDTH`` needs."""
    down = diagram.direction == "down"
    sized = _sized(diagram, down)
    boxes, row_of, (width, height) = _placed_rows(_rows(diagram, sized, down), sized, down, content_top(diagram))
    for group in diagram.groups:
        boxes.update(_members_placed(group, boxes[group.id], sized, down))
        row_of.update(dict.fromkeys(group.members, row_of[group.id]))
    members = {member for group in diagram.groups for member in group.members}
    drawn = Geometry(width, height, boxes, height, _layer_spans(boxes, row_of, members, down), row_of,
                     _bundled(diagram))
    return _fitted(diagram, drawn)


def _sized(diagram: Diagram, down: bool) -> dict[str, Box]:
    """Each node's box and each group's, not yet placed: sized by its text (cut to fit) before any row is laid out,
    since rows wrap and centre by these sizes."""
    sized = {}
    for node in diagram.nodes:
        label = clip(node.label, LABEL_CHARS)
        detail = tuple(clip(line, DETAIL_CHARS) for line in node.detail[:DETAIL_LINES])
        sized[node.id] = Box(0.0, 0.0, *box_size(label, detail), label, detail)
    for group in diagram.groups:
        sized[group.id] = _group_box(group, sized, down)
    return sized


def _across(box: Box, down: bool) -> float:
    """A box's extent along its row."""
    return box.width if down else box.height


def _along(box: Box, down: bool) -> float:
    """A box's extent in the direction of the flow."""
    return box.height if down else box.width


def _rows(diagram: Diagram, sized: Mapping[str, Box], down: bool) -> list[list[str]]:
    """The items of each row, a group's box standing for its members: a row per layer, a layer going down wrapped
    into as many as ``MAX_WIDTH`` needs."""
    group_of = {member: group.id for group in diagram.groups for member in group.members}
    group_ids = {group.id for group in diagram.groups}
    rows: list[list[str]] = []
    for layer in diagram.layers():
        items = list(dict.fromkeys(group_of.get(node.id, node.id) for node in layer))
        rows += _wrapped(items, [_across(sized[item], down) for item in items], group_ids) if down else [items]
    return rows


def _placed_rows(rows: list[list[str]], sized: Mapping[str, Box], down: bool,
                 top: float) -> tuple[dict[str, Box], dict[str, int], tuple[float, float]]:
    """Each row's boxes side by side from ``top``, the row centred on the widest and each box on its row's
    thickness; each item's row; and the page's size (width, height) that holds them."""
    lengths = [_row_length([_across(sized[item], down) for item in row]) for row in rows]
    widest = max(lengths, default=0.0)
    boxes: dict[str, Box] = {}
    row_of: dict[str, int] = {}
    flow = top if down else MARGIN
    for index, (row, length) in enumerate(zip(rows, lengths, strict=True)):
        thick = max((_along(sized[item], down) for item in row), default=0.0)
        offset = (MARGIN if down else top) + (widest - length) / 2
        for item in row:
            box = sized[item]
            if down:
                boxes[item] = replace(box, x=offset, y=flow + (thick - box.height) / 2)
            else:
                boxes[item] = replace(box, x=flow + (thick - box.width) / 2, y=offset)
            row_of[item] = index
            offset += _across(box, down) + GAP_ACROSS
        flow += thick + GAP_ALONG
    flow_end = flow - GAP_ALONG if rows else flow
    size = (widest + 2 * MARGIN, flow_end + MARGIN) if down else (flow_end + MARGIN, top + widest + MARGIN)
    return boxes, row_of, size


def _layer_spans(boxes: Mapping[str, Box], row_of: Mapping[str, int], members: set[str],
                 down: bool) -> dict[int, list[Span]]:
    """The spans of each row's boxes, a group's members left out (its box holds them): what the arrows routed
    round the boxes go round."""
    layer_spans: dict[int, list[Span]] = {}
    for item, index in row_of.items():
        if item not in members:
            layer_spans.setdefault(index, []).append(_span(boxes[item], down))
    return layer_spans


def _fitted(diagram: Diagram, drawn: Geometry) -> Geometry:
    """``drawn`` on a page grown to hold what lies beyond its boxes: the arrows bowed out beside them, the title,
    the caption's lines and, under it all, the legend's."""
    right, bottom = _bowed_reach(diagram, drawn)
    height = max(drawn.height, bottom + MARGIN)
    caption = caption_lines(diagram)
    width = max([drawn.width, right + MARGIN, text_width(diagram.title, TITLE_SIZE, bold=True) + 2 * MARGIN,
                 *(text_width(line, CAPTION_SIZE) + 2 * MARGIN for line in caption)])
    legend = tuple(legend_entries(diagram, max(width, MAX_WIDTH)))
    width = max([width, *(x + LEGEND_SWATCH + text_width(meaning, LEGEND_SIZE) + MARGIN
                          for x, _, _, meaning in legend)])
    legend_y = height
    if legend:
        height += LEGEND_HEIGHT * (1 + max(line for _, line, _, _ in legend))
    return replace(drawn, width=width, height=height, legend_y=legend_y, caption=caption, legend=legend)


def _wrapped(items: list[str], extents: list[float], groups: set[str]) -> list[list[str]]:
    """``items`` in rows of at most ``MAX_WIDTH``, in order: all in one row when they fit, else each group in a row
    of its own and the boxes between groups in as few rows as they need, evened out so the last is not a stub, all
    leaving ``LANE_ROOM``."""
    room = MAX_WIDTH - 2 * MARGIN
    if _row_length(extents) <= room:
        return [items]
    room -= LANE_ROOM
    rows: list[list[str]] = []
    run: list[tuple[str, float]] = []
    for item, extent in [*zip(items, extents, strict=True), ("", 0.0)]:
        if item in groups or not item:
            if run:
                rows += _balanced(run, room)
            run = []
            if item:
                rows.append([item])
        else:
            run.append((item, extent))
    return rows


def _balanced(run: list[tuple[str, float]], room: float) -> list[list[str]]:
    """Boxes in the fewest rows of at most ``room``, each row filled to about the same length."""
    count = math.ceil(_row_length([extent for _, extent in run]) / room)
    limit = _row_length([extent for _, extent in run]) / count
    while True:
        rows: list[list[tuple[str, float]]] = [[]]
        for item in run:
            if rows[-1] and _row_length([extent for _, extent in rows[-1]] + [item[1]]) > limit:
                rows.append([])
            rows[-1].append(item)
        if len(rows) <= count or limit >= room:
            return [[item for item, _ in row] for row in rows]
        limit = min(room, limit + GAP_ACROSS)


def _row_length(extents: list[float]) -> float:
    """How long a row of boxes of these extents is, with the gaps between them."""
    return sum(extents) + GAP_ACROSS * max(len(extents) - 1, 0)


def _grid(group: Group, sized: Mapping[str, Box], down: bool) -> tuple[int, float, float]:
    """A group's grid: its columns (as many as ``MAX_WIDTH`` holds going down, with ``LANE_ROOM`` beside; one
    going right) and its cells' size, that of its largest member."""
    cell_w = max(sized[member].width for member in group.members)
    cell_h = max(sized[member].height for member in group.members)
    room = MAX_WIDTH - 2 * MARGIN - LANE_ROOM - 2 * GROUP_PAD
    columns = max(1, min(len(group.members), int((room + GROUP_GAP) // (cell_w + GROUP_GAP)))) if down else 1
    return columns, cell_w, cell_h


def _group_box(group: Group, sized: Mapping[str, Box], down: bool) -> Box:
    """A group's box: its label (and how many it holds) above its grid."""
    columns, cell_w, cell_h = _grid(group, sized, down)
    label = clip(f"{group.label} · {len(group.members)}", LABEL_CHARS + 8)
    lines = math.ceil(len(group.members) / columns)
    width = max(columns * cell_w + (columns - 1) * GROUP_GAP, text_width(label, LABEL_SIZE, bold=True))
    height = GROUP_HEADER + lines * cell_h + (lines - 1) * GROUP_GAP
    return Box(0.0, 0.0, width + 2 * GROUP_PAD, height + 2 * GROUP_PAD, label, ())


def _members_placed(group: Group, frame: Box, sized: Mapping[str, Box], down: bool) -> dict[str, Box]:
    """Each member's box in its cell of the group's grid, row by row, centred in its cell."""
    columns, cell_w, cell_h = _grid(group, sized, down)
    placed = {}
    for index, member in enumerate(group.members):
        line, column = divmod(index, columns)
        box = sized[member]
        x = frame.x + GROUP_PAD + column * (cell_w + GROUP_GAP) + (cell_w - box.width) / 2
        y = frame.y + GROUP_PAD + GROUP_HEADER + line * (cell_h + GROUP_GAP) + (cell_h - box.height) / 2
        placed[member] = replace(box, x=x, y=y)
    return placed


def _bundled(diagram: Diagram) -> tuple[Edge, ...]:
    """The arrows as drawn: those from one node to every member of a group in one style (or from every member to
    one node) become one arrow to (from) the group, labelled with how many it stands for."""
    edges = list(diagram.edges)
    for group in diagram.groups:
        members = set(group.members)
        if len(members) < 2:
            continue
        for towards in (True, False):
            ends: dict[tuple[str, str], list[Edge]] = {}
            for edge in edges:
                inside, outside = (edge.target, edge.source) if towards else (edge.source, edge.target)
                if inside in members and outside not in members:
                    ends.setdefault((outside, edge.style), []).append(edge)
            for (outside, style), bundle in ends.items():
                if {edge.target if towards else edge.source for edge in bundle} != members:
                    continue
                label = next((edge.label for edge in bundle if edge.label), "")
                each = f"{label} · each of {len(members)}" if label else f"each of {len(members)}"
                joined = Edge(outside, group.id, each, style) if towards else Edge(group.id, outside, each, style)
                first = edges.index(bundle[0])
                dropped = set(map(id, bundle))
                edges = [edge for edge in edges[:first] if id(edge) not in dropped] + [joined] + [
                    edge for edge in edges[first:] if id(edge) not in dropped]
    return tuple(edges)


def content_top(diagram: Diagram) -> float:
    """Where the boxes may start: below the title, and below the caption's lines when there is one."""
    return MARGIN + TITLE_HEIGHT + CAPTION_HEIGHT * len(caption_lines(diagram))


def caption_lines(diagram: Diagram) -> tuple[str, ...]:
    """The caption in lines at word boundaries, none wider than ``MAX_WIDTH`` (a word wider still has one of its
    own)."""
    room = MAX_WIDTH - 2 * MARGIN
    lines: list[str] = []
    for word in diagram.caption.split():
        grown = f"{lines[-1]} {word}" if lines else word
        if lines and text_width(grown, CAPTION_SIZE) <= room:
            lines[-1] = grown
        else:
            lines.append(word)
    return tuple(lines)


def legend_entries(diagram: Diagram, width: float = MAX_WIDTH) -> list[LegendEntry]:
    """Each legend entry's left edge, line (from 0), swatch colours (fill, stroke, opacity) and meaning, left to
    right, a new line wherever the next entry would pass ``width``."""
    entries, x, line = [], MARGIN, 0
    for key, meaning in diagram.legend:
        extent = LEGEND_SWATCH + text_width(meaning, LEGEND_SIZE)
        if x > MARGIN and x + extent + MARGIN > width:
            x, line = MARGIN, line + 1
        marks = frozenset({key}) & frozenset(MARKS)
        entries.append((x, line, node_colours("plain" if marks else key, marks), meaning))
        x += extent + 2 * PAD_X
    return entries


def edge_label_at(points: tuple[Point, ...], label: str) -> tuple[float, float, bool]:
    """Where an arrow's label starts (x, baseline) beside the middle of its path, and whether it ends there instead
    (written leftwards): a label that would run past ``MAX_WIDTH`` is written on the other side of its arrow."""
    (x1, y1), (x2, y2) = points[len(points) // 2 - 1], points[len(points) // 2]
    x, y = (x1 + x2) / 2, (y1 + y2) / 2 - 3
    if x + 4 + text_width(label, EDGE_LABEL_SIZE) + MARGIN > MAX_WIDTH:
        return x - 4, y, True
    return x + 4, y, False


def _bowed_reach(diagram: Diagram, geo: Geometry) -> tuple[float, float]:
    """How far right and down the arrows bowed out beside the boxes reach, with their labels: the page holds them."""
    right = bottom = 0.0
    for edge in geo.edges:
        points = edge_path(diagram, geo, edge)
        if len(points) > 2:
            x, _, leftwards = edge_label_at(points, edge.label)
            label_end = x + (0.0 if leftwards else text_width(edge.label, EDGE_LABEL_SIZE)) if edge.label else 0.0
            right = max(right, label_end, *(x for x, _ in points))
            bottom = max(bottom, *(y for _, y in points))
    return right, bottom


def edge_path(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[tuple[float, float], ...]:
    """The points of an arrow, never through a box: straight from one row to the next; around the boxes in
    between for one that skips rows or runs back (closing a cycle); under its row for one that stays in it or
    loops on one node. (An arrow to one member of a group, not bundled, may cross the members above it.)"""
    source, target = geo.boxes[edge.source], geo.boxes[edge.target]
    first, last = geo.row_of[edge.source], geo.row_of[edge.target]
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
    gap = max(each[1] for each in layers[geo.row_of[edge.source]]) + GAP_ALONG / 2
    loop = (source[3] - source[2]) / 6 if edge.source == edge.target else 0.0
    leave, join = (source[2] + source[3]) / 2 - loop, (target[2] + target[3]) / 2 + loop
    return point(source[1], leave), point(gap, leave), point(gap, join), point(target[1], join)


def _around(diagram: Diagram, geo: Geometry, edge: Edge) -> tuple[Point, ...]:
    """An arrow that skips layers or runs back, kept off every box: out of the source's side (or, when a
    neighbour is in the way, through the gap on its way), along a lane beside the boxes of the layers it passes,
    and into the target's side (or through the gap before it), on whichever side of the picture is shorter. A
    labelled arrow keeps to the right (or bottom) side, where its label has room."""
    span, point, layers = _spans(diagram, geo)
    first, last = geo.row_of[edge.source], geo.row_of[edge.target]
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
