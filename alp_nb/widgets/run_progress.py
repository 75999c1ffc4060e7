"""``RunProgress``: a live run in a notebook, a bar and a phase line that follow its events as they come.

It is a subscriber (``on_event=progress``), so the runtime never imports it;
``run_workflow_sync(..., progress=True)`` makes and shows one through the
display ``alp_nb.widgets.notebook`` plugs into the runtime.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from alp_nb.viz.html import esc
from alp_nb.viz.runs import CallTally


class RunProgress(widgets.VBox):
    """``bar`` counts finished calls of those started (cached ones too); ``phase`` names the current phase and
    tells cached, failed and cancelled calls apart; ``status`` says how the run ended."""

    def __init__(self) -> None:
        self.tally = CallTally()
        self.bar = widgets.IntProgress(value=0, min=0, max=1, description="calls", bar_style="info")
        self.phase = widgets.HTML(value="waiting for the run to start")
        self.status = widgets.HTML(value="")
        super().__init__([self.bar, self.phase, self.status])
        self.add_class("alp-run-progress")

    def __call__(self, event: dict[str, Any]) -> None:
        self.tally.add(event)
        tally = self.tally
        self.bar.max = max(tally.started, 1)
        self.bar.value = tally.finished
        counts = ", ".join(f"{count} {name}" for count, name in
                           ((tally.cached, "cached"), (tally.failed, "failed"), (tally.cancelled, "cancelled"))
                           if count)
        phase = f"phase <b>{esc(tally.phase)}</b> · " if tally.phase else ""
        self.phase.value = f"{phase}{tally.finished} of {tally.started} calls finished" + (
            f" ({esc(counts)})" if counts else "")
        if event.get("type") == "task_notification":
            ended = event.get("status", "")
            self.bar.bar_style = {"completed": "success", "failed": "danger"}.get(ended, "warning")
            error = f": {esc(event['error'])}" if event.get("error") else ""
            self.status.value = f"run <code>{esc(event.get('runId') or '')}</code> {esc(ended)}{error}"
