"""A ``Diagram`` drawn with matplotlib, for users who compose figures: the same boxes, arrows and colours as
the SVG, on an ``Axes`` of theirs or a new one. matplotlib is imported only when a picture is drawn. Text is never
read as mathtext (``parse_math=False``): a label holding ``$`` is drawn as written, never parsed (or refused).
Text goes through ``drawable`` (no empty boxes for glyphs the font lacks). Arrows are one line collection and one
head collection per style, and boxes are added as artists, not patches (the axes' limits are set once from the
page): a 1,000-box picture costs its text, not a patch per arrow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagram import Diagram
from .figure_text import drawable
from .geometry import (
    DETAIL_LINE,
    LINE,
    MARGIN,
    PAD_Y,
    Point,
    arrowhead_corners,
    content_top,
    edge_path,
    geometry,
    legend_entries,
)
from .palette import EDGE_COLOURS, FAINT_INK, INK, node_colours

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PIXELS_PER_INCH = 96


def draw_diagram(diagram: Diagram, ax: Axes | None = None) -> Axes:
    """Draw ``diagram`` on ``ax`` (a new figure sized to the picture when None) and return the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.patches import FancyBboxPatch

    geo = geometry(diagram)
    if ax is None:  # axes filling the figure, so a unit is a pixel and the text fits its box as in the SVG
        ax = plt.figure(figsize=(geo.width / PIXELS_PER_INCH, geo.height / PIXELS_PER_INCH)).add_axes((0, 0, 1, 1))
    ax.set_xlim(0, geo.width)
    ax.set_ylim(geo.height, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.text(MARGIN, MARGIN + 14, drawable(diagram.title), fontsize=10.5, fontweight="bold", color=INK,
            parse_math=False)
    if diagram.caption:
        ax.text(MARGIN, content_top(diagram) - 6, drawable(diagram.caption), fontsize=8, color=FAINT_INK,
                parse_math=False)
    lines: dict[str, list[tuple[Point, ...]]] = {}
    heads: dict[str, list[tuple[Point, ...]]] = {}
    for edge in diagram.edges:
        points = edge_path(diagram, geo, edge)
        lines.setdefault(edge.style, []).append(points)
        heads.setdefault(edge.style, []).append(arrowhead_corners(points[-2], points[-1]))
        if edge.label:
            (x1, y1), (x2, y2) = points[len(points) // 2 - 1], points[len(points) // 2]
            ax.text((x1 + x2) / 2 + 4, (y1 + y2) / 2 - 3, drawable(edge.label), fontsize=7,
                    color=EDGE_COLOURS[edge.style], parse_math=False)
    for style, paths in lines.items():  # one collection per style, each line ended by a filled head as in the SVG
        colour = EDGE_COLOURS[style]
        ax.add_collection(LineCollection(paths, colors=colour, linewidths=2 if style == "alarm" else 1.2,
                                         linestyles="--" if style == "dashed" else "-"), autolim=False)
        ax.add_collection(PolyCollection(heads[style], facecolors=colour, edgecolors="none"), autolim=False)
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
    for x, (fill, stroke, opacity), meaning in legend_entries(diagram):
        ax.add_artist(FancyBboxPatch((x, geo.legend_y + 4), 14, 12, boxstyle="round,pad=0,rounding_size=3",
                                     facecolor=fill, edgecolor=stroke, alpha=opacity))
        ax.text(x + 19, geo.legend_y + 14, drawable(meaning), fontsize=7, color=FAINT_INK, parse_math=False)
    return ax

