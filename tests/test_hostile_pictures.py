"""Every picture built from hostile strings: markup, attribute breakouts, CDATA ends, direction and zero-width
characters, huge labels. Hypothesis mixes them into every text a picture draws, and for each format: the SVG is
one well-formed XML document of known elements and attributes only, the HTML around it holds no tag or attribute
the strings brought, and the Mermaid text gives them no syntax."""

from __future__ import annotations

from hostile_text import (
    CHECK,
    HOSTILE,
    assert_inert_mermaid,
    assert_safe_html,
    assert_safe_svg,
    hostile_agent,
    hostile_contract,
    hostile_timeline,
)
from hypothesis import given

from alp_nb.viz import (
    capability_matrix,
    contract_flow,
    delegation_graph,
    mimebundle,
    render,
    run_timeline,
    state_machine,
)
from alp_nb.workflow import WorkflowSession


def assert_every_format_is_safe(picture: object) -> None:
    assert_safe_svg(picture.to_svg())  # type: ignore[attr-defined]  # every picture has to_svg
    assert_safe_html(render(picture, "html"))
    to_mermaid = getattr(picture, "to_mermaid", None)
    if to_mermaid is not None:
        assert_inert_mermaid(to_mermaid())
    assert not [char for char in "\x1b\u202e" if char in mimebundle(picture)["text/plain"]]


@CHECK
@given(text=HOSTILE)
def test_a_delegation_graph_of_hostile_roles_is_safe_in_every_format(text):
    assert_every_format_is_safe(delegation_graph([hostile_agent(text), hostile_agent(text, "2")]))


@CHECK
@given(text=HOSTILE)
def test_a_state_machine_of_a_hostile_role_is_safe_in_every_format(text):
    agent = hostile_agent(text)
    assert_every_format_is_safe(state_machine(agent))
    assert_every_format_is_safe(state_machine(WorkflowSession(agent)))


@CHECK
@given(text=HOSTILE)
def test_a_capability_matrix_of_hostile_roles_is_safe_in_every_format(text):
    roles = [hostile_agent(text), hostile_agent(text, "2")]
    assert_every_format_is_safe(capability_matrix(roles))
    assert_every_format_is_safe(capability_matrix(roles, by_state=True))


@CHECK
@given(text=HOSTILE)
def test_the_flow_of_a_hostile_contract_is_safe_in_every_format(text):
    text = text.encode("utf-8", "replace").decode()  # a contract is JSON or YAML text: no lone surrogates
    assert_every_format_is_safe(contract_flow(hostile_contract(text)))


@CHECK
@given(text=HOSTILE)
def test_the_timeline_of_a_run_with_hostile_labels_and_phases_is_safe_in_every_format(text):
    assert_every_format_is_safe(run_timeline(hostile_timeline(text)))
