"""The intermediate model of every boxes-and-arrows picture: nodes, edges, labels, highlights and a layout.

A picture builder (``delegation_graph``, ``state_machine``, ``contract_flow``...)
turns a core object into a ``Diagram``; renderers (SVG, Mermaid, matplotlib,
text) turn a ``Diagram`` into a format and know nothing of agents or
contracts. So a new picture touches one builder, and a new format one renderer.

The layout is layered, as a reader expects a flow drawn: each node one layer
below the last of its predecessors (networkx's topological generations, after
the edges that close a cycle are set aside), and within a layer in the order
that keeps edges short (the mean slot of its predecessors), ties kept in the
order the builder gave.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Literal

STYLES: tuple[str, ...] = (
    "plain", "principal", "role", "writer", "memory-only", "custom", "state", "terminal", "status", "outcome",
    "success", "failure", "step", "note",
)
"""The node styles renderers know; a builder picks one per node."""

MARKS: tuple[str, ...] = ("current", "muted", "alarm")
"""Highlights that may be laid over any style: the node under the cursor, a greyed-out one, one in error."""

EDGE_STYLES: tuple[str, ...] = ("solid", "dashed", "alarm")


@dataclass(frozen=True)
class Node:
    """One box: its label, smaller lines of detail under it, a style and any highlights, and the group it is
    drawn in (its label; "" for none): the nodes of one layer with one group share a box of their own."""

    id: str
    label: str
    detail: tuple[str, ...] = ()
    style: str = "plain"
    marks: frozenset[str] = frozenset()
    group: str = ""


@dataclass(frozen=True)
class Edge:
    """One arrow from ``source`` to ``target``, with an optional label."""

    source: str
    target: str
    label: str = ""
    style: str = "solid"


@dataclass(frozen=True)
class Group:
    """Nodes of one layer drawn together in a box of their own, under their group's label."""

    id: str
    label: str
    members: tuple[str, ...]


GROUP_ID = "group\x1f{}"
"""A group's id (numbered in layer order): no builder makes a node id with a unit separator in it."""


@dataclass(frozen=True)
class Diagram:
    """A picture as data. ``slots`` places every node: (layer, position in its layer), both from 0.

    Build one with ``diagram()``, which checks the parts and lays them out.
    """

    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    slots: Mapping[str, tuple[int, int]]
    direction: Literal["down", "right"] = "down"
    legend: tuple[tuple[str, str], ...] = ()
    """(style or mark, what it means), in the order the legend shows them."""
    caption: str = ""

    @cached_property
    def _by_id(self) -> Mapping[str, Node]:
        return MappingProxyType({node.id: node for node in self.nodes})

    def node(self, node_id: str) -> Node:
        return self._by_id[node_id]

    def layers(self) -> tuple[tuple[Node, ...], ...]:
        """The nodes layer by layer, each layer in slot order."""
        count = 1 + max((layer for layer, _ in self.slots.values()), default=-1)
        rows: list[list[Node]] = [[] for _ in range(count)]
        for node in self.nodes:
            rows[self.slots[node.id][0]].append(node)
        return tuple(tuple(sorted(row, key=lambda node: self.slots[node.id][1])) for row in rows)

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        """Each layer's groups, layer by layer, each in the slot order of its first member."""
        found: dict[tuple[int, str], list[str]] = {}
        for layer in self.layers():
            for node in layer:
                if node.group:
                    found.setdefault((self.slots[node.id][0], node.group), []).append(node.id)
        return tuple(Group(GROUP_ID.format(index), label, tuple(members))
                     for index, ((_, label), members) in enumerate(found.items()))

    def successors(self, node_id: str) -> tuple[Edge, ...]:
        return self._leaving.get(node_id, ())

    @cached_property
    def _leaving(self) -> Mapping[str, tuple[Edge, ...]]:
        leaving: dict[str, list[Edge]] = {}
        for edge in self.edges:
            leaving.setdefault(edge.source, []).append(edge)
        return MappingProxyType({node_id: tuple(edges) for node_id, edges in leaving.items()})


def diagram(title: str, nodes: Iterable[Node], edges: Iterable[Edge], *, direction: Literal["down", "right"] = "down",
            legend: Iterable[tuple[str, str]] = (), caption: str = "") -> Diagram:
    """A laid-out ``Diagram``; ``ValueError`` for a repeated node id, an edge to no node, or an unknown style."""
    nodes, edges = tuple(nodes), tuple(edges)
    by_id: dict[str, Node] = {}
    for node in nodes:
        if node.id in by_id:
            raise ValueError(f"node `{node.id}` is declared twice")
        if node.id.startswith(GROUP_ID.format("")):
            raise ValueError(f"node `{node.id}` takes a group's id")
        if node.style not in STYLES or not node.marks <= set(MARKS):
            raise ValueError(f"node `{node.id}` has an unknown style or mark")
        by_id[node.id] = node
    for edge in edges:
        if edge.source not in by_id or edge.target not in by_id:
            raise ValueError(f"edge `{edge.source}` → `{edge.target}` joins a node that does not exist")
        if edge.style not in EDGE_STYLES:
            raise ValueError(f"edge `{edge.source}` → `{edge.target}` has an unknown style `{edge.style}`")
    return Diagram(title=title, nodes=nodes, edges=edges, slots=MappingProxyType(_layered(nodes, edges)),
                   direction=direction, legend=tuple(legend), caption=caption)


def _layered(nodes: tuple[Node, ...], edges: tuple[Edge, ...]) -> dict[str, tuple[int, int]]:
    """(layer, slot) per node: longest-path layers of the graph without the edges that close cycles, each layer
    ordered by the mean slot of its predecessors in the layer above."""
    import networkx as nx  # drawing is the one place a layout is needed

    order = {node.id: index for index, node in enumerate(nodes)}
    following: dict[str, list[str]] = {node_id: [] for node_id in order}
    for edge in edges:
        following[edge.source].append(edge.target)
    closing = _cycle_closing(order, following)
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(order)
    graph.add_edges_from((source, target) for source, targets in following.items() for target in targets
                         if (source, target) not in closing)
    slots: dict[str, tuple[int, int]] = {}
    for layer, generation in enumerate(nx.topological_generations(graph)):
        def mean_slot(node_id: str) -> float:
            above = [slots[parent][1] for parent in graph.predecessors(node_id) if parent in slots]
            return sum(above) / len(above) if above else float(order[node_id])

        ranked = sorted(generation, key=lambda node_id: (mean_slot(node_id), order[node_id]))
        slots.update((node_id, (layer, slot)) for slot, node_id in enumerate(ranked))
    return slots


def _cycle_closing(order: Mapping[str, int], following: Mapping[str, list[str]]) -> set[tuple[str, str]]:
    """The edges that lead back to a node still being walked, in one depth-first walk from each node in the
    builder's order (iterative, so a graph a thousand layers deep cannot overflow the stack)."""
    walking, walked, closing = set(), set(), set()
    for start in order:
        if start in walked:
            continue
        walking.add(start)
        stack = [(start, iter(following[start]))]
        while stack:
            node, targets = stack[-1]
            target = next(targets, None)
            if target is None:
                stack.pop()
                walking.discard(node)
                walked.add(node)
            elif target in walking:
                closing.add((node, target))
            elif target not in walked:
                walking.add(target)
                stack.append((target, iter(following[target])))
    return closing
