"""``fork_run``: a stored run forked with some answers or prompts replaced, run to its end in the same store.

The runtime's fork does the work (``runtime.fork``): the new run starts with every call the source journaled,
the replaced answers and prompts put in, and its script serves the unaffected calls from that journal; only what
depends on a replacement misses it and runs. A fork's ``runner`` answers those calls (the mock by default, as
``run_workflow``'s); nothing of the source run changes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from alp_nb.runtime.fork import Fork
from alp_nb.runtime.run import run_workflow_sync
from alp_nb.runtime.saved_workflows import WorkflowRegistry
from alp_nb.runtime.store import RunStore

from .locate import locate_run
from .record import RunRecord, load_run


def fork_run(run: Any, overrides: Mapping[str, Any] | None = None, prompts: Mapping[str, str] | None = None, *,
             store: RunStore | str | os.PathLike[str] | None = None, registry: WorkflowRegistry | None = None,
             runner: Any = None, agent_cap: int = 1000) -> RunRecord:
    """Fork ``run`` (a RunRecord, WorkflowRun, ``(RunStore, run_id)`` or a run id in ``store``): ``overrides`` maps
    call labels to the answers the fork gets instead, ``prompts`` labels to the prompts it asks instead. Runs the
    fork to its end and returns it, read back; the runtime's refusals (a label never journaled, a value its
    schema refuses) come before anything is written. ``agent_cap`` bounds the fork's calls, as on resume."""
    source_store, run_id = locate_run(run, store)
    name = source_store.read_snapshot(run_id).workflow_name
    fork = Fork(run_id, dict(overrides or {}), dict(prompts or {}))
    made = run_workflow_sync(name, store=source_store, registry=registry, runner=runner, fork=fork,
                             agent_cap=agent_cap)
    return load_run(made.run_id, store=source_store)
