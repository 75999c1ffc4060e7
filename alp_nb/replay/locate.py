"""Which stored run a replay function or a view is given: a record, a run just made, ``(store, run_id)`` or a run id;
and the one coercion of any of them into the read model, a ``RunRecord``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from alp_nb.runtime.keys import validate_run_id
from alp_nb.runtime.run import WorkflowRun
from alp_nb.runtime.store import RunStore

from .errors import ReplayError
from .record import RunRecord, load_run, store_of
from .timeline import Timeline


def locate_run(run: Any, store: RunStore | str | os.PathLike[str] | None = None) -> tuple[RunStore, str]:
    """The store and id of ``run``: a ``RunRecord`` (its own store), a ``WorkflowRun`` (the store its output file
    is in, unless ``store`` is given), ``(RunStore, run_id)``, or a run id in ``store`` (default ``./.alp-runs``)."""
    if isinstance(run, tuple) and len(run) == 2 and isinstance(run[0], RunStore):
        return run[0], validate_run_id(run[1])
    if isinstance(run, WorkflowRun):
        folder = store if store is not None else Path(run.launched.output_file).parent
        return store_of(folder), run.run_id
    if isinstance(run, str):
        return store_of(store), validate_run_id(run)
    record_store, run_id = getattr(run, "store", None), getattr(run, "run_id", None)
    if isinstance(record_store, RunStore) and isinstance(run_id, str):
        return record_store, validate_run_id(run_id)
    raise ReplayError("INVALID_OPTION", "a run is a RunRecord, a WorkflowRun, (RunStore, run_id) or a run id, not "
                      f"{type(run).__name__}")


def record_of(run: Any, store: RunStore | str | os.PathLike[str] | None = None) -> RunRecord:
    """The one read model of any run a view is given: a ``RunRecord`` as it is; a ``WorkflowRun``,
    ``(RunStore, run_id)`` or a run id (in ``store``, default ``./.alp-runs``) read once with ``load_run``."""
    if isinstance(run, RunRecord):
        return run
    located_store, run_id = locate_run(run, store)
    return load_run(run_id, store=located_store)


def timeline_of(run: Any) -> Timeline:
    """The timeline of a run: a ``Timeline`` as it is, else the timeline of ``record_of(run)``."""
    return run if isinstance(run, Timeline) else record_of(run).timeline
