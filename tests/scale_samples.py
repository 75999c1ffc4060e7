"""The sizes real teams reach, for the pictures' tests, the browser's gallery and ``benchmarks/render.py``: a
project of custom agents (most trusted, some not), and a run of a given number of calls over three phases whose
last call fails."""

from __future__ import annotations

from pathlib import Path

from custom_agent_files import write_agent
from runtime_support import FailingRunner

from alp_nb.agents import TrustStore, load_project_agents
from alp_nb.agents.trusted_registry import ProjectRegistry, project_registry
from alp_nb.replay import RunRecord, load_run
from alp_nb.runtime import RunStore, WorkflowRegistry, run_workflow_sync

NAMES = ("Dependency Bumper", "Schema Migrator", "Flaky Test Hunter", "Release Noter", "Docs Linter",
         "License Checker", "Perf Watcher", "API Differ")
PHASES = (("triage", 0.5), ("review", 0.45), ("verify", 0.05))
"""Each phase of the scale run and its share of the calls."""


def custom_agent_project(root: Path, trusted: int, untrusted: int) -> ProjectRegistry:
    """A project under ``root`` with ``trusted + untrusted`` custom agents (``custom-000``...), the first
    ``trusted`` of them trusted in a trust store of its own."""
    project = root / "project"
    for index in range(trusted + untrusted):
        write_agent(project, f"custom-{index:03d}", displayName=f"{NAMES[index % len(NAMES)]} {index}")
    loaded = {definition.id: definition for definition in load_project_agents(project).loaded}
    store = TrustStore(root / "trust.json")
    for index in range(trusted):
        store.trust(project, loaded[f"custom-{index:03d}"])
    return project_registry(project, store)


SCALE = WorkflowRegistry()


def _counts(calls: int) -> list[tuple[str, int]]:
    """Each phase and its calls, ``calls`` in all."""
    counts = [(phase, round(calls * share)) for phase, share in PHASES]
    return [*counts[:-1], (counts[-1][0], calls - sum(count for _, count in counts[:-1]))]


async def _phased(ctx, args):
    """Each phase's calls at once, phase after phase."""
    done = 0
    for phase, count in _counts(args["calls"]):
        ctx.phase(phase)
        done += len(await ctx.parallel([lambda i=i, phase=phase: ctx.agent(f"{phase} item {i}", label=f"{phase}-{i}")
                                        for i in range(count)]))
    return done


SCALE.register({"name": "phased-fanout", "description": "three phases of parallel calls"}, _phased)


def scale_run(root: Path, calls: int = 2000) -> RunRecord:
    """A ``calls``-call run in a store under ``root`` whose last call fails (every other call answered), read
    back."""
    store = RunStore(root / "runs")
    phase, count = _counts(calls)[-1]
    run = run_workflow_sync("phased-fanout", {"calls": calls}, store=store, registry=SCALE, agent_cap=calls,
                            runner=FailingRunner({f"{phase}-{count - 1}"}, tokens=10))
    assert run.status == "failed", run.status
    return load_run(run.run_id, store=store)
