"""One rendering path: every core object is drawn by the view that ``VIEWS`` names, in each format it has.

The core layers hold no display code at all. A view is a set of functions in one viz module, named
``<view>_<format>`` (``agent_card_html``, ``agent_card_text``); ``render(obj, fmt)`` finds the view of the object's
class (or of the nearest base class that has one) and calls it. A view that draws only some formats of some objects
(a picture without a Mermaid form) says which with ``<view>_formats(obj)``. The table holds names, not classes, so
reading it imports nothing: ``alp_nb.viz.display`` registers every class with IPython by name, and a module is
imported only when one of its objects is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from types import MappingProxyType
from typing import Any, Literal

from alp_nb.viz.errors import VizError
from alp_nb.viz.html import svg_as_images
from alp_nb.viz.terminal import plain

Format = Literal["html", "text", "markdown", "svg", "mermaid"]
FORMATS: tuple[Format, ...] = ("html", "text", "markdown", "svg", "mermaid")

MIME_TYPES: Mapping[Format, str] = MappingProxyType({
    "text": "text/plain", "html": "text/html", "markdown": "text/markdown", "svg": "image/svg+xml",
})
"""What a notebook receives for each format (Mermaid text has no MIME type a notebook draws)."""

VIEWS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "alp_nb.agents.definition.AgentDefinition": ("alp_nb.viz.views.agents", "agent_card"),
    "alp_nb.agents.registry.AgentRegistry": ("alp_nb.viz.views.agents", "agent_registry"),
    "alp_nb.agents.policy_requests.Authorization": ("alp_nb.viz.views.agents", "authorization"),
    "alp_nb.agents.workflow_definition.WorkflowDefinition": ("alp_nb.viz.views.workflows", "workflow"),
    "alp_nb.agents.output_contract.OutputContract": ("alp_nb.viz.views.workflows", "output_contract"),
    "alp_nb.agents.output_contract.OutputValidation": ("alp_nb.viz.views.workflows", "validation"),
    "alp_nb.workflow.execution_state.WorkflowExecutionState": ("alp_nb.viz.views.workflows", "execution_state"),
    "alp_nb.workflow.session.WorkflowSession": ("alp_nb.viz.views.workflows", "session"),
    "alp_nb.workflow.session.SessionStep": ("alp_nb.viz.views.workflows", "session_step"),
    "alp_nb.workflow.executions.ExecutionStatus": ("alp_nb.viz.views.workflows", "execution_status"),
    "alp_nb.runtime.run.WorkflowRun": ("alp_nb.viz.views.runs", "run"),
    "alp_nb.runtime.snapshot.RunSnapshot": ("alp_nb.viz.views.runs", "snapshot"),
    "alp_nb.replay.record.RunRecord": ("alp_nb.viz.views.records", "run_record"),
    "alp_nb.replay.plan.ResumePlan": ("alp_nb.viz.views.plans", "resume_plan"),
    "alp_nb.replay.session.ReplaySession": ("alp_nb.viz.views.replays", "replay_session"),
    "alp_nb.replay.session.ReplayCall": ("alp_nb.viz.views.replays", "replay_call"),
    "alp_nb.replay.compare.RunComparison": ("alp_nb.viz.views.replays", "run_comparison"),
    "alp_nb.runtime.saved_workflows.WorkflowRegistry": ("alp_nb.viz.views.runs", "workflow_registry"),
    "alp_nb.loops.loop_contract.LoopContract": ("alp_nb.viz.views.loop_contracts", "loop_contract"),
    "alp_nb.loops.lint.Findings": ("alp_nb.viz.views.loop_contracts", "findings"),
    "alp_nb.loops.simulator.Simulation": ("alp_nb.viz.views.simulation", "simulation"),
    "alp_nb.loops.expectations.Grades": ("alp_nb.viz.views.simulation", "grades"),
    "alp_nb.loops.firing.FiringSimulation": ("alp_nb.viz.views.firings", "firing_simulation"),
    "alp_nb.loops.contract_diff.ContractDiff": ("alp_nb.viz.views.contract_changes", "contract_diff"),
    "alp_nb.loops.learn.LearnedFindings": ("alp_nb.viz.views.contract_changes", "learned_findings"),
    "alp_nb.viz.pictures.picture.Picture": ("alp_nb.viz.pictures.picture", "picture"),
})
"""Each core class (``module.Class``) and its view: the viz module and the stem of its functions."""


def render(obj: Any, fmt: Format = "html") -> str:
    """``obj`` drawn in ``fmt``; ``VizError`` (``NO_VIEW``) if nothing draws it that way."""
    if fmt not in FORMATS:
        raise VizError("UNKNOWN_FORMAT", f"unknown format `{fmt}`; one of {', '.join(FORMATS)}")
    drawer = _drawer(obj, fmt)
    if drawer is None:
        raise VizError("NO_VIEW", f"alp_nb draws no {fmt} view of {type(obj).__name__}")
    return str(drawer(obj))


def formats_of(obj: Any) -> tuple[Format, ...]:
    """The formats ``render`` can draw ``obj`` in."""
    return tuple(fmt for fmt in FORMATS if _drawer(obj, fmt) is not None)


def mimebundle(obj: Any) -> dict[str, str]:
    """What a notebook shows for ``obj``: every format it has that a notebook can display, plain text always. The
    plain text has its control characters shown as ``\\xNN``: a notebook obeys ANSI escapes in plain text. Its
    pictures are images in the HTML (``html.svg_as_images``), so they draw in a notebook opened untrusted."""
    bundle = {MIME_TYPES[fmt]: render(obj, fmt) for fmt in formats_of(obj) if fmt in MIME_TYPES}
    if "text/plain" in bundle:
        bundle["text/plain"] = plain(bundle["text/plain"])
    if "text/html" in bundle:
        bundle["text/html"] = svg_as_images(bundle["text/html"])
    return bundle


def view_of(cls: type) -> tuple[str, str] | None:
    """The view of ``cls``, or of its nearest base class that has one."""
    for klass in cls.__mro__:
        view = VIEWS.get(f"{klass.__module__}.{klass.__qualname__}")
        if view is not None:
            return view
    return None


def _drawer(obj: Any, fmt: Format) -> Any:
    view = view_of(type(obj))
    if view is None:
        return None
    module, stem = view
    found = import_module(module)
    formats = getattr(found, f"{stem}_formats", None)
    if formats is not None and fmt not in formats(obj):
        return None
    return getattr(found, f"{stem}_{fmt}", None)
