"""The delegation graph: principal → main → roles, delegations solid and reports-to-only dashed, the one workspace
writer and the memory-only roles told apart, custom agents marked and greyed out while untrusted or changed, and
a delegation cycle drawn in red with the registry's code; in SVG, Mermaid, text and matplotlib."""

from __future__ import annotations

from xml.etree import ElementTree

import matplotlib
import pytest
from agent_factory import make_agent
from custom_agent_files import write_agent
from picture_checks import crossings

from alp_nb.agents import (
    AgentRegistryError,
    TrustStore,
    builtin_registry,
    create_agent_registry,
    define_agent,
    load_project_agents,
    project_registry,
)
from alp_nb.viz.pictures.delegation import PRINCIPAL_NODE, REPORTS_ONLY, delegation_graph, role_node

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"
SPECIALISTS = ("worker", "search", "librarian", "read-thread", "review", "oracle", "compaction", "titling")


def built_in():
    return delegation_graph(builtin_registry()).diagram


def styled(pic, style):
    return [node.id.removeprefix("role:") for node in pic.nodes if node.style == style]


def test_the_principal_is_on_top_and_main_delegates_to_all_eight_specialists():
    pic = built_in()
    assert pic.slots[PRINCIPAL_NODE][0] == 0 and pic.slots[role_node("main")][0] == 1
    delegations = [(edge.target, edge.style) for edge in pic.successors(role_node("main"))]
    assert delegations == [(role_node(agent_id), "solid") for agent_id in SPECIALISTS]
    assert all(pic.slots[role_node(agent_id)][0] == 2 for agent_id in SPECIALISTS)


def test_a_reports_to_that_is_no_delegation_is_dashed_and_says_so():
    (to_main,) = built_in().successors(PRINCIPAL_NODE)
    assert (to_main.target, to_main.style, to_main.label) == (role_node("main"), "dashed", REPORTS_ONLY)
    definitions = [make_agent("lead", delegatesTo=["helper"]), make_agent("helper", reportsTo="lead"),
                   make_agent("loner", reportsTo="lead")]
    pic = delegation_graph(definitions).diagram
    assert [(edge.target, edge.style) for edge in pic.successors(role_node("lead"))] == [
        (role_node("helper"), "solid"), (role_node("loner"), "dashed")]
    assert pic.caption == ""  # a valid set of definitions


def test_the_built_in_graph_has_exactly_one_writer_and_three_memory_only_roles_with_a_legend():
    pic = built_in()
    assert styled(pic, "writer") == ["worker"]
    assert styled(pic, "memory-only") == ["read-thread", "compaction", "titling"]
    assert {"writer", "memory-only", "principal", "role"} == {key for key, _ in pic.legend}


def test_a_delegation_cycle_is_drawn_in_red_and_named_with_the_registrys_code_and_message():
    definitions = [make_agent("start", delegatesTo=["a"]), make_agent("a", delegatesTo=["b"]),
                   make_agent("b", delegatesTo=["c"]), make_agent("c", delegatesTo=["a"])]
    pic = delegation_graph(definitions).diagram
    alarms = {(edge.source, edge.target) for edge in pic.edges if edge.style == "alarm"}
    assert alarms == {(role_node("a"), role_node("b")), (role_node("b"), role_node("c")),
                      (role_node("c"), role_node("a"))}
    assert [node.id for node in pic.nodes if "alarm" in node.marks] == [role_node(each) for each in "abc"]
    with pytest.raises(AgentRegistryError) as refused:
        create_agent_registry(definitions)
    assert pic.caption == f"{refused.value.code}: {refused.value.message}"
    assert pic.caption == "INVALID_DELEGATION: delegation cycle: a -> b -> c -> a"
    assert ("alarm", "delegation cycle") in pic.legend


def test_definitions_refused_for_another_reason_are_drawn_with_the_refusal_and_the_missing_role():
    pic = delegation_graph([make_agent("lead", delegatesTo=["ghost"]), make_agent("lead")]).diagram
    assert pic.caption == "DUPLICATE_AGENT: duplicate agent `lead`"
    assert [node.id for node in pic.nodes].count(role_node("lead")) == 1  # the first definition of an id counts
    ghost = pic.node(role_node("ghost"))
    assert (ghost.detail, ghost.marks) == (("no such role",), frozenset({"alarm"}))


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    return root


def loaded(project, agent_id):
    return next(definition for definition in load_project_agents(project).loaded if definition.id == agent_id)


