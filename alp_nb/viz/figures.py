"""A ``Diagram`` drawn with matplotlib, for users who compose figures: the same boxes, arrows and colours as
the SVG, on an ``Axes`` of theirs or a new one. matplotlib is imported only when a picture is drawn. Text is never
read as mathtext (``parse_math=False``): a label holding ``$`` is drawn as written, never parsed (or refused)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagram import Diagram
from .geometry import DETAIL_LINE, LINE, MARGIN, PAD_Y, content_top, edge_path, geometry, legend_entries
from .palette import EDGE_COLOURS, FAINT_INK, INK, node_colours

if TYPE_CHECKING:
    from matplotlib.axes import Axes

PIXELS_PER_INCH = 96


def draw_diagram(diagram: Diagram, ax: Axes | None = None) -> Axes:
    """Draw ``diagram`` on ``ax`` (a new figure sized to the picture when None) and return the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path

    geo = geometry(diagram)
    if ax is None:  # axes filling the figure, so a unit is a pixel and the text fits its box as in the SVG
        ax = plt.figure(figsize=(geo.width / PIXELS_PER_INCH, geo.height / PIXELS_PER_INCH)).add_axes((0, 0, 1, 1))
    ax.set_xlim(0, geo.width)
    ax.set_ylim(geo.height, 0)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.text(MARGIN, MARGIN + 14, diagram.title, fontsize=10.5, fontweight="bold", color=INK, parse_math=False)
    if diagram.caption:
        ax.text(MARGIN, content_top(diagram) - 6, diagram.caption, fontsize=8, color=FAINT_INK, parse_math=False)
    for edge in diagram.edges:
        points = edge_path(diagram, geo, edge)
        colour = EDGE_COLOURS[edge.style]
        ax.add_patch(FancyArrowPatch(path=Path(points), arrowstyle="-|>", mutation_scale=10, color=colour,
                                     linestyle="--" if edge.style == "dashed" else "-",
                                     linewidth=2 if edge.style == "alarm" else 1.2))
        if edge.label:
            (x1, y1), (x2, y2) = points[len(points) // 2 - 1], points[len(points) // 2]
            ax.text((x1 + x2) / 2 + 4, (y1 + y2) / 2 - 3, edge.label, fontsize=7, color=colour, parse_math=False)
    for node in diagram.nodes:
        box = geo.boxes[node.id]
        fill, stroke, opacity = node_colours(node.style, node.marks)
        ax.add_patch(FancyBboxPatch((box.x, box.y), box.width, box.height, boxstyle="round,pad=0,rounding_size=6",
                                    facecolor=fill, edgecolor=stroke, alpha=opacity,
                                    linewidth=2.5 if node.marks & {"current", "alarm"} else 1.2,
                                    linestyle="--" if node.style == "custom" else "-"))
        centre = box.x + box.width / 2
        ax.text(centre, box.y + PAD_Y + 12, box.label, ha="center", fontsize=8, fontweight="bold", color=INK,
                alpha=opacity, parse_math=False)
        for index, line in enumerate(box.detail):
            ax.text(centre, box.y + PAD_Y + LINE + DETAIL_LINE * index + 9, line, ha="center", fontsize=7,
                    color=FAINT_INK, alpha=opacity, parse_math=False)
    for x, (fill, stroke, opacity), meaning in legend_entries(diagram):
        ax.add_patch(FancyBboxPatch((x, geo.legend_y + 4), 14, 12, boxstyle="round,pad=0,rounding_size=3",
                                    facecolor=fill, edgecolor=stroke, alpha=opacity))
        ax.text(x + 19, geo.legend_y + 14, meaning, fontsize=7, color=FAINT_INK, parse_math=False)
    return ax
