"""A table picture (the capability matrix): a ``Matrix`` and its renderers (``renderers.matrix_renderers``); no
Mermaid, which draws no tables. In a notebook it shows its HTML table through the one rendering path."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from alp_nb.viz.models.matrix import Matrix
from alp_nb.viz.pictures.picture import Picture
from alp_nb.viz.renderers.matrix_renderers import draw_matrix, matrix_html, matrix_svg, matrix_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class MatrixPicture(Picture):
    """A table picture built from its model."""

    matrix: Matrix

    def to_svg(self) -> str:
        return matrix_svg(self.matrix)

    def to_html(self) -> str:
        return matrix_html(self.matrix)

    def to_text(self) -> str:
        return matrix_text(self.matrix)

    def draw(self, ax: Axes | None = None) -> Axes:
        """Draw on ``ax`` with matplotlib (a new figure when None) and return the axes."""
        return draw_matrix(self.matrix, ax)
