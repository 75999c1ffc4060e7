"""The delegation graph at the sizes real teams reach, and the layout rules that keep any picture on a notebook's
page: custom agents of one trust state grouped (one arrow from ``main`` to the group), groups collapsed to a box,
one role's neighbourhood alone, wide layers wrapped into rows, legends and captions wrapped into lines, and every
box at least as wide as its label."""

from __future__ import annotations

from itertools import pairwise

import pytest
from scale_samples import custom_agent_project

from alp_nb.agents import builtin_registry
from alp_nb.viz.errors import VizError
from alp_nb.viz.models.diagram import Edge, Node, diagram
from alp_nb.viz.models.geometry import LABEL_SIZE, MAX_WIDTH, PAD_X, caption_lines, edge_path, geometry, legend_entries
from alp_nb.viz.models.text_width import text_width
from alp_nb.viz.pictures.delegation import GROUPS, PRINCIPAL_NODE, delegation_graph, role_node


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """Forty custom agents: thirty trusted, ten not."""
    return custom_agent_project(tmp_path_factory.mktemp("team"), 30, 10)


@pytest.fixture(scope="module")
def large_team(tmp_path_factory):
    """The built-ins and 141 custom agents: 150 roles."""
    return custom_agent_project(tmp_path_factory.mktemp("large"), 126, 15)


def test_custom_agents_of_one_trust_state_draw_as_one_group_with_one_arrow_from_main(team):
    picture = delegation_graph(team)
    groups = {group.label: group for group in picture.diagram.groups}
    assert set(groups) == {GROUPS["trusted"], GROUPS["untrusted"]}
    assert len(groups[GROUPS["trusted"]].members) == 30 and len(groups[GROUPS["untrusted"]].members) == 10
    drawn = geometry(picture.diagram).edges
    into_trusted = [edge for edge in drawn if edge.target == groups[GROUPS["trusted"]].id]
    into_untrusted = [edge for edge in drawn if edge.target == groups[GROUPS["untrusted"]].id]
    assert [(edge.source, edge.style, edge.label) for edge in into_trusted] == [(role_node("main"), "solid",
                                                                                 "each of 30")]
    assert [(edge.source, edge.style) for edge in into_untrusted] == [(role_node("main"), "dashed")]
    assert "each of 10" in into_untrusted[0].label
    members = set(groups[GROUPS["trusted"]].members) | set(groups[GROUPS["untrusted"]].members)
    assert not [edge for edge in drawn if edge.target in members]  # no arrow drawn to a member one by one
    assert "custom-000" in picture.to_text() and "custom-039" in picture.to_text()  # the text still names each


@pytest.mark.parametrize("size", ["team", "large_team"])
def test_a_team_of_forty_or_150_keeps_within_the_page_and_each_label_within_its_box(size, request):
    diagram_ = delegation_graph(request.getfixturevalue(size)).diagram
    geo = geometry(diagram_)
    assert geo.width <= MAX_WIDTH
    for node in diagram_.nodes:
        box = geo.boxes[node.id]
        assert text_width(box.label, LABEL_SIZE, bold=True) + 2 * PAD_X <= box.width + 0.5, node.id
        assert box.x >= 0 and box.x + box.width <= geo.width
    for group in diagram_.groups:  # each member inside its group's box
        frame = geo.boxes[group.id]
        for member in group.members:
            box = geo.boxes[member]
            assert frame.x <= box.x and box.x + box.width <= frame.x + frame.width
            assert frame.y <= box.y and box.y + box.height <= frame.y + frame.height


def test_fewer_than_four_custom_agents_of_a_trust_state_stay_boxes_of_their_own(tmp_path):
    picture = delegation_graph(custom_agent_project(tmp_path, 3, 2))
    assert picture.diagram.groups == ()


def test_collapse_draws_each_group_as_one_box_naming_its_first_members(team):
    picture = delegation_graph(team, collapse=True)
    labels = {node.label: node for node in picture.diagram.nodes}
    trusted = labels[f"30 {GROUPS['trusted']}"]
    assert trusted.detail == ("Dependency Bumper 0, Schema Migrator 1, Flaky Test Hunter 2 and 27 more",)
    assert "muted" in labels[f"10 {GROUPS['untrusted']}"].marks
    assert not [node for node in picture.diagram.nodes if node.id.startswith("role:custom-")]
    edges = [(edge.source, edge.target) for edge in picture.diagram.edges]
    assert len(edges) == len(set(edges)) and (role_node("main"), trusted.id) in edges


def test_collapse_may_close_one_trust_state_and_refuses_one_with_no_name(team):
    picture = delegation_graph(team, collapse=["untrusted"])
    assert [group.label for group in picture.diagram.groups] == [GROUPS["trusted"]]
    with pytest.raises(VizError) as refused:
        delegation_graph(team, collapse=["trustworthy"])
    assert refused.value.code == "NO_VIEW" and "trustworthy" in refused.value.message


def test_focus_draws_the_role_with_the_roles_above_it_and_those_right_under_it(team):
    picture = delegation_graph(builtin_registry(), focus="oracle")
    assert {node.id for node in picture.diagram.nodes} == {PRINCIPAL_NODE, role_node("main"), role_node("oracle")}
    assert [node.id for node in picture.diagram.nodes if "current" in node.marks] == [role_node("oracle")]
    assert picture.diagram.caption.startswith("around oracle: 2 of 9 roles")
    around_main = delegation_graph(team, focus="main")
    assert len(around_main.diagram.nodes) == 1 + 9 + 40  # the principal, the built-ins, every custom agent
    with pytest.raises(VizError):
        delegation_graph(builtin_registry(), focus="nobody")


def wide_layer(count: int) -> tuple[Node, ...]:
    return (Node("top", "Top"), *(Node(f"n{index}", f"A role with a long name {index}") for index in range(count)))


def test_a_layer_wider_than_the_page_wraps_into_rows_and_arrows_to_later_rows_go_round_the_first():
    nodes = wide_layer(12)
    picture = diagram("Wide", nodes, [Edge("top", node.id) for node in nodes[1:]])
    geo = geometry(picture)
    rows = {geo.row_of[node.id] for node in nodes[1:]}
    assert len(rows) > 1 and geo.width <= MAX_WIDTH
    first = min(rows)
    firsts = [geo.boxes[node.id] for node in nodes[1:] if geo.row_of[node.id] == first]
    for edge in picture.edges:
        if geo.row_of[edge.target] == first:
            continue
        points = edge_path(picture, geo, edge)
        assert len(points) > 2  # routed, never straight through the row above
        for (x1, y1), (x2, y2) in pairwise(points):
            for box in firsts:  # no segment crosses a box of the first row
                inside_x = min(x1, x2) < box.x + box.width and max(x1, x2) > box.x
                inside_y = min(y1, y2) < box.y + box.height and max(y1, y2) > box.y
                assert not (inside_x and inside_y), (edge, box)


def test_a_long_legend_and_a_long_caption_wrap_within_the_page():
    legend = [(style, f"what the {style} style means, said at some length") for style in
              ("principal", "role", "writer", "memory-only", "custom", "state", "terminal", "status")]
    picture = diagram("Legend", [Node("a", "A")], [], legend=legend, caption="word " * 400)
    geo = geometry(picture)
    assert geo.width <= MAX_WIDTH
    assert max(line for _, line, _, _ in legend_entries(picture, geo.width)) >= 2
    assert len(caption_lines(picture)) > 1 and " ".join(caption_lines(picture)) == picture.caption.strip()
