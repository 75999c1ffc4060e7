"""What ``import alp_nb`` sets up inside IPython: rich views of every core object, and ``progress=True``.

The package calls ``install`` when IPython is already loaded (a kernel, an
IPython shell). It registers the views by name (nothing is imported until an
object is shown) and plugs a ``RunProgress`` widget into the runtime as the
display of ``run_workflow(..., progress=True)``.
"""

from __future__ import annotations

from alp_nb.runtime.events import Subscriber
from alp_nb.runtime.progress import show_progress_with
from alp_nb.viz import display


def install() -> None:
    display.install()
    show_progress_with(shown_progress)


def shown_progress() -> Subscriber:
    """A fresh ``RunProgress``, displayed in the cell that runs the workflow."""
    from IPython.display import display as show

    from .run_progress import RunProgress

    progress = RunProgress()
    progress.display_handle = show(progress, display_id=True)
    return progress
