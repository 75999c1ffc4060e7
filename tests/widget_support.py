"""What a widget puts on the page: the value of every HTML widget inside it, for tests that read what is shown."""

from __future__ import annotations

import ipywidgets as widgets


def html_values(widget: widgets.Widget) -> list[str]:
    """The value of every HTML widget inside ``widget``, itself included."""
    own = [widget.value] if isinstance(widget, widgets.HTML) else []
    return own + [value for child in getattr(widget, "children", ()) for value in html_values(child)]
