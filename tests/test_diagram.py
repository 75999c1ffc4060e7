"""The diagram model and its renderers: a layered layout, and SVG, Mermaid, matplotlib and text that say the same."""

from xml.etree import ElementTree

import matplotlib
import pytest
from picture_checks import crossings

from alp_nb.viz.models.diagram import Edge, Node, diagram
from alp_nb.viz.models.geometry import geometry
from alp_nb.viz.pictures.diagram_picture import DiagramPicture
from alp_nb.viz.renderers.mermaid import diagram_mermaid, mermaid_text
from alp_nb.viz.renderers.outline import diagram_text
from alp_nb.viz.renderers.svg import diagram_svg, xml_text
from alp_nb.viz.rendering import render

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"


def chain(direction="down"):
    return diagram("A chain", [Node("a", "Start", ("read",)), Node("b", "Middle", style="state"),
                               Node("c", "End", style="terminal", marks=frozenset({"current"}))],
                   [Edge("a", "b", "go"), Edge("b", "c"), Edge("c", "a", "again", "dashed")],
                   direction=direction, legend=[("terminal", "ends the flow"), ("current", "where it is")])


def test_each_node_sits_one_layer_below_its_last_predecessor():
    pic = diagram("Fan", [Node("root", "R"), Node("left", "L"), Node("right", "R2"), Node("join", "J")],
                  [Edge("root", "left"), Edge("root", "right"), Edge("left", "join"), Edge("right", "join"),
                   Edge("root", "join")])
    assert dict(pic.slots) == {"root": (0, 0), "left": (1, 0), "right": (1, 1), "join": (2, 0)}


def test_an_edge_that_closes_a_cycle_does_not_move_the_layers():
    assert [node.id for layer in chain().layers() for node in layer] == ["a", "b", "c"]
    assert [chain().slots[node_id][0] for node_id in "abc"] == [0, 1, 2]


def test_a_thousand_layers_deep_chain_lays_out_without_recursion():
    nodes = [Node(f"n{index}", f"node {index}") for index in range(1000)]
    edges = [Edge(f"n{index}", f"n{index + 1}") for index in range(999)]
    assert chain_depth(diagram("Deep", nodes, edges)) == 999


def chain_depth(pic):
    return max(layer for layer, _ in pic.slots.values())


@pytest.mark.parametrize(("nodes", "edges", "problem"), [
    ([Node("a", "A"), Node("a", "A again")], [], "declared twice"),
    ([Node("a", "A")], [Edge("a", "z")], "does not exist"),
    ([Node("a", "A", style="sparkly")], [], "unknown style"),
    ([Node("a", "A")], [Edge("a", "a", style="wavy")], "unknown style"),
])
def test_a_malformed_diagram_is_refused_naming_what_is_wrong(nodes, edges, problem):
    with pytest.raises(ValueError, match=problem):
        diagram("Bad", nodes, edges)


@pytest.mark.parametrize("direction", ["down", "right"])
def test_boxes_never_overlap_and_stay_on_the_page(direction):
    geo = geometry(chain(direction))
    boxes = list(geo.boxes.values())
    for index, one in enumerate(boxes):
        assert one.x >= 0 and one.x + one.width <= geo.width and one.y >= 0 and one.y + one.height <= geo.height
        for other in boxes[index + 1:]:
            apart = (one.x + one.width <= other.x or other.x + other.width <= one.x
                     or one.y + one.height <= other.y or other.y + other.height <= one.y)
            assert apart


def test_the_svg_is_well_formed_and_holds_every_label_as_text():
    root = ElementTree.fromstring(diagram_svg(chain()))
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert {"A chain", "Start", "read", "Middle", "End", "go", "again", "ends the flow"} <= set(texts)
    assert len(root.findall(f"{SVG}g")) == 3


