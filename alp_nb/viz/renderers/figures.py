"""A ``Diagram`` drawn with matplotlib, for users who compose figures: the same boxes, arrows and colours as
the SVG, on an ``Axes`` of theirs or a new one. matplotlib is imported only when a picture is drawn. Text is never
read as mathtext (``parse_math=False``): a label holding ``$`` is drawn as written, never parsed (or refused).
Text goes through ``drawable`` (no empty boxes for glyphs the font lacks). Arrows are one line collection and one
head collection per style, and boxes are added as artists, not patches (the axes' limits are set once from the
page): a 1,000-box picture costs its text, not a patch per arrow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from alp_nb.viz.models.diagram import Diagram
from alp_nb.viz.models.geometry import (
    CAPTION_HEIGHT,
    DETAIL_LINE,
    GROUP_PAD,
    LEGEND_HEIGHT,
    LINE,
    MARGIN,
    PAD_Y,
    TITLE_HEIGHT,
    Geometry,
    Point,
    arrowhead_corners,
    edge_label_at,
    edge_path,
    geometry,
)
from alp_nb.viz.models.palette import EDGE_COLOURS, FAINT_INK, INK, node_colours
from alp_nb.viz.renderers.figure_text import drawable

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PIXELS_PER_INCH = 96


def draw_diagram(diagram: Diagram, ax: Axes | None = None) -> Axes:
    """Draw ``diagram`` on ``ax`` (a new figure sized to the picture when None) and return the axes."""
    import matplotlib.pyplot as plt

    geo = geometry(diagram)
    if ax is None:  # axes filling the figure, so a unit is a pixel and the text fits its box as in the SVG
        ax = plt.figure(figsize=(geo.width / PIXELS_PER_INCH, geo.height / PIXELS_PER_INCH)).add_axes((0, 0, 1, 1))
    ax.set_xlim(0, geo.width)
    ax.set_ylim(geo.height, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.text(MARGIN, MARGIN + 14, drawable(diagram.title), fontsize=10.5, fontweight="bold", color=INK,
            parse_math=False)
    for index, line in enumerate(geo.caption):
        ax.text(MARGIN, MARGIN + TITLE_HEIGHT + CAPTION_HEIGHT * (index + 1) - 6, drawable(line), fontsize=8,
                color=FAINT_INK, parse_math=False)
    _draw_groups(ax, diagram, geo)
    _draw_edges(ax, diagram, geo)
    _draw_nodes(ax, diagram, geo)
    _draw_legend(ax, geo)
    return ax


def _draw_groups(ax: Axes, diagram: Diagram, geo: Geometry) -> None:
    """Each group's box and label, drawn first: behind its members and the arrows, as in the SVG."""
    from matplotlib.patches import FancyBboxPatch

    for group in diagram.groups:
        frame = geo.boxes[group.id]
        ax.add_artist(FancyBboxPatch((frame.x, frame.y), frame.width, frame.height,
                                     boxstyle="round,pad=0,rounding_size=8", facecolor="#fafafa", edgecolor="#9e9e9e",
                                     linewidth=1, linestyle=":"))
        ax.text(frame.x + GROUP_PAD, frame.y + GROUP_PAD + 12, drawable(frame.label), fontsize=8,
                fontweight="bold", color=INK, parse_math=False)


def _draw_edges(ax: Axes, diagram: Diagram, geo: Geometry) -> None:
    """The arrows and their labels: one line collection and one head collection per style, so a picture of many
    arrows costs two artists a style, not a patch each."""
    from matplotlib.collections import LineCollection, PolyCollection

    lines: dict[str, list[tuple[Point, ...]]] = {}
    heads: dict[str, list[tuple[Point, ...]]] = {}
    for edge in geo.edges:
        points = edge_path(diagram, geo, edge)
        lines.setdefault(edge.style, []).append(points)
        heads.setdefault(edge.style, []).append(arrowhead_corners(points[-2], points[-1]))
        if edge.label:
            x, y, leftwards = edge_label_at(points, edge.label)
            ax.text(x, y, drawable(edge.label), fontsize=7, color=EDGE_COLOURS[edge.style],
                    ha="right" if leftwards else "left", parse_math=False)
    for style, paths in lines.items():  # each line ended by a filled head as in the SVG
        colour = EDGE_COLOURS[style]
        ax.add_collection(LineCollection(paths, colors=colour, linewidths=2 if style == "alarm" else 1.2,
                                         linestyles="--" if style == "dashed" else "-"), autolim=False)
        ax.add_collection(PolyCollection(heads[style], facecolors=colour, edgecolors="none"), autolim=False)


def _draw_nodes(ax: Axes, diagram: Diagram, geo: Geometry) -> None:
    """Each node's box, over the arrows, with its label and detail centred in it."""
    from matplotlib.patches import FancyBboxPatch

    for node in diagram.nodes:
        box = geo.boxes[node.id]
        fill, stroke, opacity = node_colours(node.style, node.marks)
        ax.add_artist(FancyBboxPatch((box.x, box.y), box.width, box.height, boxstyle="round,pad=0,rounding_size=6",
                                     facecolor=fill, edgecolor=stroke, alpha=opacity,
                                     linewidth=2.5 if node.marks & {"current", "alarm"} else 1.2,
                                     linestyle="--" if node.style == "custom" else "-"))
        if node.style == "terminal":  # a final status: a second border inside the first, as in the SVG
            ax.add_artist(FancyBboxPatch((box.x + 3, box.y + 3), box.width - 6, box.height - 6,
                                         boxstyle="round,pad=0,rounding_size=4", facecolor="none", edgecolor=stroke,
                                         alpha=opacity, linewidth=1))
        centre = box.x + box.width / 2
        ax.text(centre, box.y + PAD_Y + 12, drawable(box.label), ha="center", fontsize=8, fontweight="bold", color=INK,
                alpha=opacity, parse_math=False)
        for index, line in enumerate(box.detail):
            ax.text(centre, box.y + PAD_Y + LINE + DETAIL_LINE * index + 9, drawable(line), ha="center", fontsize=7,
                    color=FAINT_INK, alpha=opacity, parse_math=False)


def _draw_legend(ax: Axes, geo: Geometry) -> None:
    """The legend's entries where the page laid them out: a swatch and its meaning each."""
    from matplotlib.patches import FancyBboxPatch

    for x, row, (fill, stroke, opacity), meaning in geo.legend:
        y = geo.legend_y + LEGEND_HEIGHT * row
        ax.add_artist(FancyBboxPatch((x, y + 4), 14, 12, boxstyle="round,pad=0,rounding_size=3",
                                     facecolor=fill, edgecolor=stroke, alpha=opacity))
        ax.text(x + 19, y + 14, drawable(meaning), fontsize=7, color=FAINT_INK, parse_math=False)
