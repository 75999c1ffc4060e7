"""Text from the model as a widget's HTML shows it: escaped, clipped, and with its invisible characters made visible.

A contract, a prompt, a value or a label may come from someone else. ``esc`` keeps it from being markup; the
terminal's rule (``viz.terminal.plain``) also shows bidirectional overrides and zero-width characters as
``\\uNNNN``, so a label cannot read differently on the page from what it is; and clipping keeps a 10 KB label from
swamping the widget.
"""

from __future__ import annotations

from alp_nb.base.text import clip
from alp_nb.viz.html import esc
from alp_nb.viz.terminal import plain, plain_line

LINE_CHARS = 120
"""The most characters of a one-line value (a label, a phase, a path) shown."""


def shown(value: object, limit: int = LINE_CHARS) -> str:
    """``value`` as one escaped line of at most ``limit`` characters (an ellipsis where it was cut)."""
    return esc(plain_line(clip(str(value), limit)))


def shown_block(text: str, limit: int) -> str:
    """Text whose line breaks are its own (a prompt, a value as JSON), escaped for a ``<pre>``, cut after ``limit``
    characters with a note of how many were left out."""
    if len(text) <= limit:
        return esc(plain(text))
    return esc(plain(text[:limit])) + f'<span class="muted">… ({len(text) - limit:,} more characters)</span>'
