"""A table as a picture's model: a title, column labels, rows of marked cells, and where each goes on the page.

A capability matrix is a grid, not a graph: it is read across a row (what one
role may do) and down a column (who holds a tool), so it has its own model
rather than boxes and arrows. ``grid`` lays it out for the SVG and matplotlib
renderers (``matrix_picture``), as ``geometry`` does a ``Diagram``: columns as
wide as their text, a column of symbols narrow with its header slanted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from alp_nb.base.text import clip
from alp_nb.viz.models.geometry import MARGIN, TITLE_HEIGHT
from alp_nb.viz.models.palette import FAINT_INK, INK, PAPER

CELL_MARKS: tuple[str, ...] = ("label", "open", "closed", "absent", "grant", "none")
"""What a cell says: a row's own label; a tool open, granted but closed (in this state), or not granted; a grant
of memory or workspace, or no such grant."""

CELL_COLOURS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "label": (PAPER, INK), "open": ("#e8f5e9", "#2e7d32"), "closed": ("#f5f5f5", FAINT_INK),
    "absent": (PAPER, FAINT_INK), "grant": ("#e3f2fd", INK), "none": (PAPER, FAINT_INK),
})
"""(fill, ink) of each cell mark."""
SYMBOL_MARKS = frozenset({"open", "closed", "absent"})
"""Marks of cells that hold at most a symbol: a column of them is narrow, its header slanted."""
LEGEND_SYMBOLS: Mapping[str, str] = MappingProxyType({"open": "✓", "closed": "·"})
"""The symbol a cell of these marks holds, shown in the legend's swatch too."""

CELL_CHARS = 40
LINE, PAD_X, PAD_Y = 14.0, 8.0, 4.0
NARROW_WIDTH, HEADER_SLANT = 28.0, 60
"""A column of one-character cells (a tool's ✓) is this wide, its header written slanting up at this angle."""
LEGEND_HEIGHT, CAPTION_HEIGHT = 24.0, 16.0


def text_width(text: str, bold: bool = False) -> float:
    """The width of a 12 px line, estimated without measuring a font: capitals are wider than the rest."""
    width = sum(8.0 if char.isupper() else 6.3 for char in text)
    return width * 1.15 if bold else width


@dataclass(frozen=True)
class Cell:
    """One cell: its lines of text (none for an empty cell) and its mark."""

    lines: tuple[str, ...] = ()
    mark: str = "label"


@dataclass(frozen=True)
class Row:
    """A row of cells; ``opens_group`` draws a rule above it (the first state of another role)."""

    cells: tuple[Cell, ...]
    opens_group: bool = False


@dataclass(frozen=True)
class Matrix:
    """A table as data; every row has a cell per column. ``legend`` pairs a mark with what it means."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    legend: tuple[tuple[str, str], ...] = ()
    caption: str = ""

    def __post_init__(self) -> None:
        for number, row in enumerate(self.rows):
            if len(row.cells) != len(self.columns):
                raise ValueError(f"row {number} has {len(row.cells)} cells for {len(self.columns)} columns")
            if any(cell.mark not in CELL_MARKS for cell in row.cells):
                raise ValueError(f"row {number} has a cell with an unknown mark")


@dataclass(frozen=True)
class Grid:
    """Where everything of a ``Matrix`` goes: column lefts and widths, which columns are narrow (slanted
    headers), row tops and heights (the header first), the page size, and the top of the legend row."""

    lefts: tuple[float, ...]
    widths: tuple[float, ...]
    narrow: tuple[bool, ...]
    tops: tuple[float, ...]
    heights: tuple[float, ...]
    width: float
    height: float
    legend_y: float


def shown(lines: Iterable[str]) -> tuple[str, ...]:
    """A cell's lines as drawn: each on one line, cut to ``CELL_CHARS``."""
    return tuple(clip(line, CELL_CHARS) for line in lines)


def grid(matrix: Matrix) -> Grid:
    """Columns as wide as their widest line (a column of symbols narrow, its header slanted), rows as tall as
    their tallest cell, the header as tall as its longest slanted label."""
    widths: list[float] = []
    narrow: list[bool] = []
    slanted, reach = [0.0], [0.0]
    for index, column in enumerate(matrix.columns):
        lines = [line for row in matrix.rows for line in shown(row.cells[index].lines)]
        header = text_width(clip(column, CELL_CHARS), bold=True)
        if matrix.rows and all(row.cells[index].mark in SYMBOL_MARKS for row in matrix.rows):
            reach.append(MARGIN + sum(widths) + NARROW_WIDTH / 2 + header * math.cos(math.radians(HEADER_SLANT)))
            widths.append(NARROW_WIDTH)
            narrow.append(True)
            slanted.append(header * math.sin(math.radians(HEADER_SLANT)))
        else:
            widths.append(max([header, *(text_width(line) for line in lines)]) + 2 * PAD_X)
            narrow.append(False)
    heights = [max(slanted) + LINE + 2 * PAD_Y]
    heights += [max([1, *(len(cell.lines) for cell in row.cells)]) * LINE + 2 * PAD_Y for row in matrix.rows]
    top = MARGIN + TITLE_HEIGHT + (CAPTION_HEIGHT if matrix.caption else 0.0)
    lefts = [MARGIN + sum(widths[:index]) for index in range(len(widths))]
    tops = [top + sum(heights[:index]) for index in range(len(heights))]
    legend_y = top + sum(heights) + 8
    legend_right = legend_spots(matrix)[-1][0] + 26 + text_width(matrix.legend[-1][1]) if matrix.legend else 0.0
    width = max(MARGIN + sum(widths), *reach, text_width(matrix.title, bold=True), text_width(matrix.caption),
                legend_right) + MARGIN
    height = legend_y + (LEGEND_HEIGHT if matrix.legend else 0.0) + MARGIN - 8
    return Grid(tuple(lefts), tuple(widths), tuple(narrow), tuple(tops), tuple(heights), width, height, legend_y)


def legend_spots(matrix: Matrix) -> list[tuple[float, str, str]]:
    """Each legend entry's left edge, mark and meaning, left to right."""
    spots, x = [], MARGIN
    for mark, meaning in matrix.legend:
        spots.append((x, mark, meaning))
        x += 26 + text_width(meaning) * 0.9 + PAD_X
    return spots


def placed(cell: Cell, left: float, width: float, top: float, height: float) -> list[tuple[float, float, str]]:
    """Where each line of a cell's text goes (its anchor point), centred in its row; a label starts at the left."""
    lines = shown(cell.lines)
    x = left + PAD_X if cell.mark == "label" else left + width / 2
    first = top + (height - LINE * len(lines)) / 2 + 11
    return [(x, first + LINE * index, line) for index, line in enumerate(lines)]
