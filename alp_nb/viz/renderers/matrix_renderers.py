"""A ``Matrix`` drawn every way a table picture is: SVG, an HTML table, aligned text, matplotlib.

The SVG is a grid in pure Python: text stays ``<text>``, colours are
attributes (cells of one mark share a group carrying theirs, which keeps a
forty-row matrix small), and every string passes through ``svg.xml_text``. There
is no Mermaid form: Mermaid draws no tables. In a notebook the picture shows
its HTML table through the one rendering path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from alp_nb.base.text import clip
from alp_nb.viz.html import block, esc
from alp_nb.viz.models.geometry import MARGIN, TITLE_HEIGHT
from alp_nb.viz.models.matrix import (
    CAPTION_HEIGHT,
    CELL_CHARS,
    CELL_COLOURS,
    HEADER_SLANT,
    LEGEND_SYMBOLS,
    PAD_X,
    PAD_Y,
    Grid,
    Matrix,
    grid,
    legend_spots,
    placed,
    shown,
)
from alp_nb.viz.models.palette import FAINT_INK, INK, PAPER
from alp_nb.viz.renderers.figure_text import drawable
from alp_nb.viz.renderers.svg import FONT, xml_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

GRID, GROUP_RULE = "#dddddd", "#9e9e9e"
"""The colours of the cell borders, and of the rules under the header and between groups."""
PIXELS_PER_INCH = 96


def matrix_svg(matrix: Matrix) -> str:
    """The grid as one ``<svg>``: the marked cells filled, the rules as two paths, every text a ``<text>``; cells
    of one mark share a group that carries their colour."""
    geo = grid(matrix)
    width, height = round(geo.width), round(geo.height)
    right, bottom = MARGIN + sum(geo.widths), geo.tops[-1] + geo.heights[-1]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="{FONT}" font-size="12" role="img" aria-label="{xml_text(matrix.title)}">',
        f"<title>{xml_text(matrix.title)}</title>",
        f'<text x="{MARGIN}" y="{MARGIN + 14}" font-size="14" font-weight="600" fill="{INK}">'
        f"{xml_text(matrix.title)}</text>",
    ]
    if matrix.caption:
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + TITLE_HEIGHT + CAPTION_HEIGHT - 6}" font-size="11" '
                     f'fill="{FAINT_INK}">{xml_text(matrix.caption)}</text>')
    fills: dict[str, list[str]] = {}
    texts: dict[tuple[str, bool], list[str]] = {}
    for row_index, row in enumerate(matrix.rows, start=1):
        top, row_height = geo.tops[row_index], geo.heights[row_index]
        for left, column_width, cell in zip(geo.lefts, geo.widths, row.cells, strict=True):
            if CELL_COLOURS[cell.mark][0] != PAPER:
                fills.setdefault(cell.mark, []).append(
                    f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(column_width)}" height="{_n(row_height)}"/>')
            texts.setdefault((cell.mark, cell.mark != "label"), []).extend(
                f'<text x="{_n(x)}" y="{_n(y)}">{xml_text(line)}</text>'
                for x, y, line in placed(cell, left, column_width, top, row_height))
    parts += [f'<g fill="{CELL_COLOURS[mark][0]}">{"".join(rects)}</g>' for mark, rects in fills.items()]
    rules = "".join(f"M{_n(MARGIN)},{_n(top)}H{_n(right)}" for top in (geo.tops[0], *geo.tops[2:], bottom))
    rules += "".join(f"M{_n(left)},{_n(geo.tops[0])}V{_n(bottom)}" for left in (*geo.lefts, right))
    groups = "".join(f"M{_n(MARGIN)},{_n(geo.tops[index])}H{_n(right)}"
                     for index, row in enumerate(matrix.rows, start=1) if row.opens_group and index > 1)
    under_header = geo.tops[0] + geo.heights[0]
    parts.append(f'<path d="{rules}" fill="none" stroke="{GRID}"/><path d="M{_n(MARGIN)},{_n(under_header)}'
                 f'H{_n(right)}{groups}" stroke="{GROUP_RULE}" stroke-width="1.5"/>')
    for (mark, centred), lines in texts.items():
        anchor = ' text-anchor="middle"' if centred else ""
        parts.append(f'<g fill="{CELL_COLOURS[mark][1]}"{anchor}>{"".join(lines)}</g>')
    parts.append(_svg_header(matrix, geo))
    for x, mark, meaning in legend_spots(matrix):
        fill, ink = CELL_COLOURS[mark]
        parts.append(f'<rect x="{_n(x)}" y="{_n(geo.legend_y)}" width="16" height="14" fill="{fill}" '
                     f'stroke="{GRID}"/><text x="{_n(x + 8)}" y="{_n(geo.legend_y + 11)}" text-anchor="middle" '
                     f'font-size="10.5" fill="{ink}">{xml_text(LEGEND_SYMBOLS.get(mark, ""))}</text>'
                     f'<text x="{_n(x + 21)}" y="{_n(geo.legend_y + 11)}" font-size="10.5" fill="{FAINT_INK}">'
                     f"{xml_text(meaning)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def _svg_header(matrix: Matrix, geo: Grid) -> str:
    """The column labels in bold: along the bottom of the header row, or slanting up from a narrow column."""
    bottom = geo.tops[0] + geo.heights[0] - PAD_Y - 3
    texts = []
    for left, column_width, narrow, column in zip(geo.lefts, geo.widths, geo.narrow, matrix.columns, strict=True):
        label = xml_text(clip(column, CELL_CHARS))
        if narrow:
            x = left + column_width / 2 + 4
            texts.append(f'<text x="{_n(x)}" y="{_n(bottom)}" transform="rotate(-{HEADER_SLANT} {_n(x)} '
                         f'{_n(bottom)})">{label}</text>')
        else:
            texts.append(f'<text x="{_n(left + PAD_X)}" y="{_n(bottom)}">{label}</text>')
    return f'<g font-weight="600" fill="{INK}">{"".join(texts)}</g>'


def _n(value: float) -> str:
    return f"{round(value, 1):g}"


SCROLLS = "overflow-x:auto;max-width:100%"
"""The table's box: a matrix wider than the notebook's column (a file browser open beside it) scrolls inside the
output instead of running past its right edge."""


def matrix_html(matrix: Matrix) -> str:
    """A ``<table>``: a header row, then one row per row of the matrix; colours as inline styles."""
    head = "".join(f"<th>{esc(column)}</th>" for column in matrix.columns)
    body = []
    for row in matrix.rows:
        rule = ' style="border-top:2px solid #9e9e9e"' if row.opens_group else ""
        cells = []
        for cell in row.cells:
            fill, ink = CELL_COLOURS[cell.mark]
            align = "" if cell.mark == "label" else "text-align:center;"
            cells.append(f'<td style="{align}background:{fill};color:{ink}">'
                         f"{'<br>'.join(esc(line) for line in shown(cell.lines))}</td>")
        body.append(f"<tr{rule}>{''.join(cells)}</tr>")
    legend = " · ".join(f'<span style="background:{CELL_COLOURS[mark][0]};color:{CELL_COLOURS[mark][1]};'
                        f'padding:0 4px">{esc(LEGEND_SYMBOLS.get(mark, " "))}</span> {esc(meaning)}'
                        for mark, meaning in matrix.legend)
    caption = f'<div class="muted">{esc(matrix.caption)}</div>' if matrix.caption else ""
    return block(f"<div><b>{esc(matrix.title)}</b></div>{caption}"
                 f'<div style="{SCROLLS}"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
                 "</table></div>"
                 f'<div class="muted">{legend}</div>')


def matrix_text(matrix: Matrix) -> str:
    """Aligned columns, a cell's lines joined by commas; a blank line before each group."""
    rows = [tuple(clip(column, CELL_CHARS) for column in matrix.columns)]
    rows += [tuple(", ".join(shown(cell.lines)) for cell in row.cells) for row in matrix.rows]
    widths = [max(len(row[index]) for row in rows) for index in range(len(matrix.columns))]
    lines = [matrix.title, *([matrix.caption] if matrix.caption else [])]
    for number, row in enumerate(rows):
        if number > 1 and matrix.rows[number - 1].opens_group:  # rows[0] is the header
            lines.append("")
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    if any(mark in LEGEND_SYMBOLS for mark, _ in matrix.legend):
        lines.append("legend: " + "; ".join(f"{LEGEND_SYMBOLS[mark]} = {meaning}"
                                            for mark, meaning in matrix.legend if mark in LEGEND_SYMBOLS))
    return "\n".join(lines)