def test_custom_agents_are_marked_and_the_untrusted_and_changed_ones_greyed_out(project):
    store = TrustStore()
    for agent_id in ("migrator", "auditor"):
        write_agent(project, agent_id)
        store.trust(project, loaded(project, agent_id))
    write_agent(project, "auditor", displayName="Auditor, edited")
    write_agent(project, "planner")
    pic = delegation_graph(project_registry(project, store)).diagram
    assert styled(pic, "custom") == ["migrator", "auditor", "planner"]
    assert {node.id: node.detail for node in pic.nodes if "muted" in node.marks} == {
        role_node("auditor"): ("auditor", "changed"), role_node("planner"): ("planner", "untrusted")}
    from_main = {edge.target: edge.style for edge in pic.successors(role_node("main"))}
    assert from_main[role_node("migrator")] == "solid"  # trusted: main may delegate to it
    assert from_main[role_node("auditor")] == from_main[role_node("planner")] == "dashed"
    labels = [edge.label for edge in pic.successors(role_node("main")) if edge.style == "dashed"]
    assert labels == [REPORTS_ONLY, ""]  # fanning out of one box, only the first says it
    assert ("muted", "untrusted or changed: not delegated to") in pic.legend


def test_svg_parses_and_holds_every_label_and_the_legend_as_text():
    svg = delegation_graph(builtin_registry()).to_svg()
    texts = {element.text for element in ElementTree.fromstring(svg).iter(f"{SVG}text")}
    assert {"Delegation", "principal", "Worker 🛠️", "worker", "Phở 🍜", REPORTS_ONLY, "the workspace writer"} <= texts


def test_mermaid_has_one_node_line_per_node_and_an_arrow_per_edge():
    picture = delegation_graph(builtin_registry())
    lines = picture.to_mermaid().splitlines()
    assert len([line for line in lines if line.startswith("    n") and '["' in line]) == len(picture.diagram.nodes)
    assert len([line for line in lines if "-->" in line or "-.->" in line]) == len(picture.diagram.edges)
    assert "n0 -.->|" in picture.to_mermaid()


def test_text_lists_each_role_under_whom_it_reports_to():
    text = delegation_graph(builtin_registry()).to_text()
    assert text.splitlines()[:3] == ["Delegation", "  principal  (the person in charge)",
                                     f"      → Phở 🍜  ({REPORTS_ONLY})"]
    assert "      → Worker 🛠️" in text.splitlines()


def test_draw_returns_axes_with_the_labels_less_the_glyphs_the_font_lacks(recwarn):
    ax = delegation_graph(builtin_registry()).draw()
    ax.figure.canvas.draw()
    assert {"principal", "Worker", "Phở", "titling"} <= {text.get_text() for text in ax.texts}
    assert not [warning for warning in recwarn if "missing from font" in str(warning.message)]


def test_the_built_in_graph_is_small_and_no_arrow_crosses_a_box():
    picture = delegation_graph(builtin_registry())
    assert len(picture.to_svg().encode()) < 30_000
    assert crossings(picture.diagram) == []


def test_a_registry_and_its_definitions_draw_the_same_graph():
    registry = builtin_registry()
    assert delegation_graph(registry) == delegation_graph([define_agent(each) for each in registry])


def test_a_highlighted_role_alone_is_marked_current_and_the_legend_says_it_is_the_selected_one():
    plain = delegation_graph(builtin_registry())
    picture = delegation_graph(builtin_registry(), highlight="worker")
    marked = [node.id for node in picture.diagram.nodes if "current" in node.marks]
    assert marked == [role_node("worker")]
    assert picture.diagram.node(role_node("worker")).style == "writer"  # still the writer, now selected
    assert picture.diagram.slots == plain.diagram.slots and picture.diagram.edges == plain.diagram.edges
    assert ("current", "the selected role") in picture.diagram.legend
    assert ("current", "the selected role") not in plain.diagram.legend


def test_the_highlight_is_drawn_in_the_current_colour_in_svg_and_marked_in_text_and_mermaid():
    from alp_nb.viz.models.palette import CURRENT

    picture = delegation_graph(builtin_registry(), highlight="titling")
    fills = {group.get("data-node"): group.find(f"{SVG}rect").get("fill")
             for group in ElementTree.fromstring(picture.to_svg()).iter(f"{SVG}g") if group.get("data-node")}
    assert [node for node, fill in fills.items() if fill == CURRENT[0]] == [role_node("titling")]
    assert picture.to_text() != delegation_graph(builtin_registry()).to_text()
    assert picture.to_mermaid() != delegation_graph(builtin_registry()).to_mermaid()


def test_highlighting_a_role_the_graph_does_not_draw_is_refused():
    from alp_nb.viz import VizError

    with pytest.raises(VizError) as refused:
        delegation_graph(builtin_registry(), highlight="wrker")
    assert refused.value.code == "NO_VIEW"
    assert refused.value.message == "`wrker` is not a role of this delegation graph"
