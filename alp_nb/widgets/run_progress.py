"""``RunProgress``: a live run in a notebook, a bar and a phase line that follow its events as they come.

It is a subscriber (``on_event=progress``), so the runtime never imports it;
``run_workflow_sync(..., progress=True)`` makes and shows one through the
display ``alp_nb.widgets.notebook`` plugs into the runtime.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from alp_nb.base.errors import AlpError
from alp_nb.replay.follow import ENDED, RunFollower
from alp_nb.replay.record import RunRecord
from alp_nb.viz.html import esc
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.views.runs import CallTally


class RunProgress(widgets.VBox):
    """``bar`` counts finished calls of those started (cached ones too); ``phase`` names the current phase and
    tells cached, failed and cancelled calls apart; ``status`` says how the run ended. Its plain text (``repr``)
    says the same in words: what a page without the widget (GitHub, nbviewer, a saved notebook) shows.
    ``display_handle``, when the widget was shown with one, is updated as the run ends, so the saved output
    holds the ending rather than "waiting for the run to start"."""

    def __init__(self) -> None:
        self.display_handle: Any = None
        self._ending: tuple[str, str] | None = None  # (how the run ended, its error), once it has
        self.tally = CallTally()
        self.bar = widgets.IntProgress(value=0, min=0, max=1, description="calls", bar_style="info")
        self.phase = widgets.HTML(value=WAITING)
        self.status = widgets.HTML(value="")
        super().__init__([self.bar, self.phase, self.status])
        self.add_class("alp-run-progress")

    def __call__(self, event: dict[str, Any]) -> None:
        self.tally.add(event)
        self._draw()
        if event.get("type") == "task_notification":
            self._ended(event.get("status", ""), str(event.get("error") or ""), event.get("runId") or "")

    def _draw(self) -> None:
        """The bar never moves back: its length and its end only ever grow."""
        tally = self.tally
        self.bar.max = max(self.bar.max, tally.started, 1)
        self.bar.value = max(self.bar.value, tally.finished)
        phase = f"phase <b>{esc(tally.phase)}</b> · " if tally.phase else ""
        self.phase.value = phase + esc(_finished(tally))

    def _ended(self, ended: str, error: str, run_id: str) -> None:
        self.bar.bar_style = {"completed": "success", "failed": "danger"}.get(ended, "warning")
        self.status.value = f"run <code>{esc(run_id)}</code> {esc(ended)}" + (f": {esc(error)}" if error else "")
        self._ending = (ended, error)
        if self.display_handle is not None:
            self.display_handle.update(self)

    def follow(self, run: Any, store: Any = None, *, interval: float = 0.5) -> RunFollower:
        """Follow a run another process is writing (a run id in ``store``, ``(RunStore, run_id)``...): the bar and
        phase line follow its files, polled, until it ends. The returned follower's ``start`` thread does the
        polling; ``follower.record`` is the last reading."""
        follower = RunFollower(run, store, interval=interval)
        follower.start(self._read, on_error=self._unreadable)
        return follower

    def _unreadable(self, error: AlpError) -> None:
        self.bar.bar_style = "danger"
        self.status.value = f"stopped following: {esc(error.message)}"

    def _read(self, record: RunRecord) -> None:
        """One reading of a followed run: the same tally the events would have made, from its calls."""
        self.tally.read(record.timeline.spans)
        self._draw()
        if record.status in ENDED:
            self._ended(record.status, record.error or "", record.run_id)

    def __repr__(self) -> str:
        if self.phase.value == WAITING:
            return WAITING
        # widgets cut their plain text at 110 characters: how it ended first, the run id is in the run's view
        if self._ending is not None:
            words = [f"run {self._ending[0]}", _finished(self.tally), self._ending[1]]
        else:
            words = [f"phase {self.tally.phase}" if self.tally.phase else "", _finished(self.tally)]
        return plain_line(" · ".join(word for word in words if word))


WAITING = "waiting for the run to start"


def _finished(tally: CallTally) -> str:
    """``5 of 9 calls finished (2 cached)``."""
    return f"{tally.finished} of {tally.started} calls finished" + (f" ({tally.details})" if tally.details else "")
