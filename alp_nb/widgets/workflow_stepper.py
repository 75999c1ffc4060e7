"""``WorkflowStepper``: step one role's workflow by hand, with its state machine redrawn after every move.

A learner understands the runner's rules by breaking them: so a refused move is
shown (the runner's code and message, and a line in the history) instead of
raising, and the tool box answers "is this tool open now?" after every move.
Buttons that cannot do anything in the current status are disabled; the same
moves called from code (``stepper.transition()``...) still reach the runner
and show its refusal. Everything shown is read back from the ``WorkflowSession``,
escaped, cut to a readable length, and with invisible direction or width
characters made visible (``viz.terminal.plain``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from alp_nb.agents.catalog import TOOL_CATALOG
from alp_nb.agents.definition import AgentDefinition
from alp_nb.agents.output_contract import OutputValidation
from alp_nb.agents.workflow_definition import WorkflowDefinition
from alp_nb.base.text import clip
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted
from alp_nb.viz.html import badge, block, esc, status_badge
from alp_nb.viz.pictures.picture import picture_html
from alp_nb.viz.pictures.state_machines import state_machine
from alp_nb.viz.rendering import render
from alp_nb.viz.terminal import plain, plain_line
from alp_nb.viz.views.workflows import session_step_text
from alp_nb.workflow.errors import WorkflowError
from alp_nb.workflow.execution_state import LIVE_STATUSES, MAX_OUTPUT_REPAIR_ATTEMPTS
from alp_nb.workflow.session import SessionStep, WorkflowSession

from .shown_text import shown

AWAITING_OUTPUT = ("awaiting-output", "repairing")
"""The statuses in which the runner takes an output."""
REFUSED_COLOUR = "#c62828"
ID_CHARS, LINE_CHARS = 120, 400
"""The most characters shown of an id (a state, a tool, a contract) and of a message or a line of history."""


class WorkflowStepper(widgets.VBox):
    """Drive ``session`` with ``transition_button`` (to ``next_state``), ``submit_button`` (``output_text``),
    ``cancel_button`` and ``back_button``, or with the methods of the same names. ``picture`` holds the state
    machine, ``status`` where the execution is, ``message`` what the last move did (the runner's refusal, or the
    contract's verdict), ``tool``/``tool_answer`` whether a tool is open now, and ``history`` every move. After
    moving ``session`` by hand, ``refresh()`` shows where it is."""

    def __init__(self, agent_or_session: AgentDefinition | WorkflowDefinition | WorkflowSession) -> None:
        self.session = (agent_or_session if isinstance(agent_or_session, WorkflowSession)
                        else WorkflowSession(agent_or_session))
        self.status, self.picture, self.message = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self.next_state = widgets.Dropdown(description="next state")
        self.transition_button = widgets.Button(description="transition", icon="arrow-right", button_style="primary")
        self.back_button = widgets.Button(description="back", icon="undo")
        self.cancel_button = widgets.Button(description="cancel", icon="times", button_style="warning")
        self.output_note = widgets.HTML(_output_note(self.session))
        self.output_text = widgets.Textarea(placeholder="the role's final output",
                                            layout=widgets.Layout(width="60%", height="5em"))
        self.submit_button = widgets.Button(description="submit", icon="check", button_style="success")
        self.tool = widgets.Combobox(description="tool open?", value="Write", placeholder="a tool name",
                                     options=_tools(self.session), ensure_option=False)
        self.tool_answer = widgets.HTML()
        self.history = widgets.HTML()
        history = widgets.Accordion(children=[self.history], titles=("history: every move, refused ones too",),
                                    selected_index=0)
        super().__init__([
            self.status, self.picture,
            widgets.HBox([self.next_state, self.transition_button, self.back_button, self.cancel_button]),
            self.output_note, widgets.HBox([self.output_text, self.submit_button]), self.message,
            widgets.HBox([self.tool, self.tool_answer]), history,
        ])
        self.add_class("alp-workflow-stepper")
        for part, name in ((self.status, "status"), (self.picture, "picture"), (self.message, "message"),
                           (self.history, "history")):
            part.add_class(f"alp-stepper-{name}")  # stable hooks for the page (tests/test_browser.py)
        self.transition_button.on_click(lambda _button: self.transition(self.next_state.value))
        self.submit_button.on_click(lambda _button: self._submit_text())
        self.cancel_button.on_click(lambda _button: self.cancel())
        self.back_button.on_click(lambda _button: self.back())
        self.tool.observe(lambda _change: self._answer_tool(), names="value")
        self.refresh()

    def __repr__(self) -> str:
        """What a page without the widget shows (GitHub, nbviewer): the session in words."""
        state, who = self.session.state, self.session.agent.id if self.session.agent else self.session.definition.id
        return plain_line(f"WorkflowStepper: {who} at {state.current_state} ({state.status})")

    def transition(self, next_state: str | None = None) -> None:
        """Move to ``next_state`` (by default the single next state); a refusal is shown, not raised."""
        self._move(lambda: self.session.transition(next_state))

    def submit(self, value: Any) -> None:
        """Submit ``value`` as the output; the contract's verdict, or the runner's refusal, is shown."""
        self._move(lambda: self.session.submit(value))

    def cancel(self) -> None:
        self._move(self.session.cancel)

    def back(self) -> None:
        """Return to the snapshot before the last accepted move."""
        self._move(self.session.back)

    def refresh(self) -> None:
        """Redraw everything from the session: after each move, or after ``session`` was moved by hand."""
        self._redraw(None)

    def _move(self, move: Callable[[], object]) -> None:
        try:
            move()
        except WorkflowError as refusal:
            self._redraw(refusal)
        else:
            self._redraw(None)

    def _submit_text(self) -> None:
        """Submit ``output_text`` as typed to a text contract; to any other, the JSON it holds."""
        text = self.output_text.value
        if self.session.contract.kind == "text":
            self.submit(text)
            return
        try:
            value = loads_untrusted(text)
        except UntrustedJson as error:
            self.message.value = _block(f"{badge('not submitted', 'warn')} the output must be JSON for this "
                                       f"contract: {shown(error.message, LINE_CHARS)}")
            return
        self.submit(value)

    def _redraw(self, refusal: WorkflowError | None) -> None:
        session, state = self.session, self.session.state
        self.status.value = _block(f"{status_badge(state.status)} at <code>{shown(state.current_state)}</code> · "
                                  f"repair attempts {state.repair_attempts} of {MAX_OUTPUT_REPAIR_ATTEMPTS}")
        self.picture.value = picture_html(state_machine(session))
        running = state.status == "running"
        following = session.definition.states[state.current_state].transitions if running else ()
        self.next_state.options = [(plain_line(clip(each, ID_CHARS)), each) for each in following]
        self.next_state.index = 0 if following else None  # new options select nothing by themselves
        self.next_state.layout.visibility = "visible" if following else "hidden"
        self.transition_button.disabled = not following
        self.submit_button.disabled = state.status not in AWAITING_OUTPUT
        self.cancel_button.disabled = state.status not in LIVE_STATUSES
        self.back_button.disabled = _depth(session.history) == 1
        self.message.value = _last_move(session.history[-1], refusal)
        self.history.value = _history(session.history)
        self._answer_tool()

    def _answer_tool(self) -> None:
        tool, state, allowed = self.tool.value, self.session.state, self.session.allowed_tools
        if not tool:
            self.tool_answer.value = _block('<span class="muted">type a tool name</span>')
            return
        where = (f"in <code>{shown(state.current_state)}</code>" if state.status == "running"
                 else f"while {state.status}")
        if self.session.is_tool_allowed(tool):
            self.tool_answer.value = _block(f"{badge('yes', 'ok')} <code>{shown(tool)}</code> is open {where}")
        else:
            self.tool_answer.value = _block(f"{badge('no', 'bad')} <code>{shown(tool)}</code> is not open {where}; "
                                            f"open now: {_names(allowed)}")


def _tools(session: WorkflowSession) -> tuple[str, ...]:
    """The catalog's tools, then any other tool a state of the workflow names: the ones worth asking about."""
    named = (tool for state in session.definition.states.values() for tool in state.allowed_tools)
    return tuple(dict.fromkeys((*TOOL_CATALOG, *named)))


def _output_note(session: WorkflowSession) -> str:
    contract = session.contract
    how = "submitted as typed" if contract.kind == "text" else "parsed as JSON, then checked"
    return _block(f"output: {shown(contract.kind)} contract <code>{shown(contract.name)}</code>; the text below is "
                  f"{how}")


def _depth(history: tuple[SessionStep, ...]) -> int:
    """How many snapshots the session holds (``back`` needs two): one per accepted move, less one per step back."""
    moves = sum(1 for step in history if step.accepted and step.action not in ("initialize", "back"))
    return 1 + moves - sum(1 for step in history if step.accepted and step.action == "back")


def _last_move(step: SessionStep, refusal: WorkflowError | None) -> str:
    """What the last move did: refused (with the runner's code when the stepper made the move), the contract's
    verdict on an output, or accepted."""
    if step.refused is not None:
        code = f"<code>{esc(refusal.code)}</code> " if refusal is not None else ""
        return _block(f"{badge('refused', 'bad')} {shown(step.action)}: {code}{shown(step.refused, LINE_CHARS)}")
    if step.validation is not None:
        return _verdict(step.validation, step)
    if step.action == "initialize":
        hint = ("transition from state to state, then submit the output in the final state"
                if step.state.status == "running" else "already in the final state: submit the output")
        return _block(f'<span class="muted">started: {hint}</span>')
    return _block(f"{badge('accepted', 'ok')} {shown(step.action)}")


def _verdict(validation: OutputValidation, step: SessionStep) -> str:
    return _block(plain(render(validation, "html")) + f"the execution is now {status_badge(step.state.status)}")


def _block(inner: str) -> str:
    """A styled fragment in which an id or an output of thousands of characters without a space wraps rather
    than widening the widget."""
    return block(f'<div style="overflow-wrap:anywhere">{inner}</div>')


def _history(history: tuple[SessionStep, ...]) -> str:
    """Every move, numbered from the start; a refused one in red."""
    items = "".join(f'<li style="color:{REFUSED_COLOUR}">{shown(session_step_text(step), LINE_CHARS)}</li>'
                    if step.refused else f"<li>{shown(session_step_text(step), LINE_CHARS)}</li>" for step in history)
    return _block(f'<ol start="0">{items}</ol>')


def _names(tools: tuple[str, ...]) -> str:
    return ", ".join(f"<code>{shown(tool)}</code>" for tool in tools) or "none"

