"""Every widget alp_nb offers, registered once, each with a small sample of itself built from a text.

``@register_widget(name)`` on a sample registers a widget kind, as ``viz.gallery`` does for pictures: the
hostile-input tests drive every registered widget's controls with hostile text, and the browser test shows each
in JupyterLab, so a widget registered here (or by a test fixture) is covered with no other edit.
"""

from __future__ import annotations

import ipywidgets as widgets

from alp_nb.agents.definition import define_agent
from alp_nb.agents.registry import AgentRegistry, create_agent_registry
from alp_nb.base.kinds import Kinds
from alp_nb.viz.pictures.gallery import role_document, sample_contract, sample_role, sample_timeline

WIDGETS: Kinds[widgets.Widget] = Kinds("widget")
"""Every kind of widget, each with its sample; register one with ``@register_widget(name)``."""
register_widget = WIDGETS.register


def as_role_id(text: str) -> str:
    """``text`` as an agent file can hold it in an id: no lone surrogate, and no colon, which the registry refuses
    in an id for the memory scope it would name."""
    return text.encode("utf-8", "replace").decode().replace(":", "-")


def sample_registry(text: str) -> AgentRegistry:
    """A registry of a lead role delegating to a role whose id, name, states and output hold ``text`` (as an id
    can: ``as_role_id``)."""
    text = as_role_id(text)
    lead = role_document("lead", text, tools=["Read"], scopes=["private:lead"], roots=["."], delegates=[text],
                         states=("WORK", "DONE"))
    role = role_document(text, text, tools=["Read"], scopes=[f"private:{text}"], roots=["."], delegates=[],
                         states=(text, "DONE" + text), reports_to="lead")
    return create_agent_registry([define_agent(lead), define_agent(role)])


@register_widget("registry explorer")
def _registry_explorer(text: str) -> widgets.Widget:
    from .registry_explorer import RegistryExplorer

    return RegistryExplorer(sample_registry(text))


@register_widget("workflow stepper")
def _workflow_stepper(text: str) -> widgets.Widget:
    from .workflow_stepper import WorkflowStepper

    return WorkflowStepper(sample_role(text))


@register_widget("contract editor")
def _contract_editor(text: str) -> widgets.Widget:
    from .contract_editor import ContractEditor

    return ContractEditor(sample_contract(text))


@register_widget("run viewer")
def _run_viewer(text: str) -> widgets.Widget:
    from .run_viewer import RunViewer

    return RunViewer(sample_timeline(text))


@register_widget("run progress")
def _run_progress(text: str) -> widgets.Widget:
    """A progress bar fed a run's events whose phase and error are ``text``."""
    from .run_progress import RunProgress

    progress = RunProgress()
    for event in ({"type": "workflow_phase", "title": text},
                  {"type": "workflow_agent", "status": "started", "label": text},
                  {"type": "workflow_agent", "status": "failed", "label": text},
                  {"type": "task_notification", "status": "failed", "error": text, "runId": text}):
        progress(event)
    return progress
