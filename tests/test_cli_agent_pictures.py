"""``alp-nb agent graph`` and ``alp-nb agent matrix``: the delegation graph and the capability matrix of the
registry a session in the project gets, as text, SVG, Mermaid or HTML, printed through ``viz.terminal``."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
from custom_agent_files import write_agent

from alp_nb.agents import TOOL_CATALOG, TrustStore, load_project_agents
from alp_nb.cli import main
from alp_nb.viz.pictures.delegation import REPORTS_ONLY


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


def agent(capsys, project: Path, *argv: str) -> tuple[int, str]:
    code = main(["agent", *argv, "--project", str(project)])
    captured = capsys.readouterr()
    assert captured.err == ""
    return code, captured.out


def test_graph_prints_the_delegation_graph_as_text_by_default(capsys, project):
    code, out = agent(capsys, project, "graph")
    lines = out.splitlines()
    assert code == 0
    assert lines[:3] == ["Delegation", "  principal  (the person in charge)", f"      → Phở 🍜  ({REPORTS_ONLY})"]
    assert "  Worker 🛠️  (worker)" in lines


def test_graph_greys_out_an_untrusted_project_agent_and_draws_a_trusted_one(capsys, project):
    write_agent(project, "migrator")
    write_agent(project, "planner")
    TrustStore().trust(project, next(each for each in load_project_agents(project).loaded if each.id == "migrator"))
    _, out = agent(capsys, project, "graph")
    assert "  Migrator  (migrator)" in out.splitlines()
    assert "  Migrator  [greyed out]  (planner; untrusted)" in out.splitlines()


def test_graph_as_svg_is_one_well_formed_document(capsys, project):
    code, out = agent(capsys, project, "graph", "--format", "svg")
    assert code == 0
    ElementTree.fromstring(out)
    assert out.count("<svg ") == 1


def test_graph_as_mermaid_is_a_flowchart(capsys, project):
    _, out = agent(capsys, project, "graph", "--format", "mermaid")
    assert out.splitlines()[:2] == ["%% Delegation", "flowchart TD"]


def test_graph_escapes_the_control_characters_of_a_display_name(capsys, project):
    write_agent(project, "migrator", displayName="Mig\x1b[2Jrator")
    _, out = agent(capsys, project, "graph")
    assert "\x1b" not in out and "Mig\\x1b[2Jrator" in out


def test_matrix_prints_roles_by_tools_and_by_state_the_tools_open_then(capsys, project):
    code, out = agent(capsys, project, "matrix")
    assert code == 0
    assert out.splitlines()[1].split()[:10] == ["role", *TOOL_CATALOG]
    code, out = agent(capsys, project, "matrix", "--by-state")
    assert code == 0
    assert out.splitlines()[0] == "Tools open in each state"
    assert "IMPLEMENT" in out


def test_matrix_as_svg_and_html(capsys, project):
    _, svg = agent(capsys, project, "matrix", "--format", "svg", "--by-state")
    ElementTree.fromstring(svg)
    _, html = agent(capsys, project, "matrix", "--format", "html")
    assert html.count("<table>") == 1 and "<th>WebSearch</th>" in html


def test_an_unknown_format_is_a_usage_error(capsys, project):
    with pytest.raises(SystemExit) as refused:
        main(["agent", "matrix", "--format", "mermaid", "--project", str(project)])
    assert refused.value.code == 2
    capsys.readouterr()
