"""The delegation graph: who may hand work to whom, from the principal down, as a ``DiagramPicture``.

A reader reviewing an organisation of agents asks three things of it: who
delegates to whom, who can change the workspace, and which roles are custom
(and whether they are trusted). So each delegation is an arrow, and a
``reports_to`` that is no delegation a dashed one; the one workspace writer
and the memory-only roles have their own colours; custom agents are dashed
boxes, greyed out while untrusted or changed. Given definitions that do not
form a registry, the graph still draws, with a delegation cycle in red and the
registry's own refusal as its caption.

A real team is forty agents or a hundred and fifty, most of them custom ones
under ``main``. So custom agents of one trust state, ``GROUP_AT`` or more in a
layer, are drawn as one group (its members in a grid, one arrow to it where
``main`` delegates to each); ``collapse`` draws a group as a single box, and
``focus`` draws one role's neighbourhood only: the roles above it on the way
from the principal, and the roles right under it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace
from itertools import pairwise
from typing import Any

from alp_nb.agents.builtins import BUILTIN_IDS
from alp_nb.agents.definition import AgentDefinition, define_agent
from alp_nb.agents.errors import AgentRegistryError
from alp_nb.agents.registry import PRINCIPAL, AgentRegistry, create_agent_registry, delegation_cycle
from alp_nb.agents.trust import TrustStatus
from alp_nb.agents.trusted_registry import ProjectRegistry
from alp_nb.base.text import clip
from alp_nb.viz.errors import VizError
from alp_nb.viz.models.diagram import Edge, Node, diagram
from alp_nb.viz.pictures.diagram_picture import DiagramPicture

PRINCIPAL_NODE = "principal"
"""The principal's node id; a role's is ``role:<id>`` (``role_node``), so no agent id can take its place."""
REPORTS_ONLY = "reports to only"
"""The label of a dashed edge: the lower role reports to the upper one, which may not delegate to it."""
CAPTION_ID_CHARS = 40
CURRENT = frozenset({"current"})
GROUP_AT = 4
"""The fewest custom agents of one trust state in a layer that are drawn as a group."""
GROUPS: Mapping[str, str] = {"trusted": "custom agents · trusted", "untrusted": "custom agents · untrusted",
                             "changed": "custom agents · changed", "custom": "custom agents"}
"""Each trust state a custom agent may have (``custom`` when the source says none) and its group's label."""
COLLAPSED_NAMES = 3
"""The members a collapsed group's box names before saying how many more."""

LEGEND: tuple[tuple[str, str], ...] = (
    ("principal", "the principal"),
    ("role", "built-in role"),
    ("writer", "the workspace writer"),
    ("memory-only", "memory only: no workspace"),
    ("custom", "custom agent"),
    ("muted", "untrusted or changed: not delegated to"),
    ("alarm", "delegation cycle"),
    ("current", "the selected role"),
)

Source = AgentRegistry | ProjectRegistry | Iterable[AgentDefinition | Mapping[str, Any]]


def role_node(agent_id: str) -> str:
    return f"role:{agent_id}"


def delegation_graph(source: Source, highlight: str | None = None, *, focus: str | None = None,
                     collapse: bool | Iterable[str] = False) -> DiagramPicture:
    """The delegation graph of a registry, of a project's session registry (with the custom agents it left out,
    greyed), or of plain definitions, which may be refused by the registry: then it says why.

    ``highlight`` marks one role as the selected one (its place among the others); ``focus`` draws only that
    role, the roles above it on the way from the principal and those right under it (marked selected unless
    ``highlight`` says otherwise); ``collapse`` draws groups of custom agents each as one box: ``True`` for all,
    or the trust states (``"trusted"``, ``"untrusted"``, ``"changed"``, ``"custom"``) whose groups to close. A
    role the graph does not draw, or a trust state with no name, is ``VizError`` (``NO_VIEW``).

    >>> from alp_nb.agents import builtin_registry
    >>> lines = delegation_graph(builtin_registry(), highlight="oracle").to_text().splitlines()
    >>> lines[:3]
    ['Delegation', '  principal  (the person in charge)', '      → Phở 🍜  (reports to only)']
    >>> [line.strip() for line in lines if "(oracle" in line]
    ['Oracle 🔮  [now]  (oracle)']
    """
    roles, statuses, caption = _roles(source)
    cycle = delegation_cycle(roles) or ()
    if cycle:
        caption = "INVALID_DELEGATION: delegation cycle: " + " -> ".join(clip(step, CAPTION_ID_CHARS) for step in cycle)
    nodes = [Node(PRINCIPAL_NODE, "principal", ("the person in charge",), style="principal")]
    nodes += [_role(definition, statuses.get(definition.id), definition.id in cycle) for definition in roles]
    states = {role_node(definition.id): statuses.get(definition.id, "custom") for definition in roles
              if definition.id not in BUILTIN_IDS}
    edges = _edges(roles, set(pairwise(cycle)))
    nodes += _unknown_roles(edges, roles)
    if focus is not None:
        nodes, edges = _focused(nodes, edges, focus)
        caption = caption or f"around {clip(focus, CAPTION_ID_CHARS)}: {len(nodes) - 1} of {len(roles)} roles"
        highlight = focus if highlight is None else highlight
    if highlight is not None:
        nodes = _highlighted(nodes, highlight)
    nodes = _grouped(nodes, edges, states)
    nodes, edges = _collapsed(nodes, edges, states, _closed(collapse))
    used = {node.style for node in nodes} | {mark for node in nodes for mark in node.marks}
    legend = [entry for entry in LEGEND if entry[0] in used]
    return DiagramPicture(diagram("Delegation", nodes, edges, legend=legend, caption=caption))


