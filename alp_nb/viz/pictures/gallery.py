"""Every kind of picture alp_nb draws, registered once, each with a small sample of itself.

A picture kind is registered with ``@register_picture(name)`` on its sample: a function that takes a text and
returns a small picture of that kind in which the strings it draws hold that text (names, labels, phases). The
samples are what a newcomer browses (``for kind in PICTURES``), and what the tests draw with hostile text and the
browser test shows in JupyterLab, so a picture registered here (or by a test fixture) is covered with no other
edit. The objects the samples draw are built here from the text (``sample_role``, ``sample_contract``,
``sample_timeline``), as hand-written definitions, a contract and a run's calls would hold it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from alp_nb.base.kinds import Kinds
from alp_nb.viz.pictures.picture import Picture

if TYPE_CHECKING:
    from alp_nb.agents.definition import AgentDefinition
    from alp_nb.loops.loop_contract import LoopContract
    from alp_nb.replay.timeline import Timeline
    from alp_nb.runtime.journal.outcomes import CallOutcome

PICTURES: Kinds[Picture] = Kinds("picture")
"""Every kind of picture, each with its sample; register one with ``@register_picture(name)``."""
register_picture = PICTURES.register
SAMPLE_OUTCOMES: tuple[CallOutcome, ...] = ("live", "cached", "retried", "failed", "cancelled")
"""The outcomes of a sample timeline's calls, one call each."""


def sample_role(text: str, suffix: str = "") -> AgentDefinition:
    """A role (not checked by a registry) whose id, name, tools, memory scopes, roots and states hold ``text``."""
    from alp_nb.agents.definition import define_agent

    return define_agent(role_document(text + suffix, text, tools=["Read", text], scopes=[text], roots=[text],
                                      delegates=[text + suffix], states=(text, "DONE")))


def role_document(agent_id: str, text: str, *, tools: list[str], scopes: list[str], roots: list[str],
                  delegates: list[str], states: tuple[str, str], reports_to: str = "principal") -> dict[str, Any]:
    """An agent definition as ALP's camelCase data: named, instructed and with its output named by ``text``,
    walking its two ``states`` (the first allowed every tool), holding ``tools``, reading and writing the memory
    ``scopes``, the workspace ``roots`` (writing them unless they are ``.``)."""
    from alp_nb.agents.workflow_definition import WorkflowDefinition

    workflow = WorkflowDefinition.linear(agent_id, [(states[0], tools), (states[1], [])])
    return {
        "id": agent_id, "displayName": text, "reportsTo": reports_to, "delegatesTo": delegates,
        "model": {"claude": "claude-opus-5", "codex": "gpt-5.6-sol"},
        "reasoningEffort": {"claude": "high", "codex": "high"},
        "capabilities": {"tools": tools, "skills": [], "subagents": [], "mcpServers": [],
                         "memory": {"read": scopes, "write": scopes},
                         "workspace": {"readRoots": roots, "writeRoots": [root for root in roots if root != "."]}},
        "instructions": {"role": text, "purpose": text, "rules": [text]},
        "workflow": workflow.model_dump(by_alias=True),
        "output": {"name": text, "schema": {"type": "string", "minLength": 1}},
    }


def sample_contract(text: str, base: LoopContract | None = None) -> LoopContract:
    """A schema-valid loop contract (``base``, or a template) whose name, objective, trigger, intake, actions, gate,
    role, escalation, exit and owner hold ``text`` (as JSON or YAML text can: a lone surrogate becomes ``?``)."""
    from alp_nb.loops.loop_contract import LoopContract

    text = text.encode("utf-8", "replace").decode()
    document = (base or LoopContract.template(text)).to_document()
    document["name"] = document["objective"] = text
    document["trigger"]["cadence_or_event"] = document["intake"]["selection_rule"] = text
    document["workspace"]["allowed_actions"] = [text]
    document["verification"]["gates"] = [text]
    document["agents"][0]["role"] = text
    document["escalation"]["destination"] = document["exit"]["success"] = text
    document["x_alp_nb"] = {"version": 1, "owner": text, "budget": {"max_tokens": 1000, "max_concurrency": 2}}
    return LoopContract.from_document(document)


def sample_timeline(text: str) -> Timeline:
    """A run of five calls, one of each outcome in ``SAMPLE_OUTCOMES``, whose title, labels, phase and note are
    ``text``."""
    from alp_nb.replay.timeline import CallSpan, PhaseTokens, Timeline

    spans = tuple(CallSpan(key=f"agent-{index}", label=text, phase=text, start=float(index), end=index + 0.5,
                           outcome=outcome, tokens=10)
                  for index, outcome in enumerate(SAMPLE_OUTCOMES))
    return Timeline(title=text, spans=spans, tokens=(PhaseTokens(phase=text, attempt=10, cumulative=50),), note=text)


@register_picture("delegation graph")
def _delegation(text: str) -> Picture:
    from alp_nb.viz.pictures.delegation import delegation_graph

    return delegation_graph([sample_role(text), sample_role(text, "2")])


@register_picture("state machine")
def _state_machine(text: str) -> Picture:
    from alp_nb.viz.pictures.state_machines import state_machine
    from alp_nb.workflow.session import WorkflowSession

    return state_machine(WorkflowSession(sample_role(text)))


@register_picture("status lifecycle")
def _status_lifecycle(text: str) -> Picture:
    """The run statuses: fixed words, so ``text`` has nowhere to go."""
    from alp_nb.viz.pictures.state_machines import status_lifecycle

    return status_lifecycle("running")


@register_picture("capability matrix")
def _capability_matrix(text: str) -> Picture:
    from alp_nb.viz.pictures.capabilities import capability_matrix

    return capability_matrix([sample_role(text), sample_role(text, "2")])


@register_picture("capability matrix by state")
def _capability_matrix_by_state(text: str) -> Picture:
    from alp_nb.viz.pictures.capabilities import capability_matrix

    return capability_matrix([sample_role(text), sample_role(text, "2")], by_state=True)


@register_picture("contract flow")
def _contract_flow(text: str) -> Picture:
    from alp_nb.viz.pictures.contract_picture import contract_flow

    return contract_flow(sample_contract(text))


@register_picture("run timeline")
def _run_timeline(text: str) -> Picture:
    from alp_nb.viz.pictures.timeline_picture import run_timeline

    return run_timeline(sample_timeline(text))

