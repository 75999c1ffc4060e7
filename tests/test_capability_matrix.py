"""The capability matrix: roles × the nine tools with memory and workspace grants beside them, or a row per role
and workflow state with the tools really open then; a table with its own model, drawn as SVG, an HTML table, text
and matplotlib, and shown in a notebook through the one rendering path."""

from __future__ import annotations

from xml.etree import ElementTree

import matplotlib
import pytest

from alp_nb.agents import TOOL_CATALOG, builtin_registry
from alp_nb.viz.models.matrix import Cell, Matrix, Row
from alp_nb.viz.pictures.capabilities import GRANT_COLUMNS, capability_matrix
from alp_nb.viz.pictures.matrix_picture import MatrixPicture
from alp_nb.viz.rendering import formats_of, render
from alp_nb.workflow import WorkflowExecutionState, effective_tools

matplotlib.use("Agg")
SVG = "{http://www.w3.org/2000/svg}"
REGISTRY = builtin_registry()


def rows_by_label(matrix: Matrix, width: int = 1) -> dict[tuple[str, ...], Row]:
    """Rows by their first ``width`` cells' text (a state row without its role's name takes the role above)."""
    found, role = {}, ""
    for row in matrix.rows:
        role = "".join(row.cells[0].lines) or role
        found[(role, *("".join(cell.lines) for cell in row.cells[1:width]))] = row
    return found


def opened(matrix: Matrix, row: Row) -> list[str]:
    return [column for column, cell in zip(matrix.columns, row.cells, strict=True) if cell.mark == "open"]


def test_a_row_per_role_the_nine_tools_and_the_grants_beside_them():
    matrix = capability_matrix(REGISTRY).matrix
    assert matrix.columns == ("role", *TOOL_CATALOG, *GRANT_COLUMNS)
    rows = rows_by_label(matrix)
    assert list(rows) == [(definition.id,) for definition in REGISTRY]
    assert opened(matrix, rows[("worker",)]) == list(TOOL_CATALOG)
    assert opened(matrix, rows[("main",)]) == list(REGISTRY.get("main").capabilities.tools)
    assert opened(matrix, rows[("titling",)]) == []
    worker_grants = dict(zip(matrix.columns[-4:], rows[("worker",)].cells[-4:], strict=True))
    assert worker_grants["memory write"] == Cell(("private:worker",), "grant")
    assert worker_grants["workspace write"] == Cell((".",), "grant")
    assert rows[("main",)].cells[-1] == Cell(("—",), "none")


def test_worker_in_verify_shows_exactly_the_tools_it_holds_there():
    matrix = capability_matrix(REGISTRY, by_state=True).matrix
    verify = rows_by_label(matrix, 2)[("worker", "VERIFY")]
    assert opened(matrix, verify) == ["Read", "Glob", "Grep", "Bash"]
    marks = dict(zip(matrix.columns, (cell.mark for cell in verify.cells), strict=True))
    assert marks["Write"] == "closed"  # granted to worker, closed in VERIFY
    assert marks["WebSearch"] == "closed"


def test_each_state_row_opens_what_effective_tools_says_and_the_final_state_nothing():
    matrix = capability_matrix(REGISTRY, by_state=True).matrix
    rows = rows_by_label(matrix, 2)
    assert len(rows) == sum(len(definition.workflow.states) for definition in REGISTRY)
    for definition in REGISTRY:
        for state_id, state in definition.workflow.states.items():
            snapshot = WorkflowExecutionState(workflow_id=definition.workflow.id, current_state=state_id,
                                              status="awaiting-output" if state.terminal else "running")
            assert opened(matrix, rows[(definition.id, state_id)]) == list(effective_tools(definition, snapshot))
            if state.terminal:
                assert opened(matrix, rows[(definition.id, state_id)]) == []
    assert [row.opens_group for row in matrix.rows].count(True) == len(REGISTRY)


def test_a_matrix_refuses_a_row_that_does_not_fit_its_columns():
    with pytest.raises(ValueError, match="2 cells for 1 columns"):
        Matrix("T", ("a",), (Row((Cell(), Cell())),))
    with pytest.raises(ValueError, match="unknown mark"):
        Matrix("T", ("a",), (Row((Cell(mark="sparkly"),)),))


@pytest.mark.parametrize("by_state", [False, True])
def test_svg_parses_and_holds_the_labels_as_text(by_state):
    picture = capability_matrix(REGISTRY, by_state=by_state)
    texts = [element.text for element in ElementTree.fromstring(picture.to_svg()).iter(f"{SVG}text")]
    assert {*TOOL_CATALOG, "worker", "titling"} <= set(texts)
    assert ("VERIFY" in texts) is by_state and ("private:librarian" in texts) is not by_state
    assert texts.count("✓") == sum(len(opened(picture.matrix, row)) for row in picture.matrix.rows) + 1  # + legend


def test_html_is_a_table_with_a_row_per_role():
    html = capability_matrix(REGISTRY).to_html()
    assert html.count("<table>") == 1 and html.count("<tr") == 1 + len(REGISTRY)
    assert "<th>WebSearch</th>" in html and "private:worker" in html


def test_text_aligns_the_columns_and_marks_open_tools():
    lines = capability_matrix(REGISTRY, by_state=True).to_text().splitlines()
    assert lines[0] == "Tools open in each state"
    header = next(line for line in lines if line.startswith("role"))
    assert header.split() == ["role", "state", *TOOL_CATALOG]
    verify = next(line for line in lines if line.split()[:1] == ["VERIFY"] and "·" in line and "✓" in line)
    assert verify.index("✓") == header.index("Read")


def test_draw_returns_axes_with_the_labels():
    ax = capability_matrix(REGISTRY, by_state=True).draw()
    assert {"Read", "WebFetch", "worker", "IMPLEMENT", "✓"} <= {text.get_text() for text in ax.texts}


def test_a_matrix_shows_through_the_one_rendering_path_without_mermaid():
    picture = capability_matrix(REGISTRY)
    assert isinstance(picture, MatrixPicture)
    assert formats_of(picture) == ("html", "text", "svg")
    assert render(picture, "html") == picture.to_html() and render(picture, "svg") == picture.to_svg()
    assert set(picture._repr_mimebundle_()) == {"text/html", "text/plain", "image/svg+xml"}


def test_a_matrix_wider_than_the_notebook_column_scrolls_inside_its_output():
    html = capability_matrix(builtin_registry()).to_html()
    before_table = html[:html.index("<table>")]
    assert before_table.endswith('<div style="overflow-x:auto;max-width:100%">')
    assert html.index("</table></div>") > html.index("<table>")