def _roles(source: Source) -> tuple[list[AgentDefinition], Mapping[str, TrustStatus], str]:
    """The roles to draw (a project's with the custom agents its registry left out), their trust states, and the
    registry's refusal of plain definitions ("" when it accepts them, or for a registry, which accepted them)."""
    statuses: Mapping[str, TrustStatus] = {}
    caption = ""
    if isinstance(source, ProjectRegistry):
        roles = list(source.registry)
        statuses = source.statuses
        roles += [definition for definition in source.agents.loaded if not source.registry.has(definition.id)]
    elif isinstance(source, AgentRegistry):
        roles = list(source)
    else:
        roles = [define_agent(definition) for definition in source]
        caption = _refusal(roles)
    firsts: dict[str, AgentDefinition] = {}
    for definition in roles:
        firsts.setdefault(definition.id, definition)  # a repeated id is drawn once (the caption says so)
    return list(firsts.values()), statuses, caption


def _edges(roles: list[AgentDefinition], cycle_edges: set[tuple[str, str]]) -> list[Edge]:
    """An arrow for each delegation (red on the cycle) and a dashed one for each ``reports_to`` that is no
    delegation, so a reader sees who reports to whom without being able to hand it work."""
    edges: list[Edge] = []
    for definition in roles:
        for target in definition.delegates_to:
            alarm = (definition.id, target) in cycle_edges
            edges.append(Edge(role_node(definition.id), role_node(target), style="alarm" if alarm else "solid"))
        parent = definition.reports_to
        if parent == PRINCIPAL:
            edges.append(Edge(PRINCIPAL_NODE, role_node(definition.id), style="dashed"))
        elif definition.id not in _delegates(roles, parent):
            edges.append(Edge(role_node(parent), role_node(definition.id), style="dashed"))
    return _label_first_reports_only(edges)


def _unknown_roles(edges: list[Edge], roles: list[AgentDefinition]) -> list[Node]:
    """A box (in alarm) for each role an arrow names but no definition defines, so the arrow still has its end."""
    unknown = {edge.source for edge in edges} | {edge.target for edge in edges}
    unknown -= {PRINCIPAL_NODE, *(role_node(definition.id) for definition in roles)}
    return [Node(node_id, node_id.removeprefix("role:"), ("no such role",), marks=frozenset({"alarm"}))
            for node_id in sorted(unknown)]


def _closed(collapse: bool | Iterable[str]) -> frozenset[str]:
    """The trust states whose groups ``collapse`` closes."""
    if isinstance(collapse, bool):
        return frozenset(GROUPS) if collapse else frozenset()
    closed = frozenset(collapse)
    unknown = sorted(closed - set(GROUPS))
    if unknown:
        raise VizError("NO_VIEW", f"no group of custom agents is called `{clip(unknown[0], CAPTION_ID_CHARS)}`; "
                                  f"one of {', '.join(GROUPS)}")
    return closed


def _focused(nodes: list[Node], edges: list[Edge], agent_id: str) -> tuple[list[Node], list[Edge]]:
    """The nodes and edges around ``agent_id``: every node with a path down to it, and the nodes one arrow below."""
    wanted = _drawn_role(nodes, agent_id)
    above: dict[str, list[str]] = {}
    for edge in edges:
        above.setdefault(edge.target, []).append(edge.source)
    kept, walk = {wanted}, [wanted]
    while walk:
        for parent in above.get(walk.pop(), ()):
            if parent not in kept:
                kept.add(parent)
                walk.append(parent)
    kept |= {edge.target for edge in edges if edge.source == wanted}
    return ([node for node in nodes if node.id in kept],
            [edge for edge in edges if edge.source in kept and edge.target in kept])


