"""Checks shared by the picture tests: what a reader would see as an arrow through a box."""

from __future__ import annotations

from itertools import pairwise

from alp_nb.viz.models.diagram import Diagram
from alp_nb.viz.models.geometry import edge_path, geometry


def crossings(pic: Diagram) -> list[tuple[str, str, str]]:
    """Every (edge, box) where a point of the edge's path lies inside a box (sampled every pixel)."""
    geo = geometry(pic)
    found = []
    for edge in pic.edges:
        points = edge_path(pic, geo, edge)
        for (x1, y1), (x2, y2) in pairwise(points):
            steps = max(1, int(max(abs(x2 - x1), abs(y2 - y1))))
            for step in range(steps + 1):
                x, y = x1 + (x2 - x1) * step / steps, y1 + (y2 - y1) * step / steps
                found += [(edge.source, edge.target, node_id) for node_id, box in geo.boxes.items()
                          if box.x + 1 < x < box.x + box.width - 1 and box.y + 1 < y < box.y + box.height - 1]
    return sorted(set(found))
