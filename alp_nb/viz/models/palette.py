"""The colours of the pictures, shared by every renderer so that SVG, matplotlib and the legend agree.

Each node style has a fill and a stroke; a mark laid over a style changes what
it must (the current node is amber, a muted one faded, one in error red).
Colours are plain hex, written as attributes, so a picture looks the same
where a page strips style sheets (GitHub, nbviewer, an untrusted notebook).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

INK, FAINT_INK, PAPER = "#222222", "#777777", "#ffffff"

STYLE_COLOURS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "plain": ("#ffffff", "#888888"),
    "principal": ("#e8eaf6", "#3949ab"),
    "role": ("#e3f2fd", "#1e88e5"),
    "writer": ("#fff3e0", "#ef6c00"),
    "memory-only": ("#f3e5f5", "#8e24aa"),
    "custom": ("#e0f2f1", "#00897b"),
    "state": ("#f5f5f5", "#616161"),
    "terminal": ("#eeeeee", "#212121"),
    "status": ("#e3f2fd", "#1565c0"),
    "outcome": ("#f5f5f5", "#616161"),
    "success": ("#e8f5e9", "#2e7d32"),
    "failure": ("#ffebee", "#c62828"),
    "step": ("#e3f2fd", "#1565c0"),
    "note": ("#fffde7", "#9e9d24"),
})
"""(fill, stroke) of each node style of ``diagram.STYLES``."""

CURRENT = ("#fff3c4", "#ef6c00")
ALARM_STROKE = "#d32f2f"
MUTED_OPACITY = 0.45

EDGE_COLOURS: Mapping[str, str] = MappingProxyType({"solid": "#555555", "dashed": "#888888", "alarm": ALARM_STROKE})


def node_colours(style: str, marks: frozenset[str]) -> tuple[str, str, float]:
    """(fill, stroke, opacity) of a node of ``style`` with ``marks``."""
    fill, stroke = CURRENT if "current" in marks else STYLE_COLOURS[style]
    if "alarm" in marks:
        stroke = ALARM_STROKE
    return fill, stroke, MUTED_OPACITY if "muted" in marks else 1.0