def _grouped(nodes: list[Node], edges: list[Edge], states: Mapping[str, str]) -> list[Node]:
    """``nodes`` with each custom agent put in its trust state's group where ``GROUP_AT`` or more of that state
    share the arrows into them (the same delegators): such agents draw in one layer."""
    into: dict[str, set[tuple[str, str]]] = {}
    for edge in edges:
        into.setdefault(edge.target, set()).add((edge.source, edge.style))

    def kin(node_id: str) -> tuple[str, frozenset[tuple[str, str]]]:
        return states[node_id], frozenset(into.get(node_id, ()))

    sharing = Counter(kin(node_id) for node_id in states)
    return [replace(node, group=GROUPS[states[node.id]])
            if node.id in states and sharing[kin(node.id)] >= GROUP_AT else node for node in nodes]


def _collapsed(nodes: list[Node], edges: list[Edge], states: Mapping[str, str],
               closed: frozenset[str]) -> tuple[list[Node], list[Edge]]:
    """Each closed group's members as one box naming the first few, its arrows joined (once each)."""
    members: dict[str, list[Node]] = {}
    for node in nodes:
        if node.group and states[node.id] in closed:
            members.setdefault(node.group, []).append(node)
    if not members:
        return nodes, edges
    into = {node.id: f"group:{states[node.id]}" for group in members.values() for node in group}
    shown, placed = [], set()
    for node in nodes:
        if node.id not in into:
            shown.append(node)
        elif into[node.id] not in placed:
            placed.add(into[node.id])
            group = members[node.group]
            names = [each.label for each in group[:COLLAPSED_NAMES]]
            more = len(group) - len(names)
            detail = (", ".join(names) + (f" and {more} more" if more else ""),)
            shown.append(Node(into[node.id], f"{len(group)} {node.group}", detail, "custom",
                              frozenset().union(*(each.marks for each in group))))
    joined: dict[tuple[str, str, str], Edge] = {}
    for edge in edges:
        source, target = into.get(edge.source, edge.source), into.get(edge.target, edge.target)
        joined.setdefault((source, target, edge.style), Edge(source, target, edge.label, edge.style))
    return shown, list(joined.values())


def _drawn_role(nodes: list[Node], agent_id: str) -> str:
    """The node id of the role ``agent_id``; ``VizError`` (``NO_VIEW``) when the graph does not draw it."""
    wanted = role_node(agent_id)
    if all(node.id != wanted for node in nodes):
        raise VizError("NO_VIEW", f"`{clip(agent_id, CAPTION_ID_CHARS)}` is not a role of this delegation graph")
    return wanted


def _highlighted(nodes: list[Node], agent_id: str) -> list[Node]:
    """``nodes`` with the role ``agent_id`` marked current."""
    wanted = _drawn_role(nodes, agent_id)
    return [replace(node, marks=node.marks | CURRENT) if node.id == wanted else node for node in nodes]


def _label_first_reports_only(edges: list[Edge]) -> list[Edge]:
    """Label the first dashed arrow out of each role: arrows fanning out of one box meet at its edge, so a label
    on each would print over the others."""
    labelled: set[str] = set()
    shown = []
    for edge in edges:
        if edge.style == "dashed" and edge.source not in labelled:
            labelled.add(edge.source)
            edge = Edge(edge.source, edge.target, REPORTS_ONLY, edge.style)
        shown.append(edge)
    return shown


def _refusal(roles: list[AgentDefinition]) -> str:
    """The registry's first refusal of these definitions, as ``CODE: message``, or "" when it accepts them."""
    try:
        create_agent_registry(roles)
    except AgentRegistryError as error:
        return f"{error.code}: {clip(error.message, 200)}"
    return ""


def _delegates(roles: list[AgentDefinition], agent_id: str) -> tuple[str, ...]:
    return next((definition.delegates_to for definition in roles if definition.id == agent_id), ())


def _role(definition: AgentDefinition, status: TrustStatus | None, in_cycle: bool) -> Node:
    """A role's box: its display name, then its id and what sets it apart."""
    workspace = definition.capabilities.workspace
    custom = definition.id not in BUILTIN_IDS
    if custom:
        style = "custom"
    elif workspace.write_roots:
        style = "writer"
    elif not workspace.read_roots:
        style = "memory-only"
    else:
        style = "role"
    notes = [definition.id]
    if custom and workspace.write_roots:
        notes.append("writes the workspace")
    elif custom and not workspace.read_roots:
        notes.append("memory only")
    if status in ("untrusted", "changed"):
        notes.append(status)
    marks = {"muted"} if status in ("untrusted", "changed") else set()
    if in_cycle:
        marks.add("alarm")
    return Node(role_node(definition.id), definition.display_name, tuple(notes), style, frozenset(marks))
