"""The collector kept off a run's long-lived objects, and always left as it was found: on or off, frozen or not."""

from __future__ import annotations

import gc

import pytest

from alp_nb.base.collector import collector_paused, long_lived
from alp_nb.runtime import MockAgentRunner, run_workflow_sync


@pytest.fixture
def collector():
    """The collector on and nothing frozen, whatever a test does to it."""
    gc.enable()
    gc.unfreeze()
    yield
    gc.enable()
    gc.unfreeze()


@pytest.mark.parametrize("on", [True, False])
def test_a_paused_collector_is_off_in_the_block_and_as_it_was_after(collector, on):
    if not on:
        gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() is on


def test_a_paused_collector_is_as_it_was_after_the_block_raises(collector):
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError
    assert gc.isenabled()


def test_long_lived_freezes_what_is_alive_for_the_block_only(collector):
    with long_lived():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_long_lived_leaves_a_freeze_someone_else_made_alone(collector):
    gc.freeze()
    frozen = gc.get_freeze_count()
    with long_lived():
        pass
    assert gc.get_freeze_count() == frozen


def test_a_run_leaves_the_collector_on_and_nothing_frozen(collector, store):
    run = run_workflow_sync("review-changes", {"changes": "rename parse() to load()"}, store=store,
                            runner=MockAgentRunner())
    resumed = run_workflow_sync("review-changes", resume_from_run_id=run.run_id, store=store,
                                runner=MockAgentRunner())
    assert resumed.status == "completed"
    assert gc.isenabled() and gc.get_freeze_count() == 0