def draw_matrix(matrix: Matrix, ax: Axes | None = None) -> Axes:
    """The grid drawn with matplotlib, on ``ax`` (a new figure sized to the table when None); text is never read
    as mathtext, so an id holding ``$`` is drawn as written. The cells are one collection, so a thousand-row
    matrix costs its text and not a patch per cell."""
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    geo = grid(matrix)
    if ax is None:  # axes filling the figure, so a unit is a pixel, as in the SVG
        ax = plt.figure(figsize=(geo.width / PIXELS_PER_INCH, geo.height / PIXELS_PER_INCH)).add_axes((0, 0, 1, 1))
    ax.set_xlim(0, geo.width)
    ax.set_ylim(geo.height, 0)
    ax.set_axis_off()
    ax.text(MARGIN, MARGIN + 14, drawable(matrix.title), fontsize=10.5, fontweight="bold", color=INK,
            parse_math=False)
    if matrix.caption:
        ax.text(MARGIN, MARGIN + TITLE_HEIGHT + CAPTION_HEIGHT - 6, drawable(matrix.caption), fontsize=8,
                color=FAINT_INK, parse_math=False)
    right = MARGIN + sum(geo.widths)
    bottom = geo.tops[0] + geo.heights[0] - PAD_Y - 3
    for left, column_width, narrow, column in zip(geo.lefts, geo.widths, geo.narrow, matrix.columns, strict=True):
        x = left + column_width / 2 + 4 if narrow else left + PAD_X
        ax.text(x, bottom, drawable(clip(column, CELL_CHARS)), fontsize=8, fontweight="bold", color=INK,
                parse_math=False, rotation=HEADER_SLANT if narrow else 0, rotation_mode="anchor")
    cells, fills = [], []
    for row_index, row in enumerate(matrix.rows, start=1):
        top, row_height = geo.tops[row_index], geo.heights[row_index]
        for left, column_width, cell in zip(geo.lefts, geo.widths, row.cells, strict=True):
            fill, ink = CELL_COLOURS[cell.mark]
            cells.append(((left, top), (left + column_width, top), (left + column_width, top + row_height),
                          (left, top + row_height)))
            fills.append(fill)
            for x, y, line in placed(cell, left, column_width, top, row_height):
                ax.text(x, y, drawable(line), ha="left" if cell.mark == "label" else "center", fontsize=8,
                        color=ink, parse_math=False)
        if row.opens_group or row_index == 1:
            ax.plot((MARGIN, right), (top, top), color=GROUP_RULE, linewidth=1.2, zorder=2)
    for x, mark, meaning in legend_spots(matrix):
        fill, ink = CELL_COLOURS[mark]
        cells.append(((x, geo.legend_y), (x + 16, geo.legend_y), (x + 16, geo.legend_y + 14), (x, geo.legend_y + 14)))
        fills.append(fill)
        ax.text(x + 8, geo.legend_y + 11, LEGEND_SYMBOLS.get(mark, ""), ha="center", fontsize=7, color=ink)
        ax.text(x + 21, geo.legend_y + 11, drawable(meaning), fontsize=7, color=FAINT_INK, parse_math=False)
    ax.add_collection(PolyCollection(cells, facecolors=fills, edgecolors=GRID, linewidths=0.6, zorder=1),
                      autolim=False)
    return ax
