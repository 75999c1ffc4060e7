"""What ``progress=True`` shows while a run goes: a display plugged in from above, never imported from here.

The runtime sits below the layers that draw (viz, widgets), so it cannot make
a progress bar itself. The package plugs one in where it can be shown: inside
IPython, ``alp_nb.widgets.notebook.install`` (run by ``import alp_nb``) plugs in
a ``RunProgress`` widget. With nothing plugged in (a plain script), asking for
progress is refused with a hint; the command line draws its own text bar.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import WorkflowInputError
from .events import Subscriber

ProgressDisplay = Callable[[], Subscriber]
"""Makes (and shows) a fresh display for one run; the run hands it each event."""

_display: list[ProgressDisplay] = []


def show_progress_with(display: ProgressDisplay | None) -> None:
    """Plug in how ``progress=True`` is shown (None unplugs it)."""
    _display[:] = [] if display is None else [display]


def progress_subscriber() -> Subscriber:
    """A new progress display for a run, or INVALID_OPTION when there is nowhere to show one."""
    if not _display:
        raise WorkflowInputError("INVALID_OPTION", "progress=True shows a progress bar in a notebook; outside "
                                 "one, pass on_event= a callable to follow the run's events")
    return _display[0]()
