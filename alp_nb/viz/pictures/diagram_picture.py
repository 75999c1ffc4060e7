"""A boxes-and-arrows picture (delegation, a state machine, a contract's flow): a ``Diagram`` and its four
renderers, SVG, Mermaid, matplotlib and text."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from alp_nb.viz.models.diagram import Diagram
from alp_nb.viz.pictures.picture import Picture
from alp_nb.viz.renderers.mermaid import diagram_mermaid
from alp_nb.viz.renderers.outline import diagram_text
from alp_nb.viz.renderers.svg import diagram_svg

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class DiagramPicture(Picture):
    """A picture whose model is a ``Diagram``."""

    diagram: Diagram

    def to_svg(self) -> str:
        return diagram_svg(self.diagram)

    def to_mermaid(self) -> str:
        return diagram_mermaid(self.diagram)

    def to_text(self) -> str:
        return diagram_text(self.diagram)

    def draw(self, ax: Axes | None = None) -> Axes:
        """Draw on ``ax`` with matplotlib (a new figure when None) and return the axes."""
        from alp_nb.viz.renderers.figures import draw_diagram

        return draw_diagram(self.diagram, ax)
