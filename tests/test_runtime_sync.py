"""``run_workflow_sync`` in a notebook cell: the run gets a loop of its own in a worker thread, so the kernel's
loop is never re-entered (cells queued by "Run All" stay queued), and an interrupt cancels the run."""

from __future__ import annotations

import _thread
import asyncio
import threading

import pytest
from runtime_support import registry

from alp_nb.runtime import MockAgentRunner, run_workflow_sync
from alp_nb.runtime.progress import show_progress_with


def test_inside_a_running_loop_the_run_has_a_loop_of_its_own_and_the_callers_queued_work_waits(store):
    threads, queued = [], []

    async def cell():
        asyncio.get_running_loop().call_soon(queued.append, "the next cell")
        run = run_workflow_sync("sequence", {"calls": 2}, store=store, registry=registry(),
                                on_call=lambda call: threads.append(threading.current_thread()))
        assert queued == []  # the kernel's loop was not re-entered while the run went
        return run

    run = asyncio.run(cell())
    assert run.status == "completed" and queued == ["the next cell"]
    assert len(threads) == 2 and threading.main_thread() not in threads


def test_without_a_running_loop_the_run_stays_in_the_calling_thread(store):
    threads = []
    run_workflow_sync("sequence", {"calls": 1}, store=store, registry=registry(),
                      on_call=lambda call: threads.append(threading.current_thread()))
    assert threads == [threading.main_thread()]


def test_an_interrupt_while_a_cell_waits_cancels_the_run_and_is_raised(store):
    class Slow(MockAgentRunner):
        async def run(self, prompt, schema=None, label=""):
            threading.Timer(0.05, _thread.interrupt_main).start()  # Ctrl-C, or the kernel's stop button
            await asyncio.sleep(30)

    async def cell():
        return run_workflow_sync("sequence", {"calls": 2}, store=store, registry=registry(), runner=Slow())

    loop = asyncio.new_event_loop()  # as a kernel's: an interrupt raises KeyboardInterrupt (asyncio.run's would
    try:                              # cancel its main task instead)
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(cell())
    finally:
        loop.close()
    (run_id,) = store.run_ids()
    assert store.read_snapshot(run_id).status == "cancelled"


def test_a_progress_display_is_made_in_the_thread_of_the_cell_that_asked_for_it(store):
    made_in = []

    def display():
        made_in.append(threading.current_thread())
        return lambda event: None

    show_progress_with(display)
    try:
        async def cell():
            return run_workflow_sync("sequence", {"calls": 1}, store=store, registry=registry(), progress=True)

        assert asyncio.run(cell()).status == "completed"
    finally:
        show_progress_with(None)
    assert made_in == [threading.main_thread()]
