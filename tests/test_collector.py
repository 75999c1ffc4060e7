"""A run inside a user's process leaves the interpreter as it found it: the garbage collector on or off as it was,
its thresholds, and what the user froze still frozen with nothing frozen beside it, also while two runs overlap.
(A frozen object that dies leaves the frozen count, so the count may only fall, never rise.) Nothing in the
package reaches for the collector at all: what a run holds for long says so on its type (msgspec's ``gc=False``)."""

from __future__ import annotations

import asyncio
import gc
import re
from pathlib import Path

import pytest

from alp_nb.replay import load_run, plan_resume
from alp_nb.runtime import MockAgentRunner, run_workflow, run_workflow_sync

PACKAGE = Path(__file__).resolve().parents[1] / "alp_nb"
CHANGES = {"changes": "rename parse() to load()"}


class Found:
    """The collector as a user left it: on, thresholds of their own, an object of their own frozen."""

    def __init__(self) -> None:
        self.kept = [["the user's own"]]
        gc.collect()
        gc.freeze()
        self.frozen = gc.get_freeze_count()

    def holds(self) -> bool:
        """Still on with the user's thresholds, the user's object still frozen, nothing frozen since."""
        still_frozen = not any(thing is self.kept for thing in gc.get_objects())  # frozen: not in any generation
        return (gc.isenabled() and gc.get_threshold() == (1234, 7, 9) and still_frozen
                and 0 < gc.get_freeze_count() <= self.frozen)


@pytest.fixture
def collector():
    was = (gc.isenabled(), gc.get_threshold())
    gc.enable()
    gc.set_threshold(1234, 7, 9)
    yield Found()
    gc.unfreeze()
    gc.set_threshold(*was[1])
    if was[0]:
        gc.enable()
    else:
        gc.disable()


def test_a_run_its_resume_its_plan_and_its_record_leave_the_collector_exactly_as_found(collector, store):
    run = run_workflow_sync("review-changes", CHANGES, store=store, runner=MockAgentRunner())
    assert collector.holds()
    resumed = run_workflow_sync("review-changes", resume_from_run_id=run.run_id, store=store, runner=MockAgentRunner())
    assert resumed.status == "completed" and collector.holds()
    plan_resume(run.run_id, store=store)
    load_run(run.run_id, store=store).timeline  # noqa: B018 (making the timeline is what is checked)
    assert collector.holds()


def test_two_overlapping_runs_leave_the_collector_exactly_as_found(collector, store):
    async def both() -> list[str]:
        runs = await asyncio.gather(*(run_workflow("review-changes", CHANGES, store=store, runner=MockAgentRunner())
                                      for _ in range(2)))
        return [run.status for run in runs]

    assert asyncio.run(both()) == ["completed", "completed"]
    assert collector.holds()


def test_a_disabled_collector_stays_disabled_through_a_run(collector, store):
    gc.disable()
    run_workflow_sync("review-changes", CHANGES, store=store, runner=MockAgentRunner())
    assert not gc.isenabled()


def test_no_module_of_the_package_touches_the_collector():
    calls = re.compile(r"\bgc\.(freeze|unfreeze|disable|enable|set_threshold|collect)\(")
    touching = [str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py") if calls.search(path.read_text())]
    assert touching == []


def test_a_freeze_another_library_makes_during_a_run_outlives_the_run(store):
    """Nothing frozen as the run starts; a runner (standing for any library) freezes its own objects mid-run."""
    gc.unfreeze()
    theirs = [["another library's"]]

    class FreezingRunner(MockAgentRunner):
        def run(self, prompt, schema, label):
            if not gc.get_freeze_count():
                gc.freeze()
            return super().run(prompt, schema, label)

    try:
        assert run_workflow_sync("review-changes", CHANGES, store=store, runner=FreezingRunner()).status == "completed"
        assert gc.get_freeze_count() > 0 and not any(thing is theirs for thing in gc.get_objects())
    finally:
        gc.unfreeze()
