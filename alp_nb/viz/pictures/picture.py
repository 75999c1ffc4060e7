"""The one base of every picture: a model, the renderers that draw it, and its notebook view.

A picture holds only its model (a ``Diagram``, a ``Matrix``, a run's ``Timeline``) and hands it to one renderer
per format. This base gives every picture the same face: ``to_html`` (its SVG in a box that scrolls rather than
runs past the column), the one rendering path (``render(picture, fmt)``, a notebook's mime bundle), and the
formats it has (Mermaid only where a picture is boxes and arrows). A new picture is a subclass with its model,
its renderers and one registration in ``gallery``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from alp_nb.viz.errors import VizError
from alp_nb.viz.rendering import Format, mimebundle

if TYPE_CHECKING:
    from matplotlib.axes import Axes

SCROLLS = '<div class="alp-picture" style="overflow-x:auto;max-width:100%">{}</div>'
"""The box a picture's HTML sits in: wider than its column, it scrolls inside its output."""


class Picture(ABC):
    """A picture of a core object: its model, drawn as SVG, text and with matplotlib, and as Mermaid when a
    subclass has that form."""

    @abstractmethod
    def to_svg(self) -> str:
        """The picture as one ``<svg>`` element: every string from the model escaped."""

    @abstractmethod
    def to_text(self) -> str:
        """What the picture says, as plain text: for a terminal, a log, or a reader with no pictures."""

    @abstractmethod
    def draw(self, ax: Axes | None = None) -> Axes:
        """Draw on ``ax`` with matplotlib (a new figure when None) and return the axes."""

    def to_html(self) -> str:
        return SCROLLS.format(self.to_svg())

    def to_mermaid(self) -> str:
        raise VizError("NO_VIEW", f"a {type(self).__name__} has no Mermaid form")

    @property
    def formats(self) -> tuple[Format, ...]:
        """The formats ``render`` draws this picture in."""
        mermaid = type(self).to_mermaid is not Picture.to_mermaid
        return ("html", "text", "svg", *(("mermaid",) if mermaid else ()))

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return mimebundle(self)


def picture_formats(picture: Picture) -> tuple[Format, ...]:
    return picture.formats


def picture_html(picture: Picture) -> str:
    return picture.to_html()


def picture_svg(picture: Picture) -> str:
    return picture.to_svg()


def picture_mermaid(picture: Picture) -> str:
    return picture.to_mermaid()


def picture_text(picture: Picture) -> str:
    return picture.to_text()
