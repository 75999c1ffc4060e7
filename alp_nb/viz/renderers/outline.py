"""A ``Diagram`` as plain text: its title, then each node layer by layer with its detail and where it leads.

For a terminal, a log, or a reader with no pictures; the text is the model's
own, so a command prints it through ``viz.terminal`` like any other text.
"""

from __future__ import annotations

from alp_nb.viz.models.diagram import Diagram

_MARK_WORDS = {"current": "now", "muted": "greyed out", "alarm": "!"}


def diagram_text(diagram: Diagram) -> str:
    lines = [diagram.title]
    if diagram.caption:
        lines.append(diagram.caption)
    for layer in diagram.layers():
        for node in layer:
            marks = ", ".join(_MARK_WORDS[mark] for mark in sorted(node.marks))
            lines.append(f"  {node.label}" + (f"  [{marks}]" if marks else "")
                         + (f"  ({'; '.join(node.detail)})" if node.detail else ""))
            lines += [f"      → {diagram.node(edge.target).label}" + (f"  ({edge.label})" if edge.label else "")
                      for edge in diagram.successors(node.id)]
    if diagram.legend:
        lines.append("legend: " + "; ".join(f"{key} = {meaning}" for key, meaning in diagram.legend))
    return "\n".join(lines)
