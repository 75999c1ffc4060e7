"""A picture of a core object, and every way to draw it: SVG, Mermaid, matplotlib, text, and a notebook view.

A ``Picture`` holds only its model (a ``Diagram``); each method hands that
model to one renderer. In a notebook it shows as its inline SVG (with its text
for plain displays), through the same one rendering path as every core object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .diagram import Diagram
from .mermaid import diagram_mermaid
from .outline import diagram_text
from .svg import diagram_svg
from .views import mimebundle

if TYPE_CHECKING:
    from matplotlib.axes import Axes


@dataclass(frozen=True)
class Picture:
    """A boxes-and-arrows picture (delegation, a state machine, a contract's flow) built from its model."""

    diagram: Diagram

    def to_svg(self) -> str:
        return diagram_svg(self.diagram)

    def to_mermaid(self) -> str:
        return diagram_mermaid(self.diagram)

    def to_text(self) -> str:
        return diagram_text(self.diagram)

    def draw(self, ax: Axes | None = None) -> Axes:
        """Draw on ``ax`` with matplotlib (a new figure when None) and return the axes."""
        from .figures import draw_diagram

        return draw_diagram(self.diagram, ax)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return mimebundle(self)


def picture_html(picture: Picture) -> str:
    return f'<div class="alp-picture" style="overflow-x:auto;max-width:100%">{picture.to_svg()}</div>'


def picture_svg(picture: Picture) -> str:
    return picture.to_svg()


def picture_mermaid(picture: Picture) -> str:
    return picture.to_mermaid()


def picture_text(picture: Picture) -> str:
    return picture.to_text()