def test_the_current_node_is_highlighted_in_every_format():
    svg = diagram_svg(chain())
    assert 'fill="#fff3c4"' in svg
    assert ":::style_terminal,current" in diagram_mermaid(chain())
    assert "End  [now]" in diagram_text(chain())


def test_hostile_text_is_escaped_in_svg_and_inert_in_mermaid():
    hostile = '</svg><script>alert(1)</script>"]-->x\x1b[2J\u202e\ud800'
    pic = diagram(hostile, [Node("a", hostile, (hostile,))], [Edge("a", "a", hostile)])
    svg = diagram_svg(pic)
    ElementTree.fromstring(svg)  # still one well-formed document
    assert "<script" not in svg and "\x1b" not in svg and "\u202e" not in svg
    node_line = diagram_mermaid(pic).splitlines()[2]
    assert node_line.startswith('    n0["') and node_line.endswith('"]:::style_plain')
    for part in node_line[len('    n0["'):-len('"]:::style_plain')].split("<br/>"):
        assert not set(part) & set('<>"[]{}()|\x1b\u202e\ud800')
    assert mermaid_text('a"]-->b') == "a#34;#93;--#62;b"
    assert xml_text("<&>") == "&lt;&amp;&gt;"


def test_a_picture_draws_on_matplotlib_axes_with_the_same_labels():
    ax = DiagramPicture(chain()).draw()
    assert {"Start", "Middle", "End", "read"} <= {text.get_text() for text in ax.texts}


def test_a_picture_renders_through_the_one_path():
    picture = DiagramPicture(chain())
    assert render(picture, "svg") == picture.to_svg()
    assert render(picture, "html").startswith('<div class="alp-picture"')
    assert set(picture._repr_mimebundle_()) == {"text/html", "text/plain", "image/svg+xml"}


def skipping(direction):
    """A chain with a wide middle, a neighbour beside the last box, and arrows that skip layers to either end."""
    nodes = [Node("a", "Start"), Node("b", "A much wider box in the middle", ("with a line of detail",)),
             Node("c", "C"), Node("left", "Left"), Node("right", "Right")]
    edges = [Edge("a", "b"), Edge("b", "c"), Edge("c", "left"), Edge("c", "right"),
             Edge("a", "left", "skips", "dashed"), Edge("a", "right", "skips too"), Edge("b", "right")]
    return diagram("Skips", nodes, edges, direction=direction, caption="a caption under the title")


@pytest.mark.parametrize("direction", ["down", "right"])
def test_an_arrow_that_skips_layers_goes_round_the_boxes_between_and_stays_on_the_page(direction):
    from alp_nb.viz.models.geometry import edge_path

    pic = skipping(direction)
    assert crossings(pic) == []
    geo = geometry(pic)
    for edge in pic.edges:
        assert all(0 <= x <= geo.width and 0 <= y <= geo.height for x, y in edge_path(pic, geo, edge))


def test_a_caption_has_its_own_line_between_the_title_and_the_boxes():
    from alp_nb.viz.models.geometry import CAPTION_HEIGHT, content_top

    with_caption, without = skipping("down"), diagram("Skips", [Node("a", "A")], [])
    assert content_top(with_caption) == content_top(without) + CAPTION_HEIGHT
    assert min(box.y for box in geometry(with_caption).boxes.values()) >= content_top(with_caption)
    long_caption = diagram("T", [Node("a", "A")], [], caption="x" * 300)
    assert geometry(long_caption).width >= 300 * 6


def test_a_box_tooltip_shows_its_label_and_each_detail_on_lines_of_their_own():
    box = Node("a", "ASSESS", detail=("Read, Glob, Grep", "line\nbreak inside"))
    svg = diagram_svg(diagram("Tips", (box,), ()))
    tooltip = ElementTree.fromstring(svg).find(".//{http://www.w3.org/2000/svg}g/{http://www.w3.org/2000/svg}title")
    assert tooltip.text.split("\n") == ["ASSESS", "Read, Glob, Grep", "line\\x0abreak inside"]
